/*
 * gcode.c - the G-code subset a board robot needs, checked the way GRBL checks it.
 *
 * Supported: G0 G1 (X Y Z F), G4 P<seconds>, G28 (homing cycle, as Marlin), G90 G91,
 * G17 G21 G54 G94 (accepted, the only modes there are), M3/M4 and M8 (magnet on),
 * M5 and M9 (off), M2/M30 (program end), M150/M151 (LED grid, see README), N, S (ignored).
 * A block runs in this order: feed, magnet, LEDs, dwell, distance mode, homing, motion.
 */
#include <math.h>
#include <string.h>

#include "config.h"
#include "gcode.h"
#include "leds.h"
#include "motion.h"
#include "protocol.h"
#include "report.h"
#include "system.h"
#include "tool.h"

gc_modal_t gc_state;

/* Value words: bit masks and storage slots. */
enum { W_B, W_F, W_I, W_N, W_P, W_R, W_S, W_U, W_X, W_Y, W_Z, W_COUNT };
static const char word_letters[W_COUNT + 1] = "BFINPRSUXYZ";
#define BIT(w) (1U << (w))
#define AXIS_WORDS (BIT(W_X) | BIT(W_Y) | BIT(W_Z))

/* Command groups: two commands of one group in a block is error:21. */
enum { G_NON_MODAL, G_MOTION, G_DISTANCE, G_OTHER_MODES, M_MAGNET, M_LEDS, M_STOP, GROUP_COUNT };

enum { NON_MODAL_NONE, NON_MODAL_DWELL, NON_MODAL_HOME };
enum { MAGNET_KEEP, MAGNET_ON, MAGNET_OFF };
enum { LEDS_NONE, LEDS_SET, LEDS_SHOW };

typedef struct {
    uint8_t groups;      /* groups used */
    uint16_t words;      /* value words present */
    float value[W_COUNT];
    uint8_t non_modal, motion, distance, magnet, leds, program_end;
    uint8_t led_index, led_rgb[3];  /* M150 words, checked */
} block_t;

void gc_init(void)
{
    memset(&gc_state, 0, sizeof gc_state);
}

uint8_t gc_read_number(const char *line, uint8_t *i, float *value)
{
    const char *p = line + *i;
    uint8_t negative = 0, digits = 0, dot = 0;
    float v = 0, scale = 1;
    if (*p == '-' || *p == '+')
        negative = *p++ == '-';
    for (;; p++) {
        if (*p >= '0' && *p <= '9') {
            digits++;
            if (dot)
                v += (*p - '0') * (scale *= 0.1f);
            else
                v = v * 10 + (*p - '0');
        } else if (*p == '.' && !dot) {
            dot = 1;
        } else {
            break;
        }
    }
    if (!digits)
        return 0;
    *value = negative ? -v : v;
    *i = p - line;
    return 1;
}

static uint8_t integer_value(float v, uint16_t *out)
{
    if (v < 0 || v > 65535 || v != floorf(v))
        return 0;
    *out = (uint16_t)v;
    return 1;
}

static uint8_t use_group(block_t *b, uint8_t group)
{
    if (b->groups & (1 << group))
        return STATUS_MODAL_GROUP_VIOLATION;
    b->groups |= 1 << group;
    return STATUS_OK;
}

static uint8_t parse_g(block_t *b, float value)
{
    uint16_t code;
    if (!integer_value(value, &code))
        return STATUS_UNSUPPORTED_COMMAND;  /* G28.1, G38.2, ...: none supported */
    switch (code) {
    case 0:
    case 1:
        b->motion = code;
        return use_group(b, G_MOTION);
    case 4:
    case 28:
        b->non_modal = code == 4 ? NON_MODAL_DWELL : NON_MODAL_HOME;
        return use_group(b, G_NON_MODAL);
    case 90:
    case 91:
        b->distance = code;
        return use_group(b, G_DISTANCE);
    case 17: /* XY plane */
    case 21: /* millimetres */
    case 54: /* first work coordinate system = machine coordinates */
    case 94: /* feed per minute */
        return STATUS_OK;
    default:
        return STATUS_UNSUPPORTED_COMMAND;  /* includes G20: inches are not supported */
    }
}

static uint8_t parse_m(block_t *b, float value)
{
    uint16_t code;
    if (!integer_value(value, &code))
        return STATUS_UNSUPPORTED_COMMAND;
    switch (code) {
    case 3:
    case 4:
    case 8:
        b->magnet = MAGNET_ON;
        return use_group(b, M_MAGNET);
    case 5:
    case 9:
        b->magnet = MAGNET_OFF;
        return use_group(b, M_MAGNET);
    case 150:
    case 151:
        b->leds = code == 150 ? LEDS_SET : LEDS_SHOW;
        return use_group(b, M_LEDS);
    case 2:
    case 30:
        b->program_end = 1;
        return use_group(b, M_STOP);
    default:
        return STATUS_UNSUPPORTED_COMMAND;
    }
}

static uint8_t parse_line(const char *line, block_t *b)
{
    uint8_t i = 0;
    while (line[i]) {
        char letter = line[i++];
        if (letter < 'A' || letter > 'Z')
            return STATUS_EXPECTED_COMMAND_LETTER;
        float value;
        if (!gc_read_number(line, &i, &value))
            return STATUS_BAD_NUMBER_FORMAT;
        uint8_t status;
        if (letter == 'G') {
            status = parse_g(b, value);
        } else if (letter == 'M') {
            status = parse_m(b, value);
        } else {
            const char *slot = strchr(word_letters, letter);
            if (!slot)
                return STATUS_UNSUPPORTED_COMMAND;
            uint8_t w = slot - word_letters;
            if (b->words & BIT(w))
                return STATUS_WORD_REPEATED;
            b->words |= BIT(w);
            b->value[w] = value;
            status = STATUS_OK;
        }
        if (status)
            return status;
    }
    return STATUS_OK;
}

