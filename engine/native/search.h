/* The native search and evaluation (search.c, eval.c) on the move generator of core.h.
 *
 * Scores are in hundredths of a man for the side to move. A side with no legal move has
 * lost: -WIN + its distance in plies from the root, so a nearer win scores higher.
 */
#ifndef DAMAS_SEARCH_H
#define DAMAS_SEARCH_H

#include "core.h"

#define MAX_PLY 128
#define WIN 10000
#define WIN_THRESHOLD (WIN - MAX_PLY)
#define INF 32000
#define LOST 9500 /* a leaf whose side to move has no man that can step and no king */
#define MAX_HISTORY 512 /* game positions before the root that a repetition can reach */
#define MAX_ENDINGS 16

/* The evaluation's linear terms, each "own minus opponent's", in this order. The weights
 * are in sixteenths of a hundredth of a man (a man is 1600), so small terms keep their
 * precision; features_of() gives the terms of a position for tuning. */
enum {
    F_MAN, F_KING,
    F_ADV1, F_ADV2, F_ADV3, F_ADV4, F_ADV5, F_ADV6, F_ADV7, F_ADV8, /* men by rows advanced */
    F_CENTRE,      /* men: columns closer to the middle, summed */
    F_EDGE,        /* men on the left or right edge */
    F_GUARD,       /* men on the back-row guard squares times the opponent's men */
    F_BALANCE,     /* |men on the left half - men on the right half| */
    F_MOBILITY,    /* free forward steps of the men */
    F_LOCKED,      /* men that cannot step forward */
    F_RUN1, F_RUN2, F_RUN3, /* men with a free way to the crown, 1-3 rows to go, no king against */
    F_OUTPOST,     /* men in the opponent's half held from both squares behind */
    F_LOCKED_WING, /* wings holding men of which none can step */
    F_KING_SQUARE, /* kings on the long diagonal (flying) or steps from the edge (short) */
    F_KING_ALONE,  /* having kings when the opponent has none */
    F_KING_MOBILITY, /* squares the kings reach with a quiet move */
    N_FEATURES
};
#define EVAL_SCALE 16

/* Patterns: the men on each 4x4 window of the board (8 playing squares; 16 windows on
 * 10x10, 9 on 8x8, overlapping by half) index a table of scores learned from a strong
 * engine's evaluations (`damas train engine --teacher`). Each square is empty (kings
 * count as empty here), the viewing side's man or the other's: 3^8 entries a window.
 * Each side sees the board turned so that it plays up; the score is the side to move's
 * view minus the opponent's. Two tables, blended by the men on the board: one for a
 * full board, one for a board without men. */
#define MAX_WINDOWS 16
#define PATTERN_SIZE 6561

/* Everything an evaluation needs: the weights and the variant's tables. */
typedef struct {
    Rules rules;
    int w[N_FEATURES];
    int trade;   /* the lead times trade / (pieces + 4) is added: the side ahead trades */
    int chase;   /* one-square kings, 8 pieces or fewer: per step from the lead's kings to
                    the nearest piece they hunt */
    int flying_ending_divisor; /* flying kings, <= 3 pieces against a king: the score shrinks */
    bb rows[2][10];  /* per side: the squares that many rows from its back row */
    bb ring[5];      /* ring[k]: columns at least k from the edge (centre) */
    bb king_ring[5]; /* king_ring[k]: at least k steps from every edge */
    bb long_diagonal, edges, left, right;
    bb guard[2], zone[2], half[2]; /* guard squares; 1-3 rows from crowning; opponent's half */
    bb cone[2][64];  /* squares in front of a man, up to the crown row */
    int to_go[2][64];
    int row[64], col[64];
    int total_men;
    int n_windows;
    int window_shift[MAX_WINDOWS][4]; /* each window row's first bit (its 2 squares follow) */
    int has_patterns;
    /* [window][index][full board, bare board], in 1/EVAL_SCALE hundredths of a man */
    int16_t pattern[MAX_WINDOWS][PATTERN_SIZE][2];
} Eval;

/* once, before any evaluation (the module's import): the windows' shared index tables */
void pattern_tables_init(void);
void eval_init(Eval *e, const Rules *r);
int evaluate(const Eval *e, int side, bb own, bb opp, bb kings);
void features_of(const Eval *e, int side, bb own, bb opp, bb kings, int f[N_FEATURES]);
/* the window indices of a position, seen by the side to move, then by the opponent
 * (returns 2 * n_windows) */
int pattern_indices(const Eval *e, int side, bb own, bb opp, bb kings,
                    int idx[2 * MAX_WINDOWS]);

/* A move in the search: squares as bits. */
typedef struct {
    bb from, to, captured;
    int order;
} SMove;

/* A table entry: `data` packs the score (16 bits), depth (8), bound and generation (8),
 * the best move's from and to bits (8 + 8) and a hash of its captured set (16, which
 * tells captures with one end apart); `check` is key ^ data, so an entry two threads
 * wrote at once fails the check instead of passing for another position's. */
typedef struct {
    uint64_t check, data;
} TTEntry;
#define MAX_THREADS 16

/* A material the draw rules end after `limit` plies: kings and men of either side. */
typedef struct {
    uint8_t kings_a, men_a, kings_b, men_b;
    int rule; /* index into ending_limit */
} Ending;

typedef struct Engine Engine;

Engine *engine_new(const Rules *r, size_t tt_bytes);
/* search with this many threads (1 to MAX_THREADS; lazy SMP: the others fill the table);
 * 0 on success, -1 out of memory */
int engine_threads(Engine *e, int threads);
void engine_free(Engine *e);
Eval *engine_eval(Engine *e);
void engine_clear(Engine *e);
/* the draw rules: king moves without capture in a row (plies, 0: none) and endings; and
 * the contempt, what a draw costs the side the search plays for (hundredths of a man) */
void engine_draw_rules(Engine *e, int king_limit, const Ending *endings, int n_endings,
                       const int *limits, int contempt);
/* A new root. `history` holds the keys' positions (side-relative, as own/opp/kings/side)
 * played since the last man move or capture, oldest first; `king_run` the plies of king
 * moves without capture before the root, `ending_run` the plies in the root's drawing
 * ending. Root moves get a random offset of spread `noise` (seeded). The count of root
 * moves, or -1 on overflow. */
int engine_root(Engine *e, int side, bb own, bb opp, bb kings, const bb (*history)[4],
                int n_history, int king_run, int ending_run, int noise, uint64_t seed);
/* one iteration to `depth`; 1 when finished, 0 when stopped */
int engine_iterate(Engine *e, int depth);
void engine_stop(Engine *e);
void engine_limits(Engine *e, double hard_seconds, uint64_t max_nodes);

/* What an iteration found: the best move, its score, the line. */
typedef struct {
    int score, finished;
    SMove best;
    int improved; /* an unfinished iteration found a better move than the last one */
    SMove pv[MAX_PLY];
    int pv_length;
    uint64_t nodes;
    int seldepth;
} Report;
const Report *engine_report(const Engine *e);
uint64_t engine_key(int side, bb own, bb opp, bb kings);

#endif
