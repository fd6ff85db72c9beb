/* The search: iterative deepening (driven from Python one iteration at a time) with
 * aspiration windows, principal variation search, a transposition table of a fixed size,
 * killer moves and history for ordering, late-move reductions, and a quiescence that plays
 * out every capture and looks one ply further when the opponent threatens one.
 *
 * The draw rules are part of the tree: a repeated position, the king-move rule and the
 * ending rules score a draw, and in an ending the rules will call a draw the evaluation
 * shrinks towards it with the plies left, so a side ahead converts before the count runs
 * out and a side behind heads for such an ending. A draw scores 0, or with a contempt c,
 * -c to the side the search plays for (and +c to its opponent): it then keeps a level game
 * going rather than simplify into a drawn ending (see engine_draw_rules).
 *
 * A search is stopped from another thread (engine_stop, or a deadline moved by
 * engine_limits) through atomics; the tree polls them every POLL_EVERY nodes.
 *
 * Lazy SMP: with more than one thread, helpers search the same root (every other one a
 * ply deeper) with their own killers and history, and share only the table; the main
 * thread's result is the answer, and the helpers stop when it has one.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c11 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search.h"

#define POLL_EVERY 1024
#define LATE_MOVE 3     /* quiet moves from this index on are first searched shallower */
#define ASPIRATION 25   /* the first window around the last iteration's score */
enum { BOUND_EXACT = 1, BOUND_LOWER = 2, BOUND_UPPER = 3 };

/* What one thread needs of its own. */
typedef struct {
    Engine *e;
    int history[2][64][64];
    uint16_t killers[MAX_PLY + 2][2];
    uint64_t keys[MAX_HISTORY + MAX_PLY + 2];
    SMove root[MAX_MOVES];
    int root_bias[MAX_MOVES], root_score[MAX_MOVES];
    uint64_t nodes;
    int aborted, seldepth;
    int halt; /* atomic: the main thread has its answer */
    int improved;
    SMove improved_move;
    SMove pv[MAX_PLY + 1][MAX_PLY + 1];
    int pv_len[MAX_PLY + 1];
    int depth; /* the helper's iteration */
    pthread_t thread;
} Worker;

struct Engine {
    Eval eval;
    TTEntry *tt;
    uint64_t tt_mask;
    uint8_t generation;
    /* draw rules */
    int king_limit;
    Ending endings[MAX_ENDINGS];
    int n_endings, ending_limit[MAX_ENDINGS], ending_pieces;
    int contempt; /* hundredths of a man a draw costs the root's side */
    /* the root */
    int side, king_run, ending_run, n_root, last_score, have_last, base;
    bb own, opp, kings;
    uint64_t root_key;
    /* limits, read by the tree and written from other threads */
    int stop;
    int64_t hard_ns; /* 0: none */
    uint64_t max_nodes;
    int threads;
    Worker *workers[MAX_THREADS];
    Report report;
};

/* --- keys ---------------------------------------------------------------------------- */

static uint64_t ZOBRIST[4][64], ZOBRIST_BLACK; /* white man, white king, black man, black king */

