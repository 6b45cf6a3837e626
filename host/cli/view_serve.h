/**
 * \file view_serve.h
 * \brief `offtrace view DIR --serve`: the zoomable page over HTTP on
 *        127.0.0.1, its tiles computed when the page asks for them.
 */
#ifndef OT_CLI_VIEW_SERVE_H
#define OT_CLI_VIEW_SERVE_H

#include "view.h"

/**
 * \brief Serve \p t (the archive \p archive) on 127.0.0.1:\p port (0: any
 *        free port): `GET /` the page, `GET /tile/K/I.json` a tile (404 for
 *        one that does not exist), nothing else. Prints one line with the
 *        URL on stdout; returns when SIGINT or SIGTERM comes.
 * \return the exit status: 0 after a signal, 1 after one line on stderr
 *         (the port is in use, the server cannot start, out of memory).
 */
int ot_cli_view_serve(ot_view_trace *t, const char *archive, unsigned port);

#endif /* OT_CLI_VIEW_SERVE_H */
