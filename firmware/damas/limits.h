/*
 * limits.h - end-stop switches: hard-limit alarm and the homing cycle.
 */
#ifndef LIMITS_H
#define LIMITS_H

#include <stdint.h>

void limits_init(void);
/* Bit mask (X_LIMIT_BIT, Y_LIMIT_BIT positions) of the switches that are closed now. */
uint8_t limits_closed(void);
/* Homes X then Y. Returns 0 on success, else the ALARM_* code (already reported). */
uint8_t limits_home(void);

#endif
