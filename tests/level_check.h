/* Shared by the level suites (test_mesh3.c, test_level3.c): a mesh built or the test fails,
 * the placement at the origin, and the contact settings of a body. */
#ifndef MINK_LEVEL_CHECK_H
#define MINK_LEVEL_CHECK_H

#include <check.h>

#include "mink_collision.h"

static const col_xf3 IDENTITY = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 1.0f}};

static inline col_mesh3 build_mesh(const mk_vec3 *v, uint32_t nv, const uint32_t *idx,
                                   uint32_t ni, float cos_threshold)
{
    col_mesh3 m;
    mk_error err = {0};
    col_mesh3_desc d = {v, nv, idx, ni, 1u << 24, cos_threshold};
    ck_assert_msg(col_mesh3_build(&d, &m, &err) == 0, "%s", err.message);
    return m;
}

/* A body's way of meeting triangles: back faces ignored, no motion known. */
static inline col_tri_contact3 contact(float margin)
{
    return (col_tri_contact3){margin, COL_BACK_FACES_IGNORE, {0, 0, 0}, 0.0f, false};
}

#endif
