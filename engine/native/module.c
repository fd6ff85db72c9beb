/* damas.engine._core: the native core seen from Python (engine/native.py wraps it).
 *
 * Positions come as damas.rules bitboards (white, black, kings: ints in the layout of
 * damas.rules.bitboard) with the side to move; the rules as an int of flags (RULE_*).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core.h"

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
    bb white, black;
    if (!read_board(w, "white", &white) || !read_board(b, "black", &black) ||
        !read_board(k, "kings", kings))
        return 0;
    r->size = flags & RULE_SIZE10 ? 10 : 8;
    r->backwards = !!(flags & RULE_BACKWARDS);
    r->flying = !!(flags & RULE_FLYING);
    r->maximum = !!(flags & RULE_MAXIMUM);
    r->stops = !!(flags & RULE_STOPS);
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

static PyMethodDef methods[] = {
    {"perft", core_perft, METH_VARARGS,
     "perft(rules, white, black, kings, turn, depth) -> leaves of the legal-move tree"},
    {"moves", core_moves, METH_VARARGS,
     "moves(rules, white, black, kings, turn) -> [(path, captured, promotion)]"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "damas.engine._core",
    "The native core: bitboard move generation and perft (engine/native/).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void) {
    core_init();
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddIntConstant(m, "RULE_SIZE10", RULE_SIZE10) < 0 ||
        PyModule_AddIntConstant(m, "RULE_BACKWARDS", RULE_BACKWARDS) < 0 ||
        PyModule_AddIntConstant(m, "RULE_FLYING", RULE_FLYING) < 0 ||
        PyModule_AddIntConstant(m, "RULE_MAXIMUM", RULE_MAXIMUM) < 0 ||
        PyModule_AddIntConstant(m, "RULE_STOPS", RULE_STOPS) < 0 ||
        PyModule_AddIntConstant(m, "MAX_MOVES", MAX_MOVES) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
