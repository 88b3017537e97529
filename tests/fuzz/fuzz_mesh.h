/* What any mesh a level file reader gives must hold, whatever the file's bytes: at least one
 * triangle and at most the reader's limit, every index within the vertices, every vertex
 * finite and within the level's coordinate limit (COL_LEVEL_MAX_COORD). */
#ifndef MINK_FUZZ_MESH_H
#define MINK_FUZZ_MESH_H

#include <math.h>

#include "fuzz.h"
#include "mink_world_io.h"

static void fuzz_check_mesh(const wio_mesh_data *m, uint32_t max_triangles)
{
    fuzz_check(m->ntriangles > 0 && m->ntriangles <= max_triangles);
    for (uint32_t t = 0; t < m->ntriangles; t++)
        for (int k = 0; k < 3; k++)
            fuzz_check(m->triangles[t][k] < m->nvertices);
    for (uint32_t v = 0; v < m->nvertices; v++)
        for (int k = 0; k < 3; k++)
            fuzz_check(isfinite(m->vertices[v][k]) &&
                       fabsf(m->vertices[v][k]) <= COL_LEVEL_MAX_COORD);
}

#endif
