/* Scene files: whatever the bytes, loading either fails with a message that names the source
 * or gives a world whose bodies keep finite states while it steps. */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "mink_world_io.h"

#define FUZZ_STEPS 30

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_config cfg = sim_config_default();
    mk_error err = {0};
    sim_world *w = wio_scene_load((const char *)data, size, "fuzz.json", &cfg, &err);
    if (!w) {
        fuzz_check(strncmp(err.message, "fuzz.json", 9) == 0);
        return 0;
    }
    for (int i = 0; i < FUZZ_STEPS; i++)
        sim_world_step(w);
    size_t slots;
    const sim_body *b = sim_world_slots(w, &slots);
    for (size_t i = 0; i < slots; i++)
        if (b[i].id)
            fuzz_check(mk_v2_finite(b[i].pos) && mk_v2_finite(b[i].vel));
    sim_world_free(w);
    return 0;
}
