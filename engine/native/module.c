/* damas.engine._core: the native core seen from Python (engine/native.py wraps it).
 *
 * Positions come as damas.rules bitboards (white, black, kings: ints in the layout of
 * damas.rules.bitboard) with the side to move; the rules as an int of flags (RULE_*).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "search.h"

enum { RULE_SIZE10 = 1, RULE_BACKWARDS = 2, RULE_FLYING = 4, RULE_MAXIMUM = 8, RULE_STOPS = 16 };

static int read_board(PyObject *obj, const char *name, bb *out) {
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int", name);
        return 0;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s is not a bitboard of this layout", name);
        return 0;
    }
    *out = (bb)v;
    return 1;
}

static void rules_from_flags(int flags, Rules *r) {
    r->size = flags & RULE_SIZE10 ? 10 : 8;
    r->backwards = !!(flags & RULE_BACKWARDS);
    r->flying = !!(flags & RULE_FLYING);
    r->maximum = !!(flags & RULE_MAXIMUM);
    r->stops = !!(flags & RULE_STOPS);
}

/* A position of these rules, side-relative. */
static int check_position(const Rules *r, PyObject *w, PyObject *b, PyObject *k, int turn,
                          int *side, bb *own, bb *opp, bb *kings) {
    bb white, black;
    if (!read_board(w, "white", &white) || !read_board(b, "black", &black) ||
        !read_board(k, "kings", kings))
        return 0;
    bb valid = valid_of(r);
    if ((white & black) || ((white | black) & ~valid) || (*kings & ~(white | black))) {
        PyErr_SetString(PyExc_ValueError,
                        "not a position: pieces off the board, on one square, or kings "
                        "without a piece");
        return 0;
    }
    if (turn != 0 && turn != 1) {
        PyErr_SetString(PyExc_ValueError, "turn must be 0 (White) or 1 (Black)");
        return 0;
    }
    *side = turn;
    *own = turn ? black : white;
    *opp = turn ? white : black;
    return 1;
}

/* The arguments every function takes: rules, white, black, kings, turn. */
static int read_position(PyObject *args, Rules *r, bb *own, bb *opp, bb *kings, int *side,
                         int *depth) {
    int flags, turn;
    PyObject *w, *b, *k;
    if (depth) {
        if (!PyArg_ParseTuple(args, "iOOOii", &flags, &w, &b, &k, &turn, depth)) return 0;
    } else if (!PyArg_ParseTuple(args, "iOOOi", &flags, &w, &b, &k, &turn)) {
        return 0;
    }
    rules_from_flags(flags, r);
    return check_position(r, w, b, k, turn, side, own, opp, kings);
}

static PyObject *core_perft(PyObject *self, PyObject *args) {
    (void)self;
    Rules r;
    bb own, opp, kings;
    int side, depth;
    if (!read_position(args, &r, &own, &opp, &kings, &side, &depth)) return NULL;
    if (depth < 0 || depth > 64) {
        PyErr_SetString(PyExc_ValueError, "perft depth must be 0 to 64");
        return NULL;
    }
    int overflow = 0;
    uint64_t nodes;
    Py_BEGIN_ALLOW_THREADS;
    nodes = perft(&r, side, own, opp, kings, depth, &overflow);
    Py_END_ALLOW_THREADS;
    if (overflow) {
        PyErr_SetString(PyExc_OverflowError,
                        "a position below has more captures than the native core holds");
        return NULL;
    }
    return PyLong_FromUnsignedLongLong(nodes);
}

static PyObject *squares(const uint8_t *bits, int n, int size) {
    PyObject *t = PyTuple_New(n);
    if (!t) return NULL;
    for (int i = 0; i < n; i++) {
        int index = bits[i];
        PyObject *sq = PyLong_FromLong(index - index / (size + 1) + 1);
        if (!sq) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, sq);
    }
    return t;
}

