/* Wavefront .obj files: whatever the bytes, reading either fails with a message that names
 * the file, or gives triangles whose indices are within the vertices and whose vertices are
 * finite and within the level's limit. */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "mink_world_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wio_mesh_data m;
    mk_error err = {0};
    if (wio_obj_parse(data, size, "fuzz.obj", 100000, &m, &err) != 0) {
        fuzz_check(strncmp(err.message, "fuzz.obj", 8) == 0);
        return 0;
    }
    fuzz_check(m.ntriangles > 0 && m.ntriangles <= 100000);
    for (uint32_t t = 0; t < m.ntriangles; t++)
        for (int k = 0; k < 3; k++)
            fuzz_check(m.triangles[t][k] < m.nvertices);
    for (uint32_t v = 0; v < m.nvertices; v++)
        for (int k = 0; k < 3; k++)
            fuzz_check(isfinite(m.vertices[v][k]) &&
                       fabsf(m.vertices[v][k]) <= COL_LEVEL_MAX_COORD);
    wio_mesh_data_free(&m);
    return 0;
}
