/* The world's private state, shared by the files of mink_sim. */
#ifndef MINK_SIM_WORLD_INTERNAL_H
#define MINK_SIM_WORLD_INTERNAL_H

#include "mink_character.h"
#include "mink_sim.h"

/* A pair of slots whose fattened bounds overlap: a candidate for the narrowphase. */
typedef struct sim_pair {
    uint32_t a, b;
    float height; /* m: the lower body's position along "up", the order of resolution */
    uint32_t entry; /* a hint: the pair's contact cache entry + 1 when last found, 0 when
                     * not known, SIM_CACHE_NO_ENTRY when it has none (sim_cache_find_hinted) */
} sim_pair;

/* A growable array of fixed-size items: it grows when the world grows and is reused every
 * step, so the step allocates nothing once the world has its size. */
typedef struct sim_vec {
    void *data;
    size_t len, cap, item;
} sim_vec;

bool sim_vec_push(sim_vec *v, const void *item);
bool sim_vec_reserve(sim_vec *v, size_t cap);
void sim_vec_free(sim_vec *v);

/* A bounding volume tree over boxes of slots (static_tree.c): a node's box holds its items';
 * a leaf has `count` items from items[first], an inner node count 0, its left child next to
 * it and its right child at `first`. */
typedef struct sim_tree_node {
    col_aabb3 box;
    uint32_t first, count;
} sim_tree_node;

typedef struct sim_tree {
    sim_vec nodes; /* sim_tree_node, depth first */
    sim_vec items; /* uint32_t slots */
} sim_tree;

/* Builds the tree over `slots` whose boxes are boxes[slot]; false when memory runs out. */
bool sim_tree_build(sim_tree *t, const uint32_t *slots, size_t n, const col_aabb3 *boxes);
/* Appends to `hits` the slots whose boxes[slot] overlap `box`; false when memory runs out. */
bool sim_tree_query(const sim_tree *t, const col_aabb3 *boxes, const col_aabb3 *box,
                    sim_vec *hits);

/* Mass properties of a body (mass.c): zero inverses for infinite mass or inertia. */
typedef struct sim_mass {
    float inv_mass, inv_inertia; /* 1/kg, 1/(kg m^2) */
    mk_vec2 center;              /* centre of mass in the body's frame, m */
} sim_mass;

sim_mass sim_mass_of(const col_shape2 *s, float density, sim_kind kind);

/* The impulses of a touching pair, kept from one step to the next and found again by the
 * pair's body ids and each point's feature id, so that the solver starts from the last step's
 * answer (warm starting, as Box2D does). a < b. */
typedef struct sim_cached_point {
    uint32_t id;
    float jn, jt;    /* N s: normal and friction impulses */
    mk_vec2 local_a; /* a's surface point in a's frame, m: found again by place when the id
                      * changed */
    mk_vec2 local_b; /* b's surface point in b's frame, m */
} sim_cached_point;

/* What every cache entry starts with: the pair and its bookkeeping. A world's entries are
 * sim_cache_entry (2D) or sim_cache_entry3 (3D), each with this head first. */
typedef struct sim_cache_head {
    sim_id a, b;
    bool live;      /* false once removed (until the map is rebuilt) */
    uint64_t stamp; /* the tick it was last solved at */
} sim_cache_head;

typedef struct sim_cache_entry {
    sim_cache_head head;
    int count;
    /* Where the manifold was computed: b's placement in a's frame (position, and the cosine
     * and sine of the angle between them) and the normal in a's frame, so that the manifold is
     * kept while the pair has hardly moved (contacts.c); `reach`, m, is the farther of the two
     * shapes' extents. */
    float reach;
    mk_vec2 rel_p, rel_q, local_normal;
    sim_cached_point points[COL_MAX_POINTS2];
} sim_cache_entry;

/* A 3D pair's entry: the persistent manifold of the seed's arbiter, with the impulses of
 * each of its points (normal, and friction along the two tangents). */
