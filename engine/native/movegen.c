/* Capture chains (depth first) and the legal move list of the Python API.
 *
 * A captured piece stays on the board until the capture ends (000 §4.8, §4.11, the
 * Turkish strike): it still blocks the way and cannot be jumped twice, while an empty
 * square may be crossed again. Chains are recorded complete, merged by start, end and
 * captured set (two routes to the same result are one move), and under the maximum rule
 * only the longest are kept (a king counts as a man, 000 §4.13-4.14).
 */
#include <string.h>

#include "core.h"

bb RAY10[4][64];
bb RAY8[4][64];

static void init_rays(int size, bb ray[4][64]) {
    Rules r = {size, 1, 1, 1, 0};
    bb valid = valid_of(&r);
    memset(ray, 0, sizeof(bb) * 4 * 64);
    for (int i = 0; i < 64; i++) {
        bb b = 1ULL << i;
        if (!(b & valid)) continue;
        for (int d = 0; d < 4; d++) {
            bb x = step(&r, b, d) & valid;
            while (x) {
                ray[d][i] |= x;
                x = step(&r, x, d) & valid;
            }
        }
    }
}

void core_init(void) {
    init_rays(10, RAY10);
    init_rays(8, RAY8);
}

/* A complete chain ends on `to` having taken `captured` (`count` pieces); s->route holds
 * its route when routes are wanted. */
static void record(Search *s, bb to, bb captured, int count) {
    if (s->rules->maximum) {
        if (count < s->best) return;
        if (count > s->best) {
            s->best = count;
            s->n = 0;
        }
    }
    if (count >= 2) /* one piece taken: no two routes give the same result */
        for (int i = 0; i < s->n; i++)
            if (s->out[i].captured == captured && s->out[i].to == to && s->out[i].from == s->from)
                return;
    if (s->n >= MAX_CAPTURES) {
        s->overflow = 1;
        return;
    }
    Capture *c = &s->out[s->n];
    c->from = s->from;
    c->to = to;
    c->captured = captured;
    if (s->routes) {
        Route *route = &s->routes[s->n];
        *route = s->route;
        route->count = (uint8_t)count;
        route->path[count] = (uint8_t)bit_index(to);
    }
    s->n++;
}

/* A man (or a king moving one square) on `at` having taken `captured` so far: jump on in
 * the directions `dirs`, or end the chain here. */
void search_short(Search *s, bb at, bb captured, int count, int dirs) {
    const Rules *r = s->rules;
    int extended = 0;
    for (int d = 0; d < 4; d++) {
        if (!(dirs & (1 << d))) continue;
        bb over = step(r, at, d);
        if (!(over & s->opp & ~captured)) continue;
        bb land = step(r, over, d);
        if (!(land & s->empty)) continue;
        extended = 1;
        if (count >= MAX_CHAIN) {
            s->overflow = 1;
            continue;
        }
        s->route.order[count] = (uint8_t)bit_index(over);
        s->route.path[count + 1] = (uint8_t)bit_index(land);
        if (land & s->stop) /* English: a man reaching the back row is crowned, the move ends */
            record(s, land, captured | over, count + 1);
        else
            search_short(s, land, captured | over, count + 1, dirs);
    }
    if (!extended && count) record(s, at, captured, count);
}

static int fly_direction(Search *s, bb at, int d, bb captured, int count);

/* A flying king has jumped `x` (direction d, the count-th piece taken) and may land on
 * any square of `run`, the empty squares behind it. From each it may turn to either side;
 * going straight on is the same from every square of the run, so it is searched once
 * (from the far end), which also keeps those routes from being found once per square. */
static void fly_landings(Search *s, bb x, int d, bb run, bb captured, int count) {
    s->route.order[count - 1] = (uint8_t)bit_index(x);
    bb far = d < 2 ? highest(run) : lowest(run);
    s->route.path[count] = (uint8_t)bit_index(far);
    int straight = fly_direction(s, far, d, captured, count);
    while (run) {
        bb at = lowest(run);
        run ^= at;
        s->route.path[count] = (uint8_t)bit_index(at);
        int extended = straight;
        extended |= fly_direction(s, at, d ^ 1, captured, count);
        extended |= fly_direction(s, at, d ^ 3, captured, count);
        if (!extended) record(s, at, captured, count);
    }
}

/* From `at`, does a flying king capture in direction d (and if so, search on)? */
static int fly_direction(Search *s, bb at, int d, bb captured, int count) {
    const Rules *r = s->rules;
    const bb(*ray)[64] = rays_of(r);
    bb line = ray[d][bit_index(at)];
    bb on = line & ~s->empty;
    if (!on) return 0;
    bb x = nearest(on, d);
    if (!(x & s->opp & ~captured)) return 0; /* own piece, or one taken already */
    bb run = before(ray[d][bit_index(x)], ~s->empty, d);
    if (!run) return 0;
    if (count >= MAX_CHAIN) {
        s->overflow = 1;
        return 1;
    }
    fly_landings(s, x, d, run, captured | x, count + 1);
    return 1;
}

void search_flying(Search *s, bb from) {
    for (int d = 0; d < 4; d++) fly_direction(s, from, d, 0, 0);
}

int legal_moves(const Rules *r, int side, bb own, bb opp, bb kings, Capture *out,
                Route *routes) {
    int n = generate_captures(r, side, own, opp, kings, out, routes);
    if (n != 0) return n;
    bb occ = own | opp;
    bb empty = valid_of(r) & ~occ;
    bb men = own & ~kings;
    for (int d = 0; d < 4; d++) {
        if (!(forward_dirs(side) & (1 << d))) continue;
        bb targets = step(r, men, d) & empty;
        while (targets) {
            bb to = lowest(targets);
            targets ^= to;
            if (n >= MAX_MOVES) return -1;
            out[n].from = back(r, to, d);
            out[n].to = to;
            out[n].captured = 0;
            n++;
        }
    }
    bb k = own & kings;
    while (k) {
        bb b = lowest(k);
        k ^= b;
        for (int d = 0; d < 4; d++) {
            bb targets = king_targets(r, b, occ, d);
            while (targets) {
                bb to = lowest(targets);
                targets ^= to;
                if (n >= MAX_MOVES) return -1;
                out[n].from = b;
                out[n].to = to;
                out[n].captured = 0;
                n++;
            }
        }
    }
    return n;
}
