/* The contact solver's bodies, constraints and passes, 2D and 3D (solver.c for both,
 * solver_wide.c, solver3_wide.c, graph_color.c). */
#ifndef MINK_SIM_SOLVER_H
#define MINK_SIM_SOLVER_H

#include "body_rules.h"
#include "broadphase.h"
#include "contact_cache.h"
#include "mink_sim.h"
#include "pool.h"

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


/* A soft constraint's coefficients (sim_make_soft). */
typedef struct sim_softness {
    float bias_rate, mass_scale, impulse_scale;
} sim_softness;

typedef struct softness_set {
    sim_softness movable, fixed; /* between two movable bodies; against an immovable one */
} softness_set;

/* A spring of `hertz` with damping ratio `zeta`, integrated implicitly over h (Box2D v3's
 * b2MakeSoft): the contacts' push (solver.c) and the joints' constraints and springs. */
static inline sim_softness sim_make_soft(float hertz, float zeta, float h)
{
    float omega = 2.0f * 3.14159265f * hertz;
    float a1 = 2.0f * zeta + h * omega;
    float a2 = h * omega * a1;
    float a3 = 1.0f / (1.0f + a2);
    return (sim_softness){omega / a1, a2 * a3, a3};
}

#define SIM_WIDE_COLORS 16

/* A body's clearance from a static level body (slot `level`, UINT32_MAX for none) at the start
 * of the step: the level's pieces that it does not touch (those are within the sweep's skin,
 * which the sweep passes), as separating planes (col_level3_clear). */
typedef struct sim_level_clear {
    uint32_t level;
    col_level3_clear c;
} sim_level_clear;

/* A body's kept candidate triangles of a static level body (col_level3_near; 3D), per slot:
 * whose they are (the body's id, the level body's), and where its room is in
 * solver.level_tris (`room` items from `first`; none yet while room is 0). The list's
 * pointer is set from `first` each time it is used: the pool may have moved. A body with
 * pairs with two levels keeps the first one's each step. */
typedef struct sim_level_near {
    sim_id body, level;
    uint64_t tick; /* the step that last used it */
    uint32_t first, room;
    col_level3_near near;
} sim_level_near;

/* The solver's state that is the same in both dimensions (the constraints and solver bodies
 * themselves are per dimension: sim_dim2, sim_dim3): the contact cache the narrowphase
 * warm-starts from, the step's map from slots to solver bodies, the characters' push-out
 * pairs, and the wide solvers' coloring. */
typedef struct sim_solver {
    sim_cache cache;          /* impulses of the touching pairs (contact_cache.c) */
    MK_VEC(uint32_t) solved;  /* cache entries solved in the last step */
    MK_VEC(uint32_t) index;   /* per slot: its solver body, 0 for static and sleeping ones */
    size_t restamped; /* entries of the last step's `solved` that the pass in pair order
                       * solved again in this step (contacts.c) */
    bool bounce;              /* 2D: a constraint of the step has restitution */
    MK_VEC(sim_pair) push_pairs; /* characters against fixed bodies and each other */
    /* Flags of the step's passes on the workers: per solver body, finished in order after
     * them (finish_bodies, step.c); per body of the order, it left the world
     * (remove_the_gone); per entry solved in the last step, its pair ended (contact_cache.c). */
    MK_VEC(uint8_t) step_flags;
    MK_VEC(uint32_t) body_blocks; /* per block of movers, its solver bodies (contacts.c) */
    MK_VEC(uint64_t) wide_bits;     /* a bitset of bodies per color (graph_color.c) */
    MK_VEC(uint32_t) wide_order;    /* constraints by color */
    MK_VEC(uint32_t) wide_overflow; /* constraints with no color */
    MK_VEC(uint8_t) wide_colors;    /* each constraint's color */
    MK_VEC(uint32_t) wide_ends;     /* each constraint's two movable bodies, or 0 */
    MK_VEC(uint32_t) wide_made_from; /* what the colors were made from (sim_color_out) */
    MK_VEC(uint8_t) wide_points;    /* 3D: each constraint's count of points */
    MK_VEC(uint32_t) wide_laid;     /* 3D: the colored ones as groups take them
                                     * (sim_wide_lay_out) */
    uint32_t wide_color_groups[SIM_WIDE_COLORS + 1]; /* the first group of each color, and
                                                       * the end */
    /* The narrowphase's per-pair results and the constraints it fills when it runs on the
     * workers (contacts.c): their items are its own, of the world's dimension. */
    mk_vec narrow, narrow_fills;
    /* The step's manifolds of the pairs with a level body (contacts_level.c): sim_level_span
     * items, and col_child_manifold2 or col_child_manifold3 items of the world's dimension. */
    mk_vec level_spans, level_children;
    /* Per solver body, this step: how far its shape is from the pieces of a static level
     * that it does not touch (contacts_level.c), which its sweep then need not cast against
     * when it moves less (sweep.c). */
    MK_VEC(sim_level_clear) level_clear;
    /* Per slot, the body's kept triangles of a level (3D: contacts_level.c), in blocks of
     * level_tris (col_level3_tri items), which a world read from an image makes anew. */
    MK_VEC(sim_level_near) level_near;
    mk_vec level_tris;
} sim_solver;

