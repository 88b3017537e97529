/* mink-client's command line: every flag is checked here, and a bad one ends the run with
 * exit code 2 and a hint to try --help. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "drop.h"

#define DEFAULT_BOT_S 10.0 /* s: bot mode without a terminal */
#define HELP_COL 21        /* the column where an option's text starts in --help */
#define HELP_WIDTH 80      /* columns a generated entry of --help fills at most */

/* One option of --help: its name, then its text wrapped at HELP_WIDTH columns, the lines
 * after the first starting at HELP_COL. */
static void help_entry(FILE *out, const char *option, const char *text)
{
    int col = fprintf(out, "  %-*s", HELP_COL - 2, option);
    bool first = true;
    while (*text) {
        size_t n = strcspn(text, " ");
        if (!first && col + 1 + (int)n > HELP_WIDTH) {
            col = fprintf(out, "\n%*s", HELP_COL, "") - 1;
            first = true;
        }
        col += fprintf(out, "%s%.*s", first ? "" : " ", (int)n, text);
        first = false;
        text += n;
        text += strspn(text, " ");
    }
    fputc('\n', out);
}

static void usage(FILE *out)
{
    fputs("usage: mink-client [options]\n"
            "  --host HOST        server name or address (default 127.0.0.1)\n"
            "  --port N           server port, 1..65535 (default 7777)\n"
            "  --name NAME        player name, also the avatar's tag (default player)\n"
            "  --token T          the connect token a server with --token-key asks for (from\n"
            "                     the game's backend, or mink-server --make-token)\n"
            "  --kind KIND        avatar kind: character (runs and jumps, the default) or\n"
            "                     kinematic (flies where it is steered)\n"
            "  --dim 2|3          the server's world: 2D (the default) or 3D (mink-server\n"
            "                     --dim 3); the avatar is a box in 2D, a capsule in 3D. It must\n"
            "                     match the server: a mismatch is refused and the client exits 1\n"
            "  --bot SECONDS      play by itself for SECONDS, then print a summary (the default,\n"
            "                     for 10 s, when stdin or stdout is not a terminal)\n"
            "  --ping             send one ping, print the round trip, exit 0 on a pong\n"
            "  --latency MS       hold back what is sent and received by MS ms each way (a\n"
            "                     latency simulator: 100 feels like a distant server)\n"
            "  --jitter MS        vary that delay by up to +-MS ms, line by line, in order\n"
            "  --no-predict       draw the avatar where the server last said it was, instead\n"
            "                     of moving it at once by the inputs not yet acknowledged\n"
            "  --no-interp        draw other bodies as each state arrives, instead of\n"
            "                     smoothly between the states around now minus a delay\n",
          out);
    /* The shapes the f key drops, as drop.c lists them. */
    char names2[128], names3[128], text[384];
    cli_drop_names(2, " (default)", names2, sizeof names2);
    cli_drop_names(3, "", names3, sizeof names3);
    snprintf(text, sizeof text, "what the f key drops in front of the avatar: %s in 2D; %s in 3D",
             names2, names3);
    help_entry(out, "--spawn SHAPE", text);
    fputs("  --record FILE      keep every line received, with its arrival time, in FILE\n"
            "  --replay FILE      play a record in the view without a server (p pause,\n"
            "                     ] faster, [ slower, . one line on while paused)\n"
            "  --json             with --bot: the summary as one JSON object, with the feel\n"
            "                     figures response_ms, jitter_mm and corrections, and\n"
            "                     late_inputs and lead_ticks (the stamped inputs' timing)\n"
            "  --ws               with --bots: the players speak WebSocket to /ws on --port\n"
            "                     (the server's HTTP port, 7778 by default), one message a\n"
            "                     text frame, as a browser does\n"
            "  --full-states      ask for states with every body as an object, as every\n"
            "                     version 1 client reads them (default: the bodies already\n"
            "                     seen as deltas, the protocol's `delta` extension; with\n"
            "                     --bots: as compact arrays, the `compact` extension)\n"
            "  --compact-states   the bodies already seen as compact arrays (`compact`)\n"
            "load generator:\n"
            "  --bots N           run N players at once (1..10000): each joins with an avatar,\n"
            "                     sends inputs at 30 Hz and a ping a second, reads every state;\n"
            "                     a progress line a second on stderr, a summary on stdout\n"
            "  --duration S       how long the players play (default 10)\n"
            "  --spawn K          bodies each player spawns, one every 100 ms (default 0):\n"
            "                     boxes in 2D, boxes and spheres in 3D\n"
            "  --radius R         each player subscribes to the bodies within R m (default: all)\n"
            "  --delta            the players ask for delta states instead of compact ones\n"
            "  --json             the summary as one JSON object\n"
            "  --help             this text\n"
            "keys: arrows/WASD move, space jump, f drop a shape, e the game's action (kick the\n"
            "ball, fire at the target the avatar faces), +/- zoom, q quit; in 3D the view\n"
            "looks down on x-z (x right, z down the screen) and up/down move along -z/+z\n",
          out);
}

