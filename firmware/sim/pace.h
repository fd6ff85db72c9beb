/*
 * pace.h - how simulated time relates to the wall clock: fast while the machine works,
 * real time while it idles.
 */
#ifndef PACE_H
#define PACE_H

#include <stdint.h>

#include "sim_avr.h"

/* Installs the sleep callback. max_ratio caps simulated seconds per wall second while the
 * machine works (0: no cap). */
void pace_init(avr_t *avr, double max_ratio);
/* Called now and then from the main loop: keeps a firmware that never sleeps to the
 * same pace (naps while it idles ahead of the wall clock, or runs ahead of the cap). */
void pace_busy(avr_t *avr);
/* Changes the cap while running ("speed" query). */
void pace_set_max_ratio(double max_ratio);
/* Undoes what an AVR reset brings back that would keep the simulation from skipping. */
void pace_after_reset(avr_t *avr);
/* Something happened on a pin (a step, the magnet, LEDs, Z, serial traffic). */
void pace_activity(uint64_t cycle);
/* Seconds on a monotonic wall clock. */
double pace_wall(void);

#endif
