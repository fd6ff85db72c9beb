/*
 * damas-sim - runs the damas firmware in simavr with its UART on a pseudo-terminal, and
 * reports the physical machine as seen from the pins (see ../README.md).
 *
 *   damas-sim [--start X,Y] [--wait-start] [--step-log FILE] [--timeout SECONDS] FIRMWARE.elf
 *
 * stdout, one event per line:  PTY <path>  first, then POS / LIMIT / MAG / Z / LED ...
 * stdin, one query per line:   pos    answers a POS line
 *                              start  powers the AVR up (with --wait-start)
 *                              reset  hardware reset (as the reset button or a DTR pulse)
 *                              quit   exits
 * Exits on SIGTERM/SIGINT/SIGHUP, on "quit", when its parent dies, or after --timeout.
 */
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
#include "parts/uart_pty.h"
#include "sim_avr.h"
#include "sim_elf.h"

#define SLOW_POLL_MASK 0x3fff  /* instructions between the slower checks */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

static void usage(void)
{
    fprintf(stderr, "usage: damas-sim [--start X,Y] [--wait-start] [--step-log FILE] [--timeout SECONDS] FIRMWARE.elf\n");
    exit(2);
}

static int powered = 1;  /* 0 until "start" with --wait-start */

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
            machine_after_reset(m);
            event(m->avr->cycle, "RESET", NULL);
        }
        else if (!strcmp(line, "quit"))
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

/* simavr leaves a /tmp/simavr-uart0 link to the last pty made; drop ours on exit. */
static void remove_pty_link(const char *pty_path)
{
    char target[256];
    ssize_t n = readlink("/tmp/simavr-uart0", target, sizeof target - 1);
    if (n > 0) {
        target[n] = 0;
        if (!strcmp(target, pty_path))
            unlink("/tmp/simavr-uart0");
    }
}

int main(int argc, char **argv)
{
    double start_x = X_MAX_TRAVEL / 3, start_y = Y_MAX_TRAVEL / 4;
    const char *firmware = NULL, *step_log_path = NULL;
    double timeout = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--start") && i + 1 < argc) {
            if (sscanf(argv[++i], "%lf,%lf", &start_x, &start_y) != 2)
                usage();
        } else if (!strcmp(argv[i], "--step-log") && i + 1 < argc) {
            step_log_path = argv[++i];
        } else if (!strcmp(argv[i], "--wait-start")) {
            powered = 0;
        } else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
            timeout = atof(argv[++i]);
        } else if (argv[i][0] == '-' || firmware) {
            usage();
        } else {
            firmware = argv[i];
        }
    }
    if (!firmware)
        usage();

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
    avr->log = LOG_ERROR;
    avr->frequency = F_CPU;
    avr_load_firmware(avr, &fw);
    avr->frequency = F_CPU;  /* the ELF carries no .mmcu section: set the clock ourselves */
    events_set_frequency(F_CPU);

    FILE *step_log = NULL;
    if (step_log_path && !(step_log = fopen(step_log_path, "w"))) {
        perror(step_log_path);
        return 2;
    }
    machine_t machine;
    machine_init(&machine, avr, start_x, start_y, step_log);

    uart_pty_t pty;
    uart_pty_init(avr, &pty);
    uart_pty_connect(&pty, '0');
    event_raw("PTY %s\n", pty.port[0].slavename);
    machine_report_position(&machine, "start");

    struct timespec started;
    clock_gettime(CLOCK_MONOTONIC, &started);
    int stdin_open = 1, status = 0;
    for (uint64_t n = 0; !stop_signal; n++) {
        if (!powered) {
            if (!serve_stdin(&machine, &stdin_open, 10) || !stdin_open)
                break;
            continue;
        }
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            event(avr->cycle, "EXIT", "reason=%s", state == cpu_Done ? "done" : "crashed");
            status = 1;
            break;
        }
        machine_poll(&machine);
        if ((n & SLOW_POLL_MASK) == 0) {
            machine_poll_slow(&machine);
            if (!serve_stdin(&machine, &stdin_open, 0))
                break;
            if (timeout > 0) {
                struct timespec now;
                clock_gettime(CLOCK_MONOTONIC, &now);
                if (now.tv_sec - started.tv_sec + (now.tv_nsec - started.tv_nsec) / 1e9 > timeout) {
                    event(avr->cycle, "EXIT", "reason=timeout");
                    status = 1;
                    break;
                }
            }
        }
    }
    if (stop_signal)
        event(avr->cycle, "EXIT", "reason=signal");
    if (step_log)
        fclose(step_log);
    remove_pty_link(pty.port[0].slavename);
    /* Leave without uart_pty_stop(): its thread may not notice; exiting closes the pty. */
    _exit(status);
}
