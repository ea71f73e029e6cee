/* The solver's search compiled: the same algorithm as tablepi/analysis/solver.py (PySearch), line for line.
 *
 * Optional: tablepi works without it (the pure-Python search gives identical values, and tests check that the
 * two agree). Built at install by setup.py when a C compiler is present.
 *
 * Cards are bits 0-23 in the solver's labelling (tables.py): trumps first, strongest at the lowest bit.
 * Hands are indexed by position 0-3 in playing order from N; N+S are the even positions; values are N+S points.
 *
 * Two kinds of transposition table: keyed on the cards in play and the leader (one deal: who holds what is fixed),
 * or, with ``full``, on the four hands and the leader, so that one table serves every layout of the unseen cards
 * a single-dummy review searches (a position reached from two layouts is searched once, and so is a position that
 * differs from it only in which of two cards alike in suit and points is gone: slide_key).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* Cards in the deck, one bit each in a mask (RULES.md 3: A K Q J 10 9 in four suits; tablepi.rules.cards.DECK,
 * and tablepi.analysis.tables.CARDS on the Python side). A mask and the leader above it fit in 32 bits. */
#define CARDS 24
#define CARD_MASK ((1u << CARDS) - 1u)

typedef struct {
    uint32_t key; /* cards in play | leader << CARDS; 0 = empty slot */
    int8_t lo, hi, best;
    uint8_t pad;
} Entry;

typedef struct {
    uint32_t key[4]; /* the four hands, the leader in the top byte of key[0]; key[0] == 0: empty slot */
    int8_t lo, hi, best;
    uint8_t pad;
} FullEntry;

#define TT_BITS 19 /* the default table: 512k entries, 4 MB */
#define TT_PROBE 4

typedef struct {
    PyObject_HEAD
    uint32_t tm;              /* the trump mask */
    uint32_t suit_of_bit[CARDS]; /* mask of the suit of each bit */
    uint32_t above[CARDS];       /* stronger cards of the same suit */
    int pts[CARDS];
    uint32_t point_mask[5];   /* cards worth 0..4 points */
    Entry *tt;
    FullEntry *ftt; /* instead of tt when keyed on the full hands */
    int tt_bits;
    uint32_t h[4];
    uint32_t slides; /* for slide_key: cards that take the place of the next stronger card of their suit when it is
                      * gone and has the same points */
    uint32_t jumps;  /* ... of the card two places stronger, over a gone card of other points */
    unsigned long long nodes;
    int busy; /* values() is searching without the interpreter lock */
} Search;

