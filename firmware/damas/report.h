/*
 * report.h - every byte the firmware sends goes through here.
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdint.h>

/* GRBL status codes (the N of error:N). */
#define STATUS_OK                        0
#define STATUS_EXPECTED_COMMAND_LETTER   1
#define STATUS_BAD_NUMBER_FORMAT         2
#define STATUS_INVALID_STATEMENT         3
#define STATUS_NEGATIVE_VALUE            4
#define STATUS_SETTING_DISABLED          5
#define STATUS_IDLE_ERROR                8
#define STATUS_SYSTEM_GC_LOCK            9
#define STATUS_SOFT_LIMIT_ERROR          10
#define STATUS_OVERFLOW                  11
#define STATUS_TRAVEL_EXCEEDED           15
#define STATUS_UNSUPPORTED_COMMAND       20
#define STATUS_MODAL_GROUP_VIOLATION     21
#define STATUS_UNDEFINED_FEED_RATE       22
#define STATUS_COMMAND_VALUE_NOT_INTEGER 23
#define STATUS_AXIS_COMMAND_CONFLICT     24
#define STATUS_WORD_REPEATED             25
#define STATUS_VALUE_WORD_MISSING        28
#define STATUS_UNUSED_WORDS              36
#define STATUS_VALUE_TOO_LARGE           38  /* GRBL: tool number too large; here any value above its maximum */

void report_status_message(uint8_t status);  /* "ok" or "error:N" */
void report_alarm(uint8_t alarm);            /* "ALARM:N" */
void report_banner(void);
void report_unlock_hint(void);               /* [MSG:'$H'|'$X' to unlock] */
void report_unlocked(void);                  /* [MSG:Caution: Unlocked] */
void report_realtime_status(void);           /* <Idle|MPos:...|FS:...> */
void report_settings(void);                  /* $$ */
void report_parser_state(void);              /* $G */
void report_build_info(void);                /* $I */
void report_help(void);                      /* $ */

#endif
