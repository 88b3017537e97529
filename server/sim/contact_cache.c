/* The contact cache: last step's impulses of every touching pair, found by the pair's body ids
 * (ids carry generations, so a body that took a removed body's slot never inherits its
 * impulses). Two caches take turns: the step reads the last one and writes the next, so a pair
 * that stopped touching simply is not written again. */
#include <stdlib.h>
#include <string.h>

#include "world_internal.h"

static size_t slot_of(sim_id a, sim_id b, size_t cap)
{
    /* Fibonacci hashing of both ids (Knuth, TAOCP vol. 3, 6.4). */
    uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full);
    h ^= h >> 29;
    return (size_t)(h & (cap - 1));
}

bool sim_cache_reserve(sim_cache *c, size_t entries)
{
    c->entries.item = sizeof(sim_cache_entry);
    if (!sim_vec_reserve(&c->entries, entries))
        return false;
    if (2 * entries <= c->table_cap)
        return true;
    size_t cap = c->table_cap ? c->table_cap : 64;
    while (cap < 2 * entries)
        cap *= 2;
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t)
        return false;
    free(c->table);
    c->table = t;
    c->table_cap = cap;
    /* Entries stay; their table is rebuilt. */
    const sim_cache_entry *e = c->entries.data;
    for (size_t i = 0; i < c->entries.len; i++) {
        size_t s = slot_of(e[i].a, e[i].b, cap);
        while (t[s] != 0)
            s = (s + 1) & (cap - 1);
        t[s] = (uint32_t)i + 1;
    }
    return true;
}

void sim_cache_clear(sim_cache *c)
{
    if (c->entries.len > 0 && c->table)
        memset(c->table, 0, c->table_cap * sizeof *c->table);
    c->entries.len = 0;
}

void sim_cache_free(sim_cache *c)
{
    sim_vec_free(&c->entries);
    free(c->table);
    c->table = NULL;
    c->table_cap = 0;
}

const sim_cache_entry *sim_cache_find(const sim_cache *c, sim_id a, sim_id b)
{
    if (c->entries.len == 0)
        return NULL;
    const sim_cache_entry *e = c->entries.data;
    for (size_t s = slot_of(a, b, c->table_cap); c->table[s] != 0;
         s = (s + 1) & (c->table_cap - 1)) {
        const sim_cache_entry *x = &e[c->table[s] - 1];
        if (x->a == a && x->b == b)
            return x;
    }
    return NULL;
}

sim_cache_entry *sim_cache_add(sim_cache *c, sim_id a, sim_id b)
{
    size_t i = c->entries.len++;
    sim_cache_entry *x = &((sim_cache_entry *)c->entries.data)[i];
    x->a = a;
    x->b = b;
    x->count = 0;
    size_t s = slot_of(a, b, c->table_cap);
    while (c->table[s] != 0)
        s = (s + 1) & (c->table_cap - 1);
    c->table[s] = (uint32_t)i + 1;
    return x;
}
