/* Invited players (--token-key): a `hello` must carry a connect token (mink_token.h) signed with
 * the server's key, unexpired and not shown before. The token's user id, not the connection,
 * owns the player's bodies: each user id gets an owner number once (the client id of its first
 * connection, so it is never another client's), and a player who comes back with a fresh
 * token, while their bodies are still kept, gets the same number and with it their bodies and
 * avatar. A player who leaves keeps their bodies for --keep-bodies seconds; the table of
 * players holds at most twice --max-clients, and when it is full the player away the longest
 * loses their bodies first: memory stays bounded.
 *
 * With --save the table is kept in FILE.players (players_file.c), written when a player gets
 * an owner number, when an avatar changes and when a player is forgotten. After a restart
 * from the save, its players are back in the table, away since the restart: their bodies keep
 * their owner numbers for --keep-bodies seconds, as for a player who left, every other body
 * loses its owner, and client ids start above the largest owner number, so that no new
 * connection gets one that is a player's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mink_token.h"
#include "net_server.h"
#include "players.h"
#include "players_file.h"
#include "session.h"

_Static_assert(WIO_PLAYER_USER == TOK_MAX_USER && WIO_PLAYER_ROLE == TOK_MAX_ROLE,
               "FILE.players holds the user ids and roles tokens carry");

/* Tokens the replay check remembers at once: at most a day each (TOK_MAX_TTL). 48 bytes a
 * token (two tables of 24-byte slots at twice this many slots), 3 MiB in all. */
#define REPLAY_LIVE 32768

struct net_player {
    char user[TOK_MAX_USER + 1];
    char role[TOK_MAX_ROLE + 1];
    uint32_t owner;       /* owner of the player's bodies */
    net_session *session; /* NULL while away */
    sim_id avatar;        /* kept while away */
    uint64_t left_ns;     /* when the player went away */
};

/* The players by user id (with --token-key; empty without), and the tokens already let in. */
struct net_players {
    uv_timer_t away_timer; /* removes the bodies of players who did not come back in time */
    net_player *table;
    size_t len, cap;       /* cap: twice --max-clients */
    net_players_file *file; /* with --save: the table kept in FILE.players */
    wio_player *recs;       /* cap of them: the table as written */
    tok_replay *replay;
};

static void on_away_timer(uv_timer_t *t);

const char *net_player_user(const net_player *p) { return p->user; }
const char *net_player_role(const net_player *p) { return p->role; }

/* Whether `owner` is a restored player's (the table is sorted by owner for it). */
static int cmp_rec_owner(const void *a, const void *b)
{
    uint32_t x = ((const wio_player *)a)->owner, y = ((const wio_player *)b)->owner;
    return x < y ? -1 : x > y;
}

/* The players of FILE.players back in the table, away since now; the owners of the bodies
 * that are not theirs cleared; client ids above theirs. */
static void restore_players(net_server *srv)
{
    net_players *t = srv->players;
    const char *path = net_players_file_path(t->file);
    size_t n = 0;
    bool found;
    mk_error err = {0};
    wio_player *r = wio_players_read(path, &n, &found, &err);
    if (!found)
        LOG_WARN("--save: no %s: the bodies come back without owners", path);
    else if (!r)
        LOG_ERROR("--save: players refused: %s; the bodies come back without owners",
                  err.message);
    if (n > t->cap) {
        LOG_WARN("--save: %s has %zu players, the table holds %zu (twice --max-clients): the "
                 "first %zu kept", path, n, t->cap, t->cap);
        n = t->cap;
    }
    uint64_t now = uv_hrtime();
    uint32_t top = 0;
    for (size_t i = 0; i < n; i++) {
        net_player *p = &t->table[t->len++];
        memset(p, 0, sizeof *p);
        strcpy(p->user, r[i].user);
        strcpy(p->role, r[i].role);
        p->owner = r[i].owner;
        p->avatar = r[i].avatar;
        p->left_ns = now;
        if (p->owner > top)
            top = p->owner;
    }
    if (n > 0)
        qsort(r, n, sizeof *r, cmp_rec_owner);
    size_t slots, kept = 0, cleared = 0;
    const sim_body *bodies = sim_world_slots(srv->world, &slots);
    for (size_t i = 0; i < slots; i++) {
        if (bodies[i].id == 0 || bodies[i].owner == 0)
            continue;
        wio_player key = {.owner = bodies[i].owner};
        if (n > 0 && bsearch(&key, r, n, sizeof *r, cmp_rec_owner)) {
            kept++;
        } else {
            sim_body_set_owner(srv->world, bodies[i].id, 0);
            cleared++;
        }
    }
    free(r);
    srv->next_client = top;
    LOG_INFO("--save: %zu players back, away since the restart: %zu bodies keep their owners "
             "for --keep-bodies %g s, %zu lose theirs; client ids start at %u", n, kept,
             srv->cfg.keep_bodies, cleared, top + 1);
    if (n > 0)
        uv_timer_start(&t->away_timer, on_away_timer,
                       (uint64_t)(srv->cfg.keep_bodies * 1000.0) + 1, 0);
}

