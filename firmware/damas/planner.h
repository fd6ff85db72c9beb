/*
 * planner.h - queue of straight XY moves, each turned into step counts and a
 * constant-acceleration (trapezoid) profile that starts and ends at rest.
 *
 * Positions here are Cartesian steps; the kinematics (Cartesian or CoreXY) is applied
 * when a block is made, so the stepper only sees motor steps.
 */
#ifndef PLANNER_H
#define PLANNER_H

#include <stdint.h>

#define N_MOTORS 2

typedef struct {
    uint32_t steps[N_MOTORS];  /* absolute motor steps of this move */
    uint8_t dir_negative;      /* bit m set: motor m turns toward negative */
    uint32_t step_count;       /* steps of the busiest motor: one timer tick each */
    uint32_t c0;               /* first step interval, timer ticks << 8 */
    uint32_t c_min;            /* cruise step interval, timer ticks << 8 */
    float mm_per_step;         /* path length per busiest-motor step, for the FS report */
    uint8_t stop_on_limits;    /* homing: limit pins (mask) that end this block early */
} plan_block_t;

void planner_reset(void);
/* Queues a move to target (Cartesian steps) at rate (mm/min, clamped to the axes' maxima).
 * Waits for room in the queue; returns 0 if a reset or an alarm interrupted the wait. */
uint8_t planner_add(const int32_t target[N_MOTORS], float rate_mm_min, uint8_t stop_on_limits);
uint8_t planner_is_empty(void);

/* Where the last queued move ends, in Cartesian steps. */
void planner_get_position(int32_t position[N_MOTORS]);
/* Sign (-1, 0, +1) of the last queued move along a Cartesian axis; survives resets, so
 * homing knows which way leads off a switch that closed during that move. */
int8_t planner_last_direction(uint8_t axis);
/* After moves were cut short (alarm, homing, reset): continue from where the motors are. */
void planner_sync_position(void);

/* For the stepper interrupt. */
plan_block_t *planner_current_block(void);
void planner_discard_current_block(void);

#endif
