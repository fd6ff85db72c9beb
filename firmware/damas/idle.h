/*
 * idle.h - waiting without spinning: the CPU sleeps until the next interrupt, and a
 * millisecond timer runs while a dwell needs one.
 */
#ifndef IDLE_H
#define IDLE_H

#include <stdint.h>

extern volatile uint8_t idle_woken;

void idle_init(void);
/* Every interrupt that can end a wait calls this, so a wait never sleeps through it. */
static inline void idle_wake(void)
{
    idle_woken = 1;
}
/* Sleeps until an interrupt, unless one came since the last call. A wait loop calls it
 * after it has checked its condition, then checks again. */
void idle_wait(void);
/* A countdown in milliseconds (Timer 0, running only while a countdown runs). */
void idle_countdown_start(uint32_t ms);
uint8_t idle_countdown_done(void);
void idle_countdown_stop(void);

#endif
