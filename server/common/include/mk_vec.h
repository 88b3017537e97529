/* The growable array every layer uses (vec.c), after Box2D's b2Array: items of one type laid
 * end to end, grown by doubling and reused, so that a pass that runs every tick allocates
 * nothing once its arrays have their size.
 *
 * `mk_vec` is the untyped array (its item size inside), which code that walks many arrays
 * alike takes (the world's image copies every array of the world through it). `MK_VEC(T)` is
 * the same array with its items typed: `v.at[i]` is a T, `v.v` the untyped array the functions
 * take, and MK_VEC_PUSH checks the pushed value's type at compile time:
 *
 *     MK_VEC(uint32_t) slots = MK_VEC_INIT(uint32_t);
 *     if (!MK_VEC_PUSH(&slots, 7u)) ...out of memory...
 *     uint32_t first = slots.at[0];
 *     mk_vec_free(&slots.v);
 *
 * The union reads the array's data pointer as a T pointer (C11 6.5.2.3: the bytes of the
 * member last written, read as the other member's type). */
#ifndef MK_VEC_H
#define MK_VEC_H

#include <stdbool.h>
#include <stddef.h>

typedef struct mk_vec {
    void *data;
    size_t len, cap; /* items */
    size_t item;     /* bytes an item */
} mk_vec;

#define MK_VEC(T)                                                                            \
    union {                                                                                  \
        mk_vec v;                                                                            \
        T *at;                                                                               \
    }
#define MK_VEC_INIT(T) {.v = {.item = sizeof(T)}}
/* Appends `value` (a T); false when memory ran out, the array unchanged. */
#define MK_VEC_PUSH(x, value)                                                                \
    (mk_vec_reserve(&(x)->v, (x)->v.len + 1) ? ((x)->at[(x)->v.len++] = (value), true) : false)

/* An empty array of items of `item` bytes. */
static inline mk_vec mk_vec_make(size_t item) { return (mk_vec){.item = item}; }
/* Room for at least `cap` items (doubling from 16); false when memory ran out. */
bool mk_vec_reserve(mk_vec *v, size_t cap);
/* Copies one item to the end; false when memory ran out, the array unchanged. */
bool mk_vec_push(mk_vec *v, const void *item);
/* Sets the length to `len`, growing the room as needed (new items are not cleared); false
 * when memory ran out, the array unchanged. */
bool mk_vec_resize(mk_vec *v, size_t len);
/* Frees the items; the array is empty and usable again, its item size kept. */
void mk_vec_free(mk_vec *v);

#endif
