/* Perft: the leaves of the legal-move tree, moves counted once per distinct result.
 *
 * The recursion is written once (perft_node) and instantiated per variant and side, so
 * the rule flags, shifts and masks are constants in each copy; any other combination of
 * rules runs the same code with the rules read at run time. The last ply is counted, not
 * played: quiet moves by popcount, captures by generating them.
 */
#include "core.h"

typedef uint64_t (*Next)(const Rules *r, bb own, bb opp, bb kings, int depth, int *overflow);

/* the position after a capture or a move, from the mover's side: kings only */
AI bb kings_after(bb kings, bb from, bb to, bb captured, bb crown) {
    bb k = kings & ~captured;
    if (k & from) return (k ^ from) | to;
    if (to & crown) return k | to;
    return k;
}

AI uint64_t count_leaves(const Rules *r, int side, bb own, bb opp, bb kings, int *overflow) {
    Capture caps[MAX_CAPTURES];
    int n = generate_captures(r, side, own, opp, kings, caps, 0);
    if (n < 0) {
        *overflow = 1;
        return 0;
    }
    if (n) return (uint64_t)n;
    return (uint64_t)count_quiet(r, side, own, opp, kings);
}

/* The subtree below one move: the opponent is to move, so own and opp swap. At depth 1
 * the leaves are counted here, without a call. */
AI uint64_t below(const Rules *r, int side, bb own, bb opp, bb kings, int depth, Next next,
                  int *overflow) {
    if (depth == 1) return count_leaves(r, 1 - side, opp, own, kings, overflow);
    return next(r, opp, own, kings, depth, overflow);
}

AI uint64_t perft_node(const Rules *r, int side, bb own, bb opp, bb kings, int depth,
                       Next next, int *overflow) {
    if (depth <= 1) return depth <= 0 ? 1 : count_leaves(r, side, own, opp, kings, overflow);
    bb crown = crown_of(r, side);
    uint64_t total = 0;
    Capture caps[MAX_CAPTURES];
    int n = generate_captures(r, side, own, opp, kings, caps, 0);
    if (n < 0) {
        *overflow = 1;
        return 0;
    }
    if (n) {
        for (int i = 0; i < n; i++) {
            const Capture *c = &caps[i];
            total += below(r, side, own ^ c->from ^ c->to, opp & ~c->captured,
                           kings_after(kings, c->from, c->to, c->captured, crown), depth - 1,
                           next, overflow);
        }
        return total;
    }
    bb occ = own | opp;
    bb empty = valid_of(r) & ~occ;
    bb men = own & ~kings;
    int f = side ? 0 : 2;
    for (int d = f; d < f + 2; d++) {
        bb targets = step(r, men, d) & empty;
        while (targets) {
            bb to = lowest(targets);
            targets ^= to;
            bb from = back(r, to, d);
            total += below(r, side, own ^ from ^ to, opp, to & crown ? kings | to : kings,
                           depth - 1, next, overflow);
        }
    }
    bb k = own & kings;
    while (k) {
        bb from = lowest(k);
        k ^= from;
        for (int d = 0; d < 4; d++) {
            bb targets = king_targets(r, from, occ, d);
            while (targets) {
                bb to = lowest(targets);
                targets ^= to;
                total += below(r, side, own ^ from ^ to, opp, kings ^ from ^ to, depth - 1,
                               next, overflow);
            }
        }
    }
    return total;
}

#define INSTANCE(NAME, RULES)                                                              \
    static uint64_t NAME##_black(const Rules *r, bb own, bb opp, bb kings, int depth,     \
                                 int *overflow);                                         \
    static uint64_t NAME##_white(const Rules *r, bb own, bb opp, bb kings, int depth,     \
                                 int *overflow) {                                        \
        (void)r;                                                                           \
        return perft_node(RULES, 0, own, opp, kings, depth, NAME##_black, overflow);      \
    }                                                                                      \
    static uint64_t NAME##_black(const Rules *r, bb own, bb opp, bb kings, int depth,     \
                                 int *overflow) {                                        \
        (void)r;                                                                           \
        return perft_node(RULES, 1, own, opp, kings, depth, NAME##_white, overflow);      \
    }

static const Rules INTERNATIONAL = {10, 1, 1, 1, 0};
static const Rules BRAZILIAN = {8, 1, 1, 1, 0};
static const Rules ENGLISH = {8, 0, 0, 0, 1};

INSTANCE(international, &INTERNATIONAL)
INSTANCE(brazilian, &BRAZILIAN)
INSTANCE(english, &ENGLISH)
INSTANCE(any, r)

static int same(const Rules *a, const Rules *b) {
    return a->size == b->size && a->backwards == b->backwards && a->flying == b->flying &&
           a->maximum == b->maximum && a->stops == b->stops;
}

uint64_t perft(const Rules *r, int side, bb own, bb opp, bb kings, int depth, int *overflow) {
    Next white = any_white, black = any_black;
    if (same(r, &INTERNATIONAL)) {
        white = international_white;
        black = international_black;
    } else if (same(r, &BRAZILIAN)) {
        white = brazilian_white;
        black = brazilian_black;
    } else if (same(r, &ENGLISH)) {
        white = english_white;
        black = english_black;
    }
    return (side ? black : white)(r, own, opp, kings, depth, overflow);
}
