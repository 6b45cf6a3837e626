/**
 * \file fork_child.c
 * \brief What a forked child gives up; see fork_child.h.
 */
#include "fork_child.h"

#include <pthread.h>

#include "device_link.h"
#include "exit_path.h"
#include "stream.h"

/* Only the forking thread exists in the child, so clearing its stream
 * pointer is enough for the streams; the callbacks stay registered (libomp
 * keeps them) and see a process that is not recording. */
static void on_fork_child(void)
{
    ot_recording = 0;
    ot_stream_current = NULL;
    ot_device_link_forget(); /* the collector's files are the parent's too */
    ot_exit_path_disown();
}

void ot_fork_child_install(void)
{
    pthread_atfork(NULL, NULL, on_fork_child);
}
