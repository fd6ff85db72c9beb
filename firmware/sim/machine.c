/*
 * machine.c - pin observers and the end-stop model.
 *
 * Coordinates: mm from the machine origin the firmware finds by homing. The switches
 * close `pulloff` beyond both ends of each axis, as on the real gantry. The build (steps
 * per mm, travel, pull-off) comes from config.h for our firmware and from the command
 * line for a stock GRBL, whose own idea of them is in its EEPROM settings.
 * Step/dir: a rising edge on a step pin moves its motor one step; the direction pin high
 * means negative. CoreXY builds decode X = (A + B) / 2, Y = (A - B) / 2.
 *
 * Position reports: a host rebuilds the carriage's path as the polyline through the
 * reported points, so every point where the path bends is reported:
 * - "pause": our firmware stops for a moment between two queued moves, too short for the
 *   20 ms rest report: a step that comes after a gap of half the time the first step from
 *   rest takes at the configured acceleration (any step of a ramp but its first is
 *   quicker) is reported at the point where the carriage waited;
 * - "turn": GRBL runs through corners without stopping. The harness follows each straight
 *   run from its first point and reports the last point of the run when a step leaves it:
 *   when no line from the run's start passes within two steps of every point since (the
 *   range of directions that do is narrowed at each step), or when the carriage comes
 *   back toward the start. So the path never strays more than two steps from the polyline.
 * MAG, Z and PWM events carry the position too.
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

/* A run ends when a point strays this many steps from every line through its start: a
 * digital line strays half a step, and one motor steps just before the other. */
#define TURN_STEPS 2.0
#define PWM_STEADY_SECONDS 0.005  /* no PWM edge for this long: the pin holds its level */
#define PWM_REPORT_CHANGE 0.02  /* report duty changes larger than this */

build_t machine_default_build(void)
{
    build_t b = {{X_STEPS_PER_MM, Y_STEPS_PER_MM}, {X_MAX_TRAVEL, Y_MAX_TRAVEL}, HOMING_PULLOFF, 0};
    return b;
}

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

static void position_mm(const machine_t *m, double mm[2])
{
    int64_t half[2];
    cartesian_half_steps(m, half);
    mm[0] = half[0] / 2.0 / m->build.steps_per_mm[0];
    mm[1] = half[1] / 2.0 / m->build.steps_per_mm[1];
}

/* Every reported point is a vertex of the path: a new straight run starts there. */
static void run_restart(machine_t *m)
{
    position_mm(m, m->run.start);
    m->run.open = 0;
    m->run.far = 0;
}

