/* Connect tokens: "v1." base64url(claims JSON) "." base64url(HMAC-SHA256). See mink_token.h.
 *
 * The token arrives from the network: its length is capped, its signature is checked before a
 * byte of its claims is parsed (so forged bytes never reach the JSON parser), and the MAC is
 * compared in constant time (CRYPTO_memcmp). The signing itself is OpenSSL's HMAC. */
#include "mink_token.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mink_proto.h"

#define PREFIX "v1."
#define PREFIX_LEN 3
#define MAC_B64 43 /* base64url characters of 32 bytes, unpadded */

static const char b64url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '-' ? 62 : c == '_' ? 63 : -1;
}

/* base64url without padding (RFC 4648 section 5). Returns the characters written. */
static size_t b64_encode(const uint8_t *in, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[o++] = b64url[(v >> 18) & 63];
        out[o++] = b64url[(v >> 12) & 63];
        if (i + 1 < n)
            out[o++] = b64url[(v >> 6) & 63];
        if (i + 2 < n)
            out[o++] = b64url[v & 63];
    }
    return o;
}

/* Strict decoding: only the alphabet, no padding, and the unused bits of the last character
 * zero (so that each byte string has exactly one encoding). Returns the bytes written, or -1. */
static long b64_decode(const char *in, size_t n, uint8_t *out)
{
    if (n % 4 == 1)
        return -1;
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64_value((unsigned char)in[i]);
        if (v < 0)
            return -1;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (uint8_t)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    return acc != 0 ? -1 : (long)o;
}

static int fail(mk_error *err, const char *fmt, const char *detail)
{
    mk_fail(err, MK_ERR_INVALID, fmt, detail);
    return -1;
}

static bool user_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > TOK_MAX_USER)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.@:-", s[i]))
            return false;
    return true;
}

static bool role_ok(const char *s)
{
    for (size_t i = 0; s[i]; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789_-", s[i]))
            return false;
    return strlen(s) <= TOK_MAX_ROLE;
}

static bool name_ok(const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return false;
    return n <= TOK_MAX_NAME && proto_utf8_valid(s, n);
}

int tok_key_load(const char *path, uint8_t key[TOK_KEY_BYTES], mk_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        mk_fail(err, MK_ERR_IO, "%s: %s", path, strerror(errno));
        return -1;
    }
    uint8_t buf[TOK_KEY_BYTES + 1];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (n != TOK_KEY_BYTES) {
        mk_fail(err, MK_ERR_INVALID, "%s: a key is exactly %d bytes (head -c %d /dev/urandom)",
                path, TOK_KEY_BYTES, TOK_KEY_BYTES);
        return -1;
    }
    memcpy(key, buf, TOK_KEY_BYTES);
    OPENSSL_cleanse(buf, sizeof buf);
    return 0;
}

static bool sign(const uint8_t key[TOK_KEY_BYTES], const char *data, size_t n,
                 uint8_t mac[TOK_MAC_BYTES])
{
    unsigned int len = 0;
    return HMAC(EVP_sha256(), key, TOK_KEY_BYTES, (const unsigned char *)data, n, mac, &len) &&
           len == TOK_MAC_BYTES;
}

/* A string claim: absent is "" unless required; present must be a string that fits. */
static int claim_string(const cJSON *root, const char *key, bool required, char *out,
                        size_t max, mk_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    out[0] = '\0';
    if (!v)
        return required ? fail(err, "token: no %s", key) : 0;
    if (!cJSON_IsString(v) || strlen(v->valuestring) > max)
        return fail(err, "token: %s: not a string that fits", key);
    strcpy(out, v->valuestring);
    return 0;
}

