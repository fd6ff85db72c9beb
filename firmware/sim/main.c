/*
 * damas-sim - runs the damas firmware in simavr with its UART on a pseudo-terminal, and
 * reports the physical machine as seen from the pins (see ../README.md).
 *
 *   damas-sim [--start X,Y] [--wait-start] [--step-log FILE] [--timeout SECONDS]
 *             [--speed RATIO] [--grbl] [--steps-per-mm X,Y] [--travel X,Y] [--pulloff MM]
 *             FIRMWARE.elf
 *
 * --grbl: the ELF is a stock GRBL 1.1 on a CNC shield (D11 is its spindle PWM, reported
 * as PWM events; no LEDs), and the harness works around simavr timer quirks GRBL meets
 * (see grbl_quirks below). --steps-per-mm, --travel and --pulloff describe the machine
 * the firmware drives (default: our firmware's config.h).
 *
 * stdout, one event per line:  PTY <path>  first, then POS / LIMIT / MAG / Z / LED ...
 * stdin, one query per line:   pos        answers a POS line
 *                              start      powers the AVR up (with --wait-start)
 *                              reset      hardware reset (as the reset button or a DTR pulse)
 *                              trip X|Y   that limit switch closes for a moment when the
 *                                         carriage next moves (an obstacle, noise)
 *                              noise HEX  these bytes reach the host as if the firmware
 *                                         had sent them (line noise)
 *                              speed R    as --speed, from now on
 *                              quit       exits
 * Exits on SIGTERM/SIGINT/SIGHUP, on "quit", when its parent dies, or after --timeout.
 * Simulated time runs as fast as it can while the machine works and follows the wall
 * clock while it idles (pace.c); --speed caps it at RATIO times the wall clock.
 */
#include <ctype.h>
#include <math.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "cpu_map.h"
#include "events.h"
#include "machine.h"
#include "pace.h"
#include "serial_line.h"
#include "sim_avr.h"
#include "sim_elf.h"

#define CLOCK_MASK 0xff  /* iterations between looks at the wall clock */
#define PUMP_SECONDS 0.0002  /* wall time between moving bytes to and from the pty */
#define STDIN_POLL_SECONDS 0.001
#define SLOW_POLL_SECONDS 0.001  /* simulated time between the slower machine checks */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

static void usage(void)
{
    fprintf(stderr, "usage: damas-sim [--start X,Y] [--wait-start] [--step-log FILE] [--timeout SECONDS] [--speed RATIO] [--grbl] [--steps-per-mm X,Y] [--travel X,Y] [--pulloff MM] FIRMWARE.elf\n");
    exit(2);
}

static int powered = 1;  /* 0 until "start" with --wait-start */

/* Two simavr timer quirks that stock GRBL meets (the firmware itself is never patched):
 *
 * - GRBL arms its Timer 1 interrupt (CTC mode) while OCR1A is still 0 and sets OCR1A
 *   only inside that interrupt. simavr never schedules a CTC period of one cycle, so on a
 *   real AVR the first interrupt comes at once and here it never comes: the machine would
 *   stay in Run with no step. A non-zero OCR1A at power-up (and after every hardware
 *   reset, which clears it) gives that first interrupt a period; GRBL sets its own from
 *   then on.
 * - GRBL ends each step pulse with Timer 0: it writes TCNT0 (so the overflow comes after
 *   $0 microseconds), then starts the timer's clock. simavr starts counting from 0 when
 *   the clock goes on, whatever TCNT0 holds, so pulses last up to 128 us instead of 10 and
 *   merge above 7.8 kHz (steps lost). Writing TCNT0 again once the clock runs puts the
 *   overflow where a real AVR has it. */
#define OCR1AL_ADDRESS 0x88
#define OCR1AH_ADDRESS 0x89
#define TCCR0B_ADDRESS 0x45
#define TCNT0_ADDRESS 0x46
static avr_io_write_t tcnt0_write;
static void *tcnt0_param;

static void after_tccr0b_write(avr_t *avr, avr_io_addr_t addr, uint8_t value, void *param)
{
    if ((value & 0x07) && tcnt0_write)  /* a clock selected: the timer runs from now */
        tcnt0_write(avr, TCNT0_ADDRESS, avr->data[TCNT0_ADDRESS], tcnt0_param);
}

