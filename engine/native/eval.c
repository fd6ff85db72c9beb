/* The static evaluation: a weighted sum of the terms of search.h (weights tuned from games
 * by `damas train engine`), then three adjustments no linear term expresses: the side
 * ahead gains by trading, one-square kings ahead hunt the last pieces, and the endings
 * with flying kings that the draw rules end early score near 0.
 *
 * Every term is a few popcounts over precomputed masks; the runaway test walks only the
 * men 1-3 rows from crowning.
 */
#include <string.h>

#include "search.h"

static int square_bit(int size, int sq) { return (sq - 1) + (sq - 1) / size; }

/* a window's 8 bits (two a row) as a base-3 number of 0s and 1s */
static int16_t ternary[256];
/* an index seen from the other side: the board turned half round reverses the window's
 * squares (square n becomes squares + 1 - n), and its men change sides */
static int16_t flipped[PATTERN_SIZE];

void pattern_tables_init(void) {
    for (int v = 0; v < 256; v++) {
        int t = 0;
        for (int k = 7; k >= 0; k--) t = 3 * t + ((v >> k) & 1);
        ternary[v] = (int16_t)t;
    }
    for (int i = 0; i < PATTERN_SIZE; i++) {
        int f = 0;
        for (int k = 0, rest = i; k < 8; k++, rest /= 3) {
            int digit = rest % 3;
            f = 3 * f + (digit ? 3 - digit : 0); /* slot k goes to slot 7 - k */
        }
        flipped[i] = (int16_t)f;
    }
}

static void windows_init(Eval *e, int size) {
    e->n_windows = 0;
    for (int r0 = 0; r0 + 4 <= size; r0 += 2)
        for (int c0 = 0; c0 + 4 <= size; c0 += 2) {
            for (int rr = 0; rr < 4; rr++)
                e->window_shift[e->n_windows][rr] =
                    square_bit(size, (r0 + rr) * (size / 2) + c0 / 2 + 1);
            e->n_windows++;
        }
}

void eval_init(Eval *e, const Rules *r) {
    memset(e, 0, sizeof *e);
    e->rules = *r;
    e->flying_ending_divisor = 1;
    int size = r->size, squares = size * size / 2;
    e->total_men = (size / 2 - 1) * size / 2;
    windows_init(e, size);
    for (int sq = 1; sq <= squares; sq++) {
        int i = square_bit(size, sq);
        bb b = 1ULL << i;
        int row = (sq - 1) / (size / 2);
        int col = 2 * ((sq - 1) % (size / 2)) + (row % 2 == 0 ? 1 : 0);
        e->row[i] = row;
        e->col[i] = col;
        for (int side = 0; side < 2; side++) {
            int up = side == 0 ? size - 1 - row : row; /* rows from the own back row */
            e->rows[side][up] |= b;
            int left = size - 1 - up;
            e->to_go[side][i] = left;
            if (left >= 1 && left <= 3) e->zone[side] |= b;
            if (up >= size / 2) e->half[side] |= b;
        }
        int centre = (2 * col < size - 1 ? col : size - 1 - col);
        for (int k = 1; k <= centre && k < 5; k++) e->ring[k] |= b;
        int edge = row;
        if (col < edge) edge = col;
        if (size - 1 - row < edge) edge = size - 1 - row;
        if (size - 1 - col < edge) edge = size - 1 - col;
        for (int k = 1; k <= edge && k < 5; k++) e->king_ring[k] |= b;
        if (row + col == size - 1) e->long_diagonal |= b;
        if (col == 0 || col == size - 1) e->edges |= b;
        if (col < size / 2)
            e->left |= b;
        else
            e->right |= b;
    }
    /* the triangle in front of each man, up to the crown row */
    for (int i = 0; i < 64; i++) {
        if (!((1ULL << i) & valid_of(r))) continue;
        for (int j = 0; j < 64; j++) {
            if (!((1ULL << j) & valid_of(r))) continue;
            int dist_w = e->row[i] - e->row[j], dist_b = e->row[j] - e->row[i];
            int dc = e->col[i] > e->col[j] ? e->col[i] - e->col[j] : e->col[j] - e->col[i];
            if (dist_w > 0 && dc <= dist_w) e->cone[0][i] |= 1ULL << j;
            if (dist_b > 0 && dc <= dist_b) e->cone[1][i] |= 1ULL << j;
        }
    }
    /* the men that keep the opponent from crowning */
    const int guard10[] = {47, 48, 49}, guard8[] = {30, 32};
    const int *g = size == 10 ? guard10 : guard8;
    int n = size == 10 ? 3 : 2;
    for (int k = 0; k < n; k++) {
        e->guard[0] |= 1ULL << square_bit(size, g[k]);
        e->guard[1] |= 1ULL << square_bit(size, squares + 1 - g[k]);
    }
}

