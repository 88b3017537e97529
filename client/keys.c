/* Keyboard bytes from a raw terminal -> key events. Arrows come as escape sequences
 * (ESC [ A..D, or ESC O A..D in application cursor mode) that a read may split. */
#include <string.h>

#include "keys.h"

static cli_key letter(unsigned char c)
{
    switch (c) {
    case 'a': case 'A': case 'h': return CLI_KEY_LEFT;
    case 'd': case 'D': case 'l': return CLI_KEY_RIGHT;
    case 'w': case 'W': case 'k': return CLI_KEY_UP;
    case 's': case 'S': case 'j': return CLI_KEY_DOWN;
    case ' ': return CLI_KEY_JUMP;
    case 'q': case 'Q': case 3 /* Ctrl-C */: case 4 /* Ctrl-D */: return CLI_KEY_QUIT;
    case '+': case '=': return CLI_KEY_ZOOM_IN;
    case '-': case '_': return CLI_KEY_ZOOM_OUT;
    case 'f': case 'F': return CLI_KEY_SPAWN;
    case 'p': case 'P': return CLI_KEY_PAUSE;
    case ']': return CLI_KEY_FASTER;
    case '[': return CLI_KEY_SLOWER;
    case '.': return CLI_KEY_STEP;
    case 'e': case 'E': return CLI_KEY_ACT;
    default: return CLI_KEY_NONE;
    }
}

static cli_key arrow(unsigned char c)
{
    switch (c) {
    case 'A': return CLI_KEY_UP;
    case 'B': return CLI_KEY_DOWN;
    case 'C': return CLI_KEY_RIGHT;
    case 'D': return CLI_KEY_LEFT;
    default: return CLI_KEY_NONE;
    }
}

size_t cli_keys_decode(cli_keys *k, const char *data, size_t n, cli_key *out, size_t max)
{
    /* A keyboard sends a few bytes at a time; a paste past this buffer is cut short. */
    unsigned char buf[sizeof k->pending + 256];
    size_t len = k->npending;
    memcpy(buf, k->pending, len);
    k->npending = 0;
    if (n > sizeof buf - len)
        n = sizeof buf - len;
    memcpy(buf + len, data, n);
    len += n;

    size_t count = 0, i = 0;
    while (i < len && count < max) {
        unsigned char c = buf[i];
        if (c != 0x1b) {
            cli_key key = letter(c);
            if (key != CLI_KEY_NONE)
                out[count++] = key;
            i++;
            continue;
        }
        if (i + 1 < len && buf[i + 1] != '[' && buf[i + 1] != 'O') {
            i++; /* a lone ESC before another key */
            continue;
        }
        /* ESC [ or ESC O: parameters up to the final byte (0x40..0x7e). */
        size_t j = i + 2;
        while (j < len && !(buf[j] >= 0x40 && buf[j] <= 0x7e))
            j++;
        if (j >= len) {
            /* The sequence goes on in the next read: keep its start. */
            if (len - i <= sizeof k->pending) {
                k->npending = len - i;
                memcpy(k->pending, buf + i, k->npending);
            }
            break;
        }
        cli_key key = arrow(buf[j]);
        if (key != CLI_KEY_NONE)
            out[count++] = key;
        i = j + 1;
    }
    return count;
}
