/*
 * planner.c - block queue and trapezoid parameters.
 *
 * Every block accelerates from rest and decelerates to rest. That wastes a little time at
 * corners compared to GRBL's junction planning, but a board robot's moves are separate
 * slides between squares, and the stepper stays simple enough to hold a move exactly.
 */
#include <math.h>
#include <stdlib.h>

#include "config.h"
#include "idle.h"
#include "planner.h"
#include "protocol.h"
#include "stepper.h"
#include "system.h"

#if KINEMATICS_COREXY
_Static_assert((long)(X_STEPS_PER_MM * 1000) == (long)(Y_STEPS_PER_MM * 1000),
               "CoreXY needs equal X and Y steps/mm (both motors drive both axes)");
#endif

static plan_block_t blocks[PLANNER_BLOCKS];
static volatile uint8_t head;  /* next free slot, written by the main loop */
static volatile uint8_t tail;  /* block being executed, advanced by the stepper interrupt */
static int32_t position[N_MOTORS];  /* Cartesian steps at the end of the last queued block */
static int8_t last_direction[N_MOTORS];

static const float steps_per_mm[N_MOTORS] = {X_STEPS_PER_MM, Y_STEPS_PER_MM};
static const float max_rate[N_MOTORS] = {X_MAX_RATE, Y_MAX_RATE};
static const float max_accel[N_MOTORS] = {X_ACCELERATION, Y_ACCELERATION};

static uint8_t next_index(uint8_t i)
{
    return (i + 1) % PLANNER_BLOCKS;
}

void planner_reset(void)
{
    head = tail = 0;
    planner_sync_position();
}

uint8_t planner_is_empty(void)
{
    return head == tail;
}

void planner_get_position(int32_t out[N_MOTORS])
{
    out[0] = position[0];
    out[1] = position[1];
}

int8_t planner_last_direction(uint8_t axis)
{
    return last_direction[axis];
}

void planner_sync_position(void)
{
    stepper_get_cartesian_position(position);
}

plan_block_t *planner_current_block(void)
{
    return head == tail ? 0 : &blocks[tail];
}

void planner_discard_current_block(void)
{
    if (head != tail)
        tail = next_index(tail);
}

/* Timer ticks (<< 8) between steps at a rate in steps/s, clamped to the 16-bit timer. */
static uint32_t interval_for_rate(float steps_per_s)
{
    float ticks = STEPPER_TIMER_HZ / steps_per_s;
    if (ticks > 65535.0f)
        ticks = 65535.0f;
    if (ticks < STEPPER_MIN_INTERVAL)
        ticks = STEPPER_MIN_INTERVAL;
    return (uint32_t)(ticks * 256.0f);
}

uint8_t planner_add(const int32_t target[N_MOTORS], float rate_mm_min, uint8_t stop_on_limits)
{
    int32_t delta[N_MOTORS] = {target[0] - position[0], target[1] - position[1]};
    if (delta[0] == 0 && delta[1] == 0)
        return 1;

    /* Path length and the per-axis limits on speed and acceleration along it. */
    float mm[N_MOTORS], length2 = 0;
    for (uint8_t a = 0; a < N_MOTORS; a++) {
        mm[a] = delta[a] / steps_per_mm[a];
        length2 += mm[a] * mm[a];
    }
    float length = sqrtf(length2);
    float rate = rate_mm_min / 60.0f, accel = 1e9f;
    for (uint8_t a = 0; a < N_MOTORS; a++) {
        if (delta[a] == 0)
            continue;
        float share = length / fabsf(mm[a]);
        if (rate > max_rate[a] / 60.0f * share)
            rate = max_rate[a] / 60.0f * share;
        if (accel > max_accel[a] * share)
            accel = max_accel[a] * share;
    }
    if (rate < MIN_FEED_RATE / 60.0f)
        rate = MIN_FEED_RATE / 60.0f;

    /* Wait for a free slot, keeping real-time commands alive meanwhile. */
    while (next_index(head) == tail) {
        protocol_execute_realtime();
        if (sys.abort || sys.state == STATE_ALARM)
            return 0;
        idle_wait();
    }

    plan_block_t *b = &blocks[head];
#if KINEMATICS_COREXY
    int32_t motor[N_MOTORS] = {delta[0] + delta[1], delta[0] - delta[1]};
#else
    int32_t motor[N_MOTORS] = {delta[0], delta[1]};
#endif
    b->dir_negative = 0;
    b->step_count = 0;
    for (uint8_t m = 0; m < N_MOTORS; m++) {
        if (motor[m] < 0)
            b->dir_negative |= 1 << m;
        b->steps[m] = labs(motor[m]);
        if (b->steps[m] > b->step_count)
            b->step_count = b->steps[m];
    }
    /* The busiest motor steps once per tick: convert mm/s and mm/s^2 into its steps. */
    float steps_per_path_mm = b->step_count / length;
    float accel_steps = accel * steps_per_path_mm;
    b->c_min = interval_for_rate(rate * steps_per_path_mm);
    /* First interval of a ramp from rest; 0.676 corrects the first step of the
     * c_n = c_(n-1) * (4n-1)/(4n+1) approximation (D. Austin, "Generate stepper-motor
     * speed profiles in real time", 2005). */
    float c0 = 0.676f * STEPPER_TIMER_HZ * sqrtf(2.0f / accel_steps);
    b->c0 = c0 > 65535.0f ? 65535UL << 8 : (uint32_t)(c0 * 256.0f);
    if (b->c0 < b->c_min)
        b->c0 = b->c_min;
    b->mm_per_step = length / b->step_count;
    b->stop_on_limits = stop_on_limits;

    for (uint8_t a = 0; a < N_MOTORS; a++) {
        if (delta[a])
            last_direction[a] = delta[a] > 0 ? 1 : -1;
        position[a] = target[a];
    }
    head = next_index(head);
    return 1;
}
