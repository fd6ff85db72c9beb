/*
 * cpu_map.h - which pin does what, per board.
 *
 * Pins are given as a port letter and a bit, so the same table serves the firmware
 * (through the PORT()/DDR()/PIN() macros below) and the simavr harness (through
 * PORT_LETTER()). The Uno map follows GRBL's where the functions overlap.
 */
#ifndef CPU_MAP_H
#define CPU_MAP_H

#define CPU_CAT_(a, b) a##b
#define CPU_CAT(a, b) CPU_CAT_(a, b)
#define CPU_STR_(a) #a
#define CPU_STR(a) CPU_STR_(a)
#define PORT(p) CPU_CAT(PORT, p)
#define DDR(p)  CPU_CAT(DDR, p)
#define PIN(p)  CPU_CAT(PIN, p)
#define PORT_LETTER(p) (CPU_STR(p)[0])

#if defined(BOARD_MEGA)
/* Arduino Mega 2560 */
#define MCU_NAME        "atmega2560"
#define STEP_PORT       A
#define X_STEP_BIT      2          /* D24 */
#define Y_STEP_BIT      3          /* D25 */
#define DIR_PORT        C
#define X_DIR_BIT       7          /* D30 */
#define Y_DIR_BIT       6          /* D31 */
#define ENABLE_PORT     B
#define ENABLE_BIT      7          /* D13, low = drivers on */
#define LIMIT_PORT      B
#define X_LIMIT_BIT     4          /* D10 */
#define Y_LIMIT_BIT     5          /* D11 */
#define MAGNET_PORT     F
#define MAGNET_BIT      3          /* A3 */
#define LED_PORT        F
#define LED_BIT         0          /* A0, WS2812 data */
#define ZSERVO_PORT     H
#define ZSERVO_BIT      6          /* D9 = OC2B */
#ifdef __AVR__
#define LIMIT_PCMSK     PCMSK0
#define LIMIT_PCIE      PCIE0
#define LIMIT_PCINT_vect PCINT0_vect
/* Timer 2 runs in CTC mode (TOP = OCR2A); compare B fires at TOP too when OCR2B = OCR2A. */
#define SERVO_SET_TOP(v) do { OCR2A = (v); OCR2B = (v); } while (0)
#define SERVO_COM1      COM2B1
#define SERVO_COM0      COM2B0
#define SERVO_COMP_vect TIMER2_COMPB_vect
#define SERVO_OCIE      OCIE2B
#define SERIAL_RX_vect   USART0_RX_vect
#define SERIAL_UDRE_vect USART0_UDRE_vect
#endif

#else
/* Arduino Uno / Nano (ATmega328P), the default */
#ifndef BOARD_UNO
#define BOARD_UNO
#endif
#define MCU_NAME        "atmega328p"
#define STEP_PORT       D
#define X_STEP_BIT      2          /* D2 */
#define Y_STEP_BIT      3          /* D3 */
#define DIR_PORT        D
#define X_DIR_BIT       5          /* D5 */
#define Y_DIR_BIT       6          /* D6 */
#define ENABLE_PORT     B
#define ENABLE_BIT      0          /* D8, low = drivers on */
#define LIMIT_PORT      B
#define X_LIMIT_BIT     1          /* D9 */
#define Y_LIMIT_BIT     2          /* D10 */
#define MAGNET_PORT     C
#define MAGNET_BIT      3          /* A3 */
#define LED_PORT        C
#define LED_BIT         0          /* A0, WS2812 data */
#define ZSERVO_PORT     B
#define ZSERVO_BIT      3          /* D11 = OC2A */
#ifdef __AVR__
#define LIMIT_PCMSK     PCMSK0
#define LIMIT_PCIE      PCIE0
#define LIMIT_PCINT_vect PCINT0_vect
#define SERVO_SET_TOP(v) (OCR2A = (v))
#define SERVO_COM1      COM2A1
#define SERVO_COM0      COM2A0
#define SERVO_COMP_vect TIMER2_COMPA_vect
#define SERVO_OCIE      OCIE2A
#define SERIAL_RX_vect   USART_RX_vect
#define SERIAL_UDRE_vect USART_UDRE_vect
#endif
#endif

/* Limit switches close to ground against the pull-ups: a low pin is a pressed switch.
 * Direction pins: high means the motor turns toward negative coordinates (as GRBL). */
#define LIMIT_MASK ((1 << X_LIMIT_BIT) | (1 << Y_LIMIT_BIT))

#endif