/* [(path, captured, promotion)]: Manoury squares, captured in jump order. */
static PyObject *core_moves(PyObject *self, PyObject *args) {
    (void)self;
    Rules r;
    bb own, opp, kings;
    int side;
    if (!read_position(args, &r, &own, &opp, &kings, &side, NULL)) return NULL;
    static Capture out[MAX_MOVES]; /* under the GIL: one caller at a time */
    static Route routes[MAX_CAPTURES];
    int n = legal_moves(&r, side, own, opp, kings, out, routes);
    if (n < 0) {
        PyErr_SetString(PyExc_OverflowError, "more moves than the native core holds");
        return NULL;
    }
    bb crown = crown_of(&r, side);
    PyObject *list = PyList_New(n);
    if (!list) return NULL;
    for (int i = 0; i < n; i++) {
        const Capture *c = &out[i];
        PyObject *path, *captured;
        if (c->captured) {
            path = squares(routes[i].path, routes[i].count + 1, r.size);
            captured = squares(routes[i].order, routes[i].count, r.size);
        } else {
            uint8_t ends[2] = {(uint8_t)bit_index(c->from), (uint8_t)bit_index(c->to)};
            path = squares(ends, 2, r.size);
            captured = PyTuple_New(0);
        }
        int promotion = (c->to & crown) && !(kings & c->from);
        PyObject *item = (path && captured)
                             ? Py_BuildValue("(NNO)", path, captured,
                                             promotion ? Py_True : Py_False)
                             : NULL;
        if (!item) {
            Py_XDECREF(path);
            Py_XDECREF(captured);
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

/* --- the search: a Searcher object per engine ------------------------------------------ */

static const char *FEATURE_NAMES[N_FEATURES] = {
    "man", "king", "adv1", "adv2", "adv3", "adv4", "adv5", "adv6", "adv7", "adv8",
    "centre", "edge", "guard", "balance", "mobility", "locked", "run1", "run2", "run3",
    "outpost", "locked_wing", "king_square", "king_alone", "king_mobility",
};

typedef struct {
    PyObject_HEAD Engine *engine;
    Rules rules;
    int busy; /* a thread is inside iterate(): a second one must not enter */
} Searcher;

static int searcher_init(Searcher *self, PyObject *args, PyObject *kw) {
    static char *names[] = {"rules", "tt_mb", "threads", NULL};
    int flags, tt_mb = 32, threads = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "i|ii", names, &flags, &tt_mb, &threads))
        return -1;
    if (tt_mb < 1 || tt_mb > 4096) {
        PyErr_SetString(PyExc_ValueError, "tt_mb must be 1 to 4096");
        return -1;
    }
    if (threads < 1 || threads > MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "threads must be 1 to %d", MAX_THREADS);
        return -1;
    }
    rules_from_flags(flags, &self->rules);
    engine_free(self->engine);
    self->engine = engine_new(&self->rules, (size_t)tt_mb << 20);
    if (!self->engine || engine_threads(self->engine, threads) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void searcher_dealloc(Searcher *self) {
    engine_free(self->engine);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int initialised(Searcher *self) {
    if (!self->engine) {
        PyErr_SetString(PyExc_RuntimeError, "Searcher.__init__ was not called");
        return 0;
    }
    return 1;
}

/* initialised, and no other thread inside iterate() */
static int ready(Searcher *self) {
    if (!initialised(self)) return 0;
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the searcher is searching in another thread");
        return 0;
    }
    return 1;
}

/* white, black, kings, turn of this searcher's variant, side-relative */
static int read_side(Searcher *self, PyObject *args, int *side, bb *own, bb *opp, bb *kings) {
    PyObject *w, *b, *k;
    int turn;
    if (!PyArg_ParseTuple(args, "OOOi", &w, &b, &k, &turn)) return 0;
    return check_position(&self->rules, w, b, k, turn, side, own, opp, kings);
}

static PyObject *searcher_weights(Searcher *self, PyObject *args) {
    PyObject *weights;
    int trade, chase, divisor;
    if (!ready(self)) return NULL;
    if (!PyArg_ParseTuple(args, "Oiii", &weights, &trade, &chase, &divisor)) return NULL;
    PyObject *seq = PySequence_Fast(weights, "weights must be a sequence of ints");
    if (!seq) return NULL;
    if (PySequence_Fast_GET_SIZE(seq) != N_FEATURES) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "weights must hold %d ints (FEATURES)", N_FEATURES);
        return NULL;
    }
    Eval *e = engine_eval(self->engine);
    for (int i = 0; i < N_FEATURES; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        e->w[i] = (int)v;
    }
    Py_DECREF(seq);
    if (divisor < 1) {
        PyErr_SetString(PyExc_ValueError, "the flying-ending divisor must be 1 or more");
        return NULL;
    }
    e->trade = trade;
    e->chase = chase;
    e->flying_ending_divisor = divisor;
    engine_clear(self->engine); /* scores in the table were of other weights */
    Py_RETURN_NONE;
}

