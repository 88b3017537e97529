/* glTF files (.glb and .gltf, no external buffers): whatever the bytes, reading either fails
 * with a message that names the file, or gives triangles whose indices are within the
 * vertices and whose vertices are finite and within the level's limit, which the mesh build
 * then takes or refuses with a message. */
#include <string.h>

#include "fuzz_mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wio_mesh_data m;
    mk_error err = {0};
    if (wio_gltf_parse(data, size, "fuzz.glb", NULL, 100000, &m, &err) != 0) {
        fuzz_check(strncmp(err.message, "fuzz.glb", 8) == 0);
        return 0;
    }
    fuzz_check_mesh(&m, 100000);
    col_mesh3_desc d = {(const mk_vec3 *)m.vertices, m.nvertices, &m.triangles[0][0],
                        3 * m.ntriangles, 100000, COL_ACTIVE_EDGE_COS};
    sim_level *l = sim_level_mesh3(&d, &err);
    sim_level_release(l);
    wio_mesh_data_free(&m);
    return 0;
}
