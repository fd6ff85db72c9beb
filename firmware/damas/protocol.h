/*
 * protocol.h - the main loop: assembles lines, runs them, acts on real-time bytes.
 */
#ifndef PROTOCOL_H
#define PROTOCOL_H

#include <stdint.h>

/* Runs until a soft reset; main() then re-initialises and calls it again. */
void protocol_main_loop(void);
/* Acts on pending real-time requests and alarms; called from every wait loop. */
void protocol_execute_realtime(void);
/* Waits until all queued motion is done (or a reset/alarm ends it). */
void protocol_buffer_synchronize(void);
/* Waits ms milliseconds while keeping real-time requests alive. */
void protocol_dwell_ms(uint32_t ms);
/* Soft reset (0x18), called from the serial interrupt: stops the motors at once. */
void protocol_request_reset(void);
/* Stops queued motion with a controlled deceleration, drops the queue, enters ALARM. */
void protocol_alarm_with_hold(uint8_t alarm);

#endif