typedef struct sim_cache_entry3 {
    sim_cache_head head;
    /* Of a polytope pair's one-shot manifold with points: B's placement in A's frame and the
     * normal in A's frame when it was computed, to keep it while the pair has hardly moved
     * (contacts3.c, Jolt's body pair cache). Beside the head, so that the test of a kept
     * manifold reads one or two cache lines of the entry, not its far end. */
    bool one_shot;
    mk_vec3 rel_p;
    mk_quat rel_q;
    mk_vec3 local_normal;
    col_contact_cache3 manifold;
    float jn[COL_MAX_POINTS3];
    float jt[COL_MAX_POINTS3][2];
} sim_cache_entry3;

/* One persistent map from body pairs to entries (contact_cache.c). Entry indices stay valid
 * until sim_cache_reserve rebuilds the map. entries.item is the world's entry size. */
typedef struct sim_cache {
    sim_vec entries;  /* sim_cache_entry or sim_cache_entry3 */
    uint32_t *table;  /* 0 empty, 1 removed, else entry index + 2 */
    size_t table_cap; /* a power of two */
    size_t used;      /* table slots holding an entry or a tombstone */
    size_t dead;      /* entries removed since the last rebuild */
} sim_cache;

/* Room for `more` new entries; may rebuild the map (entry indices change). */
bool sim_cache_reserve(sim_cache *c, size_t more);
void sim_cache_free(sim_cache *c);
static inline sim_cache_head *sim_cache_at(const sim_cache *c, uint32_t i)
{
    return (sim_cache_head *)((char *)c->entries.data + (size_t)i * c->entries.item);
}
/* The entry of (a, b) and its index, or NULL. */
sim_cache_head *sim_cache_find(const sim_cache *c, sim_id a, sim_id b, uint32_t *index);
/* A pair's hint when the map was asked and had no entry for it: entries are added by the
 * narrowphases' add_constraint alone, which set the hint, so the pair has none until then. */
#define SIM_CACHE_NO_ENTRY UINT32_MAX
/* sim_cache_find through a pair's hint (sim_pair.entry) while that still names (a, b) (entry
 * indices hold until the map is rebuilt), else by the map, whose table is a cache miss a pair
 * in a large world; the hint is updated with the answer. */
sim_cache_head *sim_cache_find_hinted(const sim_cache *c, uint32_t *hint, sim_id a, sim_id b,
                                      uint32_t *index);
/* Adds (a, b), which must not be there; room reserved beforehand. Returns its index; the
 * entry is zeroed past its head. */
uint32_t sim_cache_add(sim_cache *c, sim_id a, sim_id b);
void sim_cache_remove(sim_cache *c, uint32_t index);
/* Before a step's narrowphase: room in the cache and in w->solved for every one of `pairs`
 * to be new. A rebuild moves the entries: the list of those solved in the last step is then
 * found again by their stamps. False when memory runs out. */
bool sim_cache_reserve_step(sim_world *w, size_t pairs);
/* After it: removes the entries of the pairs solved in the last step (w->solved before
 * `first`) that were not solved in this one, unless their bodies went to sleep; the entries
 * of this step become the last step's. */
void sim_cache_end_pairs(sim_world *w, size_t first);

/* The solver's view of a moving body (solver.c): velocities and the motion of the step so far
 * in 32 bytes, all that the inner loops touch (Box2D v3's body state). Index 0 is a body at
 * rest that stands for static and sleeping ones. */
typedef struct sim_solver_body {
    mk_vec2 v;
    float w;
    float gravity_scale; /* 1 for dynamic bodies and characters, 0 for kinematic ones */
    mk_vec2 dp; /* m, translation of the centre of mass since the step began */
    mk_vec2 dq; /* cos and sin of the rotation since the step began */
} sim_solver_body;

/* The rest of a solver body, beside it at the same index. */
typedef struct sim_solver_info {
    float inv_mass, inv_inertia;
    uint32_t slot;
} sim_solver_info;

