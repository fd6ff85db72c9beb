/*
 * motion.h - what a G-code block asks of the machine, in millimetres.
 */
#ifndef MOTION_H
#define MOTION_H

#include <stdint.h>

#define N_AXES 3  /* X, Y, Z */

/* Position the next motion starts from (end of the last queued move), in mm. */
void mc_get_position(float position[N_AXES]);
/* Straight move. Z (a servo or pin, not stepped) is set first and waited for, then X and
 * Y move together. Returns a GRBL status code. */
uint8_t mc_line(const float target[N_AXES], float rate_mm_min);
void mc_dwell(float seconds);
uint8_t mc_home(void);

#endif
