/*
 * serial_line.c - UART0 on a pseudo-terminal, single-threaded.
 *
 * simavr's uart_pty part moves bytes on a thread of its own that calls into the AVR
 * model (its UART FIFO, its cycle timers) with no lock; run at full speed that corrupts
 * them now and then, and a byte or a whole status request is lost. Here the main loop
 * pumps both directions itself: bytes from the host go into the UART whenever it has room
 * (its XON/XOFF signals), bytes from the UART go to the pty as it sends them.
 *
 * The pace of the simulation depends on whether the firmware still owes the host an
 * answer: GRBL answers every line with exactly one "ok" or "error:N", so counting line
 * ends in (as protocol.c assembles them: '\n' or '\r', "\r\n" once; real-time bytes and
 * bytes >= 0x80 are not part of lines) against replies out tells whether a line is still
 * being worked on - a dwell, homing, a servo wait - even when no pin moves. A soft reset
 * (0x18 in) or a banner (out) drops whatever was pending, as the firmware does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "avr_uart.h"
#include "serial_line.h"

#define BUFFER 4096

static struct {
    avr_t *avr;
    avr_irq_t *uart_in;
    int master, slave;
    char path[64];
    int xon;                      /* the UART has room for another byte */
    uint8_t in[BUFFER];           /* from the host, not yet in the UART */
    size_t in_head, in_tail;
    uint8_t out[BUFFER];          /* from the UART (or noise), not yet in the pty */
    size_t out_length;
    uint8_t held[BUFFER];         /* noise waiting for the firmware to end its line */
    size_t held_length;
    int activity;
    /* line accounting */
    int last_was_cr;
    uint32_t lines_in, answered;
    char reply[16];
    size_t reply_length;
} line;

static void count_host_byte(uint8_t c)
{
    line.activity = 1;
    if (c == 0x18) {  /* soft reset: the firmware drops its line and its receive buffer */
        line.answered = line.lines_in;
        line.last_was_cr = 0;
        return;
    }
    if (c == '?' || c == '!' || c == '~' || c >= 0x80)
        return;  /* real-time bytes: acted on, never part of a line */
    if (c == '\n' && line.last_was_cr) {
        line.last_was_cr = 0;
        return;
    }
    line.last_was_cr = c == '\r';
    if (c == '\n' || c == '\r')
        line.lines_in++;
}

static void count_firmware_byte(uint8_t c)
{
    line.activity = 1;
    if (c != '\n') {
        if (line.reply_length < sizeof line.reply - 1)
            line.reply[line.reply_length++] = (char)c;
        return;
    }
    if (line.reply_length && line.reply[line.reply_length - 1] == '\r')
        line.reply_length--;
    line.reply[line.reply_length] = 0;
    line.reply_length = 0;
    if (!strcmp(line.reply, "ok") || !strncmp(line.reply, "error:", 6)) {
        if (line.answered < line.lines_in)
            line.answered++;
    } else if (!strncmp(line.reply, "Grbl ", 5)) {
        serial_line_forget();
    }
}

static void queue_out(uint8_t c)
{
    if (line.out_length < BUFFER)
        line.out[line.out_length++] = c;  /* else the host is not reading: drop, as a wire */
}

/* Feeds host bytes into the UART while it takes them (it raises XOFF when full). */
static void feed_uart(void)
{
    while (line.xon && line.in_tail != line.in_head) {
        uint8_t c = line.in[line.in_tail++ % BUFFER];
        count_host_byte(c);
        avr_raise_irq(line.uart_in, c);
    }
}

static void on_uart_output(avr_irq_t *irq, uint32_t value, void *param)
{
    count_firmware_byte((uint8_t)value);
    queue_out((uint8_t)value);
    if (value == '\n') {
        for (size_t i = 0; i < line.held_length; i++)
            queue_out(line.held[i]);
        line.held_length = 0;
    }
}

static void on_xon(avr_irq_t *irq, uint32_t value, void *param)
{
    line.xon = 1;
    feed_uart();
}

static void on_xoff(avr_irq_t *irq, uint32_t value, void *param)
{
    if (value)
        line.xon = 0;
}

const char *serial_line_open(avr_t *avr)
{
    line.avr = avr;
    if (openpty(&line.master, &line.slave, line.path, NULL, NULL) < 0) {
        perror("damas-sim: openpty");
        exit(2);
    }
    /* Raw bytes both ways. The harness keeps the slave open too, so output waits in the
     * pty until a host opens it, and a host closing its end is not a hang-up. */
    struct termios tio;
    tcgetattr(line.slave, &tio);
    cfmakeraw(&tio);
    tcsetattr(line.slave, TCSANOW, &tio);
    fcntl(line.master, F_SETFL, fcntl(line.master, F_GETFL) | O_NONBLOCK);

    uint32_t flags = 0;  /* no copy of the output on the console, no usleep when polled */
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    line.uart_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            on_uart_output, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
                            on_xon, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
                            on_xoff, NULL);
    line.xon = 1;
    return line.path;
}

int serial_line_pump(void)
{
    int moved = 0;
    size_t room = BUFFER - (line.in_head - line.in_tail);
    if (room > 0) {
        uint8_t chunk[512];
        ssize_t n = read(line.master, chunk, room < sizeof chunk ? room : sizeof chunk);
        for (ssize_t i = 0; i < n; i++)
            line.in[line.in_head++ % BUFFER] = chunk[i];
        moved |= n > 0;
    }
    feed_uart();
    if (line.out_length) {
        ssize_t n = write(line.master, line.out, line.out_length);
        if (n > 0) {
            memmove(line.out, line.out + n, line.out_length - n);
            line.out_length -= n;
            moved = 1;
        }
    }
    return moved;
}

void serial_line_wait(double seconds)
{
    struct pollfd p = {.fd = line.master, .events = POLLIN};
    poll(&p, 1, (int)(seconds * 1000 + 0.5));
}

int serial_line_pending(void)
{
    return (int)(line.lines_in - line.answered) + (line.in_tail != line.in_head);
}

int serial_line_take_activity(void)
{
    int was = line.activity;
    line.activity = 0;
    return was;
}

void serial_line_forget(void)
{
    line.answered = line.lines_in;
}

/* Noise goes between two of the firmware's lines: cut into one, it would also destroy a
 * real reply, and a test could not tell what it made the host see. */
void serial_line_noise(const uint8_t *bytes, int count)
{
    for (int i = 0; i < count; i++) {
        if (line.reply_length == 0)
            queue_out(bytes[i]);
        else if (line.held_length < BUFFER)
            line.held[line.held_length++] = bytes[i];
    }
}
