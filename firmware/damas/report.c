/*
 * report.c - all output, in GRBL 1.1's formats. Lines end with "\r\n" as on GRBL.
 */
#include <avr/pgmspace.h>
#include <math.h>

#include "config.h"
#include "gcode.h"
#include "motion.h"
#include "planner.h"
#include "report.h"
#include "serial.h"
#include "stepper.h"
#include "system.h"
#include "tool.h"

#define VERSION "1.1h"

static void print_pgm(const char *s)
{
    char c;
    while ((c = pgm_read_byte(s++)))
        serial_write(c);
}

static void print_uint(uint32_t n)
{
    char digits[10];
    uint8_t count = 0;
    do {
        digits[count++] = '0' + n % 10;
        n /= 10;
    } while (n);
    while (count)
        serial_write(digits[--count]);
}

static void print_decimal(float value, uint8_t decimals)
{
    uint32_t scale = 1;
    for (uint8_t i = 0; i < decimals; i++)
        scale *= 10;
    if (value < 0) {
        serial_write('-');
        value = -value;
    }
    uint32_t n = (uint32_t)lroundf(value * scale);
    print_uint(n / scale);
    if (decimals) {
        serial_write('.');
        uint32_t frac = n % scale;
        for (uint32_t d = scale / 10; d > 0; d /= 10) {
            serial_write('0' + frac / d);
            frac %= d;
        }
    }
}

static void end_line(void)
{
    serial_write('\r');
    serial_write('\n');
}

void report_status_message(uint8_t status)
{
    if (status == STATUS_OK) {
        print_pgm(PSTR("ok"));
    } else {
        print_pgm(PSTR("error:"));
        print_uint(status);
    }
    end_line();
}

void report_alarm(uint8_t alarm)
{
    print_pgm(PSTR("ALARM:"));
    print_uint(alarm);
    end_line();
}

void report_banner(void)
{
    end_line();
    print_pgm(PSTR("Grbl " VERSION " ['$' for help]"));
    end_line();
}

void report_unlock_hint(void)
{
    print_pgm(PSTR("[MSG:'$H'|'$X' to unlock]"));
    end_line();
}

void report_unlocked(void)
{
    print_pgm(PSTR("[MSG:Caution: Unlocked]"));
    end_line();
}

void report_realtime_status(void)
{
    serial_write('<');
    switch (sys.state) {
    case STATE_IDLE: print_pgm(PSTR("Idle")); break;
    case STATE_RUN: print_pgm(PSTR("Run")); break;
    case STATE_HOLD: print_pgm(stepper_is_running() ? PSTR("Hold:1") : PSTR("Hold:0")); break;
    case STATE_HOMING: print_pgm(PSTR("Home")); break;
    default: print_pgm(PSTR("Alarm")); break;
    }
    /* Machine position from the steps actually issued, not from the queue. */
    int32_t steps[N_MOTORS];
    stepper_get_cartesian_position(steps);
    print_pgm(PSTR("|MPos:"));
    print_decimal(steps[0] / X_STEPS_PER_MM, 3);
    serial_write(',');
    print_decimal(steps[1] / Y_STEPS_PER_MM, 3);
    serial_write(',');
    print_decimal(tool_get_z(), 3);
    print_pgm(PSTR("|FS:"));
    print_uint((uint32_t)lroundf(stepper_current_rate()));
    print_pgm(PSTR(",0>"));
    end_line();
}

static void setting_line(uint8_t n, float value, uint8_t decimals)
{
    serial_write('$');
    print_uint(n);
    serial_write('=');
    print_decimal(value, decimals);
    end_line();
}

void report_settings(void)
{
    setting_line(20, sys.soft_limits, 0);
    setting_line(21, sys.hard_limits, 0);
    setting_line(22, sys.homing_enabled, 0);
    setting_line(24, HOMING_FEED_RATE, 3);
    setting_line(25, HOMING_SEEK_RATE, 3);
    setting_line(27, HOMING_PULLOFF, 3);
    setting_line(100, X_STEPS_PER_MM, 3);
    setting_line(101, Y_STEPS_PER_MM, 3);
    setting_line(110, X_MAX_RATE, 3);
    setting_line(111, Y_MAX_RATE, 3);
    setting_line(120, X_ACCELERATION, 3);
    setting_line(121, Y_ACCELERATION, 3);
    setting_line(130, X_MAX_TRAVEL, 3);
    setting_line(131, Y_MAX_TRAVEL, 3);
}

void report_parser_state(void)
{
    print_pgm(gc_state.motion ? PSTR("[GC:G1") : PSTR("[GC:G0"));
    print_pgm(PSTR(" G54 G17 G21 "));
    print_pgm(gc_state.relative ? PSTR("G91") : PSTR("G90"));
    print_pgm(PSTR(" G94 "));
    print_pgm(tool_magnet() ? PSTR("M3") : PSTR("M5"));
    print_pgm(PSTR(" M9 T0 F"));
    print_decimal(gc_state.feed, 0);
    print_pgm(PSTR(" S0]"));
    end_line();
}

void report_build_info(void)
{
    print_pgm(PSTR("[VER:" VERSION ".damas:]"));
    end_line();
    /* OPT: V variable spindle? no; H homing; L LEDs (our own letter); then planner blocks
     * and RX buffer size, as GRBL. */
    print_pgm(PSTR("[OPT:HL,"));
    print_uint(PLANNER_BLOCKS);
    serial_write(',');
    print_uint(RX_BUFFER_SIZE - 1);
    serial_write(']');
    end_line();
    print_pgm(KINEMATICS_COREXY ? PSTR("[MSG:CoreXY") : PSTR("[MSG:Cartesian"));
    print_pgm(PSTR(" LEDs="));
    print_uint(LED_COUNT);
    serial_write(']');
    end_line();
}

void report_help(void)
{
    print_pgm(PSTR("[HLP:$$ $G $I $X $H $20 $21 $22 ~ ! ? ctrl-x]"));
    end_line();
}
