/* The web viewer's files (web/), embedded at build time (cmake/EmbedWeb.cmake writes
 * web_assets.c), served on the HTTP port by http.c. */
#ifndef MINK_NET_WEB_H
#define MINK_NET_WEB_H

#include <stddef.h>

typedef struct net_web_file {
    const char *path; /* "/index.html" */
    const char *type; /* its Content-Type */
    const unsigned char *data;
    size_t len;
} net_web_file;

/* Ends with an entry whose path is NULL. */
extern const net_web_file net_web_files[];

#endif
