/*
 * Single-step generation: the search state, the per-row facts fixed during a turn, the
 * search context, and the rules of one step (RULES.md section 8) as bit-mask operations.
 *
 * A state is the packed row (mover's seat) plus
 *   mm      : bit p set when the mover has a checker on point p (1..24) or the bar (25);
 *   k0, k1  : an exact 128-bit key of the state *within one turn* (hashed searches only).
 *             Only the mover's checkers and the opponent blots he hits change during a
 *             turn, so k0 = 4-bit counts of points 1..16, k1 = counts of points 17..25
 *             (bits 0..35) | hit mask of points 1..24 (bits 36..59) | a code in bits 60..63
 *             (dice left, or a search's own tag).
 * The legal steps with a die are the bits of tw_candidates (from-points), in the reference
 * engine's order when read from the highest bit down; tw_apply makes one.
 */
#ifndef TW_STEP_H
#define TW_STEP_H

#include <stddef.h>
#include "tw_params.h"
#include "tw_board.h"
#include "tw_memory.h"

typedef struct {
    uint8_t b[64];   /* the packed row (bytes 56..63 zero) */
    uint32_t mm;     /* mover occupancy, bits 1..25 */
    uint32_t pad;
    uint64_t k0, k1; /* exact key within the turn (without the code) */
} tw_state;

typedef struct {
    uint32_t land;       /* HIT/BLOCK: landable points (bits 1..24), fixed during the turn */
    uint32_t opp_zero;   /* PIN: points without opponent checkers */
    uint32_t opp_one;    /* PIN: points with exactly one opponent checker */
    uint32_t pinned_me;  /* points (bits 1..24) where the mover's checker is pinned */
    uint32_t wall_bad;   /* wall rule: window starts (bit q-1) that would make an illegal wall */
    int bear_extra;      /* 4.3: no pinned checker of the mover (fixed during the turn) */
    int wall_ok_always;  /* opponent has borne off: every wall is legal */
    int wall_live;       /* an illegal wall can arise within 4 steps from this row */
    int x24;             /* opponent's own point 24 in the mover's numbering */
} tw_rowinfo;

/* a recorded sequence (canonical sequences, finals of a turn) or a short leaf (expansion) */
typedef struct {
    uint8_t row[TW_W];
    uint8_t nsteps, ended, first_die, pad;
    tw_step steps[4];
} tw_rec;

typedef struct {
    const tw_params *P;
    tw_geo geo;
    tw_rowinfo ri;
    int dv[2];        /* distinct dice, high first (dv[1] = 0 for a double) */
    int ndice;        /* 2 or 4 */
    tw_set set;
    /* expansion output: children rows (flipped), appended */
    uint8_t *out; size_t nout, capout, outbytes;
    int oom;
    int full;         /* a full-length (or game-ending) sequence was found for this row/roll */
    int canon;        /* the hash-free paths are exact for these rules (tw_canon_ok) */
    const uint8_t *root_row;  /* the row being expanded */
    /* records: every leaf (canonical sequences), the finals of a turn, or short leaves */
    tw_rec *rec; size_t nrec, caprec;
    int short_best;
    tw_step path[4];
} tw_ctx;

int tw_ctx_init(tw_ctx *c, const tw_params *P);
void tw_ctx_free(tw_ctx *c);
int tw_canon_ok(const tw_params *P);
void tw_rowinfo_init(const tw_params *P, tw_rowinfo *ri, const uint8_t *b);
void tw_state_from_row(tw_state *s, const uint8_t *row);
/* the key of a state from its row; root: the turn's first row (for the hit mask) or NULL */
void tw_state_key(tw_state *s, const uint8_t *root);
int tw_rec_reserve(tw_ctx *c);

/* the children buffer: c->out (c->outbytes bytes mapped, c->capout rows usable; 64 bytes of
   slack for 64-byte stores) */
int tw_out_grow(tw_ctx *c, size_t need);
int tw_out_reserve_total(tw_ctx *c, size_t rows);
void tw_out_adopt(tw_ctx *c, void *p, size_t nbytes);
void tw_out_trim(tw_ctx *c);
void tw_out_free(tw_ctx *c);
void tw_emit_row(tw_ctx *c, const uint8_t *row);  /* append `row` (mover's seat), flipped */
TW_INLINE int tw_out_reserve(tw_ctx *c, size_t more) {
    if (TW_LIKELY(c->nout + more <= c->capout)) return 1;
    return tw_out_grow(c, c->nout + more);
}

/* key deltas per point 0..25 (0 = off, not in the key) */
#define TW_T26(F) F(0), F(1), F(2), F(3), F(4), F(5), F(6), F(7), F(8), F(9), F(10), F(11), F(12), \
    F(13), F(14), F(15), F(16), F(17), F(18), F(19), F(20), F(21), F(22), F(23), F(24), F(25)
#define TW_NIB0_(p) ((p) >= 1 && (p) <= 16 ? (uint64_t)1 << ((4 * (p) - 4) & 63) : 0)
#define TW_NIB1_(p) ((p) >= 17 ? (uint64_t)1 << ((4 * (p) - 68) & 63) : 0)
#define TW_HITB_(p) ((p) >= 1 && (p) <= 24 ? (uint64_t)1 << ((36 + (p) - 1) & 63) : 0)
static const uint64_t TW_NIB0[26] = {TW_T26(TW_NIB0_)};
static const uint64_t TW_NIB1[26] = {TW_T26(TW_NIB1_)};
static const uint64_t TW_HITB[26] = {TW_T26(TW_HITB_)};

