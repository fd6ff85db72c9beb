/*
 * machine.c - pin observers and the end-stop model.
 *
 * Coordinates: mm from the machine origin the firmware finds by homing. The switches
 * close HOMING_PULLOFF beyond both ends of each axis (config.h), as on the real gantry.
 * Step/dir: a rising edge on a step pin moves its motor one step; the direction pin high
 * means negative. CoreXY builds decode X = (A + B) / 2, Y = (A - B) / 2.
 */
#include <math.h>
#include <string.h>

#include "avr_ioport.h"
#include "config.h"
#include "cpu_map.h"
#include "events.h"
#include "machine.h"

#define REST_SECONDS 0.02  /* no step for this long: the carriage is at rest */

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

void machine_report_position(machine_t *m, const char *why)
{
    int64_t half[2];
    cartesian_half_steps(m, half);
    event(m->avr->cycle, "POS", "x=%.4f y=%.4f z=%.3f xs=%.1f ys=%.1f a=%lld b=%lld limits=%d%d magnet=%d steps=%llu why=%s",
          half[0] / 2.0 / steps_per_mm[0], half[1] / 2.0 / steps_per_mm[1], z_mm(m), half[0] / 2.0,
          half[1] / 2.0, (long long)m->motor[0], (long long)m->motor[1], m->limit_closed[0],
          m->limit_closed[1], m->magnet, (unsigned long long)m->steps_total, why);
}

static void update_limits(machine_t *m)
{
    int64_t half[2];
    cartesian_half_steps(m, half);
    for (int axis = 0; axis < 2; axis++) {
        int64_t pulloff = llround(HOMING_PULLOFF * steps_per_mm[axis]);
        int64_t travel = llround(max_travel[axis] * steps_per_mm[axis]);
        uint8_t closed = half[axis] <= -2 * pulloff || half[axis] >= 2 * (travel + pulloff);
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
    int direction = m->dir_level[motor] ? -1 : 1;
    m->motor[motor] += direction;
    m->steps_total++;
    m->position_dirty = 1;
    m->moving = 1;
    m->last_step_cycle = m->avr->cycle;
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
        event(m->avr->cycle, "MAG", "on=%d", m->magnet);
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
        event(m->avr->cycle, "Z", "us=%.1f z=%.3f", m->servo_us, z_mm(m));
    }
#else
    m->zpin = value != 0;
    event(m->avr->cycle, "Z", "pin=%d", m->zpin);
#endif
}

static void on_led(avr_irq_t *irq, uint32_t value, void *param)
{
    machine_t *m = param;
    if ((value != 0) != (irq->value != 0))
        ws2812_edge(&m->leds, value != 0, m->avr->cycle);
}

void machine_init(machine_t *m, avr_t *avr, double start_x_mm, double start_y_mm, FILE *step_log)
{
    memset(m, 0, sizeof *m);
    m->avr = avr;
    m->step_log = step_log;
    ws2812_init(&m->leds, avr->frequency);

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
    /* A reset clears the input pins' simulated levels: drive the switches again. */
    for (int axis = 0; axis < 2; axis++)
        avr_raise_irq(m->limit_irq[axis], m->limit_closed[axis] ? 0 : 1);
}

void machine_poll(machine_t *m)
{
    if (m->position_dirty) {
        m->position_dirty = 0;
        update_limits(m);
    }
}

/* Slower checks, called every few thousand instructions. */
void machine_poll_slow(machine_t *m)
{
    uint64_t now = m->avr->cycle;
    ws2812_poll(&m->leds, now);
    if (m->moving && (now - m->last_step_cycle) > REST_SECONDS * m->avr->frequency) {
        m->moving = 0;
        if (m->step_log)
            fflush(m->step_log);
        machine_report_position(m, "rest");
    }
}
