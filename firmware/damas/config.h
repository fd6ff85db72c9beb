/*
 * config.h - compile-time machine configuration (the only file to edit for a new machine).
 *
 * Values the Makefile may override with -D are wrapped in #ifndef.
 * This header is plain #defines on purpose: the simavr harness includes it too, so the
 * simulated machine (travel, steps/mm, switch positions) is built from the same numbers
 * as the firmware, the way a real gantry is built to match its configuration.
 */
#ifndef CONFIG_H
#define CONFIG_H

/* ---- serial ---- */
#define BAUD_RATE            115200
#define LINE_BUFFER_SIZE     80     /* GRBL: 80; longer lines get error:11 */
#define RX_BUFFER_SIZE       128    /* GRBL: 128 (127 usable), what hosts count against */
#define TX_BUFFER_SIZE       128

/* ---- kinematics ---- */
#ifndef KINEMATICS_COREXY
#define KINEMATICS_COREXY    0      /* 1: motor A = X+Y, motor B = X-Y (belts), 0: Cartesian */
#endif

/* ---- axes (X and Y are stepped; Z is a servo or a plain pin) ---- */
#define X_STEPS_PER_MM       80.0   /* 200 steps x 16 microsteps / (20 tooth GT2 = 40 mm) */
#define Y_STEPS_PER_MM       80.0
#define X_MAX_RATE           6000.0 /* mm/min, also the G0 rate */
#define Y_MAX_RATE           6000.0
#define X_ACCELERATION       800.0  /* mm/s^2 */
#define Y_ACCELERATION       800.0
#define X_MAX_TRAVEL         660.0  /* mm, machine space is [0, travel] after homing */
#define Y_MAX_TRAVEL         580.0
#define MIN_FEED_RATE        30.0   /* mm/min; slower feeds are raised to this */
#define STEP_PULSE_US        4      /* step pulse width; A4988 needs 1, DRV8825 1.9 */


/* ---- Z: a hobby servo (lift) or a plain on/off pin (solenoid) ---- */
#ifndef Z_MODE_SERVO
#define Z_MODE_SERVO         1      /* 0: plain pin, high when Z >= Z_PIN_THRESHOLD_MM */
#endif
#define Z_MIN_MM             0.0    /* Z range mapped linearly onto the servo pulse */
#define Z_MAX_MM             30.0
#define Z_SERVO_MIN_US       1000   /* pulse width at Z_MIN_MM */
#define Z_SERVO_MAX_US       2000   /* pulse width at Z_MAX_MM */
#define Z_SERVO_MM_PER_S     100.0  /* how fast the servo travels: used to wait for it */
#define Z_PIN_THRESHOLD_MM   15.0

/* ---- homing and limits (one switch per axis, both ends wired in parallel) ---- */
#define HOMING_SEEK_RATE     3000.0 /* mm/min, fast approach */
#define HOMING_FEED_RATE     300.0  /* mm/min, slow locate */
#define HOMING_PULLOFF       2.0    /* mm; the switches trip this far beyond each end of travel */
#define DEFAULT_SOFT_LIMITS  1      /* $20 */
#define DEFAULT_HARD_LIMITS  1      /* $21 */
#define DEFAULT_HOMING       1      /* $22; when on, power-up is locked until $H or $X */

/* ---- LED grid: WS2812 strip under the dark squares, in square-number order ---- */
#ifndef LED_COUNT
#define LED_COUNT            50     /* 50 for 10x10 boards, 32 for 8x8 */
#endif

/* ---- planner ---- */
#define PLANNER_BLOCKS       8      /* queued straight moves; each starts and ends at rest */

#endif