/* draw_rules(king_limit, [(limit, [(kings, men, kings, men), ...]), ...], contempt=0),
 * plies and hundredths of a man */
static PyObject *searcher_draw_rules(Searcher *self, PyObject *args) {
    int king_limit, contempt = 0;
    PyObject *rules;
    if (!ready(self)) return NULL;
    if (!PyArg_ParseTuple(args, "iO|i", &king_limit, &rules, &contempt)) return NULL;
    Ending endings[MAX_ENDINGS];
    int limits[MAX_ENDINGS] = {0}, n = 0;
    PyObject *seq = PySequence_Fast(rules, "ending rules must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n_rules = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n_rules && i < MAX_ENDINGS; i++) {
        PyObject *materials;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "iO", &limits[i], &materials)) {
            Py_DECREF(seq);
            return NULL;
        }
        PyObject *m = PySequence_Fast(materials, "an ending rule's materials must be a sequence");
        if (!m) {
            Py_DECREF(seq);
            return NULL;
        }
        for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(m); j++) {
            int ka, ma, kb, mb;
            if (n >= MAX_ENDINGS ||
                !PyArg_ParseTuple(PySequence_Fast_GET_ITEM(m, j), "iiii", &ka, &ma, &kb, &mb)) {
                if (!PyErr_Occurred())
                    PyErr_Format(PyExc_ValueError, "at most %d ending materials", MAX_ENDINGS);
                Py_DECREF(m);
                Py_DECREF(seq);
                return NULL;
            }
            endings[n++] = (Ending){(uint8_t)ka, (uint8_t)ma, (uint8_t)kb, (uint8_t)mb, (int)i};
        }
        Py_DECREF(m);
    }
    Py_DECREF(seq);
    engine_draw_rules(self->engine, king_limit, endings, n, limits, contempt);
    Py_RETURN_NONE;
}

static PyObject *searcher_root(Searcher *self, PyObject *args) {
    PyObject *w, *b, *k, *history;
    int turn, king_run, ending_run, noise;
    unsigned long long seed;
    if (!ready(self)) return NULL;
    if (!PyArg_ParseTuple(args, "OOOiOiiiK", &w, &b, &k, &turn, &history, &king_run,
                          &ending_run, &noise, &seed))
        return NULL;
    int side;
    bb own, opp, kings;
    if (!check_position(&self->rules, w, b, k, turn, &side, &own, &opp, &kings)) return NULL;
    PyObject *seq = PySequence_Fast(history, "history must be a sequence of positions");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    bb(*positions)[4] = PyMem_Malloc(sizeof(bb[4]) * (n ? (size_t)n : 1));
    if (!positions) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *hw, *hb, *hk;
        int ht, hs;
        bb ho, hp, hking;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "OOOi", &hw, &hb, &hk, &ht) ||
            !check_position(&self->rules, hw, hb, hk, ht, &hs, &ho, &hp, &hking)) {
            PyMem_Free(positions);
            Py_DECREF(seq);
            return NULL;
        }
        positions[i][0] = ho;
        positions[i][1] = hp;
        positions[i][2] = hking;
        positions[i][3] = (bb)hs;
    }
    Py_DECREF(seq);
    int count = engine_root(self->engine, side, own, opp, kings, (const bb(*)[4])positions,
                            (int)n, king_run, ending_run, noise, seed);
    PyMem_Free(positions);
    if (count < 0) {
        PyErr_SetString(PyExc_OverflowError, "more root moves than the native core holds");
        return NULL;
    }
    return PyLong_FromLong(count);
}

/* one iteration without the GIL: True when it finished, False when stopped */
static PyObject *searcher_iterate(Searcher *self, PyObject *args) {
    int depth, finished;
    if (!ready(self)) return NULL;
    if (!PyArg_ParseTuple(args, "i", &depth)) return NULL;
    if (depth < 1 || depth >= MAX_PLY) {
        PyErr_Format(PyExc_ValueError, "depth must be 1 to %d", MAX_PLY - 1);
        return NULL;
    }
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS;
    finished = engine_iterate(self->engine, depth);
    Py_END_ALLOW_THREADS;
    self->busy = 0;
    return PyBool_FromLong(finished);
}

static PyObject *move_tuple(const SMove *m) {
    return Py_BuildValue("(KKK)", (unsigned long long)m->from, (unsigned long long)m->to,
                         (unsigned long long)m->captured);
}

