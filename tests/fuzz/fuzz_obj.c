/* Wavefront .obj files: whatever the bytes, reading either fails with a message that names
 * the file, or gives triangles whose indices are within the vertices and whose vertices are
 * finite and within the level's limit. */
#include <string.h>

#include "fuzz_mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wio_mesh_data m;
    mk_error err = {0};
    if (wio_obj_parse(data, size, "fuzz.obj", 100000, &m, &err) != 0) {
        fuzz_check(strncmp(err.message, "fuzz.obj", 8) == 0);
        return 0;
    }
    fuzz_check_mesh(&m, 100000);
    wio_mesh_data_free(&m);
    return 0;
}
