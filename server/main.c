/* mink-server: flags, the world and the network wired together. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "game.h"
#include "mink_net.h"
#include "mink_token.h"
#include "record.h"

/* The machine's cores online, for --help: what --workers may want. */
static int machine_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

static void usage(FILE *out)
{
    net_config d = net_config_default();
    sim_config s = sim_config_default();
    fprintf(out,
            "usage: mink-server [options]\n"
            "  --host ADDR              listen address (default %s)\n"
            "  --port N                 TCP port, 0 for any free one (default %d)\n"
            "  --tick-hz HZ             world steps per second (default %.0f)\n"
            "  --snapshot-hz HZ         state messages per second, <= tick-hz (default %.0f)\n"
            "  --dim 2|3                the world's dimensions (default 2); --dim 3 alone loads\n"
            "                           the 3D demo scene\n"
            "  --scene FILE.json        load a scene {dim, gravity, bodies} instead of the demo;\n"
            "                           its dim decides the world's (a --dim that says otherwise\n"
            "                           is an error)\n"
            "  --scene demo3d           the 3D demo scene (a 3D world)\n"
            "  --scene pile:N           the stress scene: N 1 m boxes in columns of ten on a\n"
            "                           ground (a 2D world)\n"
            "  --scene pile3d:N         the same in 3D: N 1 m cubes in columns of ten on a square\n"
            "                           grid on a floor\n"
            "  --save FILE              keep the world in FILE: a snapshot every --save-every\n"
            "                           seconds, on SIGHUP and on stop, and a journal of every\n"
            "                           change since (FILE.journal); when FILE exists, the world\n"
            "                           is brought back from it on start (--scene is not loaded)\n"
            "  --save-every S           seconds between snapshots (default %.0f)\n"
            "  --fsync-ms N|always|no   flush the journal to disk every N ms, what a crash may\n"
            "                           lose (default %d); always: every tick; no: written every\n"
            "                           second, flushed when the kernel sees fit\n"
            "  --log-level LEVEL        error, warn, info or debug (default info)\n"
            "  --max-clients N          clients at once, then server_full (default %u)\n"
            "  --max-bodies-per-client N  bodies a client may own, avatar included (default %u)\n"
            "  --max-bodies N           bodies in the world (default %u)\n"
            "  --bounds M               bodies farther than M metres on an axis are removed "
            "(default %.0f)\n"
            "  --max-msg-rate N         messages a client may send a second, bursts of 2N "
            "(default %.0f)\n"
            "  --max-spawn-rate N       spawns a client may ask for a second, bursts of 2N "
            "(default %.0f)\n"
            "  --hello-timeout S        seconds a connection may stay without hello (default "
            "%.0f)\n"
            "  --max-line BYTES         longest line a client may send, at most 65536 (default "
            "%zu)\n"
            "  --out-soft-limit BYTES   output a client may leave unread for --out-soft-seconds "
            "(default %zu)\n"
            "  --out-soft-seconds S     (default %.0f)\n"
            "  --out-hard-limit BYTES   output a client may leave unread at all (default %zu)\n"
            "  --hash-every N           log the world hash every N ticks (the same scene and\n"
            "                           inputs give the same hashes on the same build)\n"
            "  --record FILE            write every change to the world (tick, client, message)\n"
            "  --replay FILE            replay a recording on the scene offline, check its hash\n"
            "  --stats S                log tick, step and snapshot figures every S seconds\n"
            "  --max-triangles N        triangles (or chain segments) one level may hold, from a\n"
            "                           scene's file or a message (default %u)\n"
            "  --no-sleep               bodies at rest never sleep (stress tests at full price)\n",
            d.host, d.port, d.tick_hz, d.snapshot_hz, d.save_every, d.fsync_ms, d.max_clients,
            d.bodies_per_client, s.max_bodies, s.bounds, d.msg_rate, d.spawn_rate,
            d.hello_timeout, d.max_line, d.out_soft_limit, d.out_soft_seconds, d.out_hard_limit,
            WIO_MAX_TRIANGLES_DEFAULT);
    /* Two strings: one would be longer than C compilers need support. */
    fprintf(out,
            "  --history-ms MS          keep the moving bodies' placements of the last MS ms for\n"
            "                           queries with at_tick (lag compensation); 0 keeps none\n"
            "                           (default 1000)\n"
            "  --workers N              threads that run the step's parallel parts, 1 to 64\n"
            "                           (default 1; this machine has %d cores); any count\n"
            "                           steps the world bit for bit the same\n"
            "  --http-port N            HTTP port on --host for GET /metrics, /livez, /healthz,\n"
            "                           /readyz; 0 turns it off (default %d)\n"
            "  --http-max-connections N  HTTP connections at once (default %u)\n"
            "  --tls-cert FILE          with --tls-key: serve https and wss on the HTTP port\n"
            "                           (a PEM certificate chain, through OpenSSL)\n"
            "  --tls-key FILE           its PEM private key\n"
            "  --stall-seconds S        /livez answers 503 when the world has not stepped for S\n"
            "                           seconds, or did not within the last S (default %g)\n"
            "  --drain-seconds S        a stop (SIGTERM) ends within S seconds (default %g)\n"
            "  --token-key FILE         only players whose hello has a token signed with this\n"
            "                           32-byte key may join (without it: anyone may)\n"
            "  --keep-bodies S          with --token-key: a player who left keeps their bodies\n"
            "                           S seconds to come back to (default %g)\n"
            "  --make-token             print a token for --user ID valid --ttl S seconds\n"
            "                           (default 60; optional --name N, --role R) signed with\n"
            "                           --token-key, and exit\n"
            "  --agones-allocate        with AGONES_SDK_HTTP_PORT set: the first player to join\n"
            "                           marks the GameServer Allocated\n"
            "  --hit-speed V            bodies that meet faster than V m/s along the normal are\n"
            "                           a `hit` event (default %g)\n"
            "  --events-per-state N     the most events a client subscribed to them gets in a\n"
            "                           state, the newest; the rest are counted as dropped\n"
            "                           (default %u)\n"
            "  --no-events              the world keeps no events (contacts, hits, sensors):\n"
            "                           the step does none of that work\n"
            "  --help                   this text\n",
            machine_cores(), d.http_port, d.http_max_connections, d.stall_seconds,
            d.drain_seconds, d.keep_bodies, (double)s.hit_speed, d.events_per_state);
    fprintf(out,
            "the game's rules (docs/RULES.md):\n"
            "  --script FILE.lua        run the game's rules, a Lua 5.4 script, in the tick;\n"
            "                           SIGHUP reloads it (the old one runs on if the new one\n"
            "                           does not load); with --record, --replay runs it again\n"
            "  --script-memory BYTES    the most memory the script may hold (default %zu,\n"
            "                           64 MiB)\n"
            "  --script-budget N        Lua instructions a hook call may run (default %u)\n"
            "  --max-action-rate N      actions a client may send a second, bursts of 2N\n"
            "                           (default %.0f)\n",
            RUL_DEFAULT_MEMORY, RUL_DEFAULT_BUDGET, d.action_rate);
}