/* (finished, score, best, improved, pv, nodes, seldepth); moves as (from, to, captured) bits */
static PyObject *searcher_report(Searcher *self, PyObject *noargs) {
    (void)noargs;
    if (!initialised(self)) return NULL;
    const Report *r = engine_report(self->engine);
    PyObject *pv = PyList_New(r->pv_length);
    if (!pv) return NULL;
    for (int i = 0; i < r->pv_length; i++) {
        PyObject *m = move_tuple(&r->pv[i]);
        if (!m) {
            Py_DECREF(pv);
            return NULL;
        }
        PyList_SET_ITEM(pv, i, m);
    }
    return Py_BuildValue("(OiNONKi)", r->finished ? Py_True : Py_False, r->score,
                         move_tuple(&r->best), r->improved ? Py_True : Py_False, pv,
                         (unsigned long long)r->nodes, r->seldepth);
}

/* limits(hard_seconds or None, max_nodes or 0): may be called while a search runs */
static PyObject *searcher_limits(Searcher *self, PyObject *args) {
    PyObject *hard;
    unsigned long long nodes;
    if (!initialised(self)) return NULL;
    if (!PyArg_ParseTuple(args, "OK", &hard, &nodes)) return NULL;
    double seconds = -1;
    if (hard != Py_None) {
        seconds = PyFloat_AsDouble(hard);
        if (seconds == -1 && PyErr_Occurred()) return NULL;
        if (seconds < 0) seconds = 0;
    }
    engine_limits(self->engine, seconds, nodes);
    Py_RETURN_NONE;
}

static PyObject *searcher_stop(Searcher *self, PyObject *noargs) {
    (void)noargs;
    if (self->engine) engine_stop(self->engine);
    Py_RETURN_NONE;
}

static PyObject *searcher_clear(Searcher *self, PyObject *noargs) {
    (void)noargs;
    if (!ready(self)) return NULL;
    engine_clear(self->engine);
    Py_RETURN_NONE;
}

static PyObject *searcher_evaluate(Searcher *self, PyObject *args) {
    int side;
    bb own, opp, kings;
    if (!ready(self) || !read_side(self, args, &side, &own, &opp, &kings)) return NULL;
    return PyLong_FromLong(evaluate(engine_eval(self->engine), side, own, opp, kings));
}

static PyObject *searcher_features(Searcher *self, PyObject *args) {
    int side, f[N_FEATURES];
    bb own, opp, kings;
    if (!ready(self) || !read_side(self, args, &side, &own, &opp, &kings)) return NULL;
    features_of(engine_eval(self->engine), side, own, opp, kings, f);
    PyObject *t = PyTuple_New(N_FEATURES);
    if (!t) return NULL;
    for (int i = 0; i < N_FEATURES; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLong(f[i]));
    return t;
}

/* set_patterns(table or None): the windows' scores, int16 little-endian, [2][windows][3^8] */
static PyObject *searcher_patterns(Searcher *self, PyObject *args) {
    PyObject *table;
    if (!ready(self)) return NULL;
    if (!PyArg_ParseTuple(args, "O", &table)) return NULL;
    Eval *e = engine_eval(self->engine);
    if (table == Py_None) {
        e->has_patterns = 0;
        engine_clear(self->engine);
        Py_RETURN_NONE;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(table, &view, PyBUF_CONTIG_RO) < 0) return NULL;
    Py_ssize_t want = (Py_ssize_t)(2 * e->n_windows * PATTERN_SIZE * sizeof(int16_t));
    if (view.len != want) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "the pattern table must hold %zd bytes, not %zd", want,
                     view.len);
        return NULL;
    }
    const unsigned char *p = view.buf;
    for (int phase = 0; phase < 2; phase++)
        for (int w = 0; w < e->n_windows; w++)
            for (int i = 0; i < PATTERN_SIZE; i++, p += 2)
                e->pattern[w][i][phase] = (int16_t)(uint16_t)(p[0] | (p[1] << 8));
    PyBuffer_Release(&view);
    e->has_patterns = 1;
    engine_clear(self->engine);
    Py_RETURN_NONE;
}

static PyObject *searcher_pattern_indices(Searcher *self, PyObject *args) {
    int side, idx[2 * MAX_WINDOWS];
    bb own, opp, kings;
    if (!ready(self) || !read_side(self, args, &side, &own, &opp, &kings)) return NULL;
    int n = pattern_indices(engine_eval(self->engine), side, own, opp, kings, idx);
    PyObject *t = PyTuple_New(n);
    if (!t) return NULL;
    for (int i = 0; i < n; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLong(idx[i]));
    return t;
}

