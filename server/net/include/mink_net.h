/* mink_net: the libuv server. A TCP listener, one session per client, the fixed-step clock
 * that drives the world, and the `state` snapshots sent to every client. */
#ifndef MINK_NET_H
#define MINK_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mink_log.h"
#include "mink_world_io.h"

typedef struct net_config {
    const char *host; /* listen address, default 0.0.0.0 */
    int port;         /* default 7777; 0 picks a free port (logged) */
    double tick_hz;     /* world steps per second, default 60 */
    double snapshot_hz; /* `state` messages per second, default 20 */
    /* Limits, each with the reason it exists. */
    int max_catchup;           /* steps run at once after a stall, default 5: beyond that ticks
                                  are dropped instead of spiralling */
    uint32_t max_clients;      /* default 256: then `server_full` */
    uint32_t bodies_per_client; /* default 64 (avatar included): then `quota` */
    size_t out_soft_limit;     /* bytes, default 1 MiB: over it for out_soft_seconds -> cut */
    double out_soft_seconds;   /* default 10 s */
    size_t out_hard_limit;     /* bytes, default 4 MiB: over it -> cut at once */
    size_t max_line;           /* bytes, default 65536 (the protocol's limit; a server may ask
                                  for less): a longer line is `line_too_long` and the end */
    double hello_timeout;      /* s, default 10: a connection that never says hello is closed */
    double msg_rate;           /* lines a second, default 200 (a 60 Hz client sends ~60), with
                                  bursts of twice that: beyond it the client's socket is not
                                  read until the allowance refills (backpressure) */
    const char *save_path;     /* --save: a snapshot of the world is written here every
                                  save_every seconds, on SIGHUP and on stop, with a journal of
                                  the changes since (durable.c) */
    double save_every;         /* --save-every, s, default 60 */
    bool restored;             /* the world came back from save_path (net_restore): with
                                  token_key, its players come back from FILE.players */
    int fsync_ms;              /* --fsync-ms: the journal is flushed and fsync()ed this often,
                                  default 1000 ms (what a crash may lose); NET_FSYNC_ALWAYS:
                                  every tick, NET_FSYNC_NO: flushed every second, fsync()ed
                                  when the kernel sees fit */
    double spawn_rate;         /* spawns a second, default 20, bursts of twice that: world
                                  growth stays paced */
    uint64_t hash_every;       /* --hash-every: log the world hash every this many ticks (0:
                                  never), to compare two runs bit for bit */
    double stats_seconds;      /* --stats: a line of tick and snapshot figures this often (info
                                  level); 0, the default: none */
    /* The HTTP port (http.c): metrics, health, on the same loop as the game port. */
    int http_port;             /* --http-port, default 7778 on --host; 0: no HTTP port */
    uint32_t http_max_connections; /* default 64: an operator's scrapers and probes need a
                                      handful; beyond it a connection is closed at accept */
    size_t http_max_header;    /* bytes, default 4096: a request's headers; longer is refused */
    int http_timeout;          /* s, default 5: a request not complete by then is closed (slow
                                  clients hold no connection for long) */
    double stall_seconds;      /* --stall-seconds, default 5: /livez is 503 when the world has
                                  not stepped for this long, or did not within the last this
                                  long */
    double drain_seconds;      /* --drain-seconds, default 10: a stop (SIGTERM) ends by then */
    const uint8_t *token_key;  /* --token-key: the 32-byte key of connect tokens (mink_token.h);
                                  NULL: anyone who reaches the port may join */
    double keep_bodies;        /* --keep-bodies, s, default 60: with --token-key, how long a
                                  player who left keeps their bodies to come back to */
    const char *tls_cert;      /* --tls-cert, --tls-key: PEM files; the HTTP port (the page
                                  and /ws) then speaks TLS only, https and wss */
    const char *tls_key;
    bool agones_allocate;      /* --agones-allocate: the first player to join marks the Agones
                                  GameServer Allocated */
    uint32_t events_per_state; /* --events-per-state, default 1024: a client subscribed to
                                  events gets at most this many in a state (the newest) and a
                                  count of those dropped; the server keeps 16 times this many
                                  for all its clients (a client that reads slowly costs no
                                  memory of its own) */
} net_config;

#define NET_FSYNC_ALWAYS (-1)
#define NET_FSYNC_NO (-2)

net_config net_config_default(void);

/* The world of a durable save (--save FILE) when FILE or its neighbours exist (restore.c): the
 * newest snapshot that reads back whole (a damaged one is refused, its byte offset logged, and
 * the one before is used), with the journals after it replayed up to the last flush point, at
 * whose tick the world hash is what the server that wrote it logged. Bodies come back without
 * owners (their clients are gone), unless `keep_owners` (--token-key: owner numbers are
 * players', and net_serve keeps those of the players in FILE.players). Returns the world; NULL
 * with *found false when there is no save; NULL with *found true after logging why none could
 * be brought back. */
sim_world *net_restore(const char *path, bool keep_owners, bool *found);

/* Logs "tick T hash H" when the world's tick is a multiple of `every` (0: never). */
void net_log_world_hash(const sim_world *w, uint64_t every);

/* Serves `world` until SIGINT or SIGTERM. Returns 0 after a clean stop, or a negative libuv
 * error code when the server could not start (e.g. UV_EADDRINUSE), after logging it. */
int net_serve(const net_config *cfg, sim_world *world);

#endif