int tok_verify(const uint8_t key[TOK_KEY_BYTES], const char *token, size_t len, int64_t now,
               tok_claims *out, mk_error *err)
{
    memset(out, 0, sizeof *out);
    if (len > TOK_MAX_LEN)
        return fail(err, "token: longer than %s bytes", "1024");
    if (len < PREFIX_LEN || memcmp(token, PREFIX, PREFIX_LEN) != 0)
        return fail(err, "token: not a Mink token (it begins with %s)", "v1.");
    const char *dot = memchr(token + PREFIX_LEN, '.', len - PREFIX_LEN);
    if (!dot || (size_t)(token + len - (dot + 1)) != MAC_B64)
        return fail(err, "token: not a Mink token (%s)", "v1.<claims>.<mac>");
    uint8_t mac[TOK_MAC_BYTES + 2], want[TOK_MAC_BYTES];
    if (b64_decode(dot + 1, MAC_B64, mac) != TOK_MAC_BYTES)
        return fail(err, "token: %s is not base64url", "the mac");
    if (!sign(key, token, (size_t)(dot - token), want))
        return fail(err, "token: %s", "cannot compute HMAC-SHA256");
    if (CRYPTO_memcmp(mac, want, TOK_MAC_BYTES) != 0)
        return fail(err, "token: %s", "bad signature (another key, or the token was changed)");

    /* Signed by a holder of the key: now the claims. */
    const char *p64 = token + PREFIX_LEN;
    size_t n64 = (size_t)(dot - p64);
    uint8_t payload[TOK_MAX_LEN];
    long n = b64_decode(p64, n64, payload);
    if (n < 0)
        return fail(err, "token: %s are not base64url", "the claims");
    if (!proto_utf8_valid((const char *)payload, (size_t)n))
        return fail(err, "token: %s are not UTF-8", "the claims");
    cJSON *root = cJSON_ParseWithLength((const char *)payload, (size_t)n);
    int rc = -1;
    if (!cJSON_IsObject(root)) {
        fail(err, "token: %s are not a JSON object", "the claims");
        goto out;
    }
    if (claim_string(root, "sub", true, out->user, TOK_MAX_USER, err) ||
        claim_string(root, "name", false, out->name, TOK_MAX_NAME, err) ||
        claim_string(root, "role", false, out->role, TOK_MAX_ROLE, err) ||
        claim_string(root, "nonce", false, out->nonce, TOK_MAX_NONCE, err))
        goto out;
    if (!user_ok(out->user)) {
        fail(err, "token: sub: %s", "1 to 64 of A-Z a-z 0-9 _ . @ : -");
        goto out;
    }
    if (!name_ok(out->name) || !role_ok(out->role)) {
        fail(err, "token: %s", !role_ok(out->role) ? "role: only a-z 0-9 _ -"
                                                   : "name: UTF-8 without control characters");
        goto out;
    }
    const cJSON *exp = cJSON_GetObjectItemCaseSensitive(root, "exp");
    double e = cJSON_IsNumber(exp) ? exp->valuedouble : NAN;
    if (!(e >= 0 && e <= 9007199254740992.0) || e != floor(e)) {
        fail(err, "token: exp: %s", "not a whole number of Unix seconds");
        goto out;
    }
    out->exp = (int64_t)e;
    if (out->exp <= now) {
        fail(err, "token: %s", "expired");
        goto out;
    }
    if (out->exp > now + TOK_MAX_TTL) {
        fail(err, "token: exp: %s", "more than a day ahead");
        goto out;
    }
    memcpy(out->mac, mac, TOK_MAC_BYTES);
    rc = 0;
out:
    cJSON_Delete(root);
    return rc;
}

int tok_random_nonce(char *out, size_t cap)
{
    uint8_t r[8];
    if (cap < 2 * sizeof r + 1 || RAND_bytes(r, sizeof r) != 1)
        return -1;
    for (size_t i = 0; i < sizeof r; i++)
        snprintf(out + 2 * i, 3, "%02x", r[i]);
    return 0;
}

int tok_mint(const uint8_t key[TOK_KEY_BYTES], const tok_claims *c, char *out, size_t cap,
             mk_error *err)
{
    if (!user_ok(c->user))
        return fail(err, "user: %s", "1 to 64 of A-Z a-z 0-9 _ . @ : -");
    if (!name_ok(c->name) || !role_ok(c->role) || strlen(c->nonce) > TOK_MAX_NONCE)
        return fail(err, "%s", "name, role or nonce: not allowed (see mink_token.h)");
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "sub", c->user);
    cJSON_AddNumberToObject(root, "exp", (double)c->exp);
    if (c->name[0])
        cJSON_AddStringToObject(root, "name", c->name);
    if (c->role[0])
        cJSON_AddStringToObject(root, "role", c->role);
    if (c->nonce[0])
        cJSON_AddStringToObject(root, "nonce", c->nonce);
    char *json = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!json)
        return fail(err, "%s", "out of memory");
    size_t jn = strlen(json);
    size_t need = PREFIX_LEN + (jn * 4 + 2) / 3 + 1 + MAC_B64;
    if (need > TOK_MAX_LEN || need + 1 > cap) {
        free(json);
        return fail(err, "%s", "the token would be longer than 1024 bytes");
    }
    memcpy(out, PREFIX, PREFIX_LEN);
    size_t o = PREFIX_LEN + b64_encode((const uint8_t *)json, jn, out + PREFIX_LEN);
    free(json);
    uint8_t mac[TOK_MAC_BYTES];
    if (!sign(key, out, o, mac))
        return fail(err, "%s", "cannot compute HMAC-SHA256");
    out[o++] = '.';
    o += b64_encode(mac, TOK_MAC_BYTES, out + o);
    out[o] = '\0';
    return (int)o;
}