/* Parses a number in [lo, hi] or exits with a message naming the flag. */
static double number_arg(const char *flag, const char *text, double lo, double hi)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !isfinite(v) || v < lo || v > hi) {
        fprintf(stderr, "mink-server: %s: '%s' is not a number in [%g, %g]\n", flag, text, lo,
                hi);
        exit(2);
    }
    return v;
}

static double integer_arg(const char *flag, const char *text, double lo, double hi)
{
    double v = number_arg(flag, text, lo, hi);
    if (v != floor(v)) {
        fprintf(stderr, "mink-server: %s: '%s' is not a whole number\n", flag, text);
        exit(2);
    }
    return v;
}

/* A save that cannot be written is found now, not when the server stops: the temporary file
 * the save goes through is created and removed. */
static bool save_path_writable(const char *path)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        fprintf(stderr, "mink-server: --save: the path is too long\n");
        return false;
    }
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        fprintf(stderr, "mink-server: --save: cannot write %s: %s\n", tmp, strerror(errno));
        return false;
    }
    fclose(f);
    unlink(tmp);
    return true;
}

/* The world of --scene and --dim, or NULL after saying why with the exit code in *code. A
 * stress scene's N is a flag's value, so a bad one is a bad flag (exit 2, as is a scene that
 * cannot be built: the ground is one of the --max-bodies); a scene file that cannot be loaded
 * exits 1. A scene says its own dim: a --dim that contradicts it is refused (exit 2), never
 * silently overridden. */