static double number_arg(const char *flag, const char *text, double lo, double hi)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !(v >= lo && v <= hi)) {
        fprintf(stderr, "mink-client: %s: '%s' is not a number in [%g, %g]; try --help\n", flag,
                text, lo, hi);
        exit(2);
    }
    return v;
}

static double whole_arg(const char *flag, const char *text, double lo, double hi)
{
    if (text[0] == '\0' || strspn(text, "0123456789") != strlen(text)) {
        fprintf(stderr, "mink-client: %s: '%s' is not a whole number; try --help\n", flag, text);
        exit(2);
    }
    return number_arg(flag, text, lo, hi);
}

void cli_parse_args(cli_app *app, cli_bots_opts *bots, int argc, char **argv)
{
    enum { OPT_HOST = 256, OPT_PORT, OPT_NAME, OPT_KIND, OPT_BOT, OPT_PING, OPT_HELP, OPT_BOTS,
           OPT_DURATION, OPT_SPAWN, OPT_RADIUS, OPT_JSON, OPT_DIM, OPT_FULL, OPT_WS, OPT_LATENCY,
           OPT_JITTER, OPT_NO_PREDICT, OPT_NO_INTERP, OPT_RECORD, OPT_REPLAY, OPT_COMPACT,
           OPT_DELTA, OPT_TOKEN };
    static const struct option opts[] = {
        {"host", required_argument, NULL, OPT_HOST}, {"port", required_argument, NULL, OPT_PORT},
        {"name", required_argument, NULL, OPT_NAME}, {"kind", required_argument, NULL, OPT_KIND},
        {"bot", required_argument, NULL, OPT_BOT},   {"ping", no_argument, NULL, OPT_PING},
        {"help", no_argument, NULL, OPT_HELP},       {"bots", required_argument, NULL, OPT_BOTS},
        {"duration", required_argument, NULL, OPT_DURATION},
        {"spawn", required_argument, NULL, OPT_SPAWN},
        {"radius", required_argument, NULL, OPT_RADIUS},
        {"json", no_argument, NULL, OPT_JSON},       {"dim", required_argument, NULL, OPT_DIM},
        {"full-states", no_argument, NULL, OPT_FULL},
        {"ws", no_argument, NULL, OPT_WS},
        {"latency", required_argument, NULL, OPT_LATENCY},
        {"jitter", required_argument, NULL, OPT_JITTER},
        {"no-predict", no_argument, NULL, OPT_NO_PREDICT},
        {"no-interp", no_argument, NULL, OPT_NO_INTERP},
        {"record", required_argument, NULL, OPT_RECORD},
        {"replay", required_argument, NULL, OPT_REPLAY},
        {"compact-states", no_argument, NULL, OPT_COMPACT},
        {"delta", no_argument, NULL, OPT_DELTA},
        {"token", required_argument, NULL, OPT_TOKEN},
        {NULL, 0, NULL, 0},
    };
    bots->duration = DEFAULT_BOT_S;
    snprintf(app->host, sizeof app->host, "127.0.0.1");
    app->port = 7777;
    snprintf(app->name, sizeof app->name, "player");
    app->dim = 2;
    bool bot = false, ping = false;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case OPT_HOST:
            if (optarg[0] == '\0' || strlen(optarg) >= sizeof app->host) {
                fprintf(stderr, "mink-client: --host: '%s' is not a host name; try --help\n",
                        optarg);
                exit(2);
            }
            snprintf(app->host, sizeof app->host, "%s", optarg);
            break;
        case OPT_PORT: {
            if (strspn(optarg, "0123456789") != strlen(optarg)) {
                fprintf(stderr, "mink-client: --port: '%s' is not a port number; try --help\n",
                        optarg);
                exit(2);
            }
            app->port = (int)number_arg("--port", optarg, 1, 65535);
            break;
        }
        case OPT_NAME:
            if (strlen(optarg) > PROTO_MAX_NAME || !proto_utf8_valid(optarg, strlen(optarg))) {
                fprintf(stderr, "mink-client: --name: at most %d bytes of UTF-8; try --help\n",
                        PROTO_MAX_NAME);
                exit(2);
            }
            snprintf(app->name, sizeof app->name, "%s", optarg);
            break;
        case OPT_TOKEN:
            if (strlen(optarg) > PROTO_MAX_TOKEN ||
                strspn(optarg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.") !=
                    strlen(optarg)) {
                fprintf(stderr, "mink-client: --token: not a connect token (base64url and dots, "
                                "at most %d bytes); try --help\n", PROTO_MAX_TOKEN);
                exit(2);
            }
            app->token = optarg;
            break;
        case OPT_KIND:
            if (strcmp(optarg, "character") != 0 && strcmp(optarg, "kinematic") != 0) {
                fprintf(stderr,
                        "mink-client: --kind: '%s' is not character or kinematic; try --help\n",
                        optarg);
                exit(2);
            }
            app->kinematic = strcmp(optarg, "kinematic") == 0;
            break;
        case OPT_BOT:
            app->bot_seconds = number_arg("--bot", optarg, 0.001, 1e6);
            bot = true;
            break;
        case OPT_PING:
            ping = true;
            break;
        case OPT_BOTS:
            bots->count = (int)whole_arg("--bots", optarg, 1, 10000);
            break;
        case OPT_DURATION:
            bots->duration = number_arg("--duration", optarg, 0.1, 1e6);
            break;
        case OPT_SPAWN:
            /* A count for the load generator, a shape's name for a player. */
            if (optarg[0] != '\0' && strspn(optarg, "0123456789") == strlen(optarg)) {
                bots->spawn = (int)whole_arg("--spawn", optarg, 0, 1000);
            } else if (strlen(optarg) < sizeof app->spawn_shape &&
                       (cli_drop_valid(optarg, 2) || cli_drop_valid(optarg, 3))) {
                snprintf(app->spawn_shape, sizeof app->spawn_shape, "%s", optarg);
            } else {
                char names2[128], names3[128];
                cli_drop_names(2, "", names2, sizeof names2);
                cli_drop_names(3, "", names3, sizeof names3);
                fprintf(stderr, "mink-client: --spawn: '%s' is neither a count nor one of %s "
                                "(2D), %s (3D); try --help\n",
                        optarg, names2, names3);
                exit(2);
            }
            break;
        case OPT_LATENCY:
            app->latency_ms = number_arg("--latency", optarg, 0, 10000);
            break;
        case OPT_JITTER:
            app->jitter_ms = number_arg("--jitter", optarg, 0, 10000);
            break;
        case OPT_WS:
            bots->ws = true;
            break;
        case OPT_COMPACT:
        case OPT_DELTA:
        case OPT_NO_PREDICT:
        case OPT_NO_INTERP: /* switches: each sets its own flag */
            *(c == OPT_COMPACT      ? &app->compact_states
              : c == OPT_DELTA      ? &bots->delta
              : c == OPT_NO_PREDICT ? &app->no_predict
                                    : &app->no_interp) = true;
            break;
        case OPT_RECORD:
        case OPT_REPLAY: {
            char *dst = c == OPT_RECORD ? app->record_path : app->replay_path;
            if (optarg[0] == '\0' || strlen(optarg) >= sizeof app->record_path) {
                fprintf(stderr, "mink-client: %s: '%s' is not a file name; try --help\n",
                        c == OPT_RECORD ? "--record" : "--replay", optarg);
                exit(2);
            }
            snprintf(dst, sizeof app->record_path, "%s", optarg);
            break;
        }
        case OPT_RADIUS:
            bots->radius = number_arg("--radius", optarg, 0.001, PROTO_MAX_RADIUS);
            break;
        case OPT_JSON:
            bots->json = app->json = true;
            break;
        case OPT_FULL:
            app->full_states = bots->full_states = true;
            break;
        case OPT_DIM:
            if (strcmp(optarg, "2") != 0 && strcmp(optarg, "3") != 0) {
                fprintf(stderr, "mink-client: --dim: '%s' is not 2 or 3; try --help\n", optarg);
                exit(2);
            }
            app->dim = optarg[0] - '0';
            break;
        case OPT_HELP:
            usage(stdout);
            exit(0);
        default: /* getopt_long has said what is wrong */
            fprintf(stderr, "mink-client: try --help\n");
            exit(2);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "mink-client: unexpected argument '%s'; try --help\n", argv[optind]);
        exit(2);
    }
    if (bots->count > 0) {
        if (ping || bot) {
            fprintf(stderr, "mink-client: --bots goes with neither --bot nor --ping\n");
            exit(2);
        }
        app->mode = CLI_MODE_BOTS;
        snprintf(bots->host, sizeof bots->host, "%s", app->host);
        bots->port = app->port;
        bots->dim = app->dim;
    } else if (bots->spawn || bots->radius > 0 || bots->delta || bots->ws) {
        fprintf(stderr, "mink-client: --spawn K, --radius, --delta and --ws go with --bots N\n");
        exit(2);
    } else if (app->replay_path[0]) {
        if (ping || bot || app->record_path[0]) {
            fprintf(stderr, "mink-client: --replay goes with neither --bot, --ping nor "
                            "--record\n");
            exit(2);
        }
        app->mode = CLI_MODE_INTERACTIVE;
        app->replaying = true;
    } else if (ping) {
        app->mode = CLI_MODE_PING;
    } else if (bot) {
        app->mode = CLI_MODE_BOT;
    } else if (uv_guess_handle(0) == UV_TTY && uv_guess_handle(1) == UV_TTY) {
        app->mode = CLI_MODE_INTERACTIVE;
    } else {
        app->mode = CLI_MODE_BOT;
        app->bot_seconds = DEFAULT_BOT_S;
    }
    if (app->json && app->mode != CLI_MODE_BOT && app->mode != CLI_MODE_BOTS) {
        fprintf(stderr, "mink-client: --json goes with --bot S or --bots N\n");
        exit(2);
    }
    if (app->spawn_shape[0] && !cli_drop_valid(app->spawn_shape, app->dim)) {
        char names[128];
        cli_drop_names(app->dim, "", names, sizeof names);
        fprintf(stderr, "mink-client: --spawn: '%s' is not a %dD shape (%s); try --help\n",
                app->spawn_shape, app->dim, names);
        exit(2);
    }
}
