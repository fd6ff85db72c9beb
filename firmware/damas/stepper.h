/*
 * stepper.h - the step interrupt: Bresenham across the motors, one ramp per block.
 */
#ifndef STEPPER_H
#define STEPPER_H

#include <stdint.h>

#include "planner.h"

#define STEPPER_TIMER_HZ     2000000.0f  /* Timer 1 at F_CPU / 8 */
#define STEPPER_MIN_INTERVAL 160.0f      /* ticks: 12.5 kHz, leaves the interrupt time to finish */

void stepper_init(void);
void stepper_wake(void);          /* start executing queued blocks if stopped */
void stepper_hold(void);          /* decelerate to a stop, keeping the rest of the block */
void stepper_resume(void);        /* accelerate again from where the hold stopped */
void stepper_kill(void);          /* stop at once (reset, hard limit); the queue is left as is */
void stepper_reset(void);         /* forget the current block and any hold */
uint8_t stepper_is_running(void); /* pulses are being generated (includes decelerating) */
uint8_t stepper_limit_hit(void);  /* last block ended because a watched limit switch closed */

/* Motor position in steps and its Cartesian equivalent. */
void stepper_get_cartesian_position(int32_t out[N_MOTORS]);
void stepper_set_cartesian_position(const int32_t in[N_MOTORS]);
/* Current speed along the path in mm/min (0 when stopped). */
float stepper_current_rate(void);

#endif