/* A pair with a level body whose pieces the narrowphase collided this step: its index in the
 * broadphase's pairs and its manifolds, solver.level_children[first .. first + count), and
 * whether they are last step's kept (contacts_level.c: kept_children). */
typedef struct sim_level_span {
    uint32_t pair, first, count;
    bool kept;
} sim_level_span;

/* Colors constraints (graph_color.c): ends holds each one's two solver bodies, 0 for one that
 * never moves. Fills the solver's wide_order with the colored ones by color (color k from
 * start[k] to start[k + 1]) and its wide_overflow with those that found no color; false when
 * memory runs out. */
bool sim_graph_color(sim_world *w, const uint32_t *ends, size_t n, size_t bodies,
                     uint32_t start[SIM_WIDE_COLORS + 1]);
/* The same into arrays of the caller's (the joints' own coloring): a bitset of bodies per
 * color (uint64_t), the colored ones by color and those with no color (uint32_t), each one's
 * color (uint8_t), and what they were last made from (uint32_t: the bodies' count, the ends
 * and the colors' starts). The coloring is a function of the ends and the bodies' count
 * alone, so a step whose are the last one's keeps it (*kept, when not NULL, says so), as
 * Box2D keeps its constraint graph's colors from step to step: a resting pile or a grid of
 * joints is colored once, not every step. */
typedef struct sim_color_out {
    mk_vec *bits, *order, *overflow, *colors, *made_from;
} sim_color_out;
bool sim_color_into(sim_pool *pool, sim_color_out out, const uint32_t *ends, size_t n,
                    size_t bodies, uint32_t start[SIM_WIDE_COLORS + 1], bool *kept);
/* Runs fn over items [first[k], first[k + 1]) of each color k in turn, the items of one color
 * on every worker in blocks of at least `grain` (sim_wide_for_colors with the caller's
 * colors). */
void sim_for_colors(sim_pool *pool, const uint32_t first[SIM_WIDE_COLORS + 1], size_t grain,
                    sim_task_fn *fn, void *ctx);
/* Colors them (sim_graph_color) and lays the colored ones out four to a group, color by color
 * in sim_wide_lay_out's order (points NULL: the coloring's own), for both wide solvers: calls
 * pack(ctx, group, ci) for each group, ci holding its four constraints (UINT32_MAX in an empty
 * lane), and gives the number of groups; false when memory runs out. */
typedef void sim_wide_pack_fn(void *ctx, size_t group, const uint32_t ci[4]);
bool sim_wide_groups(sim_world *w, const uint32_t *ends, const uint8_t *points, size_t n,
                     size_t bodies, sim_wide_pack_fn *pack, void *ctx, size_t *groups);
/* The colored constraints (start: sim_graph_color's) in the order groups take them: with
 * `points` (each constraint's count of points), each color's by the part of the solver
 * bodies as sim_graph_color lays them out and within a part by their points, most first, in
 * the solver's wide_laid; the coloring's own order without. A group is solved over as many
 * points as its fullest lane has, and two groups at eight lanes only when they have as many:
 * a sphere's one point in a group of boxes' four ran three points of nothing. The constraints
 * of a color share no movable body, so their order within it changes no result. NULL when
 * memory runs out. */
const uint32_t *sim_wide_lay_out(sim_world *w, const uint32_t *ends, const uint8_t *points,
                                 size_t bodies, const uint32_t start[SIM_WIDE_COLORS + 1]);
/* Runs fn over the groups of each color in turn (graph_color.c), the groups of one color on
 * every worker: they share no movable body, so they may be solved in any order at once. A
 * pass over the groups this way gives what a pass one by one gives, bit for bit. pack is
 * called the same way, on every worker, and must write only its own group. */
void sim_wide_for_colors(sim_world *w, sim_task_fn *fn, void *ctx);
/* Marks a lane's body that contacts never move (a kinematic one) in a group's body indices:
 * gathered, never scattered back, so that the groups of one color that share it never write
 * it at once. */
#define SIM_WIDE_STILL 0x80000000u
/* Groups of four constraints a worker takes at least at once. */
#define SIM_WIDE_GRAIN 16

/* The 3D solver's view of a moving body (solver.c): velocities and the motion of the step so
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

/* Solves the contacts of one step of dt by the soft step of Box2D v3 (solver.c, one source
 * for both dimensions) and stores their impulses in the contact cache for the next step. */
