/*
 * pace.c - how simulated time relates to the wall clock.
 *
 * simavr executes instructions as fast as it can; when the AVR sleeps (the firmware
 * sleeps in every wait loop) it calls avr->sleep with the cycles until the next timer
 * and then skips them. Its own callback usleeps them away to follow the wall clock. Ours
 * skips them at once while the machine is working - a line not yet answered, or a step,
 * the magnet, the LEDs, Z or serial traffic in the last QUIET_SECONDS - so a slide that
 * takes seconds on the machine takes a fraction of that here. While the machine idles it
 * follows the wall clock, so a host's pauses (planning, thinking) take as much simulated
 * time as on a real machine and the harness does not spin.
 *
 * A firmware that never sleeps (stock GRBL polls in a busy loop) is paced the same way
 * from the main loop (pace_busy), which naps while the machine idles ahead of the clock.
 *
 * A line can stay unanswered for long only in a long dwell: after STUCK_SECONDS without
 * any activity the machine counts as idle anyway, so a miscount never races the clock.
 */
#include <time.h>

#include "avr_extint.h"
#include "pace.h"
#include "serial_line.h"

#define QUIET_SECONDS 0.05  /* covers the 20 ms rest report and gaps between serial bytes */
#define STUCK_SECONDS 5.0
#define MAX_NAP_SECONDS 0.005  /* wake often enough to serve queries on stdin */
#define MAX_LAG_SECONDS 0.05

static struct {
    double max_ratio;
    uint64_t last_activity;
    double ratio;             /* ratio of the current anchor; 0 = free running */
    uint64_t anchor_cycle;
    double anchor_wall;
} pace;

double pace_wall(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

void pace_activity(uint64_t cycle)
{
    pace.last_activity = cycle;
}

static int working(avr_t *avr)
{
    if (serial_line_take_activity())
        pace.last_activity = avr->cycle;
    double quiet = (double)(avr->cycle - pace.last_activity) / avr->frequency;
    return quiet < QUIET_SECONDS || (serial_line_pending() > 0 && quiet < STUCK_SECONDS);
}

static void on_sleep(avr_t *avr, avr_cycle_count_t how_long)
{
    double ratio = working(avr) ? pace.max_ratio : 1.0;
    if (ratio != pace.ratio) {  /* a new pace counts from here */
        pace.ratio = ratio;
        pace.anchor_cycle = avr->cycle;
        pace.anchor_wall = pace_wall();
    }
    if (ratio <= 0)
        return;
    double due = pace.anchor_wall +
                 (double)(avr->cycle + how_long - pace.anchor_cycle) / avr->frequency / ratio;
    double ahead = due - pace_wall();
    if (ahead > 0)  /* a nap that a byte from the host ends at once */
        serial_line_wait(ahead < MAX_NAP_SECONDS ? ahead : MAX_NAP_SECONDS);
    else if (ahead < -MAX_LAG_SECONDS)
        pace.ratio = -1;  /* fell behind (a busy host): carry on from now, no catching up */
}

void pace_busy(avr_t *avr)
{
    on_sleep(avr, 0);
}

void pace_set_max_ratio(double max_ratio)
{
    pace.max_ratio = max_ratio;
}

void pace_after_reset(avr_t *avr)
{
    /* simavr emulates the level-triggered mode of INT0/INT1 (the power-up default) by
     * polling every cycle while the pin is low, enabled or not - and on the Uno those pins
     * are the step pins, low between pulses. The firmware uses no external interrupt;
     * without this the AVR could never sleep for more than a cycle. */
    for (uint8_t i = 0; i < EXTINT_COUNT; i++)
        avr_extint_set_strict_lvl_trig(avr, i, 0);
}

void pace_init(avr_t *avr, double max_ratio)
{
    pace.max_ratio = max_ratio;
    pace.ratio = -1;  /* anchor at the first sleep */
    avr->sleep = on_sleep;
    pace_after_reset(avr);
}