typedef struct sim_constraint_point {
    mk_vec2 ra, rb;  /* anchors from each centre of mass at the start of the step, m */
    float base_sep;  /* separation less the anchors' offset along the normal, m */
    float normal_mass, tangent_mass;
    float jn, jt, max_jn; /* accumulated impulses, N s */
    float approach;  /* normal relative velocity at the start, m/s (restitution) */
} sim_constraint_point;

typedef struct sim_constraint {
    uint32_t a, b; /* solver bodies */
    float ma, mb, ia, ib; /* their inverse masses and inertias */
    mk_vec2 normal; /* from a to b */
    float friction, restitution;
    bool fixed; /* one side has infinite mass: the stiffer static softness applies */
    int count;
    uint32_t cache_entry; /* where its impulses go for the next step */
    sim_constraint_point points[COL_MAX_POINTS2];
} sim_constraint;

/* Fills the masses of each point of a constraint just built (solver.c): the effective mass
 * along the normal and the tangent, and the approach speed from the solver bodies' velocities
 * at the start of the step. */
void sim_prepare_constraint(const sim_solver_body *bodies, sim_constraint *c);
/* Solves the contacts of one step of dt by the soft step of Box2D v3 (solver.c) and stores
 * their impulses in the contact cache. */
void sim_solve(sim_world *w, float dt);

#define SIM_PUSH_SPEED 3.0f /* m/s: the fastest an overlap is pushed apart */
#define SIM_SUBSTEPS 4       /* substeps of the soft step (solver.c) */
#define SIM_BOUNCE_SPEED 1.0f /* m/s: slower approaches do not bounce */
#define SIM_SLOP 0.0005f    /* m: overlap left to resting contacts, so they do not flicker */

/* A soft constraint's coefficients (solver.c's make_soft). */
typedef struct sim_softness {
    float bias_rate, mass_scale, impulse_scale;
} sim_softness;

typedef struct softness_set {
    sim_softness movable, fixed; /* between two movable bodies; against an immovable one */
} softness_set;

/* The wide solver (solver_wide.c): colors and packs the prepared constraints, whose movable
 * ends the narrowphase wrote into w->wide_ends (false when memory runs out: then every
 * constraint is solved one by one), then warm starts and solves the colored ones four at a
 * time; unpack gives their impulses back to the constraints when restitution follows, else
 * straight to the contact cache. The indices of the constraints left to solve one by one are
 * in w->wide_overflow. */
#define SIM_WIDE_COLORS 16
/* Colors constraints (graph_color.c): ends holds each one's two solver bodies, 0 for one that
 * never moves. Fills w->wide_order with the colored ones by color (color k from start[k] to
 * start[k + 1]) and w->wide_overflow with those that found no color; false when memory runs
 * out. */
bool sim_graph_color(sim_world *w, const uint32_t *ends, size_t n, size_t bodies,
                     uint32_t start[SIM_WIDE_COLORS + 1]);
typedef struct sim_wide_group sim_wide_group;
typedef struct sim_wide_cold sim_wide_cold;
size_t sim_wide_group_size(void);
size_t sim_wide_cold_size(void);
bool sim_wide_build(sim_world *w);
void sim_wide_warm_start(sim_world *w);
void sim_wide_solve(sim_world *w, softness_set s, float inv_h, bool use_bias);
void sim_wide_unpack(sim_world *w);

/* The 3D solver's view of a moving body (solver3.c): velocities and the motion of the step so
 * far. Index 0 is a body at rest that stands for static and sleeping ones. */
typedef struct sim_solver_body3 {
    mk_vec3 v, w;
    mk_vec3 dp; /* m, translation of the centre of mass since the step began */
    mk_quat dq; /* rotation since the step began */
    float gravity_scale;
} sim_solver_body3;

typedef struct sim_solver_info3 {
    float inv_mass;
    mk_mat3 inv_inertia; /* world axes, at the start of the step */
    uint32_t slot;
} sim_solver_info3;

