/*
 * system.c - machine state and the '$' commands.
 *
 * $$ lists settings, $G the parser state, $I build info, $X unlocks an alarm, $H homes.
 * $20 (soft limits), $21 (hard limits) and $22 (homing) can be written ($20=0); they live
 * in RAM and start from config.h at power-up. Every other '$' line is error:3.
 */
#include "config.h"
#include "gcode.h"
#include "motion.h"
#include "report.h"
#include "system.h"

system_t sys;

void system_init_settings(void)
{
    sys.soft_limits = DEFAULT_SOFT_LIMITS;
    sys.hard_limits = DEFAULT_HARD_LIMITS;
    sys.homing_enabled = DEFAULT_HOMING;
}

static uint8_t write_setting(const char *line)
{
    uint8_t i = 1;
    float number, value;
    if (!gc_read_number(line, &i, &number) || line[i] != '=')
        return STATUS_INVALID_STATEMENT;
    i++;
    if (!gc_read_number(line, &i, &value) || line[i])
        return STATUS_BAD_NUMBER_FORMAT;
    if (value < 0)
        return STATUS_NEGATIVE_VALUE;
    uint8_t on = value != 0;
    if (number == 20) {
        if (on && !sys.homing_enabled)
            return STATUS_SOFT_LIMIT_ERROR;  /* soft limits need a homed origin */
        sys.soft_limits = on;
    } else if (number == 21) {
        sys.hard_limits = on;
    } else if (number == 22) {
        sys.homing_enabled = on;
    } else {
        return STATUS_INVALID_STATEMENT;  /* the rest are compile-time (config.h) */
    }
    return STATUS_OK;
}

uint8_t system_execute_line(const char *line)
{
    const char *cmd = line + 1;
    if (cmd[0] == 0) {
        report_help();
        return STATUS_OK;
    }
    if (cmd[1] == 0) {
        switch (cmd[0]) {
        case '$':
            report_settings();
            return STATUS_OK;
        case 'G':
            report_parser_state();
            return STATUS_OK;
        case 'I':
            report_build_info();
            return STATUS_OK;
        case 'X':
            if (sys.state == STATE_ALARM) {
                report_unlocked();
                sys.state = STATE_IDLE;
            }
            return STATUS_OK;
        case 'H':
            if (!sys.homing_enabled)
                return STATUS_SETTING_DISABLED;
            if (sys.state != STATE_IDLE && sys.state != STATE_ALARM)
                return STATUS_IDLE_ERROR;
            sys.state = STATE_IDLE;  /* homing is allowed from an alarm: it is the way out */
            return mc_home();
        }
    }
    if (cmd[0] >= '0' && cmd[0] <= '9') {
        if (sys.state != STATE_IDLE && sys.state != STATE_ALARM)
            return STATUS_IDLE_ERROR;
        return write_setting(line);
    }
    return STATUS_INVALID_STATEMENT;
}
