/*
 * leds.c - WS2812 frame buffer and a bit-banged sender for a 16 MHz AVR.
 *
 * Each bit is 21 cycles (1.31 us): high for 6 cycles (375 ns) for a 0, 12 cycles (750 ns)
 * for a 1, the rest low; the datasheet allows 400 +- 150 ns and 800 +- 150 ns. Bytes go
 * green, red, blue, most significant bit first. A low line for > 50 us latches the frame.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

#include "config.h"
#include "cpu_map.h"
#include "leds.h"

#if F_CPU != 16000000UL
#error "the WS2812 timing in leds.c is counted in cycles of a 16 MHz clock"
#endif

static uint8_t frame[LED_COUNT * 3];  /* G, R, B per LED, in wire order */

void leds_init(void)
{
    DDR(LED_PORT) |= _BV(LED_BIT);
    PORT(LED_PORT) &= ~_BV(LED_BIT);
}

void leds_set(uint8_t index, uint8_t r, uint8_t g, uint8_t b)
{
    uint8_t *p = &frame[index * 3];
    p[0] = g;
    p[1] = r;
    p[2] = b;
}

void leds_set_all(uint8_t r, uint8_t g, uint8_t b)
{
    for (uint8_t i = 0; i < LED_COUNT; i++)
        leds_set(i, r, g, b);
}

void leds_show(void)
{
    const uint8_t *p = frame;
    uint16_t count = sizeof frame;
    uint8_t sreg = SREG;
    cli();
    uint8_t high = PORT(LED_PORT) | _BV(LED_BIT);
    uint8_t low = PORT(LED_PORT) & ~_BV(LED_BIT);
    uint8_t byte, bits;
    /* Cycle counts (after the "out" that raises the line) are in the right column. */
    __asm__ volatile(
        "next_byte_%=:                \n\t"
        "  ld   %[byte], %a[ptr]+     \n\t"
        "  ldi  %[bits], 8            \n\t"
        "next_bit_%=:                 \n\t"
        "  out  %[port], %[high]      \n\t"  /* 0: line high */
        "  nop                        \n\t"  /* 1 */
        "  nop                        \n\t"  /* 2 */
        "  nop                        \n\t"  /* 3 */
        "  nop                        \n\t"  /* 4 */
        "  sbrs %[byte], 7            \n\t"  /* 5: skip the next out for a 1 */
        "  out  %[port], %[low]       \n\t"  /* 6: a 0 ends here */
        "  nop                        \n\t"  /* 7 */
        "  nop                        \n\t"  /* 8 */
        "  nop                        \n\t"  /* 9 */
        "  nop                        \n\t"  /* 10 */
        "  nop                        \n\t"  /* 11 */
        "  out  %[port], %[low]       \n\t"  /* 12: a 1 ends here */
        "  lsl  %[byte]               \n\t"  /* 13 */
        "  nop                        \n\t"  /* 14 */
        "  nop                        \n\t"  /* 15 */
        "  nop                        \n\t"  /* 16 */
        "  nop                        \n\t"  /* 17 */
        "  dec  %[bits]               \n\t"  /* 18 */
        "  brne next_bit_%=           \n\t"  /* 19-20, next bit's high at 21 */
        "  sbiw %[count], 1           \n\t"  /* the last bit's low stretches by a few cycles */
        "  brne next_byte_%=          \n\t"
        : [ptr] "+e"(p), [count] "+w"(count), [byte] "=&d"(byte), [bits] "=&d"(bits)
        : [port] "I"(_SFR_IO_ADDR(PORT(LED_PORT))), [high] "r"(high), [low] "r"(low));
    SREG = sreg;
}
