/**
 * \file view_serve.c
 * \brief `offtrace view DIR --serve`: the page and its tiles over HTTP with
 *        libmicrohttpd, on 127.0.0.1 only (the trace is nobody else's
 *        business). The archive was read into memory before; every request
 *        is answered from there, tiles computed once and cached
 *        (ot_view_tile_json).
 *
 * libmicrohttpd runs one internal thread that polls and answers, so the
 * requests never run at the same time and the trace needs no lock. The
 * listening socket is made here, so that a port in use is told as such.
 * SIGINT and SIGTERM are blocked before that thread starts (it inherits the
 * mask) and awaited here with sigwait: the server stops cleanly, exit 0.
 *
 * libmicrohttpd is loaded (dlopen) when a server starts, not linked: with
 * GnuTLS and its eight libraries it cost every run of the CLI, `record`
 * included, about 1.5 ms of start-up (issue 18).
 */
#define _GNU_SOURCE
#include "view_serve.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef OFFTRACE_MHD_SONAME
#define OFFTRACE_MHD_SONAME "libmicrohttpd.so.12"
#endif

/* The libmicrohttpd functions the server calls, with their own prototypes. */
static struct {
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_destroy_response) *destroy_response;
} mhd;

static int load_mhd(void)
{
    void *lib = dlopen(OFFTRACE_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "offtrace view: --serve needs libmicrohttpd (%s), which could not be loaded: %s\n",
                OFFTRACE_MHD_SONAME, dlerror());
        return -1;
    }
    *(void **)&mhd.start_daemon = dlsym(lib, "MHD_start_daemon");
    *(void **)&mhd.stop_daemon = dlsym(lib, "MHD_stop_daemon");
    *(void **)&mhd.create_response_from_buffer = dlsym(lib, "MHD_create_response_from_buffer");
    *(void **)&mhd.add_response_header = dlsym(lib, "MHD_add_response_header");
    *(void **)&mhd.queue_response = dlsym(lib, "MHD_queue_response");
    *(void **)&mhd.destroy_response = dlsym(lib, "MHD_destroy_response");
    if (mhd.start_daemon && mhd.stop_daemon && mhd.create_response_from_buffer && mhd.add_response_header &&
        mhd.queue_response && mhd.destroy_response)
        return 0;
    fprintf(stderr, "offtrace view: %s lacks a function the server needs\n", OFFTRACE_MHD_SONAME);
    return -1;
}

typedef struct server {
    ot_view_trace *trace;
    char *page;
    size_t page_length;
} server;

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const void *body, size_t length,
                              const char *type)
{
    struct MHD_Response *r = mhd.create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    /* another archive served later on the same port has other tiles at the same paths */
    mhd.add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result ok = mhd.queue_response(c, status, r);
    mhd.destroy_response(r);
    return ok;
}

static enum MHD_Result not_found(struct MHD_Connection *c, const char *why)
{
    return answer(c, MHD_HTTP_NOT_FOUND, why, strlen(why), "text/plain; charset=utf-8");
}

/* "/tile/K/I.json" with K and I plain decimal numbers. */
static int tile_path(const char *url, unsigned *k, uint64_t *i)
{
    const char *p = url;
    if (strncmp(p, "/tile/", 6) != 0)
        return -1;
    p += 6;
    char *end;
    if (*p < '0' || *p > '9')
        return -1;
    errno = 0;
    unsigned long kk = strtoul(p, &end, 10);
    if (errno || *end != '/' || kk > 64)
        return -1;
    p = end + 1;
    if (*p < '0' || *p > '9')
        return -1;
    unsigned long long ii = strtoull(p, &end, 10);
    if (errno || strcmp(end, ".json") != 0)
        return -1;
    *k = (unsigned)kk;
    *i = ii;
    return 0;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_size, void **state)
{
    (void)version;
    (void)upload_data;
    (void)upload_size;
    (void)state;
    server *s = cls;
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0) {
        static const char only_get[] = "offtrace view answers GET only\n";
        return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, only_get, sizeof only_get - 1, "text/plain; charset=utf-8");
    }
    if (!strcmp(url, "/"))
        return answer(c, MHD_HTTP_OK, s->page, s->page_length, "text/html; charset=utf-8");
    unsigned k;
    uint64_t i;
    if (tile_path(url, &k, &i) != 0)
        return not_found(c, "no such page: offtrace view serves / and /tile/K/I.json\n");
    const char *json;
    size_t length;
    int rc = ot_view_tile_json(s->trace, k, i, &json, &length);
    if (rc == -ENOENT)
        return not_found(c, "no such tile: out of range, or its parent is exact\n");
    if (rc) {
        static const char memory[] = "offtrace view: out of memory\n";
        return answer(c, MHD_HTTP_INTERNAL_SERVER_ERROR, memory, sizeof memory - 1, "text/plain; charset=utf-8");
    }
    return answer(c, MHD_HTTP_OK, json, length, "application/json");
}

/* The listening socket on 127.0.0.1:port; -1 after one line. */
static int listen_on(unsigned port, unsigned *bound)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fprintf(stderr, "offtrace view: cannot open a socket: %s\n", strerror(errno));
        return -1;
    }
    int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 64) != 0) {
        if (errno == EADDRINUSE)
            fprintf(stderr, "offtrace view: port %u on 127.0.0.1 is in use; choose another with --port N "
                            "(--port 0: any free one)\n", port);
        else
            fprintf(stderr, "offtrace view: cannot listen on 127.0.0.1:%u: %s\n", port, strerror(errno));
        close(fd);
        return -1;
    }
    socklen_t n = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &n);
    *bound = ntohs(a.sin_port);
    return fd;
}

int ot_cli_view_serve(ot_view_trace *t, const char *archive, unsigned port)
{
    if (load_mhd() != 0)
        return 1;
    server s = {.trace = t};
    FILE *f = open_memstream(&s.page, &s.page_length);
    ot_view_page_facts facts;
    int rc = f ? ot_view_write_page(t, f, OT_VIEW_SERVE_PAGE_BUDGET, 1, &facts) : -ENOMEM;
    if (f && fclose(f) != 0 && !rc)
        rc = -ENOMEM;
    if (rc) {
        fprintf(stderr, "offtrace view: out of memory\n");
        free(s.page);
        return 1;
    }
    unsigned bound;
    int fd = listen_on(port, &bound);
    if (fd < 0) {
        free(s.page);
        return 1;
    }
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    /* started in the background of a script, SIGINT comes ignored, and an
     * ignored signal never reaches sigwait */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_IGN); /* a browser that goes away mid-answer must not end the server */
    struct MHD_Daemon *d = mhd.start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, on_request, &s,
                                            MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "offtrace view: the HTTP server (libmicrohttpd) did not start\n");
        close(fd);
        free(s.page);
        return 1;
    }
    printf("offtrace: serving %s at http://127.0.0.1:%u/ (all detail: %u zoom levels; Ctrl-C stops)\n", archive,
           bound, facts.max_level + 1);
    fflush(stdout);
    int sig;
    while (sigwait(&stop, &sig) != 0)
        ;
    mhd.stop_daemon(d); /* closes the listening socket too */
    free(s.page);
    return 0;
}