/* The men's terms of one side, for that side. */
static void men_terms(const Eval *e, int side, bb men, bb own, bb opp_all, bb empty,
                      int opp_men, int opp_kings, int *f, int sign, int *mobility) {
    const Rules *r = &e->rules;
    int size = r->size;
    for (int k = 1; k < size - 1 && k <= 8; k++)
        f[F_ADV1 + k - 1] += sign * popcount(men & e->rows[side][k]);
    int centre = 0;
    for (int k = 1; k < 5; k++) centre += popcount(men & e->ring[k]);
    f[F_CENTRE] += sign * centre;
    f[F_EDGE] += sign * popcount(men & e->edges);
    f[F_GUARD] += sign * popcount(men & e->guard[side]) * opp_men;
    int balance = popcount(men & e->left) - popcount(men & e->right);
    f[F_BALANCE] += sign * (balance < 0 ? -balance : balance);
    int d1 = side ? 0 : 2, d2 = d1 + 1;
    bb free1 = step(r, men, d1) & empty, free2 = step(r, men, d2) & empty;
    bb movable = men & (back(r, empty, d1) | back(r, empty, d2));
    int mob = popcount(free1) + popcount(free2);
    *mobility = mob;
    f[F_MOBILITY] += sign * mob;
    f[F_LOCKED] += sign * popcount(men ^ movable);
    f[F_LOCKED_WING] += sign * (((men & e->left) && !(movable & e->left)) +
                                ((men & e->right) && !(movable & e->right)));
    /* held from behind: both squares behind the man are the side's own */
    bb held = men & e->half[side] & back(r, own, d1 ^ 2) & back(r, own, d2 ^ 2);
    f[F_OUTPOST] += sign * popcount(held);
    if (!opp_kings) {
        bb runners = men & e->zone[side];
        while (runners) {
            int i = bit_index(runners);
            runners &= runners - 1;
            if (!(e->cone[side][i] & opp_all)) f[F_RUN1 + e->to_go[side][i] - 1] += sign;
        }
    }
}

static int king_squares(const Eval *e, bb kings) {
    if (e->rules.flying) return popcount(kings & e->long_diagonal);
    int v = 0;
    for (int k = 1; k < 5; k++) v += popcount(kings & e->king_ring[k]);
    return v;
}

static int king_mobility(const Eval *e, bb kings, bb occ) {
    int n = 0;
    while (kings) {
        bb b = lowest(kings);
        kings ^= b;
        for (int d = 0; d < 4; d++) n += popcount(king_targets(&e->rules, b, occ, d));
    }
    return n;
}

/* Terms of the position for the side to move; *lost when that side cannot move at all
 * (no capture is on the board when the search asks). */
static void terms(const Eval *e, int side, bb own, bb opp, bb kings, int *f, int *lost) {
    memset(f, 0, sizeof(int) * N_FEATURES);
    bb ok = own & kings, pk = opp & kings, om = own ^ ok, pm = opp ^ pk;
    int n_ok = popcount(ok), n_pk = popcount(pk), n_om = popcount(om), n_pm = popcount(pm);
    bb occ = own | opp;
    bb empty = valid_of(&e->rules) & ~occ;
    f[F_MAN] = n_om - n_pm;
    f[F_KING] = n_ok - n_pk;
    int my_mob, their_mob;
    men_terms(e, side, om, own, opp, empty, n_pm, n_pk, f, 1, &my_mob);
    men_terms(e, 1 - side, pm, opp, own, empty, n_om, n_ok, f, -1, &their_mob);
    f[F_KING_SQUARE] = king_squares(e, ok) - king_squares(e, pk);
    f[F_KING_ALONE] = (n_ok && !n_pk) - (n_pk && !n_ok);
    if (ok | pk) f[F_KING_MOBILITY] = king_mobility(e, ok, occ) - king_mobility(e, pk, occ);
    *lost = !n_ok && !my_mob;
}

