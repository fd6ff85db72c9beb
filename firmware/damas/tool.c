/*
 * tool.c - magnet pin and Z servo.
 *
 * The servo pulse comes from Timer 2 in CTC mode at 8 us per tick. Both edges are made by
 * the compare-output hardware (set on match, then clear on match), so they do not move
 * when other interrupts delay this one; the interrupt only prepares the next edge.
 * Frame: a pulse of 1000-2000 us, then nine 2 ms gaps (about 20 ms, 50 Hz).
 */
#include <avr/interrupt.h>
#include <avr/io.h>

#include "config.h"
#include "cpu_map.h"
#include "idle.h"
#include "protocol.h"
#include "system.h"
#include "tool.h"

#define SERVO_US_PER_TICK 8          /* F_CPU / 128 */
#define SERVO_GAP_TICKS   250        /* 2 ms */
#define SERVO_GAPS        9

static float z_position = Z_MIN_MM;
static uint8_t magnet_on;

#if Z_MODE_SERVO
static volatile uint8_t pulse_ticks;  /* width of the next pulse */
static volatile uint8_t phase;        /* 0: pulse running, 1..SERVO_GAPS: gaps */
static volatile uint8_t pulse_ended;

/* COM bits of the servo's compare unit: 0 disconnected, 2 clear on match, 3 set on match. */
static void servo_output_mode(uint8_t com)
{
    uint8_t a = TCCR2A & ~(_BV(SERVO_COM1) | _BV(SERVO_COM0));
    if (com & 2)
        a |= _BV(SERVO_COM1);
    if (com & 1)
        a |= _BV(SERVO_COM0);
    TCCR2A = a;
}

ISR(SERVO_COMP_vect)
{
    if (phase == 0) {
        /* The hardware just raised the pin: have it lowered after the pulse width. */
        servo_output_mode(2);
        SERVO_SET_TOP(pulse_ticks - 1);
        phase = 1;
    } else {
        if (phase == 1) {
            servo_output_mode(0);  /* pin stays low (PORT bit is 0) through the gaps */
            SERVO_SET_TOP(SERVO_GAP_TICKS - 1);
            pulse_ended = 1;
            idle_wake();
        }
        if (phase == SERVO_GAPS)
            servo_output_mode(3);  /* raise the pin at the end of the last gap */
        phase = phase == SERVO_GAPS ? 0 : phase + 1;
    }
}

static uint8_t z_to_ticks(float z)
{
    float us = Z_SERVO_MIN_US + (z - Z_MIN_MM) * (Z_SERVO_MAX_US - Z_SERVO_MIN_US) / (Z_MAX_MM - Z_MIN_MM);
    return (uint8_t)(us / SERVO_US_PER_TICK + 0.5f);
}
#endif

void tool_init(void)
{
    DDR(MAGNET_PORT) |= _BV(MAGNET_BIT);
    tool_set_magnet(0);
    DDR(ZSERVO_PORT) |= _BV(ZSERVO_BIT);
    PORT(ZSERVO_PORT) &= ~_BV(ZSERVO_BIT);
#if Z_MODE_SERVO
    pulse_ticks = z_to_ticks(z_position);
    phase = 0;  /* the first match raises the pin (set-on-match below) */
    TCCR2A = _BV(WGM21);  /* CTC */
    SERVO_SET_TOP(SERVO_GAP_TICKS - 1);
    servo_output_mode(3);
    TIMSK2 = _BV(SERVO_OCIE);
    TCCR2B = _BV(CS22) | _BV(CS20);  /* clock / 128 */
#endif
}

void tool_set_magnet(uint8_t on)
{
    magnet_on = on;
    if (on)
        PORT(MAGNET_PORT) |= _BV(MAGNET_BIT);
    else
        PORT(MAGNET_PORT) &= ~_BV(MAGNET_BIT);
}

uint8_t tool_magnet(void)
{
    return magnet_on;
}

float tool_get_z(void)
{
    return z_position;
}

void tool_set_z(float z_mm)
{
    float distance = z_mm > z_position ? z_mm - z_position : z_position - z_mm;
    z_position = z_mm;
#if Z_MODE_SERVO
    pulse_ticks = z_to_ticks(z_mm);
    /* The servo has no feedback: wait as long as it takes to travel, plus one frame. */
    protocol_dwell_ms((uint32_t)(distance / Z_SERVO_MM_PER_S * 1000.0f) + 20);
#else
    (void)distance;
    if (z_mm >= Z_PIN_THRESHOLD_MM)
        PORT(ZSERVO_PORT) |= _BV(ZSERVO_BIT);
    else
        PORT(ZSERVO_PORT) &= ~_BV(ZSERVO_BIT);
#endif
}

void tool_wait_servo_gap(void)
{
#if Z_MODE_SERVO
    pulse_ended = 0;
    while (!pulse_ended) {
        protocol_execute_realtime();
        if (sys.abort)
            return;
        idle_wait();
    }
#endif
}
