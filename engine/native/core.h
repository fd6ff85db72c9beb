/* The native core: bitboards, rules and move generation for the three variants.
 *
 * The bit layout is damas.rules.bitboard's, so a Position's integers are used as they
 * are: squares row by row, size/2 bits a row, a ghost bit after every two rows. Every
 * diagonal step is then a constant shift (size/2 or size/2 + 1 bits; left = towards
 * White's side, "down"; right = towards Black's, "up"), and a step off the left or right
 * edge lands on a ghost bit, which is never a square.
 *
 * Positions are side-relative: `own` and `opp` are the pieces of the side to move and of
 * its opponent, `kings` the kings of both, `side` 0 for White and 1 for Black.
 *
 * Everything here is static inline (the perft recursion in perft.c is specialised per
 * variant and side, so the rule flags and shifts fold into constants there); the capture
 * search, which recurses, is in movegen.c.
 */
#ifndef DAMAS_CORE_H
#define DAMAS_CORE_H

#include <stdint.h>

typedef uint64_t bb;

#define AI static inline __attribute__((always_inline))

/* 10x10: bits 0..53, ghosts 10, 21, 32, 43. 8x8: bits 0..34, ghosts 8, 17, 26. */
#define VALID10 (((1ULL << 54) - 1) & ~((1ULL << 10) | (1ULL << 21) | (1ULL << 32) | (1ULL << 43)))
#define VALID8 (((1ULL << 35) - 1) & ~((1ULL << 8) | (1ULL << 17) | (1ULL << 26)))
/* the crowning row of White (the top row, squares 1..size/2) and of Black (the bottom) */
#define CROWN_W10 0x1FULL
#define CROWN_B10 (0x1FULL << 49)
#define CROWN_W8 0xFULL
#define CROWN_B8 (0xFULL << 31)

/* At most this many captures in one chain (a side has at most 20 pieces) and this many
 * distinct captures or moves in one position (far above any position met in play; more
 * is reported as an overflow, never counted wrong). */
#define MAX_CHAIN 24
#define MAX_CAPTURES 256
#define MAX_MOVES 512

/* The rules of a variant that move generation needs. */
typedef struct {
    int size;      /* 8 or 10 */
    int backwards; /* men capture backwards */
    int flying;    /* kings move and capture any distance */
    int maximum;   /* the capture taking the most pieces is compulsory (kings count as men) */
    int stops;     /* a man reaching the back row in a capture is crowned and stops */
} Rules;

/* Directions 0..3: shift left by h, by h+1 (down, towards White), right by h, by h+1
 * (up, towards Black), h = size/2. The opposite of d is d^2; the two perpendicular
 * directions are d^1 and d^3. White's men move up (2, 3), Black's down (0, 1). */

/* ray[d][i]: the squares from bit i in direction d to the edge, i excluded */
extern bb RAY10[4][64];
extern bb RAY8[4][64];
void core_init(void);

AI int shift_of(const Rules *r, int d) { return r->size / 2 + (d & 1); }
AI bb valid_of(const Rules *r) { return r->size == 10 ? VALID10 : VALID8; }
AI bb crown_of(const Rules *r, int side) {
    if (r->size == 10) return side ? CROWN_B10 : CROWN_W10;
    return side ? CROWN_B8 : CROWN_W8;
}
AI const bb (*rays_of(const Rules *r))[64] { return (const bb (*)[64])(r->size == 10 ? RAY10 : RAY8); }

AI bb step(const Rules *r, bb x, int d) { return d < 2 ? x << shift_of(r, d) : x >> shift_of(r, d); }
AI bb back(const Rules *r, bb x, int d) { return d < 2 ? x >> shift_of(r, d) : x << shift_of(r, d); }

AI int bit_index(bb x) { return __builtin_ctzll(x); }
#if defined(__POPCNT__) || !defined(__x86_64__)
AI int popcount(bb x) { return __builtin_popcountll(x); }
#else
/* x86-64 before POPCNT (the baseline a portable wheel targets): no call to libgcc */
AI int popcount(bb x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}
#endif
AI bb lowest(bb x) { return x & (0 - x); }
AI bb highest(bb x) { return 1ULL << (63 - __builtin_clzll(x)); }
/* the nearest of the set bits `x` (not empty) seen from a square, looking in direction d */
AI bb nearest(bb x, int d) { return d < 2 ? lowest(x) : highest(x); }
/* the squares of `ray` (direction d) before the first of the occupied squares `occ` */
AI bb before(bb ray, bb occ, int d) {
    bb blockers = ray & occ;
    if (!blockers) return ray;
    bb first = nearest(blockers, d);
    return d < 2 ? ray & (first - 1) : ray & ~(first | (first - 1));
}

/* Men's directions: forward only, or all four for captures where men capture backwards. */
AI int forward_dirs(int side) { return side ? 0x3 : 0xC; }
AI int man_capture_dirs(const Rules *r, int side) { return r->backwards ? 0xF : forward_dirs(side); }