/* Without a popcount instruction in the build's target, __builtin_popcount is a call into the compiler's library. */
static inline int popcount(uint32_t x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (int)((((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
}
static inline int lowbit(uint32_t x) { return __builtin_ctz(x); }
static inline int highbit(uint32_t x) { return 31 - __builtin_clz(x); }

static inline int points_of(const Search *s, uint32_t m) {
    return 4 * popcount(m & s->point_mask[4]) + 3 * popcount(m & s->point_mask[3]) +
           2 * popcount(m & s->point_mask[2]) + popcount(m & s->point_mask[1]);
}

/* Legal cards in bit order, one of each run of equivalent cards. */
static int moves_of(const Search *s, uint32_t hand, uint32_t legal, uint32_t present, int *out) {
    int n = 0;
    while (legal) {
        int b = lowbit(legal);
        legal &= legal - 1;
        uint32_t ab = present & s->above[b];
        if (ab) {
            int nb = highbit(ab);
            if (((hand >> nb) & 1) && s->pts[nb] == s->pts[b]) continue;
        }
        out[n++] = b;
    }
    return n;
}

/* Stable sort of moves by key, ascending (descending when desc). */
static void sort_moves(int *moves, int *keys, int n, int desc) {
    for (int i = 1; i < n; i++) {
        int m = moves[i], k = keys[i], j = i - 1;
        while (j >= 0 && (desc ? keys[j] < k : keys[j] > k)) {
            moves[j + 1] = moves[j];
            keys[j + 1] = keys[j];
            j--;
        }
        moves[j + 1] = m;
        keys[j + 1] = k;
    }
}

static Entry *tt_find(Search *s, uint32_t key, int create) {
    uint32_t size = 1u << s->tt_bits;
    uint32_t slot = (key * 2654435761u) >> (32 - s->tt_bits);
    for (int i = 0; i < TT_PROBE; i++) {
        Entry *e = &s->tt[(slot + i) & (size - 1)];
        if (e->key == key) return e;
        if (e->key == 0) {
            if (!create) return NULL;
            e->key = key;
            return e;
        }
    }
    if (!create) return NULL;
    Entry *e = &s->tt[(slot + TT_PROBE - 1) & (size - 1)]; /* full: replace the last probed */
    e->key = key;
    return e;
}

static FullEntry *ftt_find(Search *s, const uint32_t *key, int create) {
    uint32_t size = 1u << s->tt_bits;
    uint32_t mix = key[0] * 2654435761u ^ key[1] * 2246822519u ^ key[2] * 3266489917u ^ key[3] * 668265263u;
    uint32_t slot = (mix ^ (mix >> 15)) * 2654435761u >> (32 - s->tt_bits);
    for (int i = 0; i < TT_PROBE; i++) {
        FullEntry *e = &s->ftt[(slot + i) & (size - 1)];
        if (!memcmp(e->key, key, sizeof e->key)) return e;
        if (e->key[0] == 0) {
            if (!create) return NULL;
            memcpy(e->key, key, sizeof e->key);
            return e;
        }
    }
    if (!create) return NULL;
    FullEntry *e = &s->ftt[(slot + TT_PROBE - 1) & (size - 1)];
    memcpy(e->key, key, sizeof e->key);
    return e;
}

static int play(Search *s, int k, int pos, int alpha, int beta, uint32_t tmask, uint32_t lsm, int win, int wpos,
                int tpts);

/* The key of the position in ``h`` for the table keyed on the four hands: the hands after every card slid into the
 * place of a stronger card of its suit with the same points that is no longer in play, the cards between them gone
 * too (the ten gone, the nine takes its place; with clubs trumps the queen of clubs takes the queen of diamonds'
 * place when she and the king of clubs are gone). A position and its slid one have the same value (the same cards by
 * suit, order and points, in the same hands), so positions that differ only in which of such cards are gone share an
 * entry. A step moves a card one place (``slides``) or two (``jumps``); with this deck three steps slide every card
 * home (the three queens among the trumps are the longest run; a position slid less would still be exact, only
 * shared less). ``moved`` and ``jumped`` get the cards each step moved, to map the best lead to the key and back. */
#define SLIDE_STEPS 3
static inline void slide_key(const Search *s, const uint32_t *h, uint32_t rem, int leader, uint32_t *key,
                             uint32_t *moved, uint32_t *jumped) {
    uint32_t k0 = h[0], k1 = h[1], k2 = h[2];
    for (int i = 0; i < SLIDE_STEPS; i++) {
        uint32_t m = rem & s->slides & ~(rem << 1), j = rem & s->jumps & ~(rem << 1) & ~(rem << 2);
        moved[i] = m;
        jumped[i] = j;
        if (!(m | j)) break;
        rem ^= m | (m >> 1) | j | (j >> 2);
        k0 ^= (k0 & m) | ((k0 & m) >> 1) | (k0 & j) | ((k0 & j) >> 2);
        k1 ^= (k1 & m) | ((k1 & m) >> 1) | (k1 & j) | ((k1 & j) >> 2);
        k2 ^= (k2 & m) | ((k2 & m) >> 1) | (k2 & j) | ((k2 & j) >> 2);
    }
    key[0] = k0 | ((uint32_t)leader << CARDS);
    key[1] = k1;
    key[2] = k2;
    key[3] = rem & ~(k0 | k1 | k2);
}

static int start(Search *s, int leader, int alpha, int beta) {
    uint32_t *h = s->h;
    uint32_t rem = h[0] | h[1] | h[2] | h[3];
    if (!rem) return 0;
    uint32_t lead_hand = h[leader];
    if (!(lead_hand & (lead_hand - 1))) {
        s->nodes++;
        uint32_t lsm = s->suit_of_bit[lowbit(lead_hand)];
        uint32_t rel = rem & (s->tm | lsm);
        uint32_t w = rel & (~rel + 1);
        return ((h[0] | h[2]) & w) ? points_of(s, rem) : 0;
    }
    uint32_t key = rem | ((uint32_t)leader << CARDS);
    uint32_t fkey[4], moved[SLIDE_STEPS] = {0, 0, 0}, jumped[SLIDE_STEPS] = {0, 0, 0};
    if (s->ftt) slide_key(s, h, rem, leader, fkey, moved, jumped);
    Entry *entry = NULL;
    FullEntry *fentry = NULL;
    if (s->ftt)
        fentry = ftt_find(s, fkey, 0);
    else
        entry = tt_find(s, key, 0);
    int lo, hi, best_lead;
    if (!entry && !fentry) {
        lo = 0;
        hi = points_of(s, rem);
        best_lead = -1;
    } else if (fentry) {
        lo = fentry->lo;
        hi = fentry->hi;
        best_lead = fentry->best;
        if (lo >= beta) return lo;
        if (hi <= alpha) return hi;
        if (lo == hi) return lo;
        for (int i = SLIDE_STEPS - 1; i >= 0 && best_lead >= 0; i--) { /* the best lead from the key's places back */
            if ((moved[i] >> 1 >> best_lead) & 1)
                best_lead++;
            else if ((jumped[i] >> 2 >> best_lead) & 1)
                best_lead += 2;
        }
    } else {
        lo = entry->lo;
        hi = entry->hi;
        best_lead = entry->best;
        if (lo >= beta) return lo;
        if (hi <= alpha) return hi;
        if (lo == hi) return lo;
    }
    if (hi <= alpha) return hi;
    if (lo >= beta) return lo;
    int a = alpha > lo ? alpha : lo;
    int b = beta < hi ? beta : hi;
    s->nodes++;
    int moves[8];
    int n = moves_of(s, lead_hand, lead_hand, rem, moves);
    if (best_lead >= 0) {
        for (int i = 0; i < n; i++) {
            if (moves[i] == best_lead) {
                for (int j = i; j > 0; j--) moves[j] = moves[j - 1];
                moves[0] = best_lead;
                break;
            }
        }
    }
    int maximise = !(leader & 1);
    int best = maximise ? -1 : 99;
    int chosen = moves[0];
    int aa = a, bb = b;
    int nxt = (leader + 1) & 3;
    for (int i = 0; i < n; i++) {
        int card = moves[i];
        uint32_t bm = 1u << card;
        h[leader] = lead_hand ^ bm;
        int v = play(s, 1, nxt, aa, bb, bm, s->suit_of_bit[card], card, leader, s->pts[card]);
        h[leader] = lead_hand;
        if (maximise) {
            if (v > best) {
                best = v;
                chosen = card;
                if (v > aa) {
                    aa = v;
                    if (aa >= bb) break;
                }
            }
        } else {
            if (v < best) {
                best = v;
                chosen = card;
                if (v < bb) {
                    bb = v;
                    if (aa >= bb) break;
                }
            }
        }
    }
    if (best <= a)
        hi = best;
    else if (best >= b)
        lo = best;
    else
        lo = hi = best;
    if (s->ftt) {
        fentry = ftt_find(s, fkey, 1);
        fentry->lo = (int8_t)lo;
        fentry->hi = (int8_t)hi;
        int slid = chosen;
        for (int i = 0; i < SLIDE_STEPS; i++) {
            if ((moved[i] >> slid) & 1)
                slid--;
            else if ((jumped[i] >> slid) & 1)
                slid -= 2;
        }
        fentry->best = (int8_t)slid;
    } else {
        entry = tt_find(s, key, 1);
        entry->lo = (int8_t)lo;
        entry->hi = (int8_t)hi;
        entry->best = (int8_t)chosen;
    }
    return best;
}

static int play(Search *s, int k, int pos, int alpha, int beta, uint32_t tmask, uint32_t lsm, int win, int wpos,
                int tpts) {
    uint32_t *h = s->h;
    s->nodes++;
    uint32_t hand = h[pos];
    uint32_t rel = s->tm | lsm;
    uint32_t legal;
    if (lsm == s->tm) {
        legal = hand & s->tm;
        if (!legal) legal = hand;
    } else {
        uint32_t follow = hand & lsm;
        legal = follow ? (follow | (hand & s->tm)) : hand;
    }
    uint32_t present = h[0] | h[1] | h[2] | h[3] | tmask;
    int moves[8], keys[8];
    int n = moves_of(s, hand, legal, present, moves);
    int partner_wins = !((wpos ^ pos) & 1);
    if (n > 1) {
        for (int i = 0; i < n; i++) {
            int b = moves[i];
            int beats = b < win && ((rel >> b) & 1);
            if (k == 3) {
                int taken = tpts + s->pts[b];
                keys[i] = (partner_wins || beats) ? taken : -taken;
            } else if (partner_wins) {
                keys[i] = beats * 100 - s->pts[b];
            } else {
                keys[i] = beats ? -b : 10000 + s->pts[b] * 100 - b;
            }
        }
        sort_moves(moves, keys, n, k == 3);
    }
    int maximise = !(pos & 1);
    int best = maximise ? -1 : 99;
    for (int i = 0; i < n; i++) {
        int card = moves[i];
        uint32_t bm = 1u << card;
        h[pos] = hand ^ bm;
        int nwin, nwpos;
        if (card < win && ((rel >> card) & 1)) {
            nwin = card;
            nwpos = pos;
        } else {
            nwin = win;
            nwpos = wpos;
        }
        int v;
        if (k == 3) {
            int ns = (nwpos & 1) ? 0 : tpts + s->pts[card];
            v = ns + start(s, nwpos, alpha - ns, beta - ns);
        } else {
            v = play(s, k + 1, (pos + 1) & 3, alpha, beta, tmask | bm, lsm, nwin, nwpos, tpts + s->pts[card]);
        }
        h[pos] = hand;
        if (maximise) {
            if (v > best) {
                best = v;
                if (v > alpha) {
                    alpha = v;
                    if (alpha >= beta) break;
                }
            }
        } else {
            if (v < best) {
                best = v;
                if (v < beta) {
                    beta = v;
                    if (alpha >= beta) break;
                }
            }
        }
    }
    return best;
}

/* ---------------------------------------------------------------- the Python type */

static int Search_init(Search *self, PyObject *args, PyObject *kwds) {
    PyObject *masks, *points;
    int bits = TT_BITS, full = 0;
    static char *kwlist[] = {"suit_masks", "points", "bits", "full", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|ip", kwlist, &masks, &points, &bits, &full)) return -1;
    if (bits < 8 || bits > 24) {
        PyErr_SetString(PyExc_ValueError, "table bits must be 8-24");
        return -1;
    }
    uint32_t sm[4];
    for (int i = 0; i < 4; i++) {
        PyObject *item = PySequence_GetItem(masks, i);
        if (!item) return -1;
        sm[i] = (uint32_t)PyLong_AsUnsignedLong(item);
        Py_DECREF(item);
    }
    if (PyErr_Occurred()) return -1;
    memset(self->point_mask, 0, sizeof self->point_mask);
    for (int b = 0; b < CARDS; b++) {
        PyObject *item = PySequence_GetItem(points, b);
        if (!item) return -1;
        long p = PyLong_AsLong(item);
        Py_DECREF(item);
        if (p < 0 || p > 4) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "card points must be 0-4");
            return -1;
        }
        self->pts[b] = (int)p;
        self->point_mask[p] |= 1u << b;
    }
    self->tm = sm[0];
    self->slides = self->jumps = 0;
    for (int b = 0; b < CARDS; b++) {
        uint32_t bit = 1u << b;
        uint32_t suit = 0;
        for (int i = 0; i < 4; i++)
            if (sm[i] & bit) suit = sm[i];
        self->suit_of_bit[b] = suit;
        self->above[b] = suit & (bit - 1);
        if (b && ((suit >> (b - 1)) & 1) && self->pts[b - 1] == self->pts[b]) self->slides |= bit;
        if (b > 1 && ((suit >> (b - 2)) & 1) && self->pts[b - 2] == self->pts[b] && self->pts[b - 1] != self->pts[b])
            self->jumps |= bit;
    }
    PyMem_Free(self->tt);
    PyMem_Free(self->ftt);
    self->tt = NULL;
    self->ftt = NULL;
    self->tt_bits = bits;
    if (full)
        self->ftt = PyMem_Calloc((size_t)1 << bits, sizeof(FullEntry));
    else
        self->tt = PyMem_Calloc((size_t)1 << bits, sizeof(Entry));
    if (!self->tt && !self->ftt) {
        PyErr_NoMemory();
        return -1;
    }
    self->nodes = 0;
    return 0;
}

static void Search_dealloc(Search *self) {
    PyMem_Free(self->tt);
    PyMem_Free(self->ftt);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Search_search(Search *self, PyObject *args) {
    PyObject *hands, *trick;
    int leader, alpha, beta;
    if (!PyArg_ParseTuple(args, "OiOii", &hands, &leader, &trick, &alpha, &beta)) return NULL;
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this search is already running in another thread");
        return NULL;
    }
    if (leader < 0 || leader > 3) {
        PyErr_SetString(PyExc_ValueError, "leader must be a position 0-3");
        return NULL;
    }
    for (int i = 0; i < 4; i++) {
        PyObject *item = PySequence_GetItem(hands, i);
        if (!item) return NULL;
        self->h[i] = (uint32_t)PyLong_AsUnsignedLong(item) & CARD_MASK;
        Py_DECREF(item);
    }
    Py_ssize_t n = PySequence_Size(trick);
    if (n < 0 || n > 3) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a trick in progress has 0-3 cards");
        return NULL;
    }
    int bits[3];
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_GetItem(trick, i);
        if (!item) return NULL;
        bits[i] = (int)PyLong_AsLong(item);
        Py_DECREF(item);
        if (bits[i] < 0 || bits[i] > 23) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a card bit is 0-23");
            return NULL;
        }
    }
    if (PyErr_Occurred()) return NULL;
    int v;
    if (n == 0) {
        v = start(self, leader, alpha, beta);
    } else {
        uint32_t lsm = self->suit_of_bit[bits[0]];
        uint32_t rel = self->tm | lsm;
        uint32_t tmask = 0;
        int tpts = 0, win = 99, wpos = leader, pos = leader;
        for (int i = 0; i < n; i++) {
            int b = bits[i];
            tmask |= 1u << b;
            tpts += self->pts[b];
            if (b < win && ((rel >> b) & 1)) {
                win = b;
                wpos = pos;
            }
            pos = (pos + 1) & 3;
        }
        v = play(self, (int)n, pos, alpha, beta, tmask, lsm, win, wpos, tpts);
    }
    return PyLong_FromLong(v);
}