void sim_solve2(sim_world *w, float dt);
void sim_solve3(sim_world *w, float dt);

/* The wide solver, one interface with two kernels (solver_wide.c for 2D, solver3_wide.c for
 * 3D: their rows differ in arithmetic). build colors and packs the constraints (false when
 * memory runs out: then every constraint is solved one by one); the indices of the
 * constraints left to solve one by one are then in the solver's wide_overflow. The warm start
 * and solve passes work on the colored ones four at a time (eight, two groups of a color at
 * once, where the processor has AVX: sim_eight_lanes); unpack gives their impulses back
 * to the constraints (in 2D, straight to the contact cache when no restitution follows).
 *   2D: the narrowphase wrote the constraints' movable ends into wide_ends; build makes the
 *       groups' effective masses unless restitution follows (then the solver prepared every
 *       constraint before, solver.c); a group's softness is one mask and is chosen from s
 *       at each solve.
 *   3D: build writes the ends and prepares the rows itself, and packs each lane's softness
 *       from s; restitution ends the step for the colored constraints, before unpack. */
typedef struct sim_wide_group sim_wide_group;
typedef struct sim_wide_cold sim_wide_cold;
typedef struct sim_wide_group3 sim_wide_group3;
size_t sim_wide_group_size2(void);
size_t sim_wide_cold_size2(void);
size_t sim_wide_group_size3(void);
bool sim_wide_build2(sim_world *w, softness_set s);
bool sim_wide_build3(sim_world *w, softness_set s);
/* A pass over the colored groups (sim_wide_for_colors, with a sim_wide_pass for ctx): each
 * kernel's warm start, solve and (3D) restitution of groups [begin, end) of one color. */
typedef struct sim_wide_pass {
    sim_world *w;
    softness_set soft;
    float inv_h;   /* 1/s of the substep */
    bool use_bias; /* the solve that pushes overlaps apart, or the relax pass after it */
} sim_wide_pass;
sim_task_fn sim_wide_warm_range2, sim_wide_warm_range3;
sim_task_fn sim_wide_solve_range2, sim_wide_solve_range3;
sim_task_fn sim_wide_restitution_range3;
void sim_wide_unpack2(sim_world *w);
void sim_wide_unpack3(sim_world *w);
/* The 3D solve with one thread, block by block (solver3_blocks.c), as Jolt solves island by
 * island: the solver bodies are cut into runs that no constraint crosses, and each run takes
 * every substep of the step before the next begins, so that its groups and bodies stay in the
 * core's cache through the step instead of being read from memory a dozen times. Every body
 * sees its constraints in the same order as in the pass over the whole world (the colors in
 * turn, then those solved one by one), so the results are the same bits. A block holds the
 * solver bodies [body_begin, body_end), its colored constraints in the solver's block_order
 * [at[k], at[k + 1]) for color k, packed into the groups [first[k], first[k + 1]) (each
 * block's from 0: one block's groups at a time are in d3.wide_groups), and its constraints
 * solved one by one, block_one [one_begin, one_end). */
typedef struct sim_wide_block3 {
    uint32_t body_begin, body_end;
    uint32_t one_begin, one_end;
    uint32_t at[SIM_WIDE_COLORS + 1], first[SIM_WIDE_COLORS + 1];
} sim_wide_block3;
/* Lays the colored constraints out by blocks into d3.blocks, with room in d3.wide_groups for
 * the largest block's groups, their number in *groups; false, with no blocks, when the world
 * has joints, several workers or no memory for them (then the colors are solved over the
 * whole world). ends holds each constraint's two movable bodies, points its count of points
 * (within a block's color, the constraints are in sim_wide_lay_out's order). */
bool sim_wide_blocks3(sim_world *w, const uint32_t *ends, const uint8_t *points,
                      size_t *groups);
/* Packs a block's groups (solver3_wide.c), at the start of the step. */
void sim_wide_pack_block3(sim_world *w, const sim_wide_block3 *b, softness_set s);
/* Runs fn over a block's groups of each color in turn. */
void sim_wide_block_pass3(const sim_wide_block3 *b, sim_task_fn *fn, void *ctx);
/* Gives the impulses of groups [begin, end) back to their constraints. */
void sim_wide_unpack_range3(sim_world *w, size_t begin, size_t end);
/* 3D integration of the solver bodies [begin, end) over a substep of h seconds: each one's
 * translation and rotation since the step began, from its velocities (the rotation by the
 * first-order quaternion step q + h/2 (0, w) q that Jolt and Bullet use, renormalised in
 * double); four bodies at a time where the processor has AVX, with the same arithmetic. */
void sim_integrate3(sim_solver_body3 *bodies, size_t begin, size_t end, float h);

#endif
