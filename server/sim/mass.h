/* Mass properties of 2D and 3D bodies (mass.c). */
#ifndef MINK_SIM_MASS_H
#define MINK_SIM_MASS_H

#include "mink_sim.h"

/* Mass properties of a body (mass.c): zero inverses for infinite mass or inertia. */
typedef struct sim_mass {
    float inv_mass, inv_inertia; /* 1/kg, 1/(kg m^2) */
    mk_vec2 center;              /* centre of mass in the body's frame, m */
} sim_mass;

sim_mass sim_mass2_of(const col_shape2 *s, float density, sim_kind kind);
/* Mass and inertia of a placed 3D body (sets its inv_inertia and local_center); returns its
 * inverse mass. */
float sim_mass3_of(sim_body3 *b3, float density, sim_kind kind);

#endif
