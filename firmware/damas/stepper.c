/*
 * stepper.c - Timer 1 compare interrupt that issues the step pulses.
 *
 * One interrupt per step of the block's busiest motor; the other motor follows by
 * Bresenham. The interval between steps follows a constant-acceleration ramp computed
 * incrementally (one division per step, no square roots):
 *     accelerating:  c_i = c_(i-1) - 2 c_(i-1) / (4 i + 1)
 *     decelerating:  c_(i-1) = c_i + 2 c_i / (4 i - 1)
 * where i is the ramp index (0 = the first step from rest). With R steps left after a
 * step, the next index is min(i + 1, R - 1), capped at the cruise speed: the profile is
 * then symmetric and ends at rest exactly on the last step, for trapezoids and triangles
 * alike. A feed hold just forces deceleration until i reaches 0.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/delay.h>

#include "config.h"
#include "cpu_map.h"
#include "idle.h"
#include "limits.h"
#include "stepper.h"
#include "system.h"

static const uint8_t step_bit[N_MOTORS] = {1 << X_STEP_BIT, 1 << Y_STEP_BIT};
static const uint8_t dir_bit[N_MOTORS] = {1 << X_DIR_BIT, 1 << Y_DIR_BIT};

static plan_block_t *block;          /* block being stepped, 0 when none */
static uint32_t steps_left;          /* busiest-motor steps left in the block */
static uint32_t bresenham[N_MOTORS];
static uint32_t interval;            /* current step interval, ticks << 8 */
static uint16_t ramp_index;
static uint8_t cruising;
static volatile uint8_t running;     /* timer is generating steps */
static volatile uint8_t hold;        /* feed hold requested or in force */
static volatile uint8_t limit_hit;
static volatile int32_t motor_position[N_MOTORS];  /* steps, counted as they are issued */

#define TIMER_START() (TCCR1B = _BV(WGM12) | _BV(CS11))  /* CTC, clock / 8 */
#define TIMER_STOP()  (TCCR1B = _BV(WGM12))

void stepper_init(void)
{
    DDR(STEP_PORT) |= step_bit[0] | step_bit[1];
    DDR(DIR_PORT) |= dir_bit[0] | dir_bit[1];
    DDR(ENABLE_PORT) |= _BV(ENABLE_BIT);
    PORT(ENABLE_PORT) &= ~_BV(ENABLE_BIT);  /* drivers stay energised: holding torque keeps position */
    TCCR1A = 0;
    TIMER_STOP();
    TIMSK1 = _BV(OCIE1A);
    stepper_reset();
}

static void start_ramp(void)
{
    ramp_index = 0;
    interval = block->c0;
    cruising = interval <= block->c_min;
}

/* Takes the next queued block; returns 0 if there is none. Called with interrupts off. */
static uint8_t load_block(void)
{
    block = planner_current_block();
    if (!block)
        return 0;
    uint8_t dirs = PORT(DIR_PORT) & ~(dir_bit[0] | dir_bit[1]);
    for (uint8_t m = 0; m < N_MOTORS; m++) {
        if (block->dir_negative & (1 << m))
            dirs |= dir_bit[m];
        bresenham[m] = block->step_count / 2;
    }
    PORT(DIR_PORT) = dirs;  /* set now; the first step comes c0 later, ample setup time */
    steps_left = block->step_count;
    start_ramp();
    return 1;
}

static void start_timer(void)
{
    TCNT1 = 0;
    OCR1A = interval >> 8;
    running = 1;
    TIMER_START();
}

void stepper_wake(void)
{
    uint8_t sreg = SREG;
    cli();
    /* An alarm or reset raised in another interrupt must not be undone by a restart. */
    uint8_t allowed = !sys.pending_alarm && !sys.abort;
    if (allowed && !running && !hold && (block || load_block())) {
        limit_hit = 0;
        start_timer();
    }
    SREG = sreg;
}

void stepper_hold(void)
{
    hold = 1;  /* the interrupt decelerates from here */
}