#define TW_CODE(x) ((uint64_t)(x) << 60)

/* RULES.md 1.4 len' (D17): the dice a sequence counts for the maximum-dice rule */
TW_INLINE int tw_dice_counted(int ended, int off, int steps, int n_dice) {
    return ended && off < 15 ? n_dice : steps;
}

/* wall rule on the mover occupancy mm after a step: 1 = fine (6.5) */
TW_INLINE int tw_walls_ok(const tw_ctx *c, uint32_t mm) {
    uint32_t o, m6;
    if (!c->ri.wall_live) return 1;
    o = tw_map_mask(mm & TW_BITS_1_24, c->P->same) >> 1;  /* bit q-1 */
    m6 = o & (o >> 1) & (o >> 2) & (o >> 3) & (o >> 4) & (o >> 5);
    return (m6 & c->ri.wall_bad) == 0;
}

/* The from-points (bits) that have a legal single step with die d (RULES.md 8). */
TW_INLINE uint32_t tw_candidates(const tw_ctx *c, const tw_state *s, int d) {
    const tw_params *P = c->P;
    uint32_t src, land, res;
    if (s->b[25]) {
        src = 1u << 25;  /* 2.1: enter from the bar first */
    } else {
        src = s->mm & TW_BITS_1_24 & ~c->ri.pinned_me;
        if (P->start_lock && s->b[0] == 0 && !(s->mm & ((2u << P->start_lock) - 2u)) && s->b[24] < 15)
            src &= ~(1u << 24);  /* 5.3 / 6.3 runner lock */
    }
    if (P->contact == TW_PIN)
        land = (c->ri.opp_zero | (s->mm & ~c->ri.pinned_me) | (c->ri.opp_one & ~s->mm)) & TW_BITS_1_24;
    else
        land = c->ri.land;
    res = src & (land << d);
    /* 1.5 bearing off */
    if (!(s->mm & TW_BITS_7_25) && c->ri.bear_extra && s->mm
        && !(P->bearoff_no_opponent_in_home && (tw_load64(s->b + 26) & 0x00FFFFFFFFFFFF00ULL))) {
        int h = tw_hibit(s->mm);
        if (h >= d) res |= src & (1u << d);  /* exact */
        else res |= src & (1u << h);         /* the highest checker, die larger */
    }
    return res;
}

/* tw_candidates with the post-step check (wall rule, 6.5) applied */
TW_INLINE uint32_t tw_legal_mask(const tw_ctx *c, const tw_state *s, int d) {
    uint32_t cand = tw_candidates(c, s, d), res, m;
    if (!c->P->wall_rule || !cand || !c->ri.wall_live) return cand;
    res = cand;
    m = cand;
    while (m) {
        int p = tw_hibit(m), t = p - d;
        uint32_t nm = s->mm;
        m &= ~(1u << p);
        if (s->b[p] == 1) nm &= ~(1u << p);
        if (t > 0) nm |= 1u << t;
        if (!tw_walls_ok(c, nm)) res &= ~(1u << p);
    }
    return res;
}

/* Apply the step from p to t (0 off) to s, into n (key included). Returns the hit flag (hit
   or pin). */
TW_INLINE int tw_apply(const tw_ctx *c, const tw_state *s, tw_state *n, int p, int t) {
    int hit = 0;
    *n = *s;
    if (--n->b[p] == 0) n->mm &= ~(1u << p);
    n->k0 -= TW_NIB0[p]; n->k1 -= TW_NIB1[p];
    if (t <= 0) {
        n->b[0]++;
    } else {
        if (c->P->contact != TW_BLOCK && n->b[26 + t] == 1 && n->b[t] == 0) {
            hit = 1;
            if (c->P->contact == TW_HIT) { n->b[26 + t] = 0; n->b[51]++; n->k1 |= TW_HITB[t]; }
        }
        n->b[t]++; n->mm |= 1u << t;
        n->k0 += TW_NIB0[t]; n->k1 += TW_NIB1[t];
    }
    return hit;
}

/* Did the step just made end the game (15th off, 5.6 quadrant lock, 4.4 mother rule)? */
TW_INLINE int tw_ended(const tw_ctx *c, const tw_state *n) {
    const tw_params *P = c->P;
    if (n->b[0] == 15) return 1;
    if (P->quadrant_lock_win && (n->mm & TW_BITS_19_24) == TW_BITS_19_24) return 1;
    if (P->mother_plakoto) {
        int x = c->ri.x24;
        int mp_x = n->b[26 + x] == 1 && n->b[x] > 0 && !(c->ri.pinned_me >> x & 1u);
        int mp_y = n->b[24] == 1 && (c->ri.pinned_me >> 24 & 1u);
        if (mp_x && (mp_y || n->b[24] == 0)) return 1;
    }
    return 0;
}

/* The distinct dice of the roll d1-d2 into c (high first); returns the number of dice. */
TW_INLINE int tw_turn_dice(tw_ctx *c, int d1, int d2) {
    int hi = d1 > d2 ? d1 : d2, lo = d1 > d2 ? d2 : d1;
    c->dv[0] = hi; c->dv[1] = hi == lo ? 0 : lo; c->ndice = hi == lo ? 4 : 2;
    return c->ndice;
}

/* the dice-left code of a search node: nh of the high die, nl of the low one */
TW_INLINE uint64_t tw_dice_code(const tw_ctx *c, int nh, int nl) {
    return TW_CODE(c->ndice == 4 ? nh : (nh | nl << 1));
}

#endif /* TW_STEP_H */
