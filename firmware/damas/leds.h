/*
 * leds.h - WS2812 LED grid under the squares: a frame buffer and a "show".
 */
#ifndef LEDS_H
#define LEDS_H

#include <stdint.h>

void leds_init(void);
void leds_set(uint8_t index, uint8_t r, uint8_t g, uint8_t b);
void leds_set_all(uint8_t r, uint8_t g, uint8_t b);
/* Sends the whole frame at once. Interrupts are off for ~30 us per LED (1.6 ms for 50):
 * serial bytes arriving meanwhile may be lost, so hosts wait for the "ok". */
void leds_show(void);

#endif
