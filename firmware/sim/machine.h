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

/* What the machine is built like: from config.h for our firmware, from the command line
 * for a stock GRBL (whose settings live in its EEPROM, not in the harness). */
typedef struct {
    double steps_per_mm[2];
    double travel[2];          /* mm; the switches close `pulloff` beyond both ends */
    double pulloff;
    int grbl;                  /* stock GRBL on a CNC shield: the tool is its PWM pin */
} build_t;

/* The direction of the carriage's current straight run, to report where it turns. */
typedef struct {
    double start[2];           /* mm: where the run began (the last vertex) */
    double last[2];            /* mm: the previous step's position */
    uint64_t last_cycle;
    double centre;             /* direction of the first point far enough from start */
    double lo, hi;             /* the directions (relative to centre) every point allows */
    double far;                /* mm: the farthest the run has gone from its start */
    int open;                  /* centre is set */
} run_t;

typedef struct {
    avr_t *avr;
    build_t build;
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
    run_t run;
    uint8_t pwm_level;         /* GRBL's spindle PWM pin (D11): duty from its edges */
    uint64_t pwm_rise, pwm_fall, pwm_period;
    double pwm_duty, pwm_reported, pwm_last_period;
    uint64_t servo_rise;
    double servo_us;           /* last decoded pulse width, 0 before the first pulse */
    double servo_reported_us;
    ws2812_t leds;
    FILE *step_log;
} machine_t;

/* The build of our firmware as config.h describes it. */
build_t machine_default_build(void);
void machine_init(machine_t *m, avr_t *avr, build_t build, double start_x_mm, double start_y_mm,
                  FILE *step_log);
/* Restores what a reset of the AVR clears (the levels driven on input pins); a reset
 * also drops every output, the magnet's included. */
void machine_after_reset(machine_t *m);
/* Called after every instruction: updates the switches and watches for rest. Cheap. */
void machine_poll(machine_t *m);
/* Prints a POS event (why: "start", "rest", "query", "exit"; "pause" and "turn" come from
 * steps). */
void machine_report_position(machine_t *m, const char *why);
/* "trip" query: the axis's switch closes for a moment when the carriage next moves, as
 * an obstacle or electrical noise would close it. */
void machine_trip(machine_t *m, int axis);
/* Called every millisecond of simulated time: LED latch, rest detection, trip ends. */
void machine_poll_slow(machine_t *m);

#endif
