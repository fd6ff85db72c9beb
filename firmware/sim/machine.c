/*
 * machine.c - pin observers and the end-stop model.
 *
 * Coordinates: mm from the machine origin the firmware finds by homing. The switches
 * close HOMING_PULLOFF beyond both ends of each axis (config.h), as on the real gantry.
 * Step/dir: a rising edge on a step pin moves its motor one step; the direction pin high
 * means negative. CoreXY builds decode X = (A + B) / 2, Y = (A - B) / 2.
 *
 * Position reports: the firmware moves in straight lines that start and end at rest, so
 * a host can rebuild the path from the points where the carriage stopped. It stops for a
 * moment only between two queued moves, too short for the 20 ms rest report: a step that
 * comes after a gap of half the time the first step from rest takes at the configured
 * acceleration (any step of a ramp but its first is quicker) is reported as "pause" at the
 * point where the carriage waited. MAG and Z events carry the position too.
 */
#include <math.h>
#include <string.h>

#include "avr_ioport.h"
#include "config.h"
#include "cpu_map.h"
#include "events.h"
#include "machine.h"
#include "pace.h"

#define REST_SECONDS 0.02  /* no step for this long: the carriage is at rest */
#define TRIP_SECONDS 0.01  /* how long a tripped switch stays closed */

static const double steps_per_mm[2] = {X_STEPS_PER_MM, Y_STEPS_PER_MM};
static const double max_travel[2] = {X_MAX_TRAVEL, Y_MAX_TRAVEL};

static avr_irq_t *pin_irq(avr_t *avr, char port, int bit)
{
    return avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(port), bit);
}

/* Cartesian position in half steps (CoreXY moves can end on a half step of one axis). */
static void cartesian_half_steps(const machine_t *m, int64_t half[2])
{
#if KINEMATICS_COREXY
    half[0] = m->motor[0] + m->motor[1];
    half[1] = m->motor[0] - m->motor[1];
#else
    half[0] = 2 * m->motor[0];
    half[1] = 2 * m->motor[1];
#endif
}

static double z_mm(const machine_t *m)
{
#if Z_MODE_SERVO
    if (m->servo_us <= 0)
        return NAN;
    return Z_MIN_MM + (m->servo_us - Z_SERVO_MIN_US) * (Z_MAX_MM - Z_MIN_MM) / (Z_SERVO_MAX_US - Z_SERVO_MIN_US);
#else
    return m->zpin;
#endif
}

static void report_position_at(machine_t *m, uint64_t cycle, const char *why)
{
    int64_t half[2];
    cartesian_half_steps(m, half);
    event(cycle, "POS", "x=%.4f y=%.4f z=%.3f xs=%.1f ys=%.1f a=%lld b=%lld limits=%d%d magnet=%d steps=%llu why=%s",
          half[0] / 2.0 / steps_per_mm[0], half[1] / 2.0 / steps_per_mm[1], z_mm(m), half[0] / 2.0,
          half[1] / 2.0, (long long)m->motor[0], (long long)m->motor[1], m->limit_closed[0],
          m->limit_closed[1], m->magnet, (unsigned long long)m->steps_total, why);
}

void machine_report_position(machine_t *m, const char *why)
{
    report_position_at(m, m->avr->cycle, why);
}

/* "x=... y=..." of the carriage now, for events that change something where it stands. */
static const char *where(const machine_t *m)
{
    static char text[64];
    int64_t half[2];
    cartesian_half_steps(m, half);
    snprintf(text, sizeof text, "x=%.4f y=%.4f", half[0] / 2.0 / steps_per_mm[0],
             half[1] / 2.0 / steps_per_mm[1]);
    return text;
}

