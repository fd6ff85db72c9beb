/*
 * ws2812.h - decodes a WS2812 data line from its edges, as the LEDs would.
 */
#ifndef WS2812_H
#define WS2812_H

#include <stdint.h>

#define WS2812_MAX_LEDS 256

typedef struct {
    uint32_t frequency;
    uint64_t rise, fall;         /* cycle of the last edges */
    int busy;                    /* bits received since the last latch */
    uint32_t bits;
    uint8_t grb[WS2812_MAX_LEDS * 3];
    uint32_t bad_bits;           /* high or low times outside the datasheet */
    double min_high_ns[2], max_high_ns[2];  /* per bit value, for the report */
    uint32_t frames;
} ws2812_t;

void ws2812_init(ws2812_t *w, uint32_t frequency);
void ws2812_edge(ws2812_t *w, int level, uint64_t cycle);
/* Latches the frame once the line has been low long enough; call now and then. */
void ws2812_poll(ws2812_t *w, uint64_t cycle);
/* Prints the last latched frame as a LED event. */
void ws2812_report(ws2812_t *w, uint64_t cycle);

#endif
