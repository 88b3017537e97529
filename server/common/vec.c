/* The growable array (mk_vec.h). */
#include "mk_vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool mk_vec_reserve(mk_vec *v, size_t cap)
{
    if (cap <= v->cap)
        return true;
    size_t n = v->cap ? v->cap : 16;
    while (n < cap) {
        if (n > SIZE_MAX / 2)
            return false;
        n *= 2;
    }
    if (v->item && n > SIZE_MAX / v->item)
        return false;
    void *p = realloc(v->data, n * v->item);
    if (!p)
        return false;
    v->data = p;
    v->cap = n;
    return true;
}

bool mk_vec_push(mk_vec *v, const void *item)
{
    if (!mk_vec_reserve(v, v->len + 1))
        return false;
    memcpy((char *)v->data + v->len * v->item, item, v->item);
    v->len++;
    return true;
}

bool mk_vec_resize(mk_vec *v, size_t len)
{
    if (!mk_vec_reserve(v, len))
        return false;
    v->len = len;
    return true;
}

void mk_vec_free(mk_vec *v)
{
    free(v->data);
    v->data = NULL;
    v->len = v->cap = 0;
}