/* One row of a contact point along a unit direction d: the angular parts of the Jacobian
 * (ra x d, rb x d), the same through each body's inverse inertia (what an impulse along d does
 * to the spins), and the effective mass along d. Precomputed at the start of the step, so the
 * solver's inner loops are dot products. */
typedef struct sim_row3 {
    mk_vec3 ja, jb, ka, kb;
    float mass;
} sim_row3;

/* The rows of a constraint solved one by one, per point the normal and the two tangents: apart
 * from the constraint, so that the many solved four at a time (solver3_wide.c) stay small. */
typedef struct sim_rows3 {
    sim_row3 r[COL_MAX_POINTS3][3];
} sim_rows3;

typedef struct sim_constraint_point3 {
    mk_vec3 ra, rb;  /* anchors from each centre of mass at the start of the step, m */
    float base_sep;  /* separation less the anchors' offset along the normal, m */
    float jn, jt[2], max_jn; /* accumulated impulses, N s */
    float approach;  /* normal relative velocity at the start, m/s (restitution) */
} sim_constraint_point3;

typedef struct sim_constraint3 {
    uint32_t a, b; /* solver bodies */
    float ma, mb;  /* their inverse masses */
    mk_vec3 normal; /* from a to b */
    mk_vec3 tangent[2];
    float friction, restitution;
    bool fixed; /* one side has infinite mass: the stiffer static softness applies */
    int count;
    uint32_t cache_entry;
    sim_constraint_point3 points[COL_MAX_POINTS3];
} sim_constraint3;

/* The 3D wide solver (solver3_wide.c), as the 2D one above: build colors and packs the
 * constraints (false when memory runs out), restitution ends the step as solver3.c's does, and
 * unpack gives the impulses back to the constraints. */
typedef struct sim_wide_group3 sim_wide_group3;
size_t sim_wide_group3_size(void);
bool sim_wide3_build(sim_world *w, softness_set s);
void sim_wide3_warm_start(sim_world *w);
void sim_wide3_solve(sim_world *w, float inv_h, bool use_bias);
void sim_wide3_restitution(sim_world *w);
void sim_wide3_unpack(sim_world *w);

struct sim_world {
    sim_config cfg;
    uint64_t tick;

    sim_body *bodies; /* slots */
    uint32_t *generation;
    size_t slot_count, slot_cap, body_count;
    sim_vec free_slots;    /* uint32_t, reusable now */
    sim_vec pending_slots; /* uint32_t, reusable after sim_world_clear_removed */
    sim_vec removed;       /* sim_id */

    /* Broadphase: sort and sweep on x over the moving bodies' fattened bounds (broadphase.c),
     * and a tree over the static ones (static_tree.c, region.c). */
    sim_vec order;  /* uint32_t slots of the bodies that are not static, by bounds min x */
    /* The same slots in slot order: the passes over the moving bodies that any order serves
     * (controls, bounds, solver bodies) read the bodies one after the other in memory rather
     * than hopping about as the order on x does. */
    sim_vec movers;
    bool order_unsorted; /* a fat box moved since the order was last sorted */
    float fat_half_max;  /* m: no fat box in `order` is wider than twice this on x */
    sim_vec statics;     /* uint32_t slots of the static bodies */
    sim_tree tree;       /* over the statics' bounds */
    bool statics_dirty;  /* a static body came or went: the tree is built anew */
    sim_vec shape_box;   /* col_aabb3 per slot: the shape's bounds after the last step */
    sim_vec hits;        /* uint32_t: the bodies found by the last query (region.c) */
    sim_vec near_bits;   /* uint64_t: one bit a slot, all clear between queries (region.c) */
    sim_vec bounds; /* col_aabb per slot: fat bounds (2D); a static body's are its own */
    sim_vec tight;  /* col_aabb per slot: the shape grown by what it can reach this step */
    bool pairs_dirty; /* a body came or went: the pairs are computed anew */
    sim_vec pairs;  /* sim_pair */
    /* 2D: a pair of the list may have a sleeping body. The list is made anew whenever a body
     * falls asleep or wakes (pairs_dirty), so this holds until then. */
    bool pairs_sleeper;
    sim_vec sweep;  /* float: the sorted bounds' min x, max x, min y, max y (broadphase.c) */

