/*
 * idle.c - sleeping in the wait loops.
 *
 * A board robot spends most of its time waiting: for a line, for a move to end, for a
 * dwell. The CPU sleeps meanwhile (idle mode: timers, UART and pin changes keep running
 * and wake it). That saves power on the board and lets the simavr harness skip the
 * sleeping time instead of simulating every cycle of a busy loop.
 *
 * The classic race - an interrupt arrives after the loop checked its condition but before
 * the CPU sleeps - is closed with a flag: interrupts set idle_woken, and idle_wait() only
 * sleeps if none came since its last call. "sei; sleep" runs the sleep before any pending
 * interrupt, so the check and the sleep are atomic.
 *
 * Timer 0 counts milliseconds for dwells and servo waits, and runs only then.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#include "idle.h"

#if F_CPU != 16000000UL
#error "idle.c sets Timer 0 for 1 ms at 16 MHz"
#endif

volatile uint8_t idle_woken;
static volatile uint32_t countdown_ms;

void idle_init(void)
{
    set_sleep_mode(SLEEP_MODE_IDLE);
    TCCR0A = _BV(WGM01);  /* CTC */
    TCCR0B = 0;           /* stopped until a countdown starts */
    OCR0A = 249;          /* 16 MHz / 64 / 250 = 1 kHz */
    TIMSK0 = _BV(OCIE0A);
}

void idle_wait(void)
{
    cli();
    if (!idle_woken) {
        sleep_enable();
        sei();
        sleep_cpu();
        sleep_disable();
    }
    idle_woken = 0;
    sei();
}

ISR(TIMER0_COMPA_vect)
{
    if (countdown_ms && --countdown_ms == 0)
        idle_wake();
}

void idle_countdown_start(uint32_t ms)
{
    uint8_t sreg = SREG;
    cli();
    countdown_ms = ms;
    TCNT0 = 0;
    TCCR0B = ms ? _BV(CS01) | _BV(CS00) : 0;  /* clock / 64 */
    SREG = sreg;
}

uint8_t idle_countdown_done(void)
{
    uint8_t sreg = SREG;
    cli();
    uint8_t done = countdown_ms == 0;
    SREG = sreg;
    return done;
}

void idle_countdown_stop(void)
{
    idle_countdown_start(0);
}
