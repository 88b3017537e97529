/* Connect tokens: whatever the bytes, tok_verify accepts or refuses with a message; what it
 * accepts has claims that mint back to a token it accepts with the same claims, and the replay
 * check lets it in once. The first byte picks the input's form: odd, the rest is a token as a
 * client would send it; even, the rest is the claims, signed here with the fuzzer's key
 * (OpenSSL's HMAC and base64), so that the claims' parser is reached past the signature. */
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string.h>

#include "fuzz.h"
#include "mink_token.h"

#define NOW 1999999000

static const uint8_t key[TOK_KEY_BYTES] = "0123456789abcdef0123456789abcdef";

/* base64url without padding, through OpenSSL's base64. */
static size_t b64url(const uint8_t *in, size_t n, char *out)
{
    int len = EVP_EncodeBlock((unsigned char *)out, in, (int)n);
    while (len > 0 && out[len - 1] == '=')
        len--;
    for (int i = 0; i < len; i++)
        out[i] = out[i] == '+' ? '-' : out[i] == '/' ? '_' : out[i];
    return (size_t)len;
}

/* "v1." + base64url(claims) + "." + base64url(HMAC-SHA256); 0 when it does not fit. */
static size_t sign_claims(const uint8_t *claims, size_t n, char *out, size_t cap)
{
    if (n > 1000 || 3 + (n + 2) / 3 * 4 + 1 + 44 + 1 > cap)
        return 0;
    memcpy(out, "v1.", 3);
    size_t len = 3 + b64url(claims, n, out + 3);
    uint8_t mac[32];
    unsigned int mlen = 0;
    HMAC(EVP_sha256(), key, TOK_KEY_BYTES, (const unsigned char *)out, len, mac, &mlen);
    out[len++] = '.';
    char enc[64];
    size_t elen = b64url(mac, sizeof mac, enc);
    memcpy(out + len, enc, elen);
    return len + elen;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    static char token[4096];
    const char *t = (const char *)data + 1;
    size_t n = size - 1;
    if ((data[0] & 1) == 0) {
        n = sign_claims(data + 1, size - 1, token, sizeof token);
        if (n == 0)
            return 0;
        t = token;
    }
    tok_claims c;
    mk_error err = {0};
    if (tok_verify(key, t, n, NOW, &c, &err) != 0) {
        fuzz_check(err.code == MK_ERR_INVALID && strncmp(err.message, "token", 5) == 0);
        return 0;
    }
    fuzz_check(c.user[0] != '\0' && c.exp > NOW && c.exp <= NOW + TOK_MAX_TTL);
    char again[TOK_MAX_LEN + 1];
    int len = tok_mint(key, &c, again, sizeof again, &err);
    if (len > 0) { /* a token of many escapes may mint longer than it came */
        tok_claims d;
        fuzz_check(tok_verify(key, again, (size_t)len, NOW, &d, &err) == 0);
        fuzz_check(strcmp(c.user, d.user) == 0 && strcmp(c.name, d.name) == 0 &&
                   strcmp(c.role, d.role) == 0 && strcmp(c.nonce, d.nonce) == 0 &&
                   c.exp == d.exp);
    }
    tok_replay *r = tok_replay_new(4);
    fuzz_check(r != NULL);
    fuzz_check(tok_replay_check(r, c.mac, c.exp, NOW) == TOK_FIRST);
    fuzz_check(tok_replay_check(r, c.mac, c.exp, NOW) == TOK_REPLAYED);
    fuzz_check(tok_replay_check(r, c.mac, c.exp, c.exp) == TOK_FIRST);
    tok_replay_free(r);
    return 0;
}