    sim_vec contacts; /* sim_contact of the last step */

    /* Dynamics (solver.c, contact_cache.c, sleep.c). */
    sim_cache cache;          /* impulses of the touching pairs */
    sim_vec solved;           /* uint32_t: cache entries solved in the last step */
    sim_vec solver_bodies;    /* sim_solver_body, [0] at rest */
    sim_vec solver_info;      /* sim_solver_info, at the same indices */
    sim_vec constraints;      /* sim_constraint */
    bool constraints_bounce;  /* one of them has restitution */
    sim_vec push_pairs;       /* sim_pair: characters against fixed bodies and each other */
    uint32_t *solver_index;   /* per slot: its solver body, 0 for static and sleeping ones */
    sim_vec wide_groups;      /* sim_wide_group */
    sim_vec wide_cold;        /* sim_wide_cold, at the same indices */
    sim_vec wide_bits;        /* uint64_t: a bitset of bodies per color */
    sim_vec wide_order;       /* uint32_t: constraints by color */
    sim_vec wide_overflow;    /* uint32_t: constraints with no color */
    sim_vec wide_colors;      /* uint8_t: each constraint's color */
    sim_vec wide_ends;        /* uint32_t: each constraint's two movable bodies, or 0 */
    sim_vec wide_groups3;     /* sim_wide_group3 */
    uint32_t *island;         /* per slot: union-find parent, for sleeping (sleep.c) */
    float *island_sleep;      /* per slot: an island root's shortest sleep time */
    uint32_t *ring;           /* per slot: an island root's first body put to sleep */
    sim_id loaded_ring;       /* a body of the ring that a saved world's sleepers form */

    /* 3D worlds (world3.c, broad3.c, contacts3.c, solver3.c, step3.c). */
    sim_body3 *bodies3;     /* per slot */
    sim_vec bounds3;        /* col_aabb3 per slot: fat bounds (3D); a static body's are its own */
    sim_vec tight3;         /* col_aabb3 per slot */
    sim_vec contacts3;      /* sim_contact3 of the last step */
    sim_vec constraints3;   /* sim_constraint3 */
    sim_vec rows3;          /* sim_rows3 of the constraints solved one by one */
    sim_vec solver_bodies3; /* sim_solver_body3, [0] at rest */
    sim_vec solver_info3;   /* sim_solver_info3, at the same indices */

    /* Recording (journal.c). */
    sim_journal_fn journal;
    void *journal_ctx;
    proto_buf journal_buf;
};

/* The step's limits and character rules (step.c, step3.c). */
/* m/s: no body moves faster; keeps a runaway body finite and inside float precision. */
#define SIM_MAX_SPEED 1000.0f
/* rad/s: no body spins faster (a quarter turn per step at 60 Hz), as Box2D bounds rotation. */
#define SIM_MAX_SPIN 94.0f
/* The input's ramp, the jump and the push-out are mink_character's (CHR_*). */
/* Ground snapping: a character follows slopes down to this steepness (a steeper max_slope
 * still lets it stand there, but it runs off such a slope into the air), and steps down
 * this much without falling. */
#define SIM_SNAP_MAX_SLOPE 1.3f /* rad, about 75 degrees */
#define SIM_SNAP_STEP 0.05f     /* m */
/* m: pushes smaller than this count as converged and end the passes early. */
#define SIM_CONVERGED 1e-6f


#define SIM_SPECULATIVE 0.02f /* m: pairs this close get contact points before they touch */
/* A body (not a character: step.c's needs_sweep) that moves farther than this in a step is swept
 * (sweep.c, sweep3.c) against static and kinematic bodies: a gap wider than SIM_SPECULATIVE at
 * the start of the step has no contact point in the solver, so a body moving farther could close
 * it and sink into what it lands on (by up to its motion less this distance). */
