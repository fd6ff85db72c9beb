/*
 * ws2812.c - WS2812B data line decoder.
 *
 * A bit starts on a rising edge; a high time of 0.25-0.55 us is a 0 and 0.65-0.95 us
 * is a 1 (datasheet: 0.4 / 0.8 us +- 150 ns). Anything else counts as a bad bit, as does
 * a low time under 0.3 us. A low line for over 50 us latches the frame (the LEDs show it).
 */
#include <stdio.h>
#include <string.h>

#include "events.h"
#include "ws2812.h"

#define RESET_NS 50000.0

static double ns(const ws2812_t *w, uint64_t cycles)
{
    return cycles * 1e9 / w->frequency;
}

static void start_frame(ws2812_t *w)
{
    w->busy = 0;
    w->bits = 0;
    w->bad_bits = 0;
    w->min_high_ns[0] = w->min_high_ns[1] = 1e9;
    w->max_high_ns[0] = w->max_high_ns[1] = 0;
}

void ws2812_init(ws2812_t *w, uint32_t frequency)
{
    memset(w, 0, sizeof *w);
    w->frequency = frequency;
    start_frame(w);
}

static void latch(ws2812_t *w, uint64_t cycle)
{
    w->frames++;
    ws2812_report(w, cycle);
    start_frame(w);
}

void ws2812_edge(ws2812_t *w, int level, uint64_t cycle)
{
    if (level) {
        if (w->busy) {
            double low = ns(w, cycle - w->fall);
            if (low > RESET_NS)
                latch(w, w->fall);
            else if (low < 300)
                w->bad_bits++;
        }
        w->rise = cycle;
        return;
    }
    double high = ns(w, cycle - w->rise);
    int bit;
    if (high >= 250 && high <= 550) {
        bit = 0;
    } else if (high >= 650 && high <= 950) {
        bit = 1;
    } else {
        w->bad_bits++;
        bit = high > 600;
    }
    if (high < w->min_high_ns[bit])
        w->min_high_ns[bit] = high;
    if (high > w->max_high_ns[bit])
        w->max_high_ns[bit] = high;
    if (w->bits < WS2812_MAX_LEDS * 24) {
        uint8_t *byte = &w->grb[w->bits / 8];
        *byte = (uint8_t)((*byte << 1) | bit);
    }
    w->bits++;
    w->fall = cycle;
    w->busy = 1;
}

void ws2812_poll(ws2812_t *w, uint64_t cycle)
{
    if (w->busy && ns(w, cycle - w->fall) > RESET_NS)
        latch(w, w->fall);
}

void ws2812_report(ws2812_t *w, uint64_t cycle)
{
    /* LED t=... n=<leds> bad=<bad bits> extra=<bits beyond whole LEDs> h0=min-max h1=min-max rrggbb... */
    static char colours[WS2812_MAX_LEDS * 7 + 1];
    uint32_t leds = w->bits / 24;
    if (leds > WS2812_MAX_LEDS)
        leds = WS2812_MAX_LEDS;
    char *p = colours;
    for (uint32_t i = 0; i < leds; i++) {
        const uint8_t *grb = &w->grb[i * 3];
        p += sprintf(p, " %02x%02x%02x", grb[1], grb[0], grb[2]);
    }
    *p = 0;
    event(cycle, "LED", "n=%u bad=%u extra=%u h0=%.0f-%.0f h1=%.0f-%.0f%s", leds, w->bad_bits,
          w->bits % 24, w->max_high_ns[0] ? w->min_high_ns[0] : 0, w->max_high_ns[0],
          w->max_high_ns[1] ? w->min_high_ns[1] : 0, w->max_high_ns[1], colours);
}
