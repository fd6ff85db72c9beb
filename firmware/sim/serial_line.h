/*
 * serial_line.h - the AVR's UART0 on a pseudo-terminal, and what the harness learns from
 * the bytes on it: which host lines the firmware has not answered yet.
 */
#ifndef SERIAL_LINE_H
#define SERIAL_LINE_H

#include <stdint.h>

#include "sim_avr.h"

/* Opens the pty and connects it to UART0; returns the path a host opens. */
const char *serial_line_open(avr_t *avr);
/* Moves bytes between the pty and the UART; call often. Returns 1 if any moved. */
int serial_line_pump(void);
/* Waits up to `seconds` of wall time for the host to send something. */
void serial_line_wait(double seconds);
/* Lines the host sent that got no "ok" or "error:N" yet. */
int serial_line_pending(void);
/* 1 if a byte went either way since the last call. */
int serial_line_take_activity(void);
/* The firmware restarted (hardware reset): nothing it had received is pending. */
void serial_line_forget(void);
/* Bytes on the line toward the host that the firmware never sent (electrical noise),
 * between two of its lines. */
void serial_line_noise(const uint8_t *bytes, int count);

#endif
