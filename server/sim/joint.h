/* Joints inside the world (joint.c, the store and the step's passes; joint2.c and joint3.c,
 * each dimension's constraints): the joint slots, each body's list of joints, and the step's
 * rows, colors and passes. */
#ifndef MINK_SIM_JOINT_H
#define MINK_SIM_JOINT_H

#include "mink_sim.h"
#include "mk_vec.h"
#include "pool.h"
#include "solver.h"

/* The joints' own stiffness: Box2D v3's default (b2DefaultJointDef: 60 Hz, damping ratio 2),
 * bounded by a quarter of the substep's rate as Box2D bounds it. */
#define SIM_JOINT_HERTZ 60.0f
#define SIM_JOINT_DAMPING 2.0f

/* What the step needs of a joint (sim_joint.kinds). */
enum {
    JOINT_ISLAND = 1,    /* both bodies join islands (dynamic or characters): one island */
    JOINT_KINEMATIC = 2, /* a body moves by itself (kinematic): it may wake the other */
    JOINT_BREAKS = 4,    /* it has a break force */
};

/* One side of a joint in its body's list (sim_joints.edges, at 2 * joint slot + side): apart
 * from the joint, so that the broadphase's walk of a body's joints reads 16 bytes a joint. */
typedef struct sim_joint_edge {
    uint32_t next, prev; /* the body's next and previous edge + 1 (0: none) */
    uint32_t other;      /* the slot of the joint's other body (UINT32_MAX: the world) */
    uint32_t apart;      /* 1: the joint keeps its bodies from colliding (no `collide`) */
} sim_joint_edge;

/* The joints of a world (sim_world.joints), kept as bodies are (world.c): slots addressed by
 * ids with a generation. A joint is an edge between two bodies, in each body's doubly linked
 * list of joints (Box2D's joint edges): a body's joints are found without looking at the
 * others, to remove them with it and to keep its pairs with them apart. */
typedef struct sim_joints {
    MK_VEC(sim_joint) items;  /* per joint slot: free where id == 0 */
    size_t live;              /* joints in the slots */
    MK_VEC(uint32_t) free;    /* joint slots reusable now */
    MK_VEC(uint32_t) pending; /* reusable after sim_world_clear_removed */
    MK_VEC(sim_id) removed;   /* ids removed since sim_world_clear_removed */
    /* Per joint slot, two: side a's edge and side b's. */
    MK_VEC(sim_joint_edge) edges;
    /* Per body slot: its first edge + 1 (0: none); an edge is 2 * joint slot + side. */
    MK_VEC(uint32_t) body_head;
    uint32_t kinematic, breaking; /* joints with JOINT_KINEMATIC, with JOINT_BREAKS */
    /* The step's (scratch): the joints solved this step in slot order and each one's movable
     * solver bodies; their colors; their rows (joint_rows.h: the dimension's) laid out by
     * color, the colored ones first (rows [color_start[k], color_start[k + 1]) of color k)
     * and then those with no color, so that a pass reads them one after the other; rank[k]
     * the joint (in `active`) of row k, row_of[i] the row of joint i. */
    MK_VEC(uint32_t) active;
    MK_VEC(uint8_t) solved; /* per joint slot: solved this step (the workers' flags) */
    MK_VEC(uint32_t) ends;
    mk_vec rows;
    MK_VEC(uint32_t) rank, row_of;
    MK_VEC(uint64_t) color_bits;
    MK_VEC(uint32_t) color_order, color_overflow;
    MK_VEC(uint8_t) colors;
    uint32_t color_start[SIM_WIDE_COLORS + 1];
    /* What the colors were made from (sim_color_out): a step whose joints have the same ends
     * keeps their colors and rows. Not in the image: a restored world colors them anew. */
    MK_VEC(uint32_t) made_from;
} sim_joints;

/* Whether the bodies of slots sa and sb may collide: not when a joint without `collide` holds
 * them together (where the broadphase makes its pairs). A body with no joint costs a load;
 * one with joints, a walk of its edges. */
static inline bool sim_joint_pair_collides(const sim_joints *j, uint32_t sa, uint32_t sb)
{
    if (j->live == 0 || j->body_head.at[sa] == 0 || j->body_head.at[sb] == 0)
        return true;
    for (uint32_t e = j->body_head.at[sa]; e; e = j->edges.at[e - 1].next)
        if (j->edges.at[e - 1].other == sb && j->edges.at[e - 1].apart)
            return false;
    return true;
}

/* Removes the joints of the body in `slot`, which is leaving the world (into the removed
 * list, unreported: the body's removal brings them back on replay). */
void sim_joints_remove_body(sim_world *w, uint32_t slot);
/* The slots of removed joints may be given out again (sim_world_clear_removed): true when
 * there were any. */
bool sim_joints_clear_removed(sim_world *w);
/* Wakes a sleeping body held to one that moves by itself (kinematic), before the step's
 * solver bodies are built; nothing to do while no joint has such a body. */
void sim_joints_wake(sim_world *w);
/* Joins the islands of the bodies of each joint solved this step (sleep.c's join). */
void sim_joints_islands(sim_world *w, void (*join)(sim_world *w, uint32_t sa, uint32_t sb));
/* The joints' part of the world hash (hash.c): nothing for a world without joints. */
uint64_t sim_joints_hash(const sim_world *w, uint64_t h,
                         uint64_t (*mix)(uint64_t, const void *, size_t));
/* Checks the joints of a world read from an image: ids, slots, bodies, lists; recounts. */
bool sim_joints_image_ok(sim_world *w, mk_error *err);

/* ---- the solver's passes (joint.c, with the dimension's arithmetic) ---- */

/* Before the substeps: the joints to solve this step (a body moves), their rows prepared from
 * the solver bodies and colored (h: the substep, s). */
void sim_joints_prepare(sim_world *w, float h);
/* One pass over the joints: each color on the workers, then the rest one by one. */
enum { JOINT_WARM, JOINT_SOLVE, JOINT_RELAX };
void sim_joints_pass(sim_world *w, int pass, float h);
/* After the substeps: the impulses back into the joints for the next step's warm start, and
 * the joints whose force passed their break force removed, each with its event. */
void sim_joints_finish(sim_world *w, float h);

/* Each dimension's rows (joint_rows.c, and the passes in joint2.c, joint3.c), each over a
 * range of its items on the workers: the movable solver bodies of the active joints (0 for
 * one that never moves: static, asleep, kinematic, the world), the rows prepared (row k from
 * joint rank[k]), a pass over rows, the impulses back into the joints; the size of a row and
 * the force on a row's joint (N) for its break force. */
typedef struct sim_joint_ctx {
    sim_world *w;
    float h, inv_h;
    sim_softness soft; /* the joints' own stiffness (Box2D's 60 Hz, damping 2) */
    int pass;
} sim_joint_ctx;
size_t sim_joint_row_size2(void);
size_t sim_joint_row_size3(void);
sim_task_fn sim_joint_ends_range2, sim_joint_ends_range3;
sim_task_fn sim_joint_prepare_range2, sim_joint_prepare_range3;
sim_task_fn sim_joint_pass_range2, sim_joint_pass_range3;
sim_task_fn sim_joint_store_range2, sim_joint_store_range3;
float sim_joint_row_force2(const sim_world *w, size_t row, float inv_h);
float sim_joint_row_force3(const sim_world *w, size_t row, float inv_h);

#endif