void stepper_resume(void)
{
    uint8_t sreg = SREG;
    cli();
    hold = 0;
    if (!running && block) {
        start_ramp();  /* the rest of the block, as a new ramp from rest */
        start_timer();
    }
    SREG = sreg;
    stepper_wake();
}

void stepper_kill(void)
{
    TIMER_STOP();
    PORT(STEP_PORT) &= ~(step_bit[0] | step_bit[1]);
    running = 0;
    idle_wake();
}

void stepper_reset(void)
{
    uint8_t sreg = SREG;
    cli();
    stepper_kill();
    block = 0;
    hold = 0;
    SREG = sreg;
}

uint8_t stepper_is_running(void)
{
    return running;
}

uint8_t stepper_limit_hit(void)
{
    return limit_hit;
}

static void read_motors(int32_t m[N_MOTORS])
{
    uint8_t sreg = SREG;
    cli();
    m[0] = motor_position[0];
    m[1] = motor_position[1];
    SREG = sreg;
}

void stepper_get_cartesian_position(int32_t out[N_MOTORS])
{
    int32_t m[N_MOTORS];
    read_motors(m);
#if KINEMATICS_COREXY
    out[0] = (m[0] + m[1]) / 2;
    out[1] = (m[0] - m[1]) / 2;
#else
    out[0] = m[0];
    out[1] = m[1];
#endif
}

void stepper_set_cartesian_position(const int32_t in[N_MOTORS])
{
    uint8_t sreg = SREG;
    cli();
#if KINEMATICS_COREXY
    motor_position[0] = in[0] + in[1];
    motor_position[1] = in[0] - in[1];
#else
    motor_position[0] = in[0];
    motor_position[1] = in[1];
#endif
    SREG = sreg;
}

float stepper_current_rate(void)
{
    uint8_t sreg = SREG;
    cli();
    uint8_t moving = running && block;
    uint32_t c = interval;
    float mm_per_step = moving ? block->mm_per_step : 0;
    SREG = sreg;
    if (!moving)
        return 0;
    return mm_per_step * STEPPER_TIMER_HZ * 256.0f / c * 60.0f;
}

/* The block is over (done or cut short): go on with the next one unless holding. */
static void finish_block(void)
{
    idle_wake();  /* a planner slot is free; waits for the end of motion look again */
    planner_discard_current_block();
    block = 0;
    if (hold || !load_block()) {
        stepper_kill();
        return;
    }
    OCR1A = interval >> 8;
}

ISR(TIMER1_COMPA_vect)
{
    if (block->stop_on_limits && (limits_closed() & block->stop_on_limits)) {
        limit_hit = 1;  /* homing found its switch: no further step */
        finish_block();
        return;
    }

    uint8_t pulse = 0;
    for (uint8_t m = 0; m < N_MOTORS; m++) {
        bresenham[m] += block->steps[m];
        if (bresenham[m] >= block->step_count) {
            bresenham[m] -= block->step_count;
            pulse |= step_bit[m];
            motor_position[m] += (block->dir_negative & (1 << m)) ? -1 : 1;
        }
    }
    PORT(STEP_PORT) |= pulse;
    _delay_us(STEP_PULSE_US);
    PORT(STEP_PORT) &= ~pulse;

    if (--steps_left == 0) {
        finish_block();
        return;
    }

    if (hold && ramp_index == 0) {
        stepper_kill();  /* held at rest; the block and its Bresenham state stay */
        return;
    }
    if (hold || steps_left <= ramp_index) {
        interval += 2 * interval / (4UL * ramp_index - 1);
        ramp_index--;
    } else if (!cruising && steps_left > ramp_index + 1UL) {
        ramp_index++;
        interval -= 2 * interval / (4UL * ramp_index + 1);
        if (interval <= block->c_min) {
            interval = block->c_min;
            cruising = 1;
        }
    }
    OCR1A = interval >> 8;
}
