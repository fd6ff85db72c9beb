/*
 * system.h - machine state shared by every module, and the '$' commands.
 */
#ifndef SYSTEM_H
#define SYSTEM_H

#include <stdint.h>

/* Machine states, reported by '?' as GRBL names them. */
enum {
    STATE_IDLE,
    STATE_RUN,
    STATE_HOLD,     /* Hold:1 while decelerating, Hold:0 once stopped */
    STATE_HOMING,
    STATE_ALARM,
};

/* Real-time requests, set by the serial interrupt, consumed by protocol_execute_realtime(). */
#define RT_STATUS  (1 << 0)
#define RT_HOLD    (1 << 1)
#define RT_RESUME  (1 << 2)

/* GRBL alarm numbers used here. */
#define ALARM_HARD_LIMIT      1
#define ALARM_SOFT_LIMIT      2
#define ALARM_ABORT_CYCLE     3
#define ALARM_HOMING_RESET    6
#define ALARM_HOMING_PULLOFF  8
#define ALARM_HOMING_APPROACH 9

typedef struct {
    volatile uint8_t state;
    volatile uint8_t rt_requests;   /* RT_* bits */
    volatile uint8_t abort;         /* soft reset: every wait loop unwinds to main() */
    volatile uint8_t pending_alarm; /* raised in an interrupt, reported by the main loop */
    uint8_t soft_limits;            /* $20 */
    uint8_t hard_limits;            /* $21 */
    uint8_t homing_enabled;         /* $22 */
} system_t;

extern system_t sys;

void system_init_settings(void);
/* Executes a line starting with '$'; returns a GRBL status code (0 = ok). */
uint8_t system_execute_line(const char *line);

#endif