#define SIM_SWEEP_MIN SIM_SPECULATIVE /* m */

/* (cos, sin) of the body's angle: the kept pair when it is for this angle, else worked out. */
static inline mk_vec2 sim_body_rot(const sim_body *b)
{
    if (b->rot_angle == b->angle && (b->rot.x != 0.0f || b->rot.y != 0.0f))
        return b->rot;
    return mk_v2(cosf(b->angle), sinf(b->angle));
}
/* The centre of mass in world space, m. */
static inline mk_vec2 sim_body_center(const sim_body *b)
{
    if (b->local_center.x == 0.0f && b->local_center.y == 0.0f)
        return b->pos;
    mk_vec2 q = sim_body_rot(b), r = b->local_center;
    return mk_v2_add(b->pos, mk_v2(q.x * r.x - q.y * r.y, q.y * r.x + q.x * r.y));
}

/* The narrowphase (contacts.c): wakes sleeping bodies that something awake touches, builds
 * the solver's bodies, turns touching pairs into constraints, push-out pairs and contacts,
 * and stores the solved impulses of the constraints only[0..n) (all n when only is NULL) for
 * the next step. */
void sim_wake_touched(sim_world *w);
void sim_build_solver_bodies(sim_world *w);
void sim_collide(sim_world *w, mk_vec2 up);
void sim_store_impulses(sim_world *w, const uint32_t *only, size_t n);

/* Wakes a sleeping body and every body that fell asleep with it (sleep.c). */
void sim_wake(sim_world *w, sim_body *b);
/* Puts to sleep the islands of touching bodies that have all rested long enough. */
void sim_sleep_islands(sim_world *w, float dt);

/* Continuous collision for a fast body (sweep.c): when its motion d over this step of dt
 * seconds would hit a static or kinematic body, moves it to the time of impact, resolves the
 * impact (sim_impact_of) and returns true; returns false (and changes
 * nothing) otherwise. */
bool sim_sweep(sim_world *w, sim_body *b, mk_vec2 d, float dt);
/* A swept impact on a fixed body, resolved as an impulse through the moving body's centre of
 * mass: its approach speed vn (> 0) along the normal is taken out, or turned back by the pair's
 * restitution above SIM_BOUNCE_SPEED as the solver's restitution does, and Coulomb friction
 * takes at most `friction` times that change off its sliding speed vt (>= 0). Resolving it
 * here, not in the next step's solver, matters for a body that lands fast and flat: sequential
 * impulses meeting a large approach at two or four points at once leave it hopping and turning.
 * Through the centre, a flat landing stays flat; the spin a corner landing or a ball's friction
 * would start comes from the contacts of the steps that follow. */
typedef struct sim_impact {
    float dvn, dvt; /* m/s: the changes of normal and sliding speed, both >= 0 */
} sim_impact;

static inline sim_impact sim_impact_of(float vn, float vt, float restitution, float friction)
{
    float dvn = vn > SIM_BOUNCE_SPEED ? (1.0f + restitution) * vn : vn;
    return (sim_impact){dvn, mk_minf(vt, friction * dvn)};
}

/* Friction and restitution of a pair, for its contacts (contacts.c, contacts3.c) and a swept
 * impact alike, combined as in Box2D: friction by geometric mean, none for a character (it
 * steers itself), restitution by maximum. */
static inline float sim_pair_friction(const sim_body *a, const sim_body *b)
{
    if (a->kind == SIM_CHARACTER || b->kind == SIM_CHARACTER)
        return 0.0f;
    return sqrtf(a->friction * b->friction);
}

static inline float sim_pair_restitution(const sim_body *a, const sim_body *b)
{
    return mk_maxf(a->restitution, b->restitution);
}

