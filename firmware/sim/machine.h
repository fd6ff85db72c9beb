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
    uint64_t steps_total;
    uint8_t magnet;
    uint8_t zpin;
    uint64_t servo_rise;
    double servo_us;           /* last decoded pulse width, 0 before the first pulse */
    double servo_reported_us;
    ws2812_t leds;
    FILE *step_log;
} machine_t;

void machine_init(machine_t *m, avr_t *avr, double start_x_mm, double start_y_mm, FILE *step_log);
/* Restores what a reset of the AVR clears (the levels driven on input pins). */
void machine_after_reset(machine_t *m);
/* Called after every instruction: updates the switches and watches for rest. Cheap. */
void machine_poll(machine_t *m);
/* Prints a POS event (why: "rest" or "query"). */
void machine_report_position(machine_t *m, const char *why);
/* Called every few thousand instructions: LED latch and rest detection. */
void machine_poll_slow(machine_t *m);

#endif
