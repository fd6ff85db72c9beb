/*
 * events.h - the harness's report channel: one line per event on the original stdout.
 */
#ifndef EVENTS_H
#define EVENTS_H

#include <stdint.h>

/* Takes over stdout for events; simavr's own chatter is sent to /dev/null. */
void events_open(void);
/* Prints "KIND t=<seconds> <fields>\n" and flushes. */
void event(uint64_t cycle, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prints a line as is (PTY announcement, replies without a time). */
void event_raw(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void events_set_frequency(uint32_t hz);

#endif