/* The table as the file keeps it, in t->recs: a player online has their avatar in their
 * session. */
static void table_recs(net_players *t)
{
    for (size_t i = 0; i < t->len; i++) {
        const net_player *p = &t->table[i];
        wio_player *r = &t->recs[i];
        memset(r, 0, sizeof *r);
        r->owner = p->owner;
        r->avatar = p->session ? p->session->avatar : p->avatar;
        strcpy(r->user, p->user);
        strcpy(r->role, p->role);
    }
}

void net_players_save(net_server *srv)
{
    net_players *t = srv->players;
    if (!t->file)
        return;
    table_recs(t);
    net_players_file_write(t->file, t->recs, t->len, false);
}

/* The file's write is done and the table changed meanwhile: the table as it is now. */
static void save_again(void *srv) { net_players_save(srv); }

int net_players_init(net_server *srv)
{
    net_players *t = calloc(1, sizeof *t);
    if (!t) {
        LOG_ERROR("out of memory");
        return UV_ENOMEM;
    }
    srv->players = t;
    uv_timer_init(srv->loop, &t->away_timer);
    t->away_timer.data = srv;
    uv_unref((uv_handle_t *)&t->away_timer);
    if (!srv->cfg.token_key) {
        LOG_WARN("no --token-key: the server is open, anyone who reaches the port may join");
        /* An open server's owners are connection ids, which its restore clears: a table left
         * by a run with --token-key no longer describes the save, and a later one would give
         * its players the bodies others spawn now under the same numbers. */
        char path[4200];
        if (srv->cfg.save_path &&
            snprintf(path, sizeof path, "%s.players", srv->cfg.save_path) < (int)sizeof path &&
            unlink(path) == 0)
            LOG_WARN("--save: %s removed: without --token-key the save's bodies have no players",
                     path);
        return 0;
    }
    t->cap = 2 * (size_t)srv->cfg.max_clients;
    t->table = calloc(t->cap, sizeof *t->table);
    t->replay = tok_replay_new(REPLAY_LIVE);
    if (!t->table || !t->replay) {
        LOG_ERROR("out of memory");
        return UV_ENOMEM;
    }
    if (srv->cfg.save_path) {
        t->file = net_players_file_new(srv->loop, srv->cfg.save_path, save_again, srv);
        t->recs = calloc(t->cap, sizeof *t->recs);
        if (!t->file || !t->recs) {
            LOG_ERROR("out of memory");
            return UV_ENOMEM;
        }
        if (srv->cfg.restored)
            restore_players(srv);
        /* The table as it starts, before the first step: a file of another save (or a damaged
         * one) does not outlive this start. */
        table_recs(t);
        if (net_players_file_write(t->file, t->recs, t->len, true) != 0)
            return UV_EIO;
    }
    LOG_INFO("--token-key: only players with a valid token may join; a player who leaves "
             "keeps their bodies %g s", srv->cfg.keep_bodies);
    return 0;
}

void net_players_free(net_server *srv)
{
    /* The loop has ended: no write is in flight, the timer is closed. */
    net_players *t = srv->players;
    if (!t)
        return;
    net_players_file_free(t->file);
    free(t->recs);
    free(t->table);
    tok_replay_free(t->replay);
    free(t);
    srv->players = NULL;
}

/* The player's bodies leave the world and its place in the table is freed. */
static void forget(net_server *srv, net_player *p, const char *why)
{
    net_players *t = srv->players;
    size_t n = sim_world_remove_owned(srv->world, p->owner);
    LOG_INFO("player %s (owner %u): %s; %zu bodies removed", p->user, p->owner, why, n);
    /* The last entry takes its place (sessions point at their players: the moved one's too). */
    net_player *last = &t->table[--t->len];
    if (last != p) {
        *p = *last;
        if (p->session)
            p->session->player = p;
    }
    net_players_save(srv);
}

static void on_away_timer(uv_timer_t *timer)
{
    net_server *srv = timer->data;
    net_players *t = srv->players;
    uint64_t now = uv_hrtime(), keep = (uint64_t)(srv->cfg.keep_bodies * 1e9), next = 0;
    for (size_t i = 0; i < t->len;) {
        net_player *p = &t->table[i];
        if (p->session || now - p->left_ns < keep) {
            if (!p->session && (next == 0 || p->left_ns + keep < next))
                next = p->left_ns + keep;
            i++;
            continue;
        }
        forget(srv, p, "did not come back in time");
    }
    if (next)
        uv_timer_start(timer, on_away_timer, (next - now) / 1000000 + 1, 0);
}