/* Keeps a character on the ground it walks down (sweep.c): moves it down along -up by at most
 * `reach` onto walkable ground (within its max_slope) and returns true, or returns false and
 * changes nothing when no walkable ground is that close. */
bool sim_snap_to_ground(sim_world *w, sim_body *b, mk_vec2 up, float reach);

/* A body's spec fields, as a scene file and the protocol write them: "shape":{...},
 * "pos":[...], ... "tag":"..." with no braces (save.c). Numbers with 9 significant digits give
 * every float back exactly. */
void sim_write_body_fields(const sim_world *w, const sim_body *o, proto_buf *b);

/* Journal lines for the changes made from outside the step (journal.c); nothing without a
 * journal. */
void sim_journal_added(sim_world *w, const sim_body *body);
void sim_journal_removed(sim_world *w, const sim_body *body);
void sim_journal_left(sim_world *w, uint32_t owner);
void sim_journal_input(sim_world *w, const sim_body *body, mk_vec2 move, bool jump);
void sim_journal_input3(sim_world *w, const sim_body *body, mk_vec3 move, bool jump);

/* ---- 3D worlds ---- */

/* Conversions (convert3.c). */
int sim_shape3_from_proto(const proto_shape *in, col_shape3 *out, col_hull3 *hull, char *err,
                          size_t errlen);
int sim_body_def3_from_spec(const proto_body_spec *spec, sim_body_def3 *out, char *err,
                            size_t errlen);
int sim_query3(const proto_placed_shape *a, const proto_placed_shape *b, proto_result *out,
               char *err, size_t errlen);

/* The 3D world's bodies (world3.c). */
void sim_world3_init(sim_world *w);
/* Fills slot's 3D part from the definition (a hull is copied); false when memory runs out. */
bool sim_place_body3(sim_world *w, const sim_body_def *def, uint32_t slot);
/* Mass and inertia of a placed 3D body (sets its inv_inertia and local_center); returns its
 * inverse mass. */
float sim_mass3_of(sim_body3 *b3, float density, sim_kind kind);
col_aabb3 sim_body3_bounds(const sim_body3 *b3);
/* The step of a 3D world (step3.c) and its parts: the broadphase (broad3.c), the narrowphase
 * (contacts3.c) and the solver (solver3.c), in the 2D step's design. */
void sim_world_step3(sim_world *w);
void sim_broadphase3(sim_world *w, float dt, float g);
bool sim_tight_overlap3(const sim_world *w, uint32_t a, uint32_t b);
mk_vec3 sim_body3_center(const sim_body3 *b3);
void sim_wake_touched3(sim_world *w);
void sim_build_solver_bodies3(sim_world *w);
void sim_collide3(sim_world *w, mk_vec3 up);
void sim_solve3(sim_world *w, float dt);
void sim_store_impulses3(sim_world *w);
/* sweep3.c: sim_sweep and sim_snap_to_ground of a 3D world. */
bool sim_sweep3(sim_world *w, sim_body *b, mk_vec3 d, float dt);
bool sim_snap_to_ground3(sim_world *w, sim_body *b, mk_vec3 up, float reach);
/* The softness of Box2D v3's soft step for a substep of h seconds (solver.c). */
softness_set sim_softness_of(float h);

/* A whole number in [lo, hi] in a scene or recording (scene.c). */
struct cJSON;
bool sim_json_whole_in(const struct cJSON *j, double lo, double hi);

/* Removes a body as sim_world_remove does, but unrecorded: the step's own removals follow from
 * the recorded inputs. */
bool sim_remove(sim_world *w, sim_id id);

/* How far a body moves before its fat bounds do (Box2D's margin). */
#define SIM_FAT_MARGIN 0.1f /* m */

/* Bodies by region (region.c). A body's shape bounds now, in 3D form (z = 0 in 2D), and its
 * fat box (a static body's is its shape's). */
