/* The broadphase's pairs as a set, so that a body whose fat box moved can ask whether a pair
 * it finds is listed already (Box2D v3's pair set, b2HashSet, serves its b2UpdateBroadPhasePairs
 * the same way). Open addressing with linear probing over a power-of-two table of 64-bit keys
 * (the lower slot in the high half, the higher in the low; 0 is never a key, since the higher
 * slot of two different slots is at least 1), at most half full; a key is removed by shifting
 * the probe run after it back (Knuth's algorithm R, 6.4), so no tombstones build up. */
#include <string.h>

#include "broadphase.h"

static uint64_t key_of(uint32_t a, uint32_t b)
{
    uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    return (uint64_t)lo << 32 | hi;
}

/* Fibonacci hashing (Knuth 6.4): the top bits of the key times 2^64 / phi. */
static size_t home_of(uint64_t key, size_t mask)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

static void put(uint64_t *table, size_t mask, uint64_t key)
{
    size_t i = home_of(key, mask);
    while (table[i] != 0)
        i = (i + 1) & mask;
    table[i] = key;
}

/* Makes the table hold `keys` keys at most half full; the keys in it are kept. */
static bool ensure_room(sim_broadphase *bp, size_t keys)
{
    size_t size = bp->pair_set.v.len;
    if (size != 0 && 2 * keys <= size)
        return true;
    size_t grown = size ? size : 64;
    while (2 * keys > grown)
        grown *= 2;
    mk_vec fresh = mk_vec_make(sizeof(uint64_t));
    if (!mk_vec_resize(&fresh, grown))
        return false;
    uint64_t *table = fresh.data;
    memset(table, 0, grown * sizeof *table);
    const uint64_t *old = bp->pair_set.at;
    for (size_t i = 0; i < size; i++)
        if (old[i] != 0)
            put(table, grown - 1, old[i]);
    mk_vec_free(&bp->pair_set.v);
    bp->pair_set.v = fresh;
    return true;
}

bool sim_pair_set_clear(sim_broadphase *bp, size_t keys)
{
    bp->pair_set_count = 0;
    if (bp->pair_set.v.len != 0)
        memset(bp->pair_set.at, 0, bp->pair_set.v.len * sizeof(uint64_t));
    return ensure_room(bp, keys);
}

int sim_pair_set_add(sim_broadphase *bp, uint32_t a, uint32_t b)
{
    if (!ensure_room(bp, bp->pair_set_count + 1))
        return -1;
    uint64_t key = key_of(a, b), *table = bp->pair_set.at;
    size_t mask = bp->pair_set.v.len - 1;
    size_t i = home_of(key, mask);
    for (; table[i] != 0; i = (i + 1) & mask)
        if (table[i] == key)
            return 0;
    table[i] = key;
    bp->pair_set_count++;
    return 1;
}

bool sim_pair_set_has(const sim_broadphase *bp, uint32_t a, uint32_t b)
{
    if (bp->pair_set.v.len == 0)
        return false;
    uint64_t key = key_of(a, b);
    const uint64_t *table = bp->pair_set.at;
    size_t mask = bp->pair_set.v.len - 1;
    for (size_t i = home_of(key, mask); table[i] != 0; i = (i + 1) & mask)
        if (table[i] == key)
            return true;
    return false;
}

void sim_pair_set_remove(sim_broadphase *bp, uint32_t a, uint32_t b)
{
    if (bp->pair_set.v.len == 0)
        return;
    uint64_t key = key_of(a, b), *table = bp->pair_set.at;
    size_t mask = bp->pair_set.v.len - 1;
    size_t i = home_of(key, mask);
    for (; table[i] != key; i = (i + 1) & mask)
        if (table[i] == 0)
            return; /* not in the set */
    /* Algorithm R: a key further on whose home is not cyclically within (i, j] moves into
     * the hole, which then moves to where that key was. */
    for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
        if (table[j] == 0)
            break;
        size_t home = home_of(table[j], mask);
        bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays)
            continue;
        table[i] = table[j];
        i = j;
    }
    table[i] = 0;
    bp->pair_set_count--;
}
