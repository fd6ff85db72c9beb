/*
 * protocol.c - line assembly and the real-time state machine.
 *
 * Line assembly follows GRBL: spaces and control characters are dropped, letters are
 * upper-cased, "(...)" and ";..." comments are removed, and a line longer than
 * LINE_BUFFER_SIZE is answered with error:11 once its end arrives. Every line gets
 * exactly one "ok" or "error:N". Unlike GRBL, "\r\n" counts as one line end, so hosts
 * that send it still get one reply per line.
 */
#include <avr/interrupt.h>

#include "config.h"
#include "gcode.h"
#include "idle.h"
#include "planner.h"
#include "protocol.h"
#include "report.h"
#include "serial.h"
#include "stepper.h"
#include "system.h"
#include "tool.h"

static char line[LINE_BUFFER_SIZE];
static uint8_t line_length;
static uint8_t overflow, in_paren_comment, in_semicolon_comment, last_was_cr;

static void execute_line(void)
{
    line[line_length] = 0;
    uint8_t status;
    if (overflow)
        status = STATUS_OVERFLOW;
    else if (line_length == 0)
        status = STATUS_OK;  /* empty or comment-only lines sync the host */
    else if (line[0] == '$')
        status = system_execute_line(line);
    else if (sys.state == STATE_ALARM)
        status = STATUS_SYSTEM_GC_LOCK;
    else
        status = gc_execute_line(line);
    if (!sys.abort)  /* a reset during the line: the banner is the answer */
        report_status_message(status);
}

static void reset_line(void)
{
    line_length = 0;
    overflow = in_paren_comment = in_semicolon_comment = 0;
}

static void add_char(char c)
{
    if (in_paren_comment) {
        if (c == ')')
            in_paren_comment = 0;
        return;
    }
    if (in_semicolon_comment)
        return;
    if (c <= ' ')
        return;  /* whitespace and control characters */
    if (c == '(') {
        in_paren_comment = 1;
        return;
    }
    if (c == ';') {
        in_semicolon_comment = 1;
        return;
    }
    if (c >= 'a' && c <= 'z')
        c -= 'a' - 'A';
    if (line_length >= LINE_BUFFER_SIZE - 1) {
        overflow = 1;
        return;
    }
    line[line_length++] = c;
}

void protocol_main_loop(void)
{
    reset_line();
    last_was_cr = 0;
    for (;;) {
        protocol_execute_realtime();
        if (sys.abort)
            return;
        int c = serial_read();
        if (c == SERIAL_NO_DATA) {
            idle_wait();  /* a byte, a real-time request or the stepper wakes us */
            continue;
        }
        if (c == '\n' && last_was_cr) {
            last_was_cr = 0;
            continue;
        }
        last_was_cr = (c == '\r');
        if (c == '\n' || c == '\r') {
            execute_line();
            if (sys.abort)
                return;
            reset_line();
        } else {
            add_char(c);
        }
    }
}

void protocol_request_reset(void)
{
    /* Called from an interrupt. Motion stopped this abruptly may lose steps on a real
     * machine: GRBL's ALARM:3 (or 6 during homing) tells the host to re-home. */
    uint8_t moving = stepper_is_running() || (sys.state == STATE_RUN && !planner_is_empty());
    stepper_kill();
    if (sys.state == STATE_HOMING)
        sys.pending_alarm = ALARM_HOMING_RESET;
    else if (moving)  /* a completed hold (Hold:0) keeps its position: no alarm */
        sys.pending_alarm = ALARM_ABORT_CYCLE;
    sys.abort = 1;
}

static void enter_alarm(uint8_t alarm)
{
    stepper_reset();
    planner_reset();
    sys.state = STATE_ALARM;
    report_alarm(alarm);
}

void protocol_execute_realtime(void)
{
    if (sys.abort)
        return;
    uint8_t sreg = SREG;
    cli();
    uint8_t rt = sys.rt_requests;
    uint8_t alarm = sys.pending_alarm;
    sys.rt_requests = 0;
    sys.pending_alarm = 0;
    SREG = sreg;

    if (alarm)
        enter_alarm(alarm);
    if (rt & RT_HOLD) {
        if (sys.state == STATE_RUN) {
            stepper_hold();
            sys.state = STATE_HOLD;
        } else if (sys.state == STATE_IDLE) {
            sys.state = STATE_HOLD;  /* as GRBL: queued moves wait for '~' */
        }
    }
    if ((rt & RT_RESUME) && sys.state == STATE_HOLD && !stepper_is_running()) {
        if (planner_is_empty()) {
            stepper_reset();
            sys.state = STATE_IDLE;
        } else {
            sys.state = STATE_RUN;
            stepper_resume();
        }
    }
    /* Cycle bookkeeping: queued blocks start, a drained queue is idle. */
    if (sys.state == STATE_IDLE && !planner_is_empty())
        sys.state = STATE_RUN;
    if (sys.state == STATE_RUN) {
        if (planner_is_empty() && !stepper_is_running())
            sys.state = STATE_IDLE;
        else
            stepper_wake();
    }
    if (rt & RT_STATUS)
        report_realtime_status();
}

void protocol_buffer_synchronize(void)
{
    while (!planner_is_empty() || stepper_is_running()) {
        protocol_execute_realtime();
        if (sys.abort || sys.state == STATE_ALARM)
            return;
        idle_wait();
    }
}

void protocol_dwell_ms(uint32_t ms)
{
    idle_countdown_start(ms);
    while (!idle_countdown_done()) {
        protocol_execute_realtime();
        if (sys.abort)
            break;
        idle_wait();
    }
    idle_countdown_stop();
}

void protocol_alarm_with_hold(uint8_t alarm)
{
    if (stepper_is_running()) {
        stepper_hold();
        sys.state = STATE_HOLD;
        while (stepper_is_running()) {
            protocol_execute_realtime();
            if (sys.abort)
                return;
            idle_wait();
        }
    }
    enter_alarm(alarm);
    planner_sync_position();
}