col_aabb3 sim_shape_bounds_now(const sim_world *w, uint32_t slot);
col_aabb3 sim_fat_box(const sim_world *w, uint32_t slot);
/* Sets the fat box to `shape` grown by margin (not on z in 2D) and the tight bounds to it. */
void sim_set_fat_box(sim_world *w, uint32_t slot, col_aabb3 shape, float margin);
/* Sorts `order` by the fat boxes' min x (insertion sort: near linear when little moved). */
void sim_order_sort(sim_world *w);
/* Builds the statics' tree again when a static body came or went; false when out of memory. */
bool sim_statics_refresh(sim_world *w);
/* Fills w->hits with the bodies whose fat box overlaps `box` (the statics too when asked),
 * statics first, then by the order; false when out of memory. */
bool sim_query_box(sim_world *w, const col_aabb3 *box, bool with_statics);
/* After a step: takes the shape bounds of every awake body and grows its fat box over them
 * where it left it. */
void sim_bounds_after_step(sim_world *w);
/* Appends to w->pairs each awake dynamic body or character with every static body its fat box
 * overlaps; false when out of memory. */
bool sim_static_pairs(sim_world *w);

/* Keeps w->pairs the candidate pairs of the current positions: every pair whose tight bounds
 * may overlap (dt s, gravity g m/s^2 bound how far a body moves this step). */
void sim_broadphase(sim_world *w, float dt, float g);

/* Static or asleep: a pair of two such bodies has nothing to do this step. */
static inline bool sim_body_resting(const sim_body *b)
{
    return b->sleeping || b->kind == SIM_STATIC;
}

/* A contact is ground for a character when the direction it is pushed out along is within
 * its max_slope of up. */
static inline bool sim_is_ground(const sim_body *b, mk_vec2 push_dir, mk_vec2 up)
{
    return b->kind == SIM_CHARACTER && chr_is_ground2(push_dir, up, b->max_slope);
}
static inline bool sim_is_ground3(const sim_body *b, mk_vec3 push_dir, mk_vec3 up)
{
    return b->kind == SIM_CHARACTER && chr_is_ground3(push_dir, up, b->max_slope);
}

/* Static and kinematic bodies: contacts never move them. */
static inline bool sim_kind_fixed(sim_kind k) { return k == SIM_STATIC || k == SIM_KINEMATIC; }

/* A pair resolved by the characters' push-out rather than the solver: a character against a
 * static or kinematic body or another character. */
static inline bool sim_is_push_pair(const sim_body *a, const sim_body *b)
{
    bool ca = a->kind == SIM_CHARACTER, cb = b->kind == SIM_CHARACTER;
    return (ca && (cb || sim_kind_fixed(b->kind))) || (cb && sim_kind_fixed(a->kind));
}

/* Whether box `inner` lies within box `outer` (touching counts). */
static inline bool sim_aabb3_contains(const col_aabb3 *outer, const col_aabb3 *inner)
{
    return fabsf(inner->center.x - outer->center.x) + inner->half.x <= outer->half.x &&
           fabsf(inner->center.y - outer->center.y) + inner->half.y <= outer->half.y &&
           fabsf(inner->center.z - outer->center.z) + inner->half.z <= outer->half.z;
}

/* Whether two 3D boxes overlap (touching counts). */
static inline bool sim_aabb3_overlap(const col_aabb3 *a, const col_aabb3 *b)
{
    return fabsf(a->center.x - b->center.x) <= a->half.x + b->half.x &&
           fabsf(a->center.y - b->center.y) <= a->half.y + b->half.y &&
           fabsf(a->center.z - b->center.z) <= a->half.z + b->half.z;
}

/* Whether the tight bounds of two slots overlap (the narrowphase's first test). */
static inline bool sim_tight_overlap(const sim_world *w, uint32_t a, uint32_t b)
{
    const col_aabb *t = w->tight.data;
    return fabsf(t[a].center.x - t[b].center.x) <= t[a].half.x + t[b].half.x &&
           fabsf(t[a].center.y - t[b].center.y) <= t[a].half.y + t[b].half.y;
}

#endif