static void update_limits(machine_t *m)
{
    int64_t half[2];
    cartesian_half_steps(m, half);
    for (int axis = 0; axis < 2; axis++) {
        int64_t pulloff = llround(HOMING_PULLOFF * steps_per_mm[axis]);
        int64_t travel = llround(max_travel[axis] * steps_per_mm[axis]);
        uint8_t closed = half[axis] <= -2 * pulloff || half[axis] >= 2 * (travel + pulloff) ||
                         m->avr->cycle < m->trip_until[axis];
        if (closed != m->limit_closed[axis]) {
            m->limit_closed[axis] = closed;
            avr_raise_irq(m->limit_irq[axis], closed ? 0 : 1);  /* switch to ground */
            event(m->avr->cycle, "LIMIT", "axis=%c closed=%d", "XY"[axis], closed);
        }
    }
}

static void on_step(avr_irq_t *irq, uint32_t value, void *param)
{
    machine_t *m = param;
    int motor = irq->irq == X_STEP_BIT ? 0 : 1;
    if (!value || irq->value)
        return;  /* rising edges only (irq->value still holds the old level) */
    uint64_t now = m->avr->cycle;
    if (m->moving && now - m->last_step_cycle >= m->pause_cycles)
        report_position_at(m, m->last_step_cycle, "pause");
    for (int axis = 0; axis < 2; axis++) {
        if (m->trip_armed[axis]) {
            m->trip_armed[axis] = 0;
            m->trip_until[axis] = now + (uint64_t)(TRIP_SECONDS * m->avr->frequency);
        }
    }
    pace_activity(now);
    int direction = m->dir_level[motor] ? -1 : 1;
    m->motor[motor] += direction;
    m->steps_total++;
    m->position_dirty = 1;
    m->moving = 1;
    m->last_step_cycle = now;
    if (m->step_log)
        fprintf(m->step_log, "%llu %d %d\n", (unsigned long long)m->avr->cycle, motor, direction);
}

static void on_dir(avr_irq_t *irq, uint32_t value, void *param)
{
    machine_t *m = param;
    m->dir_level[irq->irq == X_DIR_BIT ? 0 : 1] = value != 0;
}

static void on_magnet(avr_irq_t *irq, uint32_t value, void *param)
{
    machine_t *m = param;
    (void)irq;
    if ((value != 0) != m->magnet) {
        m->magnet = value != 0;
        pace_activity(m->avr->cycle);
        event(m->avr->cycle, "MAG", "on=%d %s", m->magnet, where(m));
    }
}

static void on_z(avr_irq_t *irq, uint32_t value, void *param)
{
    machine_t *m = param;
    if ((value != 0) == (irq->value != 0))
        return;
#if Z_MODE_SERVO
    if (value) {
        m->servo_rise = m->avr->cycle;
        return;
    }
    m->servo_us = (m->avr->cycle - m->servo_rise) * 1e6 / m->avr->frequency;
    /* Report changes beyond the simulator's jitter of a few microseconds. */
    if (fabs(m->servo_us - m->servo_reported_us) > 6) {
        m->servo_reported_us = m->servo_us;
        pace_activity(m->avr->cycle);
        event(m->avr->cycle, "Z", "us=%.1f z=%.3f %s", m->servo_us, z_mm(m), where(m));
    }
#else
    m->zpin = value != 0;
    pace_activity(m->avr->cycle);
    event(m->avr->cycle, "Z", "pin=%d %s", m->zpin, where(m));
#endif
}

static void on_led(avr_irq_t *irq, uint32_t value, void *param)
{
    machine_t *m = param;
    if ((value != 0) != (irq->value != 0)) {
        pace_activity(m->avr->cycle);
        ws2812_edge(&m->leds, value != 0, m->avr->cycle);
    }
}