static inline int window_index(const Eval *e, int w, bb mine, bb theirs) {
    unsigned a = 0, b = 0;
    for (int rr = 0; rr < 4; rr++) {
        int sh = e->window_shift[w][rr];
        a |= (unsigned)((mine >> sh) & 3) << (2 * rr);
        b |= (unsigned)((theirs >> sh) & 3) << (2 * rr);
    }
    return ternary[a] + 2 * ternary[b];
}

/* Windows are numbered so that the half turn takes window w to n_windows - 1 - w; White's
 * view is the board as it lies, Black's the same index flipped. */
int pattern_indices(const Eval *e, int side, bb own, bb opp, bb kings,
                    int idx[2 * MAX_WINDOWS]) {
    int n = e->n_windows;
    bb white = (side ? opp : own) & ~kings, black = (side ? own : opp) & ~kings;
    int *mine = side ? idx + n : idx, *theirs = side ? idx : idx + n;
    for (int w = 0; w < n; w++) {
        int i = window_index(e, w, white, black);
        mine[w] = i;
        theirs[n - 1 - w] = flipped[i];
    }
    return 2 * n;
}

/* The side to move's view of the windows minus the opponent's, the two tables blended
 * by the men on the board (1/EVAL_SCALE hundredths). Seen this way the score is the same
 * from either side, as the search's negamax wants. */
static long pattern_score(const Eval *e, int side, bb own, bb opp, bb kings) {
    int n = e->n_windows;
    bb white = (side ? opp : own) & ~kings, black = (side ? own : opp) & ~kings;
    long full = 0, bare = 0;
    for (int w = 0; w < n; w++) {
        int i = window_index(e, w, white, black);
        const int16_t *by_white = e->pattern[w][i];
        const int16_t *by_black = e->pattern[n - 1 - w][flipped[i]];
        full += by_white[0] - by_black[0];
        bare += by_white[1] - by_black[1];
    }
    if (side) {
        full = -full;
        bare = -bare;
    }
    long all = 2L * e->total_men, men = popcount(white | black);
    return (full * men + bare * (all - men)) / all;
}

void features_of(const Eval *e, int side, bb own, bb opp, bb kings, int f[N_FEATURES]) {
    int lost;
    terms(e, side, own, opp, kings, f, &lost);
}

/* Steps (king moves) from each king to the nearest of the targets, summed. */
static int distance_to(const Eval *e, bb kings, bb targets) {
    int total = 0;
    while (kings) {
        int i = bit_index(kings);
        kings &= kings - 1;
        int best = 99;
        for (bb t = targets; t; t &= t - 1) {
            int j = bit_index(t);
            int dr = e->row[i] > e->row[j] ? e->row[i] - e->row[j] : e->row[j] - e->row[i];
            int dc = e->col[i] > e->col[j] ? e->col[i] - e->col[j] : e->col[j] - e->col[i];
            int d = dr > dc ? dr : dc;
            if (d < best) best = d;
        }
        if (best < 99) total += best;
    }
    return total;
}

int evaluate(const Eval *e, int side, bb own, bb opp, bb kings) {
    int f[N_FEATURES], lost;
    terms(e, side, own, opp, kings, f, &lost);
    if (lost) return -LOST;
    long sum = 0;
    for (int i = 0; i < N_FEATURES; i++) sum += (long)e->w[i] * f[i];
    if (e->has_patterns) sum += pattern_score(e, side, own, opp, kings);
    int score = (int)(sum / EVAL_SCALE);
    int lead = (int)(((long)e->w[F_MAN] * f[F_MAN] + (long)e->w[F_KING] * f[F_KING]) / EVAL_SCALE);
    int pieces = popcount(own | opp);
    score += lead * e->trade / (pieces + 4);
    if (e->chase && pieces <= 8 && lead) {
        bb ok = own & kings, pk = opp & kings;
        if (lead > 0 && ok)
            score -= e->chase * distance_to(e, ok, opp);
        else if (lead < 0 && pk)
            score += e->chase * distance_to(e, pk, own);
    }
    if (e->rules.flying && e->flying_ending_divisor > 1) {
        int n_ok = popcount(own & kings), n_pk = popcount(opp & kings);
        int n_own = popcount(own), n_opp = popcount(opp);
        if ((score > 0 && n_pk && n_own <= 3) || (score < 0 && n_ok && n_opp <= 3))
            score /= e->flying_ending_divisor;
    }
    if (score >= LOST) score = LOST - 1;
    if (score <= -LOST) score = -LOST + 1;
    return score;
}
