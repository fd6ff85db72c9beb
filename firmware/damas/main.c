/*
 * main.c - power-up and soft-reset sequence.
 */
#include <avr/interrupt.h>

#include "gcode.h"
#include "idle.h"
#include "leds.h"
#include "limits.h"
#include "planner.h"
#include "protocol.h"
#include "report.h"
#include "serial.h"
#include "stepper.h"
#include "system.h"
#include "tool.h"

int main(void)
{
    idle_init();
    serial_init();
    stepper_init();
    limits_init();
    tool_init();
    leds_init();
    system_init_settings();
    /* With homing enabled the position is unknown at power-up: locked until $H or $X. */
    sys.state = sys.homing_enabled ? STATE_ALARM : STATE_IDLE;
    sei();

    for (;;) {
        /* (Re)start here at power-up and after every soft reset. */
        uint8_t alarm = sys.pending_alarm;
        if (alarm) {
            report_alarm(alarm);
            sys.state = STATE_ALARM;
        } else if (sys.state != STATE_ALARM) {
            sys.state = STATE_IDLE;
        }
        sys.pending_alarm = 0;
        sys.rt_requests = 0;
        sys.abort = 0;
        stepper_reset();
        planner_reset();
        gc_init();
        tool_set_magnet(0);  /* as GRBL turns the spindle off on reset */
        serial_flush_rx();
        report_banner();
        if (sys.state == STATE_ALARM)
            report_unlock_hint();
        protocol_main_loop();
    }
}
