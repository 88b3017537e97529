/* The shapes a player drops in front of the avatar with the f key (--spawn SHAPE, drop.c). */
#ifndef MINK_CLI_DROP_H
#define MINK_CLI_DROP_H

#include <stdbool.h>
#include <stddef.h>

#include "app.h"

/* Whether `name` is a shape a player can drop in a world of dim. */
bool cli_drop_valid(const char *name, int dim);
/* The names of dim's shapes, comma-separated, the default first with `note` after it ("" for
 * none), into out (cut to size). */
void cli_drop_names(int dim, const char *note, char *out, size_t size);
/* The f key: the chosen shape (--spawn) dropped in front of the avatar. */
void cli_drop(cli_app *app);

#endif