static sim_world *load_world(const char *scene, int dim, const sim_config *wc, int *code)
{
    mk_error err = {0};
    sim_world *world = NULL;
    int scene_dim = 0;
    *code = 2;
    if (scene && strncmp(scene, "pile:", 5) == 0) {
        int n = (int)integer_arg("--scene pile:N", scene + 5, 1, wc->max_bodies - 1.0);
        scene_dim = 2;
        if (dim != 3)
            world = wio_scene_pile2(n, wc, &err);
    } else if (scene && strncmp(scene, "pile3d:", 7) == 0) {
        int n = (int)integer_arg("--scene pile3d:N", scene + 7, 1, wc->max_bodies - 1.0);
        scene_dim = 3;
        if (dim != 2)
            world = wio_scene_pile3(n, wc, &err);
    } else if ((scene && strcmp(scene, "demo3d") == 0) || (!scene && dim == 3)) {
        scene_dim = 3;
        if (dim != 2)
            world = wio_scene_load(wio_demo_scene3, strlen(wio_demo_scene3), "demo3d", wc,
                                   &err);
    } else {
        world = scene ? wio_scene_load_file(scene, wc, &err)
                      : wio_scene_load(wio_demo_scene2, strlen(wio_demo_scene2), "demo", wc, &err);
        if (!world) {
            LOG_ERROR("scene: %s", err.message);
            *code = 1;
            return NULL;
        }
        scene_dim = sim_world_dim(world);
    }
    if (dim != 0 && dim != scene_dim) {
        fprintf(stderr, "mink-server: --dim %d: the scene %s is a %dD world; leave out --dim "
                        "or give --dim %d\n", dim, scene ? scene : "demo", scene_dim, scene_dim);
        sim_world_free(world);
        return NULL;
    }
    if (!world)
        fprintf(stderr, "mink-server: --scene %s: %s\n", scene ? scene : "demo3d", err.message);
    return world;
}

/* --make-token: the token of the claims, valid ttl seconds from now, on stdout. */
static int print_token(const uint8_t *key, tok_claims *claims, double ttl)
{
    if (!key || !claims->user[0]) {
        fprintf(stderr, "mink-server: --make-token needs --token-key FILE and --user ID\n");
        return 2;
    }
    claims->exp = (int64_t)time(NULL) + (int64_t)ttl;
    char token[TOK_MAX_LEN + 1];
    mk_error err = {0};
    if (tok_random_nonce(claims->nonce, sizeof claims->nonce) != 0 ||
        tok_mint(key, claims, token, sizeof token, &err) < 0) {
        fprintf(stderr, "mink-server: --make-token: %s\n",
                err.message[0] ? err.message : "no random numbers");
        return 2;
    }
    printf("%s\n", token);
    return 0;
}

/* A flag that sets a number in a range: its name without the dashes, its range and the field it
 * sets. The field's type says whether the number must be whole. */
typedef enum { NUM_DOUBLE, NUM_FLOAT, NUM_INT, NUM_U32, NUM_U64, NUM_SIZE } num_type;
typedef struct {
    const char *name;
    num_type type;
    double lo, hi;
    void *field;
} num_flag;

