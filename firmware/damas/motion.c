/*
 * motion.c - turns millimetre targets into planner blocks and tool actions.
 */
#include <math.h>

#include "config.h"
#include "limits.h"
#include "motion.h"
#include "planner.h"
#include "protocol.h"
#include "report.h"
#include "stepper.h"
#include "system.h"
#include "tool.h"

static const float steps_per_mm[N_MOTORS] = {X_STEPS_PER_MM, Y_STEPS_PER_MM};
static const float max_travel[N_MOTORS] = {X_MAX_TRAVEL, Y_MAX_TRAVEL};

void mc_get_position(float position[N_AXES])
{
    int32_t steps[N_MOTORS];
    planner_get_position(steps);
    for (uint8_t a = 0; a < N_MOTORS; a++)
        position[a] = steps[a] / steps_per_mm[a];
    position[2] = tool_get_z();
}

uint8_t mc_line(const float target[N_AXES], float rate_mm_min)
{
    if (target[2] < Z_MIN_MM || target[2] > Z_MAX_MM)
        return STATUS_TRAVEL_EXCEEDED;  /* the servo cannot get there at all */
    if (sys.soft_limits) {
        for (uint8_t a = 0; a < N_MOTORS; a++) {
            if (target[a] < 0 || target[a] > max_travel[a]) {
                /* As GRBL: a program that leaves the machine is stopped, position kept. */
                protocol_alarm_with_hold(ALARM_SOFT_LIMIT);
                return STATUS_TRAVEL_EXCEEDED;
            }
        }
    }
    if (target[2] != tool_get_z()) {
        protocol_buffer_synchronize();  /* Z acts in order with the queued XY moves */
        if (sys.abort || sys.state == STATE_ALARM)
            return STATUS_SYSTEM_GC_LOCK;
        tool_set_z(target[2]);
    }
    int32_t steps[N_MOTORS];
    for (uint8_t a = 0; a < N_MOTORS; a++)
        steps[a] = lroundf(target[a] * steps_per_mm[a]);
    if (!planner_add(steps, rate_mm_min, 0))
        return STATUS_SYSTEM_GC_LOCK;  /* an alarm or reset came while waiting for room */
    protocol_execute_realtime();  /* starts the motion at once */
    return STATUS_OK;
}

void mc_dwell(float seconds)
{
    protocol_buffer_synchronize();
    if (sys.abort || sys.state == STATE_ALARM)
        return;
    protocol_dwell_ms((uint32_t)(seconds * 1000.0f + 0.5f));
}

uint8_t mc_home(void)
{
    if (!sys.homing_enabled)
        return STATUS_SETTING_DISABLED;
    /* A failure has been pushed as ALARM:N; the line's own reply then says "locked". */
    if (limits_home() || sys.state == STATE_ALARM)
        return STATUS_SYSTEM_GC_LOCK;
    return STATUS_OK;
}
