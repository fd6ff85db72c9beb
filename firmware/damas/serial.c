/*
 * serial.c - UART0 at BAUD_RATE, 8N1, 128-byte receive ring (127 usable, as GRBL).
 */
#include <avr/interrupt.h>
#include <avr/io.h>

#include "config.h"
#include "cpu_map.h"
#include "idle.h"
#include "protocol.h"
#include "serial.h"
#include "system.h"

static uint8_t rx_buffer[RX_BUFFER_SIZE];
static volatile uint8_t rx_head, rx_tail;
static uint8_t tx_buffer[TX_BUFFER_SIZE];
static volatile uint8_t tx_head, tx_tail;

void serial_init(void)
{
    /* Double speed mode: 115200 baud is 2.1% off at 16 MHz instead of 3.5%. */
    uint16_t ubrr = (F_CPU / 4 / BAUD_RATE - 1) / 2;
    UBRR0H = ubrr >> 8;
    UBRR0L = ubrr;
    UCSR0A = _BV(U2X0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
    rx_head = rx_tail = 0;
    tx_head = tx_tail = 0;
}

int serial_read(void)
{
    uint8_t tail = rx_tail;
    if (tail == rx_head)
        return SERIAL_NO_DATA;
    uint8_t c = rx_buffer[tail];
    rx_tail = (tail + 1) % RX_BUFFER_SIZE;
    return c;
}

void serial_flush_rx(void)
{
    rx_tail = rx_head;
}

void serial_write(uint8_t c)
{
    uint8_t next = (tx_head + 1) % TX_BUFFER_SIZE;
    while (next == tx_tail) {
        if (sys.abort)
            return;  /* a reset drops pending output rather than waiting */
        idle_wait();
    }
    tx_buffer[tx_head] = c;
    tx_head = next;
    UCSR0B |= _BV(UDRIE0);
}

void serial_flush_tx(void)
{
    while (tx_head != tx_tail) {
    }
    while (!(UCSR0A & _BV(UDRE0))) {
    }
}

ISR(SERIAL_UDRE_vect)
{
    uint8_t tail = tx_tail;
    UDR0 = tx_buffer[tail];
    tail = (tail + 1) % TX_BUFFER_SIZE;
    tx_tail = tail;
    if (tail == tx_head)
        UCSR0B &= ~_BV(UDRIE0);
    idle_wake();  /* room in the ring for a waiting serial_write() */
}

ISR(SERIAL_RX_vect)
{
    uint8_t c = UDR0;
    idle_wake();
    switch (c) {
    case '?':
        sys.rt_requests |= RT_STATUS;
        return;
    case '!':
        sys.rt_requests |= RT_HOLD;
        return;
    case '~':
        sys.rt_requests |= RT_RESUME;
        return;
    case 0x18:
        protocol_request_reset();  /* stops the motors from inside this interrupt */
        return;
    }
    if (c >= 0x80)
        return;  /* GRBL's extended real-time bytes: none supported, never part of a line */
    uint8_t next = (rx_head + 1) % RX_BUFFER_SIZE;
    if (next != rx_tail) {  /* full: the byte is lost, as on GRBL; hosts must count */
        rx_buffer[rx_head] = c;
        rx_head = next;
    }
}
