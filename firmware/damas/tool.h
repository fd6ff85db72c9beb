/*
 * tool.h - what the carriage carries: a magnet or gripper (M3/M5) and a Z lift
 * driven by a hobby servo or a plain pin.
 */
#ifndef TOOL_H
#define TOOL_H

#include <stdint.h>

void tool_init(void);
void tool_set_magnet(uint8_t on);
uint8_t tool_magnet(void);
/* Sets Z and waits (keeping real-time requests alive) for the servo to get there. */
void tool_set_z(float z_mm);
float tool_get_z(void);
/* Waits for the end of a servo pulse: the next one is >15 ms away, time enough for a
 * frame of LED data with interrupts off without stretching a pulse. */
void tool_wait_servo_gap(void);

#endif
