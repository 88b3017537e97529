/* The raw text of a client's line, before and beside cJSON: UTF-8, nesting and control
 * characters that cJSON would let through, and members echoed exactly as the client wrote them. */
#include "parse_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- bytes ---- */

bool proto_utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end) {
        unsigned c = *p;
        if (c < 0x80) {
            p++;
            continue;
        }
        size_t need;
        unsigned cp, min;
        if (c >= 0xc2 && c <= 0xdf) {
            need = 1, cp = c & 0x1f, min = 0x80;
        } else if (c >= 0xe0 && c <= 0xef) {
            need = 2, cp = c & 0x0f, min = 0x800;
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3, cp = c & 0x07, min = 0x10000;
        } else {
            return false; /* continuation byte, overlong lead (c0, c1) or past U+10FFFF */
        }
        if ((size_t)(end - p) <= need)
            return false;
        for (size_t i = 1; i <= need; i++) {
            if ((p[i] & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (p[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        p += need + 1;
    }
    return true;
}

/* Checks what cJSON lets through: nesting deeper than `limit` (refused before cJSON recurses
 * into it) and raw control characters inside strings (JSON requires them escaped). Returns
 * NULL or the reason. */
#define MINK_STR2(x) #x
#define MINK_STR(x) MINK_STR2(x)

const char *proto_json_precheck(const char *s, size_t n, int limit)
{
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (in_string) {
            if (c < 0x20)
                return "a control character inside a string must be escaped";
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c < 0x20 && c != '\t' && c != '\r' && c != '\n') {
            return "a control character is not whitespace";
        } else if (c == '[' || c == '{') {
            if (++depth > limit)
                return "nested deeper than " MINK_STR(PROTO_MAX_DEPTH) " levels";
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return NULL;
}

static size_t skip_ws(const char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
        i++;
    return i;
}

/* The end of the string that starts at s[i] (a quote), past its closing quote. */
static size_t skip_string(const char *s, size_t n, size_t i)
{
    for (i++; i < n && s[i] != '"'; i++)
        if (s[i] == '\\')
            i++;
    return i + 1;
}

static size_t skip_value(const char *s, size_t n, size_t i)
{
    if (s[i] == '"')
        return skip_string(s, n, i);
    if (s[i] == '{' || s[i] == '[') {
        int depth = 0;
        while (i < n) {
            if (s[i] == '"') {
                i = skip_string(s, n, i);
                continue;
            }
            if (s[i] == '{' || s[i] == '[')
                depth++;
            else if ((s[i] == '}' || s[i] == ']') && --depth == 0)
                return i + 1;
            i++;
        }
        return n;
    }
    while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\t' &&
           s[i] != '\r' && s[i] != '\n')
        i++;
    return i;
}

/* The text of the first top-level member `key` of a JSON object that cJSON has accepted, so
 * that `req` and `t` are echoed as sent: cJSON keeps numbers as doubles, and an id like
 * 1700000000123456789 would come back rounded. Returns false when the key is not there as
 * plain text (an escaped key name: the caller then prints cJSON's value). */
static bool raw_member(const char *s, size_t n, const char *key, size_t *start, size_t *end)
{
    size_t klen = strlen(key);
    size_t i = skip_ws(s, n, 0);
    if (i >= n || s[i] != '{')
        return false;
    i = skip_ws(s, n, i + 1);
    while (i < n && s[i] == '"') {
        size_t kend = skip_string(s, n, i);
        bool match = kend - i - 2 == klen && memcmp(s + i + 1, key, klen) == 0;
        i = skip_ws(s, n, kend);
        if (i >= n || s[i] != ':')
            return false;
        i = skip_ws(s, n, i + 1);
        if (i >= n)
            return false;
        size_t vend = skip_value(s, n, i);
        if (match) {
            *start = i;
            *end = vend;
            return true;
        }
        i = skip_ws(s, n, vend);
        if (i >= n || s[i] != ',')
            return false;
        i = skip_ws(s, n, i + 1);
    }
    return false;
}

/* Compact JSON of a member, for `req` and `t`: the client's own text without the whitespace
 * outside strings, refused past PROTO_MAX_ECHO bytes. */
proto_error_code proto_get_echo(const char *line, size_t len, const cJSON *v, const char *key,
                                char *out, proto_error *err)
{
    size_t start, end, n = 0;
    if (raw_member(line, len, key, &start, &end)) {
        bool in_string = false;
        for (size_t i = start; i < end; i++) {
            char c = line[i];
            if (!in_string && (c == ' ' || c == '\t' || c == '\r' || c == '\n'))
                continue;
            if (n == PROTO_MAX_ECHO)
                return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: longer than %d bytes as JSON",
                                  key, PROTO_MAX_ECHO);
            out[n++] = c;
            if (in_string && c == '\\' && i + 1 < end) {
                if (n == PROTO_MAX_ECHO)
                    return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                                      "%s: longer than %d bytes as JSON", key, PROTO_MAX_ECHO);
                out[n++] = line[++i];
            } else if (c == '"') {
                in_string = !in_string;
            }
        }
        out[n] = '\0';
        return PROTO_OK;
    }
    char *text = cJSON_PrintUnformatted(v);
    if (!text)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: cannot be echoed", key);
    n = strlen(text);
    if (n > PROTO_MAX_ECHO) {
        free(text);
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: longer than %d bytes as JSON", key,
                          PROTO_MAX_ECHO);
    }
    memcpy(out, text, n + 1);
    free(text);
    return PROTO_OK;
}
