/* For the client's suites: a JSON line given to the client's world as the server would send
 * it. */
#ifndef MINK_TEST_CLIENT_FIXTURE_H
#define MINK_TEST_CLIENT_FIXTURE_H

#include <check.h>
#include <cjson/cJSON.h>
#include <stdbool.h>

#include "world.h"

/* Parses `json` (which must be JSON) and applies it; returns whether the world took it. */
static inline bool client_apply(cli_world *w, const char *json)
{
    cJSON *j = cJSON_Parse(json);
    ck_assert_ptr_nonnull(j);
    bool ok = cli_world_apply(w, j);
    cJSON_Delete(j);
    return ok;
}

#endif
