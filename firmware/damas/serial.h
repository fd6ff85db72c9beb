/*
 * serial.h - UART with interrupt-driven ring buffers.
 * Real-time bytes ('?', '!', '~', 0x18) are taken out of the stream in the receive
 * interrupt, so they act at once even when the line buffer is full.
 */
#ifndef SERIAL_H
#define SERIAL_H

#include <stdint.h>

#define SERIAL_NO_DATA (-1)

void serial_init(void);
int serial_read(void);          /* next received byte, or SERIAL_NO_DATA */
void serial_write(uint8_t c);   /* blocks while the transmit buffer is full */
void serial_flush_rx(void);
void serial_flush_tx(void);     /* waits until everything queued has been sent */

#endif
