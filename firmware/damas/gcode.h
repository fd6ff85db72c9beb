/*
 * gcode.h - parses one line into a block, checks it, executes it.
 */
#ifndef GCODE_H
#define GCODE_H

#include <stdint.h>

void gc_init(void);
/* Returns a GRBL status code; the line is uppercase, without spaces or comments. */
uint8_t gc_execute_line(const char *line);
/* Reads a decimal number at line[*i] (sign, digits, one dot); advances *i. */
uint8_t gc_read_number(const char *line, uint8_t *i, float *value);

/* Modal state, for $G. */
typedef struct {
    uint8_t motion;    /* 0 or 1 (G0/G1) */
    uint8_t relative;  /* G91 */
    float feed;        /* mm/min, 0 = not set yet */
} gc_modal_t;
extern gc_modal_t gc_state;

#endif