static void grbl_after_reset(avr_t *avr)
{
    avr->data[OCR1AL_ADDRESS] = 0xff;
    avr->data[OCR1AH_ADDRESS] = 0x00;
}

static void grbl_quirks(avr_t *avr)
{
    tcnt0_write = avr->io[AVR_DATA_TO_IO(TCNT0_ADDRESS)].w.c;
    tcnt0_param = avr->io[AVR_DATA_TO_IO(TCNT0_ADDRESS)].w.param;
    /* runs after simavr's own handler of the register (simavr chains them) */
    avr_register_io_write(avr, TCCR0B_ADDRESS, after_tccr0b_write, NULL);
    grbl_after_reset(avr);
}

/* "noise HEX": returns 0 if HEX is not an even number of hex digits. */
static int send_noise(avr_t *avr, const char *hex)
{
    uint8_t bytes[100];
    int count = 0;
    unsigned value;
    size_t length = strlen(hex);
    if (length == 0 || length % 2 || length / 2 > sizeof bytes)
        return 0;
    for (size_t i = 0; i < length; i += 2) {
        if (sscanf(hex + i, "%2x", &value) != 1 || !isxdigit((unsigned char)hex[i + 1]))
            return 0;
        bytes[count++] = value;
    }
    serial_line_noise(bytes, count);
    event(avr->cycle, "NOISE", "n=%d", count);
    return 1;
}

/* Reads and answers queries on stdin, waiting up to wait_ms for one; returns 0 on quit. */
static int serve_stdin(machine_t *m, int *stdin_open, int wait_ms)
{
    static char buffer[256];
    static size_t used;
    struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
    if (!*stdin_open || poll(&p, 1, wait_ms) <= 0)
        return 1;
    ssize_t n = read(STDIN_FILENO, buffer + used, sizeof buffer - 1 - used);
    if (n <= 0) {
        *stdin_open = 0;  /* no more queries; keep running until signalled */
        return 1;
    }
    used += n;
    buffer[used] = 0;
    char *line = buffer, *end;
    while ((end = strchr(line, '\n'))) {
        *end = 0;
        if (!strcmp(line, "pos")) {
            machine_report_position(m, "query");
        } else if (!strcmp(line, "start")) {
            powered = 1;
        } else if (!strcmp(line, "reset")) {
            avr_reset(m->avr);
            pace_after_reset(m->avr);
            if (m->build.grbl)
                grbl_after_reset(m->avr);
            machine_after_reset(m);
            serial_line_forget();
            event(m->avr->cycle, "RESET", NULL);
        } else if (!strcmp(line, "trip X") || !strcmp(line, "trip Y")) {
            machine_trip(m, line[5] - 'X');
            event(m->avr->cycle, "TRIP", "axis=%c", line[5]);
        } else if (!strncmp(line, "noise ", 6) && send_noise(m->avr, line + 6)) {
            /* sent */
        } else if (!strncmp(line, "speed ", 6)) {
            pace_set_max_ratio(atof(line + 6));
            event(m->avr->cycle, "SPEED", "ratio=%g", atof(line + 6));
        } else if (!strcmp(line, "quit"))
            return 0;
        else if (*line)
            event(m->avr->cycle, "ERROR", "unknown query '%s'", line);
        line = end + 1;
    }
    used = strlen(line);
    memmove(buffer, line, used + 1);
    if (used >= sizeof buffer - 1)
        used = 0;  /* an absurdly long query: drop it */
    return 1;
}