void machine_init(machine_t *m, avr_t *avr, double start_x_mm, double start_y_mm, FILE *step_log)
{
    memset(m, 0, sizeof *m);
    m->avr = avr;
    m->step_log = step_log;
    ws2812_init(&m->leds, avr->frequency);
    /* From rest at acceleration a (steps/s^2) the first step takes sqrt(2 / a) seconds. */
    double accel_steps = fmin(X_ACCELERATION * X_STEPS_PER_MM, Y_ACCELERATION * Y_STEPS_PER_MM);
#if KINEMATICS_COREXY
    accel_steps *= 2;  /* a diagonal move turns one motor twice as fast */
#endif
    m->pause_cycles = (uint64_t)(0.5 * sqrt(2 / accel_steps) * avr->frequency);

    int64_t x = llround(start_x_mm * steps_per_mm[0]), y = llround(start_y_mm * steps_per_mm[1]);
#if KINEMATICS_COREXY
    m->motor[0] = x + y;
    m->motor[1] = x - y;
#else
    m->motor[0] = x;
    m->motor[1] = y;
#endif
    avr_irq_register_notify(pin_irq(avr, PORT_LETTER(STEP_PORT), X_STEP_BIT), on_step, m);
    avr_irq_register_notify(pin_irq(avr, PORT_LETTER(STEP_PORT), Y_STEP_BIT), on_step, m);
    avr_irq_register_notify(pin_irq(avr, PORT_LETTER(DIR_PORT), X_DIR_BIT), on_dir, m);
    avr_irq_register_notify(pin_irq(avr, PORT_LETTER(DIR_PORT), Y_DIR_BIT), on_dir, m);
    avr_irq_register_notify(pin_irq(avr, PORT_LETTER(MAGNET_PORT), MAGNET_BIT), on_magnet, m);
    avr_irq_register_notify(pin_irq(avr, PORT_LETTER(ZSERVO_PORT), ZSERVO_BIT), on_z, m);
    avr_irq_register_notify(pin_irq(avr, PORT_LETTER(LED_PORT), LED_BIT), on_led, m);
    m->limit_irq[0] = pin_irq(avr, PORT_LETTER(LIMIT_PORT), X_LIMIT_BIT);
    m->limit_irq[1] = pin_irq(avr, PORT_LETTER(LIMIT_PORT), Y_LIMIT_BIT);
    /* Inputs read 0 in simavr until driven: start with both switches driven open,
     * then let the position decide. */
    m->limit_closed[0] = m->limit_closed[1] = 0;
    avr_raise_irq(m->limit_irq[0], 1);
    avr_raise_irq(m->limit_irq[1], 1);
    update_limits(m);
}

void machine_after_reset(machine_t *m)
{
    /* A reset clears the input registers but not the pins' remembered levels, and simavr
     * ignores a raise to the level it remembers: toggle, so the PIN bits follow again. */
    for (int axis = 0; axis < 2; axis++) {
        avr_raise_irq(m->limit_irq[axis], m->limit_closed[axis] ? 1 : 0);
        avr_raise_irq(m->limit_irq[axis], m->limit_closed[axis] ? 0 : 1);
    }
    /* Every pin is an input now: the magnet's driver switches off. */
    if (m->magnet) {
        m->magnet = 0;
        event(m->avr->cycle, "MAG", "on=0 %s", where(m));
    }
}

void machine_trip(machine_t *m, int axis)
{
    m->trip_armed[axis] = 1;
}

void machine_poll(machine_t *m)
{
    if (m->position_dirty) {
        m->position_dirty = 0;
        update_limits(m);
    }
}

static void end_trips(machine_t *m)
{
    for (int axis = 0; axis < 2; axis++) {
        if (m->trip_until[axis] && m->avr->cycle >= m->trip_until[axis]) {
            m->trip_until[axis] = 0;
            update_limits(m);
        }
    }
}

/* Slower checks, called every millisecond of simulated time. */
void machine_poll_slow(machine_t *m)
{
    uint64_t now = m->avr->cycle;
    ws2812_poll(&m->leds, now);
    end_trips(m);
    if (m->moving && (now - m->last_step_cycle) > REST_SECONDS * m->avr->frequency) {
        m->moving = 0;
        if (m->step_log)
            fflush(m->step_log);
        machine_report_position(m, "rest");
    }
}