/* getopt_long's value for the numeric flag at index i of the table. */
#define O_NUMBER 1024

static void set_number(const num_flag *f, const char *text)
{
    char flag[64];
    snprintf(flag, sizeof flag, "--%s", f->name);
    bool real = f->type == NUM_DOUBLE || f->type == NUM_FLOAT;
    double v = real ? number_arg(flag, text, f->lo, f->hi) : integer_arg(flag, text, f->lo, f->hi);
    switch (f->type) {
    case NUM_DOUBLE: *(double *)f->field = v; break;
    case NUM_FLOAT: *(float *)f->field = (float)v; break;
    case NUM_INT: *(int *)f->field = (int)v; break;
    case NUM_U32: *(uint32_t *)f->field = (uint32_t)v; break;
    case NUM_U64: *(uint64_t *)f->field = (uint64_t)v; break;
    case NUM_SIZE: *(size_t *)f->field = (size_t)v; break;
    }
}

int main(int argc, char **argv)
{
    net_config cfg = net_config_default();
    sim_config wc = sim_config_default();
    /* One worker unless asked: on the machine measured, a second one paid only on large 3D
     * worlds and made 2D piles slower (docs/BENCHMARKS.md, "Against Box2D v3 and Jolt"). */
    wc.workers = 1;
    /* Clients may subscribe to events at any time: the world keeps them from the start. */
    wc.events = true;
    const char *scene = NULL, *record = NULL, *replay = NULL;
    mink_game_opts game = {.memory = RUL_DEFAULT_MEMORY, .budget = RUL_DEFAULT_BUDGET};
    double history_ms = 1000.0;
    uint32_t max_triangles = WIO_MAX_TRIANGLES_DEFAULT;
    int dim = 0; /* 0: not given; the scene decides, and the default world is 2D */
    /* --make-token and the key */
    const char *token_key = NULL;
    bool make_token = false;
    double ttl = 60;
    tok_claims claims = {0};
    static uint8_t key[TOK_KEY_BYTES];

    const num_flag nums[] = {
        {"port", NUM_INT, 0, 65535, &cfg.port},
        {"tick-hz", NUM_DOUBLE, 1, 1000, &cfg.tick_hz},
        {"snapshot-hz", NUM_DOUBLE, 0.1, 1000, &cfg.snapshot_hz},
        {"max-clients", NUM_U32, 1, 100000, &cfg.max_clients},
        {"max-bodies-per-client", NUM_U32, 1, 1e6, &cfg.bodies_per_client},
        {"max-bodies", NUM_U32, 1, SIM_MAX_BODIES, &wc.max_bodies},
        {"workers", NUM_INT, 1, 64, &wc.workers},
        {"bounds", NUM_FLOAT, 1, 1e6, &wc.bounds},
        {"max-msg-rate", NUM_DOUBLE, 1, 1e6, &cfg.msg_rate},
        {"max-spawn-rate", NUM_DOUBLE, 0.01, 1e6, &cfg.spawn_rate},
        {"hello-timeout", NUM_DOUBLE, 0.1, 86400, &cfg.hello_timeout},
        {"max-line", NUM_SIZE, 256, PROTO_MAX_LINE, &cfg.max_line},
        {"out-soft-limit", NUM_SIZE, 4096, 1e10, &cfg.out_soft_limit},
        {"out-soft-seconds", NUM_DOUBLE, 0.1, 86400, &cfg.out_soft_seconds},
        {"out-hard-limit", NUM_SIZE, 65536, 1e10, &cfg.out_hard_limit},
        {"hash-every", NUM_U64, 0, 1e15, &cfg.hash_every},
        {"stats", NUM_DOUBLE, 0.1, 86400, &cfg.stats_seconds},
        {"http-port", NUM_INT, 0, 65535, &cfg.http_port},
        {"http-max-connections", NUM_U32, 1, 10000, &cfg.http_max_connections},
        {"stall-seconds", NUM_DOUBLE, 0.1, 86400, &cfg.stall_seconds},
        {"drain-seconds", NUM_DOUBLE, 0.1, 86400, &cfg.drain_seconds},
        {"history-ms", NUM_DOUBLE, 0, 60000, &history_ms},
        {"save-every", NUM_DOUBLE, 0.1, 86400, &cfg.save_every},
        {"keep-bodies", NUM_DOUBLE, 0, 86400, &cfg.keep_bodies},
        {"ttl", NUM_DOUBLE, 1, TOK_MAX_TTL, &ttl},
        {"max-triangles", NUM_U32, 1, COL_LEVEL_MAX_PIECES, &max_triangles},
        {"hit-speed", NUM_FLOAT, 0, 1e3, &wc.hit_speed},
        {"events-per-state", NUM_U32, 1, 1e6, &cfg.events_per_state},
        {"script-memory", NUM_SIZE, 1 << 20, 1ull << 40, &game.memory},
        {"script-budget", NUM_U32, 1000, RUL_MAX_BUDGET, &game.budget},
        {"max-action-rate", NUM_DOUBLE, 0.01, 1e6, &cfg.action_rate},
    };
    enum { NUMS = sizeof nums / sizeof nums[0] };
    enum { O_HOST = 256, O_SCENE, O_LOG, O_SAVE, O_RECORD, O_REPLAY, O_NO_SLEEP, O_DIM,
           O_AGONES_ALLOCATE, O_TOKEN_KEY, O_MAKE_TOKEN, O_USER, O_NAME, O_ROLE, O_TLS_CERT,
           O_TLS_KEY, O_HELP, O_FSYNC, O_NO_EVENTS, O_SCRIPT };
    static const struct option other[] = {
        {"host", required_argument, NULL, O_HOST},
        {"scene", required_argument, NULL, O_SCENE},
        {"log-level", required_argument, NULL, O_LOG},
        {"save", required_argument, NULL, O_SAVE},
        {"record", required_argument, NULL, O_RECORD},
        {"replay", required_argument, NULL, O_REPLAY},
        {"no-sleep", no_argument, NULL, O_NO_SLEEP},
        {"dim", required_argument, NULL, O_DIM},
        {"agones-allocate", no_argument, NULL, O_AGONES_ALLOCATE},
        {"token-key", required_argument, NULL, O_TOKEN_KEY},
        {"make-token", no_argument, NULL, O_MAKE_TOKEN},
        {"user", required_argument, NULL, O_USER},
        {"name", required_argument, NULL, O_NAME},
        {"role", required_argument, NULL, O_ROLE},
        {"tls-cert", required_argument, NULL, O_TLS_CERT},
        {"tls-key", required_argument, NULL, O_TLS_KEY},
        {"help", no_argument, NULL, O_HELP},
        {"fsync-ms", required_argument, NULL, O_FSYNC},
        {"no-events", no_argument, NULL, O_NO_EVENTS},
        {"script", required_argument, NULL, O_SCRIPT},
    };
    enum { OTHER = sizeof other / sizeof other[0] };
    struct option opts[NUMS + OTHER + 1];
    for (int i = 0; i < NUMS; i++)
        opts[i] = (struct option){nums[i].name, required_argument, NULL, O_NUMBER + i};
    memcpy(opts + NUMS, other, sizeof other);
    opts[NUMS + OTHER] = (struct option){NULL, 0, NULL, 0};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c >= O_NUMBER && c < O_NUMBER + NUMS) {
            set_number(&nums[c - O_NUMBER], optarg);
            continue;
        }
        switch (c) {
        case O_HOST:
            cfg.host = optarg;
            break;
        case O_SCENE:
            scene = optarg;
            break;
        case O_LOG: {
            int level = net_log_parse_level(optarg);
            if (level < 0) {
                fprintf(stderr, "mink-server: --log-level: '%s' is not error, warn, info or "
                                "debug\n", optarg);
                return 2;
            }
            net_log_set_level((net_log_level)level);
            break;
        }
        case O_SAVE:
            cfg.save_path = optarg;
            break;
        case O_FSYNC:
            if (strcmp(optarg, "always") == 0)
                cfg.fsync_ms = NET_FSYNC_ALWAYS;
            else if (strcmp(optarg, "no") == 0)
                cfg.fsync_ms = NET_FSYNC_NO;
            else
                cfg.fsync_ms = (int)integer_arg("--fsync-ms", optarg, 1, 3600000);
            break;
        case O_RECORD:
            record = optarg;
            break;
        case O_REPLAY:
            replay = optarg;
            break;
        case O_NO_SLEEP:
            wc.sleep = false;
            break;
        case O_NO_EVENTS:
            wc.events = false;
            break;
        case O_SCRIPT:
            game.script = optarg;
            break;
        case O_DIM:
            if (strcmp(optarg, "2") != 0 && strcmp(optarg, "3") != 0) {
                fprintf(stderr, "mink-server: --dim: '%s' is not 2 or 3\n", optarg);
                return 2;
            }
            dim = optarg[0] - '0';
            break;
        case O_AGONES_ALLOCATE:
            cfg.agones_allocate = true;
            break;
        case O_TOKEN_KEY:
            token_key = optarg;
            break;
        case O_MAKE_TOKEN:
            make_token = true;
            break;
        case O_USER:
        case O_NAME:
        case O_ROLE: {
            char *field = c == O_USER ? claims.user : c == O_NAME ? claims.name : claims.role;
            size_t max = c == O_USER ? TOK_MAX_USER : c == O_NAME ? TOK_MAX_NAME : TOK_MAX_ROLE;
            if (strlen(optarg) > max) {
                fprintf(stderr, "mink-server: --%s: at most %zu bytes\n",
                        c == O_USER ? "user" : c == O_NAME ? "name" : "role", max);
                return 2;
            }
            strcpy(field, optarg);
            break;
        }
        case O_TLS_CERT:
            cfg.tls_cert = optarg;
            break;
        case O_TLS_KEY:
            cfg.tls_key = optarg;
            break;
        case O_HELP:
            usage(stdout);
            return 0;
        default:
            fprintf(stderr, "mink-server: unknown or incomplete option '%s'\n",
                    argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "mink-server: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    if (token_key) {
        mk_error err = {0};
        if (tok_key_load(token_key, key, &err) != 0) {
            fprintf(stderr, "mink-server: --token-key: %s\n", err.message);
            return 2;
        }
        cfg.token_key = key;
    }
    if (make_token)
        return print_token(cfg.token_key, &claims, ttl);
    if (claims.user[0] || claims.name[0] || claims.role[0]) {
        fprintf(stderr, "mink-server: --user, --name and --role go with --make-token\n");
        return 2;
    }
    if (cfg.save_path && !save_path_writable(cfg.save_path))
        return 2;
    if (cfg.save_path && (record || replay)) {
        /* The world has one journal: --save's is a recording that restarts with each
         * snapshot. */
        fprintf(stderr, "mink-server: --save keeps its own journal; give --record or --replay "
                        "without it\n");
        return 2;
    }
    if (cfg.out_soft_limit > cfg.out_hard_limit) {
        fprintf(stderr, "mink-server: --out-soft-limit %zu is above --out-hard-limit %zu\n",
                cfg.out_soft_limit, cfg.out_hard_limit);
        return 2;
    }
    if (cfg.http_port != 0 && cfg.http_port == cfg.port) {
        fprintf(stderr, "mink-server: --http-port %d is the game port\n", cfg.http_port);
        return 2;
    }
    if (!cfg.tls_cert != !cfg.tls_key) {
        fprintf(stderr, "mink-server: --tls-cert and --tls-key go together\n");
        return 2;
    }
    for (int i = 0; i < 2; i++) {
        const char *path = i ? cfg.tls_key : cfg.tls_cert;
        FILE *f = path ? fopen(path, "r") : NULL;
        if (path && !f) {
            fprintf(stderr, "mink-server: --%s %s: %s\n", i ? "tls-key" : "tls-cert", path,
                    strerror(errno));
            return 2;
        }
        if (f)
            fclose(f);
    }
    if (cfg.snapshot_hz > cfg.tick_hz) {
        fprintf(stderr, "mink-server: --snapshot-hz %g is above --tick-hz %g\n",
                cfg.snapshot_hz, cfg.tick_hz);
        return 2;
    }
    wc.dt = (float)(1.0 / cfg.tick_hz);

    int code;
    bool saved = false;
    wio_levels_set_max_triangles(max_triangles);
    char *game_state = NULL;
    sim_world *world = cfg.save_path ? net_restore_game(cfg.save_path, cfg.token_key != NULL,
                                                        &saved, game.script ? &game_state : NULL)
                                     : NULL;
    if (saved && !world)
        return 1;
    cfg.restored = world != NULL;
    if (saved && scene)
        LOG_WARN("--scene %s is not loaded: the world comes back from --save %s", scene,
                 cfg.save_path);
    if (!world && !(world = load_world(scene, dim, &wc, &code)))
        return code;
    if (!saved)
        LOG_INFO("scene %s: %d-dimensional world, %zu bodies",
                 scene ? scene : sim_world_dim(world) == 3 ? "demo3d" : "demo",
                 sim_world_dim(world), sim_world_body_count(world));
    const wio_level_file *files;
    for (size_t i = 0, n = wio_level_files(&files); i < n; i++)
        if (files[i].name[0])
            LOG_INFO("level %s: %u triangles (%u degenerate or repeated dropped), %zu bytes, "
                     "sha256 %s, served at /levels/%s", files[i].name,
                     sim_level_pieces(files[i].level), files[i].dropped,
                     sim_level_bytes(files[i].level), files[i].sha256, files[i].key);

    /* The window in whole ticks, rounded up: a query at any tick of the last history_ms. */
    uint32_t history_ticks = (uint32_t)ceil(history_ms * cfg.tick_hz / 1000.0);
    if (history_ticks > 0 && !sim_world_set_history(world, history_ticks)) {
        fprintf(stderr, "mink-server: no memory for a history of %u ticks\n", history_ticks);
        sim_world_free(world);
        return 1;
    }

    /* The game's rules over the world as it is now: a script that does not load stops here. */
    rul_runtime *rules = game.script ? mink_game_load(&game, world) : NULL;
    if (game.script && (!rules || (game_state && mink_game_restore(rules, game_state) != 0))) {
        free(game_state);
        rul_free(rules);
        sim_world_free(world);
        return 1;
    }
    cfg.rules = rules;
    if (replay) {
        int replayed = mink_replay(world, replay, cfg.hash_every, rules);
        rul_free(rules);
        sim_world_free(world);
        return replayed == 0 ? 0 : 1;
    }
    mink_recording recording = {0};
    if (record && !mink_record_start(&recording, world, record)) {
        rul_free(rules);
        sim_world_free(world);
        return 1;
    }
    cfg.record = record ? &recording.journal : NULL;
    if (record && rules)
        wio_journal_by_rules(&recording.journal, mink_game_busy, rules);
    /* A new game begins (a restored one goes on), after the recording has begun: a replay
     * starts it at the same point. */
    if (rules && !game_state)
        rul_start(rules);
    free(game_state);

    /* A peer that closes while we write must give an error code, not kill the process. */
    signal(SIGPIPE, SIG_IGN);
    int rc = net_serve(&cfg, world);
    if (record && mink_record_stop(&recording) != 0)
        rc = -1;
    rul_free(rules);
    sim_world_free(world);
    return rc == 0 ? 0 : 1;
}