int main(int argc, char **argv)
{
    build_t build = machine_default_build();
    double start_x = NAN, start_y = NAN;
    const char *firmware = NULL, *step_log_path = NULL;
    double timeout = 0, speed = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--start") && i + 1 < argc) {
            if (sscanf(argv[++i], "%lf,%lf", &start_x, &start_y) != 2)
                usage();
        } else if (!strcmp(argv[i], "--grbl")) {
            build.grbl = 1;
        } else if (!strcmp(argv[i], "--steps-per-mm") && i + 1 < argc) {
            if (sscanf(argv[++i], "%lf,%lf", &build.steps_per_mm[0], &build.steps_per_mm[1]) != 2 ||
                !(build.steps_per_mm[0] > 0) || !(build.steps_per_mm[1] > 0))
                usage();
        } else if (!strcmp(argv[i], "--travel") && i + 1 < argc) {
            if (sscanf(argv[++i], "%lf,%lf", &build.travel[0], &build.travel[1]) != 2 ||
                !(build.travel[0] > 0) || !(build.travel[1] > 0))
                usage();
        } else if (!strcmp(argv[i], "--pulloff") && i + 1 < argc) {
            build.pulloff = atof(argv[++i]);
            if (!(build.pulloff > 0))
                usage();
        } else if (!strcmp(argv[i], "--step-log") && i + 1 < argc) {
            step_log_path = argv[++i];
        } else if (!strcmp(argv[i], "--wait-start")) {
            powered = 0;
        } else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
            timeout = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--speed") && i + 1 < argc) {
            speed = atof(argv[++i]);
        } else if (argv[i][0] == '-' || firmware) {
            usage();
        } else {
            firmware = argv[i];
        }
    }
    if (!firmware)
        usage();
    if (isnan(start_x)) {
        start_x = build.travel[0] / 3;
        start_y = build.travel[1] / 4;
    }

    /* Never outlive the test (or shell) that started us: simavr busy-loops a core. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() == 1)
        return 0;
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGHUP, on_signal);
    signal(SIGPIPE, SIG_IGN);

    events_open();
    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(firmware, &fw) != 0) {
        fprintf(stderr, "damas-sim: cannot read %s\n", firmware);
        return 2;
    }
    avr_t *avr = avr_make_mcu_by_name(MCU_NAME);
    if (!avr) {
        fprintf(stderr, "damas-sim: simavr does not know %s\n", MCU_NAME);
        return 2;
    }
    avr_init(avr);
    pace_init(avr, speed);
    avr->log = LOG_ERROR;
    avr->frequency = F_CPU;
    avr_load_firmware(avr, &fw);
    avr->frequency = F_CPU;  /* the ELF carries no .mmcu section: set the clock ourselves */
    if (build.grbl)
        grbl_quirks(avr);
    events_set_frequency(F_CPU);

    FILE *step_log = NULL;
    if (step_log_path && !(step_log = fopen(step_log_path, "w"))) {
        perror(step_log_path);
        return 2;
    }
    machine_t machine;
    machine_init(&machine, avr, build, start_x, start_y, step_log);

    event_raw("PTY %s\n", serial_line_open(avr));
    machine_report_position(&machine, "start");

    double started = pace_wall(), next_stdin = 0, next_pump = 0;
    uint64_t slow_poll_cycles = (uint64_t)(SLOW_POLL_SECONDS * F_CPU), next_slow = 0;
    int stdin_open = 1, status = 0;
    const char *reason = "quit";
    for (uint64_t n = 0;; n++) {
        if (stop_signal) {
            reason = "signal";
            break;
        }
        if (!powered) {
            if (!serve_stdin(&machine, &stdin_open, 10) || !stdin_open)
                break;
            continue;
        }
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            reason = state == cpu_Done ? "done" : "crashed";
            status = 1;
            break;
        }
        machine_poll(&machine);
        if (avr->cycle >= next_slow) {
            machine_poll_slow(&machine);
            next_slow = avr->cycle + slow_poll_cycles;
        }
        if ((n & CLOCK_MASK) == 0) {
            pace_busy(avr);
            double now = pace_wall();
            if (now >= next_pump) {
                serial_line_pump();
                next_pump = now + PUMP_SECONDS;
            }
            if (now < next_stdin)
                continue;
            next_stdin = now + STDIN_POLL_SECONDS;
            if (!serve_stdin(&machine, &stdin_open, 0))
                break;
            if (timeout > 0 && now - started > timeout) {
                reason = "timeout";
                status = 1;
                break;
            }
        }
    }
    /* Where the carriage stopped: a host that loses the machine can still tell. */
    machine_report_position(&machine, "exit");
    event(avr->cycle, "EXIT", "reason=%s", reason);
    serial_line_pump();  /* the last replies */
    if (step_log)
        fclose(step_log);
    _exit(status);
}