static int64_t unix_now(void) { return (int64_t)time(NULL); }

/* A place in the table for a new player: when it is full, the player away the longest loses
 * their bodies for it (a table full of players online cannot be: they are at most
 * --max-clients). */
static net_player *new_player(net_server *srv)
{
    net_players *t = srv->players;
    if (t->len == t->cap) {
        net_player *oldest = NULL;
        for (size_t i = 0; i < t->len; i++) {
            net_player *p = &t->table[i];
            if (!p->session && (!oldest || p->left_ns < oldest->left_ns))
                oldest = p;
        }
        if (!oldest)
            return NULL;
        forget(srv, oldest, "away the longest, and the table of players is full");
    }
    net_player *p = &t->table[t->len++];
    memset(p, 0, sizeof *p);
    return p;
}

int net_player_admit(net_session *s, const char *token, net_session **replaced, mk_error *err)
{
    net_server *srv = s->srv;
    net_players *t = srv->players;
    *replaced = NULL;
    if (!srv->cfg.token_key || s->player) /* open, or let in by an earlier hello */
        return 0;
    if (!token[0])
        return mk_fail(err, MK_ERR_INVALID,
                       "token: this server lets in only players with a token");
    tok_claims c;
    int64_t now = unix_now();
    if (tok_verify(srv->cfg.token_key, token, strlen(token), now, &c, err) != 0) {
        LOG_INFO("client %u (%s): refused: %s", s->client, s->peer, err->message);
        return -1;
    }
    switch (tok_replay_check(t->replay, c.mac, c.exp, now)) {
    case TOK_FIRST:
        break;
    case TOK_REPLAYED:
        LOG_WARN("client %u (%s): refused: a token of %s shown again", s->client, s->peer,
                 c.user);
        return mk_fail(err, MK_ERR_INVALID,
                       "token: already used (a token lets a player in once)");
    case TOK_FULL:
        LOG_WARN("client %u (%s): refused: %d unexpired tokens remembered", s->client, s->peer,
                 REPLAY_LIVE);
        return mk_fail(err, MK_ERR_INVALID,
                       "token: the server has let in too many tokens that have not expired; "
                       "try again with a shorter-lived one later");
    }
    net_player *p = NULL;
    for (size_t i = 0; i < t->len && !p; i++)
        if (strcmp(t->table[i].user, c.user) == 0)
            p = &t->table[i];
    if (p && p->session) {
        /* Signed in again (a new connection after the old one broke): the new one wins; the
         * caller closes the old one. */
        net_session *old = p->session;
        old->player = NULL;
        old->owner = 0; /* the bodies stay with the player, the avatar too */
        p->avatar = old->avatar;
        old->avatar = 0;
        p->session = NULL;
        *replaced = old;
    }
    bool back = p != NULL;
    if (!p) {
        p = new_player(srv);
        if (!p)
            return mk_fail(err, MK_ERR_INVALID, "token: the server has no room for another player");
        strcpy(p->user, c.user);
        p->owner = s->client;
    }
    strcpy(p->role, c.role);
    p->session = s;
    s->player = p;
    s->owner = p->owner;
    if (c.name[0] && !s->name[0])
        strcpy(s->name, c.name);
    const sim_body *a = p->avatar ? sim_world_get(srv->world, p->avatar) : NULL;
    s->avatar = a && a->owner == p->owner ? p->avatar : 0;
    p->avatar = 0;
    LOG_INFO("client %u (%s): user %s%s%s, owner %u%s", s->client, s->peer, p->user,
             p->role[0] ? " role " : "", p->role, p->owner,
             back ? ": back, with the bodies kept" : "");
    net_players_save(srv); /* a new owner number, or the role of the fresh token */
    return 0;
}

bool net_player_left(net_session *s)
{
    net_player *p = s->player;
    if (!p)
        return false;
    net_server *srv = s->srv;
    net_players *t = srv->players;
    p->session = NULL;
    p->avatar = s->avatar;
    p->left_ns = uv_hrtime();
    s->player = NULL;
    uint64_t ms = (uint64_t)(srv->cfg.keep_bodies * 1000.0) + 1;
    if (!uv_is_active((uv_handle_t *)&t->away_timer) ||
        uv_timer_get_due_in(&t->away_timer) > ms)
        uv_timer_start(&t->away_timer, on_away_timer, ms, 0);
    return true;
}