/* One capture: the moving piece's square, its end, the captured pieces. */
typedef struct {
    bb from, to, captured;
} Capture;

/* A capture's route for the Python API: squares as bit indices. */
typedef struct {
    uint8_t count;                  /* pieces captured */
    uint8_t path[MAX_CHAIN + 1];    /* start, each landing square; path[count] is the end */
    uint8_t order[MAX_CHAIN];       /* captured pieces in jump order */
} Route;

/* The state of one capture search (movegen.c). */
typedef struct {
    const Rules *rules;
    bb opp, empty, from, stop; /* empty holds the moving piece's own square */
    int best;                  /* the most pieces taken so far (maximum rule) */
    int n, overflow;
    Capture *out;
    Route *routes; /* NULL unless the routes are wanted */
    Route route;   /* the chain being built */
} Search;

void search_short(Search *s, bb at, bb captured, int count, int dirs);
void search_flying(Search *s, bb from);

/* Every legal capture (complete chains, merged by start, end and captured set, only the
 * longest under the maximum rule) into `out` (MAX_CAPTURES room); the count, 0 when
 * nothing can be captured, -1 on overflow. Routes are written to `routes` if not NULL. */
AI int generate_captures(const Rules *r, int side, bb own, bb opp, bb kings, Capture *out,
                         Route *routes) {
    bb empty = valid_of(r) & ~(own | opp);
    bb men = own & ~kings;
    bb capturers = 0;
    int dirs = man_capture_dirs(r, side);
    for (int d = 0; d < 4; d++)
        if (dirs & (1 << d)) capturers |= back(r, opp, d) & back(r, back(r, empty, d), d);
    capturers &= men;
    bb k = own & kings;
    if (!r->flying && k) {
        bb kc = 0;
        for (int d = 0; d < 4; d++) kc |= back(r, opp, d) & back(r, back(r, empty, d), d);
        capturers |= kc & k;
        k = 0;
    }
    if (!capturers && !k) return 0;
    Search s;
    s.rules = r;
    s.opp = opp;
    s.stop = 0;
    s.best = 0;
    s.n = 0;
    s.overflow = 0;
    s.out = out;
    s.routes = routes;
    while (capturers) {
        bb b = lowest(capturers);
        capturers ^= b;
        s.from = b;
        s.empty = empty | b;
        s.route.path[0] = (uint8_t)bit_index(b);
        if (kings & b) {
            s.stop = 0;
            search_short(&s, b, 0, 0, 0xF);
        } else {
            s.stop = r->stops ? crown_of(r, side) : 0;
            search_short(&s, b, 0, 0, dirs);
        }
    }
    if (k) {
        const bb(*ray)[64] = rays_of(r);
        bb occ = own | opp;
        while (k) {
            bb b = lowest(k);
            k ^= b;
            int i = bit_index(b);
            /* a quick look first: the nearest piece on some line is the opponent's with
             * an empty square behind it */
            int any = 0;
            for (int d = 0; d < 4 && !any; d++) {
                bb on = ray[d][i] & occ;
                if (!on) continue;
                bb x = nearest(on, d);
                any = (x & opp) && (step(r, x, d) & empty);
            }
            if (!any) continue;
            s.from = b;
            s.empty = empty | b;
            s.stop = 0;
            s.route.path[0] = (uint8_t)i;
            search_flying(&s, b);
        }
    }
    return s.overflow ? -1 : s.n;
}

/* The number of quiet moves (when no capture is on). */
AI int count_quiet(const Rules *r, int side, bb own, bb opp, bb kings) {
    bb empty = valid_of(r) & ~(own | opp);
    bb men = own & ~kings;
    int f = side ? 0 : 2;
    int n = popcount(step(r, men, f) & empty) + popcount(step(r, men, f + 1) & empty);
    bb k = own & kings;
    if (!k) return n;
    if (!r->flying) {
        for (int d = 0; d < 4; d++) n += popcount(step(r, k, d) & empty);
        return n;
    }
    const bb(*ray)[64] = rays_of(r);
    bb occ = own | opp;
    while (k) {
        int i = bit_index(k);
        k &= k - 1;
        for (int d = 0; d < 4; d++) n += popcount(before(ray[d][i], occ, d));
    }
    return n;
}

/* The squares a king on bit i reaches in direction d with a quiet move. */
AI bb king_targets(const Rules *r, bb king, bb occ, int d) {
    if (!r->flying) return step(r, king, d) & valid_of(r) & ~occ;
    return before(rays_of(r)[d][bit_index(king)], occ, d);
}

/* Every legal move of a position with its route, for the Python API: captures as
 * (from, to, captured) with routes, quiet moves with captured = 0. The count, or -1 on
 * overflow. */
int legal_moves(const Rules *r, int side, bb own, bb opp, bb kings, Capture *out,
                Route *routes);

uint64_t perft(const Rules *r, int side, bb own, bb opp, bb kings, int depth, int *overflow);

#endif