/* Reads an optional integer word 0..max (default 0) of the LED command. */
static uint8_t led_word(const block_t *b, uint8_t w, uint16_t max, uint8_t *out)
{
    *out = 0;
    if (!(b->words & BIT(w)))
        return STATUS_OK;
    float v = b->value[w];
    if (v < 0)
        return STATUS_NEGATIVE_VALUE;
    uint16_t n;
    if (!integer_value(v, &n))
        return STATUS_COMMAND_VALUE_NOT_INTEGER;
    if (n > max)
        return STATUS_VALUE_TOO_LARGE;
    *out = n;
    return STATUS_OK;
}

static uint8_t check_block(block_t *b)
{
    uint16_t used = BIT(W_N) | BIT(W_S) | BIT(W_F);  /* S: spindle speed, accepted and ignored */
    if ((b->words & BIT(W_F)) && b->value[W_F] < 0)
        return STATUS_NEGATIVE_VALUE;
    if (b->non_modal == NON_MODAL_DWELL) {
        if (!(b->words & BIT(W_P)))
            return STATUS_VALUE_WORD_MISSING;
        if (b->value[W_P] < 0)
            return STATUS_NEGATIVE_VALUE;
        used |= BIT(W_P);
    }
    if (b->non_modal == NON_MODAL_HOME && (b->words & AXIS_WORDS))
        return STATUS_AXIS_COMMAND_CONFLICT;  /* G28 always homes both axes */
    if (b->leds == LEDS_SET) {
        uint8_t status;
        if ((status = led_word(b, W_I, LED_COUNT - 1, &b->led_index)) ||
            (status = led_word(b, W_R, 255, &b->led_rgb[0])) ||
            (status = led_word(b, W_U, 255, &b->led_rgb[1])) ||
            (status = led_word(b, W_B, 255, &b->led_rgb[2])))
            return status;
        used |= BIT(W_I) | BIT(W_R) | BIT(W_U) | BIT(W_B);
    }
    used |= AXIS_WORDS;
    if (b->words & ~used)
        return STATUS_UNUSED_WORDS;
    return STATUS_OK;
}

static uint8_t run_leds(const block_t *b)
{
    if (b->leds == LEDS_SET) {
        const uint8_t *rgb = b->led_rgb;
        if (b->words & BIT(W_I))
            leds_set(b->led_index, rgb[0], rgb[1], rgb[2]);
        else
            leds_set_all(rgb[0], rgb[1], rgb[2]);
    } else if (b->leds == LEDS_SHOW) {
        protocol_buffer_synchronize();  /* no step may wait 1.6 ms with interrupts off */
        if (sys.abort || sys.state == STATE_ALARM)
            return STATUS_SYSTEM_GC_LOCK;
        tool_wait_servo_gap();
        if (sys.abort)
            return STATUS_OK;
        leds_show();
    }
    return STATUS_OK;
}

uint8_t gc_execute_line(const char *line)
{
    block_t b;
    memset(&b, 0, sizeof b);
    b.motion = gc_state.motion;
    uint8_t status = parse_line(line, &b);
    if (!status)
        status = check_block(&b);  /* nothing runs unless the whole line is valid */
    if (status)
        return status;

    float feed = (b.words & BIT(W_F)) ? b.value[W_F] : gc_state.feed;
    uint8_t moves = (b.words & AXIS_WORDS) != 0;
    if (moves && b.motion == 1 && feed <= 0)
        return STATUS_UNDEFINED_FEED_RATE;

    /* Everything is valid: execute, in GRBL's order. */
    gc_state.feed = feed;
    if (b.groups & (1 << G_MOTION))
        gc_state.motion = b.motion;
    if (b.magnet != MAGNET_KEEP) {
        protocol_buffer_synchronize();  /* the magnet switches where the queued moves end */
        if (sys.abort || sys.state == STATE_ALARM)
            return STATUS_SYSTEM_GC_LOCK;
        tool_set_magnet(b.magnet == MAGNET_ON);
    }
    if ((status = run_leds(&b)))
        return status;
    if (b.non_modal == NON_MODAL_DWELL)
        mc_dwell(b.value[W_P]);
    if (b.groups & (1 << G_DISTANCE))
        gc_state.relative = b.distance == 91;
    if (b.non_modal == NON_MODAL_HOME)
        return mc_home();
    if (moves) {
        float target[N_AXES];
        mc_get_position(target);
        static const uint8_t axis_word[N_AXES] = {W_X, W_Y, W_Z};
        for (uint8_t a = 0; a < N_AXES; a++) {
            if (b.words & BIT(axis_word[a]))
                target[a] = gc_state.relative ? target[a] + b.value[axis_word[a]] : b.value[axis_word[a]];
        }
        status = mc_line(target, b.motion == 0 ? 1e9f : feed);
        if (status)
            return status;
    }
    if (b.program_end) {
        protocol_buffer_synchronize();
        gc_state.relative = 0;
        tool_set_magnet(0);  /* as GRBL's M2/M30: spindle (here the magnet) off */
    }
    return STATUS_OK;
}
