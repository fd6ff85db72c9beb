/*
 * machine.h - the physical machine around the simulated AVR, seen only through its pins:
 * carriage (from step/dir pulses), end-stop switches (driven from the carriage position),
 * magnet, Z servo or pin, and the WS2812 LED grid.
 */
#ifndef MACHINE_H
#define MACHINE_H

#include <stdint.h>
#include <stdio.h>

#include "sim_avr.h"
#include "sim_irq.h"
#include "ws2812.h"

typedef struct {
    avr_t *avr;
    int64_t motor[2];          /* steps counted from pulses, from the power-up position */
    int64_t start_motor[2];
    uint8_t dir_level[2];
    uint8_t limit_closed[2];
    avr_irq_t *limit_irq[2];
    int position_dirty;        /* a step happened since the switches were last updated */
    int moving;                /* steps since the last rest report */
    uint64_t last_step_cycle;
    uint64_t pause_cycles;     /* a step after a gap this long started from rest */
    uint64_t steps_total;
    uint8_t trip_armed[2];     /* "trip" query: close this switch at the next step */
    uint64_t trip_until[2];    /* cycle until which a tripped switch stays closed */
    uint8_t magnet;
    uint8_t zpin;
    uint64_t servo_rise;
    double servo_us;           /* last decoded pulse width, 0 before the first pulse */
    double servo_reported_us;
    ws2812_t leds;
    FILE *step_log;
} machine_t;

void machine_init(machine_t *m, avr_t *avr, double start_x_mm, double start_y_mm, FILE *step_log);
/* Restores what a reset of the AVR clears (the levels driven on input pins); a reset
 * also drops every output, the magnet's included. */
void machine_after_reset(machine_t *m);
/* Called after every instruction: updates the switches and watches for rest. Cheap. */
void machine_poll(machine_t *m);
/* Prints a POS event (why: "start", "rest", "query", "exit"; "pause" comes from steps). */
void machine_report_position(machine_t *m, const char *why);
/* "trip" query: the axis's switch closes for a moment when the carriage next moves, as
 * an obstacle or electrical noise would close it. */
void machine_trip(machine_t *m, int axis);
/* Called every millisecond of simulated time: LED latch, rest detection, trip ends. */
void machine_poll_slow(machine_t *m);

#endif
