/* Events: what happened in the world (contacts beginning and ending, hits, sensors, joints
 * breaking), kept until the caller clears them: the game's rules read them after each step,
 * and the server hands them to the clients that asked for them. */
#include "world_internal.h"

bool sim_emit_event(sim_world *w, const sim_event *e) { return MK_VEC_PUSH(&w->events, *e); }

const sim_event *sim_world_events(const sim_world *w, size_t *n)
{
    *n = w->events.v.len;
    return w->events.at;
}

void sim_world_clear_events(sim_world *w) { w->events.v.len = 0; }