static void report_position_at(machine_t *m, uint64_t cycle, const char *why)
{
    int64_t half[2];
    cartesian_half_steps(m, half);
    run_restart(m);
    event(cycle, "POS", "x=%.4f y=%.4f z=%.3f xs=%.1f ys=%.1f a=%lld b=%lld limits=%d%d magnet=%d steps=%llu why=%s",
          half[0] / 2.0 / m->build.steps_per_mm[0], half[1] / 2.0 / m->build.steps_per_mm[1], z_mm(m), half[0] / 2.0,
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
    double mm[2];
    position_mm(m, mm);
    snprintf(text, sizeof text, "x=%.4f y=%.4f", mm[0], mm[1]);
    return text;
}

static void update_limits(machine_t *m)
{
    int64_t half[2];
    cartesian_half_steps(m, half);
    for (int axis = 0; axis < 2; axis++) {
        int64_t pulloff = llround(m->build.pulloff * m->build.steps_per_mm[axis]);
        int64_t travel = llround(m->build.travel[axis] * m->build.steps_per_mm[axis]);
        uint8_t closed = half[axis] <= -2 * pulloff || half[axis] >= 2 * (travel + pulloff) ||
                         m->avr->cycle < m->trip_until[axis];
        if (closed != m->limit_closed[axis]) {
            m->limit_closed[axis] = closed;
            avr_raise_irq(m->limit_irq[axis], closed ? 0 : 1);  /* switch to ground */
            event(m->avr->cycle, "LIMIT", "axis=%c closed=%d", "XY"[axis], closed);
        }
    }
}

static double wrap(double angle)
{
    while (angle > M_PI)
        angle -= 2 * M_PI;
    while (angle <= -M_PI)
        angle += 2 * M_PI;
    return angle;
}

/* 1 if the carriage, about to step to `next` (mm), leaves the straight run it is on. */
static int leaves_run(machine_t *m, const double next[2])
{
    run_t *r = &m->run;
    double tolerance = TURN_STEPS / fmin(m->build.steps_per_mm[0], m->build.steps_per_mm[1]);
    double dx = next[0] - r->start[0], dy = next[1] - r->start[1];
    double distance = hypot(dx, dy);
    if (distance < r->far - tolerance)
        return 1;  /* coming back */
    r->far = fmax(r->far, distance);
    if (distance <= tolerance)
        return 0;  /* too near the start to tell a direction */
    double spread = asin(tolerance / distance), angle = atan2(dy, dx);
    if (!r->open) {
        r->open = 1;
        r->centre = angle;
        r->lo = -spread;
        r->hi = spread;
        return 0;
    }
    double relative = wrap(angle - r->centre);
    if (relative < r->lo || relative > r->hi)
        return 1;
    r->lo = fmax(r->lo, relative - spread);
    r->hi = fmin(r->hi, relative + spread);
    return 0;
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
    double next[2];
    position_mm(m, next);
    m->motor[motor] -= direction;
    if (m->moving && leaves_run(m, next)) {
        report_position_at(m, m->last_step_cycle, "turn");
        leaves_run(m, next);  /* the first step of the new run */
    }
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

static void report_pwm(machine_t *m, double duty)
{
    m->pwm_duty = duty;
    if (fabs(duty - m->pwm_reported) > PWM_REPORT_CHANGE || (duty == 0) != (m->pwm_reported == 0)) {
        m->pwm_reported = duty;
        pace_activity(m->avr->cycle);
        event(m->avr->cycle, "PWM", "duty=%.3f %s", duty, where(m));
    }
}

/* GRBL's spindle output (D11, Timer 2 fast PWM): the duty of the last whole period, once
 * two periods agree (the period in which GRBL changes OCR2A is neither duty). */
static void on_pwm(avr_irq_t *irq, uint32_t value, void *param)
{
    machine_t *m = param;
    uint8_t level = value != 0;
    if (level == m->pwm_level)
        return;
    m->pwm_level = level;
    uint64_t now = m->avr->cycle;
    if (!level) {
        m->pwm_fall = now;
        return;
    }
    if (m->pwm_rise && m->pwm_fall > m->pwm_rise) {
        double duty = (double)(m->pwm_fall - m->pwm_rise) / (now - m->pwm_rise);
        if (fabs(duty - m->pwm_last_period) < 0.01)
            report_pwm(m, duty);
        m->pwm_last_period = duty;
    }
    m->pwm_rise = now;
}

/* A PWM pin that stopped switching holds its level, except in one case simavr gets wrong:
 * in fast PWM with OCR2A at TOP a real AVR holds the output high (datasheet: "setting
 * OCR2A equal to MAX will result in a constantly high or low output"), simavr low. */
#define TCCR2A_ADDRESS 0xb0
#define OCR2A_ADDRESS 0xb3
static void check_pwm_steady(machine_t *m)
{
    uint64_t last = m->pwm_rise > m->pwm_fall ? m->pwm_rise : m->pwm_fall;
    if (m->avr->cycle - last <= PWM_STEADY_SECONDS * m->avr->frequency)
        return;
    uint8_t mode = m->avr->data[TCCR2A_ADDRESS];
    int fast_pwm_at_top = (mode & 0x03) == 0x03 && (mode & 0xc0) == 0x80 &&
                          m->avr->data[OCR2A_ADDRESS] == 0xff;
    double level = fast_pwm_at_top ? 1 : m->pwm_level;
    m->pwm_last_period = -1;
    if (m->pwm_duty != level)
        report_pwm(m, level);
}

static void on_led(avr_irq_t *irq, uint32_t value, void *param)
{
    machine_t *m = param;
    if ((value != 0) != (irq->value != 0)) {
        pace_activity(m->avr->cycle);
        ws2812_edge(&m->leds, value != 0, m->avr->cycle);
    }
}

void machine_init(machine_t *m, avr_t *avr, build_t build, double start_x_mm, double start_y_mm,
                  FILE *step_log)
{
    memset(m, 0, sizeof *m);
    m->avr = avr;
    m->build = build;
    m->step_log = step_log;
    ws2812_init(&m->leds, avr->frequency);
    /* From rest at acceleration a (steps/s^2) the first step takes sqrt(2 / a) seconds. */
    double accel_steps = fmin(X_ACCELERATION * build.steps_per_mm[0],
                              Y_ACCELERATION * build.steps_per_mm[1]);
#if KINEMATICS_COREXY
    accel_steps *= 2;  /* a diagonal move turns one motor twice as fast */
#endif
    m->pause_cycles = (uint64_t)(0.5 * sqrt(2 / accel_steps) * avr->frequency);

    int64_t x = llround(start_x_mm * build.steps_per_mm[0]);
    int64_t y = llround(start_y_mm * build.steps_per_mm[1]);
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
    if (build.grbl) {
        /* The CNC shield's D11 is GRBL's spindle PWM (our Z servo pin); A3 is its flood
         * coolant output (our magnet pin); A0 is an input there (cycle reset), no LEDs. */
        avr_irq_register_notify(pin_irq(avr, PORT_LETTER(ZSERVO_PORT), ZSERVO_BIT), on_pwm, m);
    } else {
        avr_irq_register_notify(pin_irq(avr, PORT_LETTER(ZSERVO_PORT), ZSERVO_BIT), on_z, m);
        avr_irq_register_notify(pin_irq(avr, PORT_LETTER(LED_PORT), LED_BIT), on_led, m);
    }
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
    /* Every pin is an input now: the magnet's driver switches off, and so does the PWM. */
    if (m->magnet) {
        m->magnet = 0;
        event(m->avr->cycle, "MAG", "on=0 %s", where(m));
    }
    if (m->build.grbl) {
        m->pwm_level = 0;
        m->pwm_rise = m->pwm_fall = 0;
        if (m->pwm_duty != 0)
            report_pwm(m, 0);
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
    if (m->build.grbl)
        check_pwm_steady(m);
    if (m->moving && (now - m->last_step_cycle) > REST_SECONDS * m->avr->frequency) {
        m->moving = 0;
        if (m->step_log)
            fflush(m->step_log);
        machine_report_position(m, "rest");
    }
}
