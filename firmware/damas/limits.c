/*
 * limits.c - end stops.
 *
 * One switch per axis; the switches at both ends of an axis are wired in parallel, as on
 * GRBL. They sit HOMING_PULLOFF beyond each end of the travel, so machine space is
 * [0, travel] and a move that leaves it by more than the pull-off closes a switch.
 *
 * Hard limits use the pin-change interrupt: a switch that closes while the motors run
 * stops them at once and raises ALARM:1. It reacts to closing only, so after $X a
 * carriage resting on a switch can still be driven off it.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

#include "config.h"
#include "cpu_map.h"
#include "idle.h"
#include "limits.h"
#include "planner.h"
#include "protocol.h"
#include "report.h"
#include "stepper.h"
#include "system.h"

static const uint8_t limit_bit[N_MOTORS] = {1 << X_LIMIT_BIT, 1 << Y_LIMIT_BIT};
static const float steps_per_mm[N_MOTORS] = {X_STEPS_PER_MM, Y_STEPS_PER_MM};
static const float max_travel[N_MOTORS] = {X_MAX_TRAVEL, Y_MAX_TRAVEL};

void limits_init(void)
{
    DDR(LIMIT_PORT) &= ~LIMIT_MASK;
    PORT(LIMIT_PORT) |= LIMIT_MASK;  /* pull-ups: an open switch reads high */
    LIMIT_PCMSK |= LIMIT_MASK;
    PCICR |= _BV(LIMIT_PCIE);
}

uint8_t limits_closed(void)
{
    return ~PIN(LIMIT_PORT) & LIMIT_MASK;
}

ISR(LIMIT_PCINT_vect)
{
    if (!sys.hard_limits || sys.state == STATE_HOMING || !stepper_is_running())
        return;
    if (limits_closed()) {
        stepper_kill();
        sys.pending_alarm = ALARM_HARD_LIMIT;
        idle_wake();
    }
}

/* Moves one axis by mm at rate and waits for the end of the move.
 * Returns 0 if a reset interrupted it. */
static uint8_t homing_move(uint8_t axis, float mm, float rate, uint8_t stop_on_limit)
{
    int32_t target[N_MOTORS];
    planner_sync_position();
    planner_get_position(target);
    target[axis] += (int32_t)(mm * steps_per_mm[axis]);
    if (!planner_add(target, rate, stop_on_limit ? limit_bit[axis] : 0))
        return 0;
    stepper_wake();
    while (stepper_is_running() || !planner_is_empty()) {
        protocol_execute_realtime();
        if (sys.abort)
            return 0;
        idle_wait();
    }
    planner_sync_position();
    return 1;
}

static uint8_t fail(uint8_t alarm)
{
    stepper_reset();
    planner_reset();
    sys.state = STATE_ALARM;
    report_alarm(alarm);
    return alarm;
}

static uint8_t home_axis(uint8_t axis)
{
    uint8_t bit = limit_bit[axis];
    int32_t position[N_MOTORS];

    /* Already on a switch (say after ALARM:1): back off the way the last move came. */
    if (limits_closed() & bit) {
        float away = planner_last_direction(axis) > 0 ? -1 : 1;
        if (!homing_move(axis, away * 2 * HOMING_PULLOFF, HOMING_SEEK_RATE, 0))
            return 0;
        if (limits_closed() & bit)
            return fail(ALARM_HOMING_PULLOFF);
    }
    /* Seek fast toward the minimum end, back off, then locate the switch slowly. */
    float seek = max_travel[axis] * 1.5f + 2 * HOMING_PULLOFF;
    if (!homing_move(axis, -seek, HOMING_SEEK_RATE, 1))
        return 0;
    if (!stepper_limit_hit())
        return fail(ALARM_HOMING_APPROACH);
    if (!homing_move(axis, HOMING_PULLOFF, HOMING_SEEK_RATE, 0))
        return 0;
    if (limits_closed() & bit)
        return fail(ALARM_HOMING_PULLOFF);
    if (!homing_move(axis, -2 * HOMING_PULLOFF, HOMING_FEED_RATE, 1))
        return 0;
    if (!stepper_limit_hit())
        return fail(ALARM_HOMING_APPROACH);

    /* The switch closes HOMING_PULLOFF below machine zero. */
    stepper_get_cartesian_position(position);
    position[axis] = -(int32_t)(HOMING_PULLOFF * steps_per_mm[axis]);
    stepper_set_cartesian_position(position);
    if (!homing_move(axis, HOMING_PULLOFF, HOMING_SEEK_RATE, 0))
        return 0;
    if (limits_closed() & bit)
        return fail(ALARM_HOMING_PULLOFF);
    return 0;
}

uint8_t limits_home(void)
{
    protocol_buffer_synchronize();
    if (sys.abort)
        return 0;
    sys.state = STATE_HOMING;
    for (uint8_t axis = 0; axis < N_MOTORS; axis++) {
        uint8_t alarm = home_axis(axis);
        if (sys.abort)
            return 0;
        if (alarm)
            return alarm;
    }
    planner_sync_position();
    sys.state = STATE_IDLE;
    return 0;
}