static PyMethodDef searcher_methods[] = {
    {"set_patterns", (PyCFunction)searcher_patterns, METH_VARARGS,
     "set_patterns(table or None): the windows' scores, int16 little-endian [2][windows][3^8]"},
    {"pattern_indices", (PyCFunction)searcher_pattern_indices, METH_VARARGS,
     "pattern_indices(white, black, kings, turn) -> each window's index seen by the side "
     "to move, then by the opponent"},
    {"set_weights", (PyCFunction)searcher_weights, METH_VARARGS,
     "set_weights(weights, trade, chase, flying_ending_divisor)"},
    {"set_draw_rules", (PyCFunction)searcher_draw_rules, METH_VARARGS,
     "set_draw_rules(king_limit, [(limit, [(kings, men, kings, men)])], contempt=0): plies, "
     "and what a draw costs the side searched for, in hundredths of a man"},
    {"root", (PyCFunction)searcher_root, METH_VARARGS,
     "root(white, black, kings, turn, history, king_run, ending_run, noise, seed) -> moves"},
    {"iterate", (PyCFunction)searcher_iterate, METH_VARARGS,
     "iterate(depth) -> True when the iteration finished (runs without the GIL)"},
    {"report", (PyCFunction)searcher_report, METH_NOARGS,
     "report() -> (finished, score, best, improved, pv, nodes, seldepth)"},
    {"limits", (PyCFunction)searcher_limits, METH_VARARGS,
     "limits(hard_seconds or None, max_nodes or 0)"},
    {"stop", (PyCFunction)searcher_stop, METH_NOARGS, "stop() the running search"},
    {"clear", (PyCFunction)searcher_clear, METH_NOARGS, "clear() the table and history"},
    {"evaluate", (PyCFunction)searcher_evaluate, METH_VARARGS,
     "evaluate(white, black, kings, turn) -> score for the side to move"},
    {"features", (PyCFunction)searcher_features, METH_VARARGS,
     "features(white, black, kings, turn) -> the evaluation's terms (FEATURES)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject SearcherType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "damas.engine._core.Searcher",
    .tp_basicsize = sizeof(Searcher),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Searcher(rules, tt_mb=32, threads=1): the native search of one variant",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)searcher_init,
    .tp_dealloc = (destructor)searcher_dealloc,
    .tp_methods = searcher_methods,
};

static PyMethodDef methods[] = {
    {"perft", core_perft, METH_VARARGS,
     "perft(rules, white, black, kings, turn, depth) -> leaves of the legal-move tree"},
    {"moves", core_moves, METH_VARARGS,
     "moves(rules, white, black, kings, turn) -> [(path, captured, promotion)]"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "damas.engine._core",
    "The native core: move generation, perft, search and evaluation (engine/native/).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void) {
    pattern_tables_init();
    core_init();
    if (PyType_Ready(&SearcherType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    PyObject *names = PyTuple_New(N_FEATURES);
    if (!names) {
        Py_DECREF(m);
        return NULL;
    }
    for (int i = 0; i < N_FEATURES; i++)
        PyTuple_SET_ITEM(names, i, PyUnicode_FromString(FEATURE_NAMES[i]));
    Py_INCREF(&SearcherType);
    if (PyModule_AddObject(m, "Searcher", (PyObject *)&SearcherType) < 0 ||
        PyModule_AddObject(m, "FEATURES", names) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "RULE_SIZE10", RULE_SIZE10) < 0 ||
        PyModule_AddIntConstant(m, "RULE_BACKWARDS", RULE_BACKWARDS) < 0 ||
        PyModule_AddIntConstant(m, "RULE_FLYING", RULE_FLYING) < 0 ||
        PyModule_AddIntConstant(m, "RULE_MAXIMUM", RULE_MAXIMUM) < 0 ||
        PyModule_AddIntConstant(m, "RULE_STOPS", RULE_STOPS) < 0 ||
        PyModule_AddIntConstant(m, "MAX_MOVES", MAX_MOVES) < 0 ||
        PyModule_AddIntConstant(m, "WIN", WIN) < 0 ||
        PyModule_AddIntConstant(m, "MAX_PLY", MAX_PLY) < 0 ||
        PyModule_AddIntConstant(m, "EVAL_SCALE", EVAL_SCALE) < 0 ||
        PyModule_AddIntConstant(m, "MAX_THREADS", MAX_THREADS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
