/* mink_character: the rules that move a player's character, shared by the server's world
 * (server/sim) and by clients that predict their own avatar (client/predict.c), so that both
 * move it with the same arithmetic. Pure functions over vectors (mk_math.h, mk_math3.h): no
 * world, no allocation, no I/O; links mink_collision only for its vector types.
 *
 * What a character does each step: its input sets a target velocity across gravity, reached
 * over a short ramp (chr_steer2/3); a jump on the ground sets the upward speed that rises
 * jump_height against gravity (chr_jump_speed, chr_jump2/3); after the move it is pushed out
 * of what it overlaps along the Minkowski penetration vector, straight up by
 * depth / cos(slope) where the contact is walkable ground (chr_is_ground2/3, chr_push_out2/3). */
#ifndef MINK_CHARACTER_H
#define MINK_CHARACTER_H

#include <stdbool.h>

#include "mk_math.h"
#include "mk_math3.h"

/* How fast an input brings a body to its target velocity: it gets there in this many seconds
 * from rest (a short ramp that feels immediate at 60 Hz but never teleports). */
#define CHR_RAMP_TIME_GROUND 0.08f /* s */
#define CHR_RAMP_TIME_AIR 0.25f    /* s */
/* Below this cosine (about 72 degrees) a vertical exit would be longer than 3 depths: the
 * character is pushed out along the normal instead. */
#define CHR_STAND_MIN_COS 0.3f

/* Up: against gravity (zero without gravity in 3D; 2D gravity is never zero-length here). */
mk_vec2 chr_up2(mk_vec2 gravity);
mk_vec3 chr_up3(mk_vec3 gravity);
/* The part of v across up (all of it when there is no up: a world without gravity). */
mk_vec2 chr_horizontal2(mk_vec2 v, mk_vec2 up);
mk_vec3 chr_horizontal3(mk_vec3 v, mk_vec3 up);

/* The velocity after one step of steering toward move * max_speed across up (move's part
 * along up is ignored), by at most max_speed * dt / ramp, the ground ramp when grounded or
 * weightless (up zero), the air ramp otherwise. */
mk_vec2 chr_steer2(mk_vec2 vel, mk_vec2 move, float max_speed, mk_vec2 up, bool grounded,
                   float dt);
mk_vec3 chr_steer3(mk_vec3 vel, mk_vec3 move, float max_speed, mk_vec3 up, bool grounded,
                   float dt);

/* m/s: v = sqrt(2 g h) rises h metres against gravity g. */
float chr_jump_speed(float g, float jump_height);
/* The velocity at the start of a jump: the run kept, v_up along up. */
mk_vec2 chr_jump2(mk_vec2 vel, mk_vec2 up, float v_up);
mk_vec3 chr_jump3(mk_vec3 vel, mk_vec3 up, float v_up);

/* Whether a contact that pushes the character along push_dir is ground it stands on: within
 * max_slope (rad) of up. */
bool chr_is_ground2(mk_vec2 push_dir, mk_vec2 up, float max_slope);
bool chr_is_ground3(mk_vec3 push_dir, mk_vec3 up, float max_slope);

/* One side of a touching pair: where it is, how fast it moves, its inverse mass (0: fixed). */
typedef struct chr_mover2 {
    mk_vec2 pos, vel;
    float inv_mass;
} chr_mover2;
typedef struct chr_mover3 {
    mk_vec3 pos, vel;
    float inv_mass;
} chr_mover3;

/* Resolves a touching pair of which one at least is a character: normal n from a to b,
 * moving b by n * depth separates them. A character on ground (a_ground: a stands on b,
 * b_ground: b on a) that the other does not give way to is lifted straight up by
 * depth / cos(slope) and loses its speed into the ground relative to it (it rides what it
 * stands on); otherwise they move apart in proportion to their inverse masses and the
 * velocity into the contact is removed (a perfectly inelastic normal impulse; characters steer
 * themselves, so no friction). Returns the push applied, m. The method is the push-out of
 * "2D Collisions with Minkowski Differences", with the exit straight up on slopes. */
float chr_push_out2(chr_mover2 *a, chr_mover2 *b, mk_vec2 n, float depth, mk_vec2 up,
                    bool a_ground, bool b_ground);
float chr_push_out3(chr_mover3 *a, chr_mover3 *b, mk_vec3 n, float depth, mk_vec3 up,
                    bool a_ground, bool b_ground);

#endif