/* The value of the player at ``pos`` playing ``card`` as card ``k`` (0-3) of the trick: fail-soft, like play(). */
static int child(Search *s, int k, int pos, int card, int alpha, int beta, uint32_t tmask, uint32_t lsm, int win,
                 int wpos, int tpts) {
    uint32_t *h = s->h;
    uint32_t hand = h[pos];
    uint32_t bm = 1u << card;
    if (k == 0) lsm = s->suit_of_bit[card];
    uint32_t rel = s->tm | lsm;
    int nwin = win, nwpos = wpos;
    if (card < win && ((rel >> card) & 1)) {
        nwin = card;
        nwpos = pos;
    }
    h[pos] = hand ^ bm;
    int v;
    if (k == 3) {
        int ns = (nwpos & 1) ? 0 : tpts + s->pts[card];
        v = ns + start(s, nwpos, alpha - ns, beta - ns);
    } else {
        v = play(s, k + 1, (pos + 1) & 3, alpha, beta, tmask | bm, lsm, nwin, nwpos, tpts + s->pts[card]);
    }
    h[pos] = hand;
    return v;
}

static int read_mask(PyObject *seq, Py_ssize_t i, uint32_t *out) {
    PyObject *item = PySequence_GetItem(seq, i);
    if (!item) return -1;
    unsigned long v = PyLong_AsUnsignedLong(item);
    Py_DECREF(item);
    if (PyErr_Occurred()) return -1;
    *out = (uint32_t)v & CARD_MASK;
    return 0;
}

