/*
 * events.c - line-per-event output.
 *
 * libsimavr prints diagnostics with printf; they would interleave with our lines. So the
 * real stdout is duplicated for events and the C library's stdout goes to /dev/null.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "events.h"

static FILE *out;
static uint32_t frequency = 16000000;

void events_open(void)
{
    int fd = dup(STDOUT_FILENO);
    out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out) {
        perror("damas-sim: events");
        exit(2);
    }
    if (!freopen("/dev/null", "w", stdout))
        perror("damas-sim: /dev/null");
}

void events_set_frequency(uint32_t hz)
{
    frequency = hz;
}

void event(uint64_t cycle, const char *kind, const char *fmt, ...)
{
    va_list ap;
    fprintf(out, "%s t=%.6f", kind, (double)cycle / frequency);
    if (fmt && *fmt) {
        fputc(' ', out);
        va_start(ap, fmt);
        vfprintf(out, fmt, ap);
        va_end(ap);
    }
    fputc('\n', out);
    fflush(out);
}

void event_raw(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fflush(out);
}
