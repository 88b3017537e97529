/* Writes level.glb, the example level beside it: rolling terrain of 48 x 48 one-metre cells and
 * a few blocks on it (a ramp, a step, a wall), as glTF 2.0 in one .glb, the way Blender exports
 * a level: +Y up, metres, the meshes under a root node that places them (here 1 m down, as a
 * model whose origin is its highest ground would be placed). Run as `make_level level.glb`;
 * tests/CMakeLists.txt checks that the committed level.glb is this program's output. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELLS 48
#define SIDE (CELLS + 1)

static float height(int i, int j)
{
    double x = i - CELLS / 2.0, z = j - CELLS / 2.0;
    return (float)(1.2 * sin(x / 5.0) * cos(z / 6.5) + 0.4 * sin((x + z) / 3.0));
}

/* A block: a box from lo to hi as 8 corners and 12 triangles, counter-clockwise outside. */
static void block(float *v, uint16_t *t, uint16_t base, const float lo[3], const float hi[3])
{
    for (int k = 0; k < 8; k++) {
        v[3 * k] = k & 1 ? hi[0] : lo[0];
        v[3 * k + 1] = k & 2 ? hi[1] : lo[1];
        v[3 * k + 2] = k & 4 ? hi[2] : lo[2];
    }
    static const uint16_t faces[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                                       2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
    for (int k = 0; k < 36; k++)
        t[k] = (uint16_t)(base + faces[k]);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_level OUT.glb\n");
        return 2;
    }
    /* The terrain: its vertices, then its triangles (two a cell, facing up). */
    static float tv[SIDE * SIDE * 3];
    static uint16_t tt[CELLS * CELLS * 6];
    for (int j = 0; j < SIDE; j++)
        for (int i = 0; i < SIDE; i++) {
            float *p = &tv[3 * (j * SIDE + i)];
            p[0] = (float)(i - CELLS / 2);
            p[1] = height(i, j);
            p[2] = (float)(j - CELLS / 2);
        }
    int n = 0;
    for (int j = 0; j < CELLS; j++)
        for (int i = 0; i < CELLS; i++) {
            uint16_t a = (uint16_t)(j * SIDE + i), b = (uint16_t)(a + 1),
                     c = (uint16_t)(a + SIDE), d = (uint16_t)(c + 1);
            const uint16_t tri[6] = {a, c, d, a, d, b};
            memcpy(&tt[n], tri, sizeof tri);
            n += 6;
        }
    /* The blocks: a step, a wall and a long low slab, in one mesh of their own. */
    static float bv[3 * 8 * 3];
    static uint16_t bt[3 * 36];
    const float lo[3][3] = {{4, 0, 4}, {-10, 0, 8}, {-6, 0, -12}};
    const float hi[3][3] = {{7, 1.2f, 7}, {-9, 3, 16}, {6, 0.6f, -9}};
    for (int k = 0; k < 3; k++)
        block(&bv[24 * k], &bt[36 * k], (uint16_t)(8 * k), lo[k], hi[k]);

    /* The binary chunk: terrain vertices, terrain indices, block vertices, block indices, each
     * at a multiple of 4. */
    size_t sizes[4] = {sizeof tv, sizeof tt, sizeof bv, sizeof bt}, offs[4], len = 0;
    for (int k = 0; k < 4; k++) {
        offs[k] = len;
        len += (sizes[k] + 3) & ~(size_t)3;
    }
    uint8_t *bin = calloc(1, len);
    const void *parts[4] = {tv, tt, bv, bt};
    for (int k = 0; k < 4; k++)
        memcpy(bin + offs[k], parts[k], sizes[k]);
    float tmin[3] = {1e9f, 1e9f, 1e9f}, tmax[3] = {-1e9f, -1e9f, -1e9f};
    for (int k = 0; k < SIDE * SIDE * 3; k++) {
        tmin[k % 3] = fminf(tmin[k % 3], tv[k]);
        tmax[k % 3] = fmaxf(tmax[k % 3], tv[k]);
    }
    char json[4096];
    int jl = snprintf(
        json, sizeof json,
        "{\"asset\":{\"version\":\"2.0\",\"generator\":\"Mink examples/levels/make_level.c\"},"
        "\"scene\":0,\"scenes\":[{\"name\":\"Level\",\"nodes\":[0]}],"
        "\"nodes\":[{\"name\":\"Level\",\"translation\":[0,-1,0],\"children\":[1,2]},"
        "{\"name\":\"Terrain\",\"mesh\":0},{\"name\":\"Blocks\",\"mesh\":1,"
        "\"rotation\":[0,0.13052619,0,0.99144486]}],"
        "\"meshes\":[{\"name\":\"Terrain\",\"primitives\":[{\"attributes\":{\"POSITION\":0},"
        "\"indices\":1,\"mode\":4}]},{\"name\":\"Blocks\",\"primitives\":[{\"attributes\":"
        "{\"POSITION\":2},\"indices\":3}]}],"
        "\"accessors\":["
        "{\"bufferView\":0,\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\","
        "\"min\":[%g,%g,%g],\"max\":[%g,%g,%g]},"
        "{\"bufferView\":1,\"componentType\":5123,\"count\":%d,\"type\":\"SCALAR\"},"
        "{\"bufferView\":2,\"componentType\":5126,\"count\":24,\"type\":\"VEC3\"},"
        "{\"bufferView\":3,\"componentType\":5123,\"count\":108,\"type\":\"SCALAR\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}],"
        "\"buffers\":[{\"byteLength\":%zu}]}",
        SIDE * SIDE, (double)tmin[0], (double)tmin[1], (double)tmin[2], (double)tmax[0],
        (double)tmax[1], (double)tmax[2], CELLS * CELLS * 6, offs[0], sizes[0], offs[1],
        sizes[1], offs[2], sizes[2], offs[3], sizes[3], len);
    while (jl % 4)
        json[jl++] = ' ';
    uint32_t head[5] = {0x46546C67u, 2, (uint32_t)(12 + 8 + jl + 8 + len), (uint32_t)jl,
                        0x4E4F534Au};
    uint32_t chunk[2] = {(uint32_t)len, 0x004E4942u};
    FILE *f = fopen(argv[1], "wb");
    if (!f || fwrite(head, 1, 20, f) != 20 || fwrite(json, 1, (size_t)jl, f) != (size_t)jl ||
        fwrite(chunk, 1, 8, f) != 8 || fwrite(bin, 1, len, f) != len || fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    free(bin);
    return 0;
}