/* values(layouts, leader, trick, cards, guesses): for each layout (four hands by position) and each card of the
 * player to move, the exact N+S points from the position after that card (the trick's points included), by
 * MTD(f) from the guess for that card; returns the values layout by layout. The table is shared by all. The
 * arguments are read and checked first; the search itself runs without the interpreter lock, so searches of their
 * own (each with its table) can judge other layouts on other cores at the same time. One search is never used by
 * two threads at once: a second call while one runs is refused. */
static PyObject *Search_values(Search *self, PyObject *args) {
    PyObject *layouts, *trick, *cards, *guesses;
    int leader;
    if (!PyArg_ParseTuple(args, "OiOOO", &layouts, &leader, &trick, &cards, &guesses)) return NULL;
    if (leader < 0 || leader > 3) {
        PyErr_SetString(PyExc_ValueError, "leader must be a position 0-3");
        return NULL;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this search is already running in another thread");
        return NULL;
    }
    Py_ssize_t n = PySequence_Size(trick), nc = PySequence_Size(cards), nl = PySequence_Size(layouts);
    if (n < 0 || nc < 0 || nl < 0) return NULL;
    if (n > 3 || nc > 8 || PySequence_Size(guesses) != nc) {
        PyErr_SetString(PyExc_ValueError, "a trick in progress has 0-3 cards, a hand at most 8, one guess a card");
        return NULL;
    }
    uint32_t bits[3], cbits[8];
    int guess[8];
    for (Py_ssize_t i = 0; i < n; i++)
        if (read_mask(trick, i, &bits[i])) return NULL;
    for (Py_ssize_t i = 0; i < nc; i++) {
        uint32_t g;
        if (read_mask(cards, i, &cbits[i]) || read_mask(guesses, i, &g)) return NULL;
        guess[i] = (int)g;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (bits[i] > 23) goto bad_bit;
    for (Py_ssize_t i = 0; i < nc; i++)
        if (cbits[i] > 23) goto bad_bit;
    uint32_t lsm = n ? self->suit_of_bit[bits[0]] : 0;
    uint32_t rel = self->tm | lsm;
    uint32_t tmask = 0;
    int tpts = 0, win = 99, wpos = leader, pos = leader;
    for (Py_ssize_t i = 0; i < n; i++) {
        int b = (int)bits[i];
        tmask |= 1u << b;
        tpts += self->pts[b];
        if (b < win && ((rel >> b) & 1)) {
            win = b;
            wpos = pos;
        }
        pos = (pos + 1) & 3;
    }
    uint32_t *hands = PyMem_Malloc(sizeof(uint32_t) * 4 * (size_t)(nl ? nl : 1));
    int *found = PyMem_Malloc(sizeof(int) * (size_t)(nl * nc > 0 ? nl * nc : 1));
    PyObject *out = NULL;
    if (!hands || !found) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t l = 0; l < nl; l++) {
        uint32_t *hh = hands + 4 * l;
        PyObject *layout = PySequence_GetItem(layouts, l);
        if (!layout) goto done;
        int err = 0;
        for (int i = 0; i < 4 && !err; i++) err = read_mask(layout, i, &hh[i]);
        Py_DECREF(layout);
        if (err) goto done;
        uint32_t all = hh[0] | hh[1] | hh[2] | hh[3];
        if ((hh[0] & hh[1]) || ((hh[0] | hh[1]) & hh[2]) || ((hh[0] | hh[1] | hh[2]) & hh[3]) || (all & tmask)) {
            PyErr_SetString(PyExc_ValueError, "a card is in two hands");
            goto done;
        }
        for (Py_ssize_t c = 0; c < nc; c++) {
            if (!((hh[pos] >> cbits[c]) & 1)) {
                PyErr_SetString(PyExc_ValueError, "a card to judge is not in the hand of the player to move");
                goto done;
            }
        }
    }
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t l = 0; l < nl; l++) {
        memcpy(self->h, hands + 4 * l, sizeof self->h);
        int total = points_of(self, self->h[0] | self->h[1] | self->h[2] | self->h[3]) + tpts;
        for (Py_ssize_t c = 0; c < nc; c++) {
            int lower = 0, upper = total;
            int g = guess[c] < total ? guess[c] : total;
            while (lower < upper) {
                int beta = g > lower ? g : lower + 1;
                g = child(self, (int)n, pos, (int)cbits[c], beta - 1, beta, tmask, lsm, win, wpos, tpts);
                if (g < beta)
                    upper = g;
                else
                    lower = g;
            }
            guess[c] = g;
            found[l * nc + c] = g;
        }
    }
    Py_END_ALLOW_THREADS
    self->busy = 0;
    out = PyList_New(nl * nc);
    if (!out) goto done;
    for (Py_ssize_t i = 0; i < nl * nc; i++) {
        PyObject *v = PyLong_FromLong(found[i]);
        if (!v) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, i, v);
    }