static uint64_t splitmix(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void init_keys(void) {
    static int done;
    if (done) return;
    uint64_t s = 20261206;
    for (int p = 0; p < 4; p++)
        for (int i = 0; i < 64; i++) ZOBRIST[p][i] = splitmix(&s);
    ZOBRIST_BLACK = splitmix(&s);
    done = 1;
}

static uint64_t pieces_key(int colour, bb pieces, bb kings) {
    uint64_t k = 0;
    for (; pieces; pieces &= pieces - 1) {
        int i = bit_index(pieces);
        k ^= ZOBRIST[2 * colour + !!(kings & (1ULL << i))][i];
    }
    return k;
}

uint64_t engine_key(int side, bb own, bb opp, bb kings) {
    init_keys();
    return pieces_key(side, own, kings) ^ pieces_key(1 - side, opp, kings) ^
           (side ? ZOBRIST_BLACK : 0);
}

/* --- set-up ---------------------------------------------------------------------------- */

Engine *engine_new(const Rules *r, size_t tt_bytes) {
    init_keys();
    Engine *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    eval_init(&e->eval, r);
    size_t entries = 1;
    while (entries * 2 * sizeof(TTEntry) <= tt_bytes) entries *= 2;
    e->tt = calloc(entries, sizeof(TTEntry));
    if (!e->tt || engine_threads(e, 1) < 0) {
        engine_free(e);
        return NULL;
    }
    e->tt_mask = entries - 1;
    return e;
}

int engine_threads(Engine *e, int threads) {
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    for (int i = 0; i < threads; i++) {
        if (e->workers[i]) continue;
        e->workers[i] = calloc(1, sizeof(Worker));
        if (!e->workers[i]) return -1;
        e->workers[i]->e = e;
    }
    e->threads = threads;
    return 0;
}

void engine_free(Engine *e) {
    if (!e) return;
    for (int i = 0; i < MAX_THREADS; i++) free(e->workers[i]);
    free(e->tt);
    free(e);
}

Eval *engine_eval(Engine *e) { return &e->eval; }

void engine_clear(Engine *e) {
    memset(e->tt, 0, (e->tt_mask + 1) * sizeof(TTEntry));
    for (int i = 0; i < MAX_THREADS; i++)
        if (e->workers[i]) memset(e->workers[i]->history, 0, sizeof e->workers[i]->history);
    e->have_last = 0;
}

void engine_draw_rules(Engine *e, int king_limit, const Ending *endings, int n_endings,
                       const int *limits, int contempt) {
    if (contempt != e->contempt) engine_clear(e); /* the table's draws were worth another score */
    e->contempt = contempt;
    e->king_limit = king_limit;
    e->n_endings = n_endings < MAX_ENDINGS ? n_endings : MAX_ENDINGS;
    e->ending_pieces = 0;
    for (int i = 0; i < e->n_endings; i++) {
        e->endings[i] = endings[i];
        int pieces = endings[i].kings_a + endings[i].men_a + endings[i].kings_b + endings[i].men_b;
        if (pieces > e->ending_pieces) e->ending_pieces = pieces;
    }
    for (int i = 0; i < MAX_ENDINGS; i++) e->ending_limit[i] = limits ? limits[i] : 0;
}

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

void engine_stop(Engine *e) { __atomic_store_n(&e->stop, 1, __ATOMIC_RELAXED); }

void engine_limits(Engine *e, double hard_seconds, uint64_t max_nodes) {
    int64_t hard = hard_seconds < 0 ? 0 : now_ns() + (int64_t)(hard_seconds * 1e9) + 1;
    __atomic_store_n(&e->hard_ns, hard, __ATOMIC_RELAXED);
    e->max_nodes = max_nodes;
}

static void poll(Worker *w) {
    Engine *e = w->e;
    if (__atomic_load_n(&e->stop, __ATOMIC_RELAXED) || __atomic_load_n(&w->halt, __ATOMIC_RELAXED))
        w->aborted = 1;
    if (e->max_nodes) {
        uint64_t total = 0; /* the helpers' counts, read as they run: near enough */
        for (int i = 0; i < e->threads; i++) total += e->workers[i]->nodes;
        if (total >= e->max_nodes) w->aborted = 1;
    }
    int64_t hard = __atomic_load_n(&e->hard_ns, __ATOMIC_RELAXED);
    if (hard && now_ns() >= hard) w->aborted = 1;
}

/* --- the draw rules ------------------------------------------------------------------ */

/* The ending rule whose material this is, or -1. */
static int ending_rule(const Engine *e, bb own, bb opp, bb kings) {
    if (!e->n_endings || popcount(own | opp) > e->ending_pieces) return -1;
    int ka = popcount(own & kings), ma = popcount(own & ~kings);
    int kb = popcount(opp & kings), mb = popcount(opp & ~kings);
    for (int i = 0; i < e->n_endings; i++) {
        const Ending *x = &e->endings[i];
        if ((x->kings_a == ka && x->men_a == ma && x->kings_b == kb && x->men_b == mb) ||
            (x->kings_a == kb && x->men_a == mb && x->kings_b == ka && x->men_b == ma))
            return x->rule;
    }
    return -1;
}

/* --- moves ----------------------------------------------------------------------------- */

static int quiet_moves(const Rules *r, int side, bb own, bb opp, bb kings, SMove *out) {
    int n = 0;
    bb occ = own | opp, empty = valid_of(r) & ~occ, men = own & ~kings;
    int f = side ? 0 : 2;
    for (int d = f; d < f + 2; d++) {
        for (bb t = step(r, men, d) & empty; t; t &= t - 1) {
            bb to = lowest(t);
            out[n].from = back(r, to, d);
            out[n].to = to;
            out[n].captured = 0;
            n++;
        }
    }
    for (bb k = own & kings; k; k &= k - 1) {
        bb from = lowest(k);
        for (int d = 0; d < 4; d++) {
            for (bb t = king_targets(r, from, occ, d); t; t &= t - 1) {
                if (n >= MAX_MOVES) return n;
                out[n].from = from;
                out[n].to = lowest(t);
                out[n].captured = 0;
                n++;
            }
        }
    }
    return n;
}

/* Could `side` capture if it were to move? */
static int can_capture(const Rules *r, int side, bb own, bb opp, bb kings) {
    bb empty = valid_of(r) & ~(own | opp);
    bb men = own & ~kings, k = own & kings;
    int dirs = man_capture_dirs(r, side);
    for (int d = 0; d < 4; d++) {
        bb jumpers = back(r, opp, d) & back(r, back(r, empty, d), d);
        if ((dirs & (1 << d)) && (jumpers & men)) return 1;
        if (!r->flying && (jumpers & k)) return 1;
    }
    if (!r->flying) return 0;
    const bb(*ray)[64] = rays_of(r);
    bb occ = own | opp;
    for (; k; k &= k - 1) {
        int i = bit_index(k);
        for (int d = 0; d < 4; d++) {
            bb on = ray[d][i] & occ;
            if (!on) continue;
            bb x = nearest(on, d);
            if ((x & opp) && (step(r, x, d) & empty)) return 1;
        }
    }
    return 0;
}

static uint16_t captured_hash(bb captured) {
    return (uint16_t)((captured * 0x9E3779B97F4A7C15ULL) >> 48);
}

static uint16_t from_to(const SMove *m) {
    return (uint16_t)(bit_index(m->from) << 8 | bit_index(m->to));
}

/* The highest-ordered move from i on swaps to i. */
static void pick(SMove *moves, int i, int n) {
    int best = i;
    for (int j = i + 1; j < n; j++)
        if (moves[j].order > moves[best].order) best = j;
    if (best != i) {
        SMove t = moves[i];
        moves[i] = moves[best];
        moves[best] = t;
    }
}

/* the table's packed entries (search.h) */
#define TT_SCORE(d) ((int)(int16_t)((d) & 0xFFFF))
#define TT_DEPTH(d) ((int)(int8_t)(((d) >> 16) & 0xFF))
#define TT_FLAG(d) ((int)(((d) >> 24) & 0xFF))
#define TT_MOVE(d) ((uint16_t)(((d) >> 32) & 0xFFFF))
#define TT_CAPTURED(d) ((uint16_t)((d) >> 48))

static uint64_t tt_pack(int score, int depth, int flag, uint16_t move, uint16_t captured) {
    if (depth > 127) depth = 127;
    return (uint64_t)(uint16_t)(int16_t)score | (uint64_t)(uint8_t)(int8_t)depth << 16 |
           (uint64_t)(uint8_t)flag << 24 | (uint64_t)move << 32 | (uint64_t)captured << 48;
}

/* --- the tree -------------------------------------------------------------------------- */

/* A draw's score to `side`. The table keeps such scores, so they hold while the root's
 * side stays the same; a root of the other side clears it (engine_root). */
static int draw_score(const Engine *e, int side) {
    return side == e->side ? -e->contempt : e->contempt;
}

static int leaf(const Engine *e, int side, bb own, bb opp, bb kings, int rule, int ending_run,
                int ply) {
    int score = evaluate(&e->eval, side, own, opp, kings);
    if (score == -LOST) return ply - WIN; /* no capture, no step, no king: no move at all */
    if (rule >= 0) {
        int limit = e->ending_limit[rule];
        int draw = draw_score(e, side);
        score = draw + (score - draw) * (limit - ending_run) / limit;
    }
    return score;
}

/* The position after a move, with its key and the draw rules' counters. */
typedef struct {
    bb own, opp, kings;
    uint64_t key;
    int king_run, ending_run;
} Child;

static void play(const Engine *e, int side, bb own, bb opp, bb kings, uint64_t key,
                 const SMove *m, int king_run, int ending_run, int rule, Child *c) {
    int mover = side, taken = 1 - side;
    uint64_t k = key ^ ZOBRIST_BLACK;
    bb nk = kings & ~m->captured;
    for (bb x = m->captured; x; x &= x - 1) {
        int i = bit_index(x);
        k ^= ZOBRIST[2 * taken + !!(kings & (1ULL << i))][i];
    }
    int fi = bit_index(m->from), ti = bit_index(m->to);
    int changed = m->captured != 0;
    if (kings & m->from) {
        nk = (nk ^ m->from) | m->to;
        k ^= ZOBRIST[2 * mover + 1][fi] ^ ZOBRIST[2 * mover + 1][ti];
        c->king_run = m->captured ? 0 : king_run + 1;
    } else if (m->to & crown_of(&e->eval.rules, side)) {
        nk |= m->to;
        k ^= ZOBRIST[2 * mover][fi] ^ ZOBRIST[2 * mover + 1][ti];
        c->king_run = 0;
        changed = 1;
    } else {
        k ^= ZOBRIST[2 * mover][fi] ^ ZOBRIST[2 * mover][ti];
        c->king_run = 0;
    }
    /* the child is seen from the opponent's side */
    c->own = opp & ~m->captured;
    c->opp = own ^ m->from ^ m->to;
    c->kings = nk;
    c->key = k;
    if (!changed) {
        c->ending_run = ending_run + 1;
    } else {
        int now = ending_rule(e, c->own, c->opp, nk);
        c->ending_run = (now >= 0 && now == rule) ? ending_run + 1 : 0;
    }
}

static int node(Worker *w, int side, bb own, bb opp, bb kings, uint64_t key, int depth,
                int alpha, int beta, int ply, int king_run, int ending_run) {
    const Engine *e = w->e;
    const Rules *r = &e->eval.rules;
    w->pv_len[ply] = 0;
    if (ply > w->seldepth) w->seldepth = ply;
    if (!(++w->nodes & (POLL_EVERY - 1))) poll(w);
    if (w->aborted) return 0;
    w->keys[e->base + ply] = key;
    if (king_run >= 4) { /* only king moves since then: an earlier position may be back */
        int last = e->base + ply - king_run;
        for (int i = e->base + ply - 4; i >= last && i >= 0; i -= 2)
            if (w->keys[i] == key) return draw_score(e, side);
    }
    if (e->king_limit && king_run >= e->king_limit) return draw_score(e, side);
    int rule = ending_rule(e, own, opp, kings);
    if (rule >= 0 && ending_run >= e->ending_limit[rule]) return draw_score(e, side);
    if (ply >= MAX_PLY) return leaf(e, side, own, opp, kings, rule, ending_run, ply);

    SMove moves[MAX_MOVES];
    Capture caps[MAX_CAPTURES];
    int n = generate_captures(r, side, own, opp, kings, caps, NULL);
    if (n < 0) n = MAX_CAPTURES; /* more than the core holds (never met in play): search those */
    int capture = n > 0;
    if (capture) {
        for (int i = 0; i < n; i++) {
            moves[i].from = caps[i].from;
            moves[i].to = caps[i].to;
            moves[i].captured = caps[i].captured;
            moves[i].order = popcount(caps[i].captured & kings);
        }
    } else {
        /* quiescence: quiet once the depth is spent, unless a capture is threatened, which
         * is looked at one ply more */
        if (depth < 0 || (depth == 0 && !can_capture(r, 1 - side, opp, own, kings)))
            return leaf(e, side, own, opp, kings, rule, ending_run, ply);
        n = quiet_moves(r, side, own, opp, kings, moves);
        if (!n) return ply - WIN;
    }
    int pv_node = beta - alpha > 1;

    TTEntry *t = &e->tt[key & e->tt_mask];
    uint64_t data = __atomic_load_n(&t->data, __ATOMIC_RELAXED);
    uint64_t check = __atomic_load_n(&t->check, __ATOMIC_RELAXED);
    int tt_hit = depth > 0 && (check ^ data) == key;
    if (tt_hit && !pv_node && TT_DEPTH(data) >= depth) {
        int s = TT_SCORE(data);
        if (s >= WIN_THRESHOLD) s -= ply;
        else if (s <= -WIN_THRESHOLD) s += ply;
        int bound = TT_FLAG(data) & 3;
        if (bound == BOUND_EXACT || (bound == BOUND_LOWER && s >= beta) ||
            (bound == BOUND_UPPER && s <= alpha))
            return s;
    }
    uint16_t k1 = w->killers[ply][0], k2 = w->killers[ply][1];
    for (int i = 0; i < n; i++) {
        SMove *m = &moves[i];
        uint16_t ft = from_to(m);
        if (tt_hit && ft == TT_MOVE(data) && captured_hash(m->captured) == TT_CAPTURED(data))
            m->order = 1 << 30;
        else if (!capture)
            m->order = ft == k1 ? 1 << 29
                     : ft == k2 ? 1 << 28
                                : w->history[side][ft >> 8][ft & 0xFF];
    }
    int new_depth = n > 1 ? depth - 1 : depth; /* a forced move costs no depth */
    int best = -INF, alpha0 = alpha;
    SMove best_move = moves[0];
    for (int i = 0; i < n; i++) {
        pick(moves, i, n);
        const SMove *m = &moves[i];
        Child c;
        play(e, side, own, opp, kings, key, m, king_run, ending_run, rule, &c);
        int score;
        if (i == 0) {
            score = -node(w, 1 - side, c.own, c.opp, c.kings, c.key, new_depth, -beta, -alpha,
                          ply + 1, c.king_run, c.ending_run);
        } else {
            int reduce = 0;
            if (!capture && i >= LATE_MOVE && new_depth >= 2 && m->order < (1 << 28) &&
                !(c.kings & m->to & ~kings))
                reduce = (!pv_node && i >= 8 && new_depth >= 5) ? 2 : 1;
            score = -node(w, 1 - side, c.own, c.opp, c.kings, c.key, new_depth - reduce,
                          -alpha - 1, -alpha, ply + 1, c.king_run, c.ending_run);
            if (reduce && score > alpha && !w->aborted)
                score = -node(w, 1 - side, c.own, c.opp, c.kings, c.key, new_depth, -alpha - 1,
                              -alpha, ply + 1, c.king_run, c.ending_run);
            if (score > alpha && score < beta && !w->aborted)
                score = -node(w, 1 - side, c.own, c.opp, c.kings, c.key, new_depth, -beta,
                              -alpha, ply + 1, c.king_run, c.ending_run);
        }
        if (w->aborted) return 0;
        if (score > best) {
            best = score;
            best_move = *m;
            if (score > alpha) {
                alpha = score;
                if (score >= beta) {
                    if (!capture) {
                        uint16_t ft = from_to(m);
                        int *h = &w->history[side][ft >> 8][ft & 0xFF];
                        *h += depth * depth;
                        if (*h > (1 << 26)) *h >>= 1;
                        if (w->killers[ply][0] != ft) {
                            w->killers[ply][1] = w->killers[ply][0];
                            w->killers[ply][0] = ft;
                        }
                    }
                    break;
                }
                if (pv_node) {
                    w->pv[ply][0] = *m;
                    memcpy(&w->pv[ply][1], w->pv[ply + 1], sizeof(SMove) * w->pv_len[ply + 1]);
                    w->pv_len[ply] = w->pv_len[ply + 1] + 1;
                }
            }
        }
    }
    if (depth > 0) {
        int s = best;
        if (s >= WIN_THRESHOLD) s += ply;
        else if (s <= -WIN_THRESHOLD) s -= ply;
        int bound = best >= beta ? BOUND_LOWER : best > alpha0 ? BOUND_EXACT : BOUND_UPPER;
        data = __atomic_load_n(&t->data, __ATOMIC_RELAXED);
        check = __atomic_load_n(&t->check, __ATOMIC_RELAXED);
        int old = (TT_FLAG(data) >> 2) != (e->generation & 63);
        int mine = (check ^ data) == key;
        if (mine ? depth >= TT_DEPTH(data) - 1 : (old || depth >= TT_DEPTH(data))) {
            uint64_t packed = tt_pack(s, depth, bound | (e->generation & 63) << 2,
                                      from_to(&best_move), captured_hash(best_move.captured));
            __atomic_store_n(&t->data, packed, __ATOMIC_RELAXED);
            __atomic_store_n(&t->check, key ^ packed, __ATOMIC_RELAXED);
        }
    }
    return best;
}

/* --- the root -------------------------------------------------------------------------- */

static double gaussian(uint64_t *state) {
    double u = ((splitmix(state) >> 11) + 1.0) / 9007199254740993.0;
    double v = (splitmix(state) >> 11) / 9007199254740992.0;
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

int engine_root(Engine *e, int side, bb own, bb opp, bb kings, const bb (*history)[4],
                int n_history, int king_run, int ending_run, int noise, uint64_t seed) {
    /* the table's draws were scored for the other side (see draw_score) */
    if (e->contempt && side != e->side) engine_clear(e);
    e->side = side;
    e->own = own;
    e->opp = opp;
    e->kings = kings;
    e->king_run = king_run;
    e->ending_run = ending_run;
    e->root_key = engine_key(side, own, opp, kings);
    Worker *main = e->workers[0];
    int skip = n_history > MAX_HISTORY ? n_history - MAX_HISTORY : 0;
    e->base = 0;
    for (int i = skip; i < n_history; i++)
        main->keys[e->base++] = engine_key((int)history[i][3], history[i][0], history[i][1],
                                           history[i][2]);
    const Rules *r = &e->eval.rules;
    Capture caps[MAX_CAPTURES];
    int n = generate_captures(r, side, own, opp, kings, caps, NULL);
    if (n < 0) return -1;
    if (n) {
        for (int i = 0; i < n; i++) {
            main->root[i].from = caps[i].from;
            main->root[i].to = caps[i].to;
            main->root[i].captured = caps[i].captured;
        }
    } else {
        n = quiet_moves(r, side, own, opp, kings, main->root);
    }
    e->n_root = n;
    uint64_t state = seed;
    for (int i = 0; i < n; i++) {
        main->root_bias[i] = noise ? (int)lround(gaussian(&state) * noise) : 0;
        main->root_score[i] = 0;
    }
    e->generation++;
    for (int t = 0; t < e->threads; t++) {
        Worker *w = e->workers[t];
        for (int s = 0; s < 2; s++) /* older games and moves matter less */
            for (int i = 0; i < 64; i++)
                for (int j = 0; j < 64; j++) w->history[s][i][j] >>= 2;
        memset(w->killers, 0, sizeof w->killers);
        w->nodes = 0;
        w->seldepth = 0;
    }
    __atomic_store_n(&e->stop, 0, __ATOMIC_RELAXED);
    e->have_last = 0;
    memset(&e->report, 0, sizeof e->report);
    if (n) e->report.best = main->root[0];
    return n;
}

/* One pass over the root moves in [alpha, beta]; the best score, the moves re-ordered. */
static int root_search(Worker *w, int depth, int alpha, int beta) {
    Engine *e = w->e;
    int n = e->n_root;
    int d = n > 1 ? depth - 1 : depth;
    int best = -INF;
    int rule = ending_rule(e, e->own, e->opp, e->kings);
    w->keys[e->base] = e->root_key;
    for (int i = 0; i < n; i++) w->root_score[i] = -INF;
    for (int i = 0; i < n; i++) {
        const SMove *m = &w->root[i];
        int bias = w->root_bias[i];
        Child c;
        play(e, e->side, e->own, e->opp, e->kings, e->root_key, m, e->king_run, e->ending_run,
             rule, &c);
        int score;
        if (i == 0) {
            score = -node(w, 1 - e->side, c.own, c.opp, c.kings, c.key, d, -(beta - bias),
                          -(alpha - bias), 1, c.king_run, c.ending_run) + bias;
        } else {
            score = -node(w, 1 - e->side, c.own, c.opp, c.kings, c.key, d, -(alpha - bias) - 1,
                          -(alpha - bias), 1, c.king_run, c.ending_run) + bias;
            if (score > alpha && score < beta && !w->aborted)
                score = -node(w, 1 - e->side, c.own, c.opp, c.kings, c.key, d, -(beta - bias),
                              -(alpha - bias), 1, c.king_run, c.ending_run) + bias;
        }
        if (w->aborted) break;
        w->root_score[i] = score;
        if (score > best) {
            best = score;
            if (score > alpha) {
                alpha = score;
                w->pv[0][0] = *m;
                memcpy(&w->pv[0][1], w->pv[1], sizeof(SMove) * w->pv_len[1]);
                w->pv_len[0] = w->pv_len[1] + 1;
                if (i > 0) {
                    w->improved = 1;
                    w->improved_move = *m;
                }
                if (score >= beta) break;
            }
        }
    }
    if (w->aborted) return best;
    /* the best first, then by score (stable: an insertion sort over a few dozen moves) */
    for (int i = 1; i < n; i++) {
        SMove m = w->root[i];
        int s = w->root_score[i], b = w->root_bias[i];
        int j = i - 1;
        while (j >= 0 && w->root_score[j] < s) {
            w->root[j + 1] = w->root[j];
            w->root_score[j + 1] = w->root_score[j];
            w->root_bias[j + 1] = w->root_bias[j];
            j--;
        }
        w->root[j + 1] = m;
        w->root_score[j + 1] = s;
        w->root_bias[j + 1] = b;
    }
    return best;
}

/* One iteration with aspiration windows around `last`; the score (w->aborted: stopped). */
static int aspire(Worker *w, int depth, int last, int have_last) {
    int delta = ASPIRATION;
    int alpha = -INF, beta = INF;
    if (have_last && depth >= 4 && abs(last) < WIN_THRESHOLD) {
        alpha = last - delta;
        beta = last + delta;
    }
    for (;;) {
        w->improved = 0;
        int score = root_search(w, depth, alpha, beta);
        if (w->aborted) return score;
        if (score <= alpha && alpha > -INF) {
            alpha = score - delta > -INF ? score - delta : -INF;
        } else if (score >= beta && beta < INF) {
            beta = score + delta < INF ? score + delta : INF;
        } else {
            return score;
        }
        delta *= 2;
    }
}

static void *helper(void *arg) {
    Worker *w = arg;
    Engine *e = w->e;
    aspire(w, w->depth, e->last_score, e->have_last);
    return NULL;
}

int engine_iterate(Engine *e, int depth) {
    Worker *main = e->workers[0];
    main->aborted = 0;
    if (!e->n_root) return 0;
    /* the helpers: the same root and history, every other one a ply deeper */
    int started = 0;
    for (int t = 1; t < e->threads; t++) {
        Worker *w = e->workers[t];
        memcpy(w->keys, main->keys, sizeof(uint64_t) * (size_t)e->base);
        memcpy(w->root, main->root, sizeof(SMove) * (size_t)e->n_root);
        memcpy(w->root_bias, main->root_bias, sizeof(int) * (size_t)e->n_root);
        w->aborted = 0;
        __atomic_store_n(&w->halt, 0, __ATOMIC_RELAXED);
        w->depth = depth + (t & 1) < MAX_PLY - 1 ? depth + (t & 1) : depth;
        if (pthread_create(&w->thread, NULL, helper, w) != 0) break;
        started = t;
    }
    int score = aspire(main, depth, e->last_score, e->have_last);
    for (int t = 1; t <= started; t++) __atomic_store_n(&e->workers[t]->halt, 1, __ATOMIC_RELAXED);
    for (int t = 1; t <= started; t++) pthread_join(e->workers[t]->thread, NULL);
    Report *rep = &e->report;
    rep->nodes = 0;
    for (int t = 0; t < e->threads; t++) rep->nodes += e->workers[t]->nodes;
    rep->seldepth = main->seldepth;
    if (main->aborted) {
        rep->finished = 0;
        rep->improved = main->improved;
        if (main->improved) rep->best = main->improved_move;
        return 0;
    }
    /* root_search put the best move first */
    rep->finished = 1;
    rep->improved = 0;
    rep->best = main->root[0];
    rep->score = score - main->root_bias[0]; /* the noise chose the move; report the truth */
    rep->pv_length = main->pv_len[0];
    memcpy(rep->pv, main->pv[0], sizeof(SMove) * main->pv_len[0]);
    if (!rep->pv_length || rep->pv[0].from != rep->best.from || rep->pv[0].to != rep->best.to ||
        rep->pv[0].captured != rep->best.captured) {
        rep->pv[0] = rep->best;
        rep->pv_length = 1;
    }
    e->last_score = score;
    e->have_last = 1;
    return 1;
}

const Report *engine_report(const Engine *e) { return &e->report; }