done:
    PyMem_Free(hands);
    PyMem_Free(found);
    return out;
bad_bit:
    PyErr_SetString(PyExc_ValueError, "a card bit is 0-23");
    return NULL;
}

static PyObject *Search_get_nodes(Search *self, void *closure) { return PyLong_FromUnsignedLongLong(self->nodes); }

static int Search_set_nodes(Search *self, PyObject *value, void *closure) {
    if (!value) {
        PyErr_SetString(PyExc_TypeError, "cannot delete nodes");
        return -1;
    }
    unsigned long long n = PyLong_AsUnsignedLongLong(value);
    if (PyErr_Occurred()) return -1;
    self->nodes = n;
    return 0;
}

static PyMethodDef Search_methods[] = {
    {"search", (PyCFunction)Search_search, METH_VARARGS,
     "search(hands, leader, trick, alpha, beta) -> N+S points (fail-soft alpha-beta)"},
    {"values", (PyCFunction)Search_values, METH_VARARGS,
     "values(layouts, leader, trick, cards, guesses) -> exact N+S points after each card in each layout"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Search_getset[] = {
    {"nodes", (getter)Search_get_nodes, (setter)Search_set_nodes, "positions searched", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tablepi.analysis._kernel.Search",
    .tp_basicsize = sizeof(Search),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Search(suit_masks, points, bits=19, full=False): the compiled search in one trump suit, with a "
              "transposition table of 2**bits entries (full: keyed on the four hands, for many layouts)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Search_init,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_methods = Search_methods,
    .tp_getset = Search_getset,
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, "_kernel", "The compiled search of tablepi.analysis (optional).", -1, NULL,
};

PyMODINIT_FUNC PyInit__kernel(void) {
    if (PyType_Ready(&SearchType) < 0) return NULL;
    PyObject *m = PyModule_Create(&kernel_module);
    if (!m) return NULL;
    Py_INCREF(&SearchType);
    if (PyModule_AddObject(m, "Search", (PyObject *)&SearchType) < 0) {
        Py_DECREF(&SearchType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
