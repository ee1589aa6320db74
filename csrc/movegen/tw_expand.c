/*
 * Expansion: every distinct child of a (row, roll), written flipped to the next player's seat
 * (tawla.expand). The moves kept are those of the reference engine's legal_turns (RULES.md
 * 1.4 with D17: a sequence that ends the game with mover checkers still on the board counts
 * every die, one that bears off the last checker the dice it used).
 *
 * Three searches:
 *   tw_nd_fast    non-doubles, every ruleset: both dice orders, duplicates recognised from
 *                 the legal-step masks (no hashing);
 *   tw_dbl_fast   doubles where the rules allow it for this row: non-increasing from-points,
 *                 every final position exactly once (no hashing);
 *   tw_dfs_expand the reference's search with the hash set of (state, dice left) keys; used
 *                 for the other doubles, for rows whose last checker can come off before
 *                 every die is used, and for every row where no move uses all the dice
 *                 (short moves, the high-die rule, passes, frozen positions).
 * Children are written by patching the parent's flipped row. The batch loops (tw_expand_rows,
 * tw_expand_rows_all_rolls) are here too, so the searches inline into them.
 */
#include "tw_expand.h"
#include "tw_result.h"

#define TW_CODE_SHORT 8  /* short leaves: code 8 + number of steps */

static void tw_short_leaf(tw_ctx *c, const tw_state *s, int nsteps, int first_die) {
    tw_rec *r;
    if (c->full || nsteps < c->short_best) return;
    if (!tw_set_insert(&c->set, s->k0, s->k1 | TW_CODE(TW_CODE_SHORT + nsteps))) return;
    if (!tw_rec_reserve(c)) return;
    c->short_best = nsteps;
    r = &c->rec[c->nrec++];
    memcpy(r->row, s->b, TW_W);
    r->nsteps = (uint8_t)nsteps; r->first_die = (uint8_t)first_die; r->ended = 0;
}

static void tw_dfs_expand(tw_ctx *c, const tw_state *s, int nh, int nl, int nsteps, int first_die) {
    int ext = 0, k;
    for (k = 0; k < 2; k++) {
        int cnt = k ? nl : nh, d, nh2, nl2;
        uint32_t cand;
        if (!cnt) continue;
        d = c->dv[k];
        cand = tw_candidates(c, s, d);
        if (!cand) continue;
        nh2 = nh - (k == 0); nl2 = nl - (k == 1);
        if (nh2 + nl2 == 0) {
            /* the last die: children straight from the parent, keys computed incrementally */
            uint8_t fs[64];
            int have_flip = 0;
            const tw_geo *g = &c->geo;
            const int contact = c->P->contact;
            while (cand) {
                int p = tw_hibit(cand), t = p - d, hit;
                uint64_t k0, k1;
                cand &= ~(1u << p);
                if (t < 0) t = 0;
                if (c->P->wall_rule) {
                    uint32_t nm = s->mm;
                    if (s->b[p] == 1) nm &= ~(1u << p);
                    if (t) nm |= 1u << t;
                    if (!tw_walls_ok(c, nm)) continue;
                }
                ext = 1;
                hit = t && contact != TW_BLOCK && s->b[26 + t] == 1 && s->b[t] == 0;
                k0 = s->k0 - TW_NIB0[p] + TW_NIB0[t];
                k1 = s->k1 - TW_NIB1[p] + TW_NIB1[t];
                if (hit && contact == TW_HIT) k1 |= TW_HITB[t];
                if (!tw_set_insert(&c->set, k0, k1)) continue;
                c->full = 1;
                if (TW_UNLIKELY(!tw_out_reserve(c, 1))) return;
                if (!have_flip) { tw_flip(g, s->b, fs); have_flip = 1; }
                {
                    uint8_t *o = c->out + c->nout * TW_W;
                    memcpy(o, fs, 64);  /* (the buffer has 64 bytes of slack) */
                    o[g->me_to[p]]--;
                    o[g->me_to[t]]++;
                    if (hit) {
                        if (contact == TW_HIT) { o[g->opp_to[t]] = 0; o[25]++; }
                        else {  /* pin: the new mover's checker on q(t) is now pinned */
                            uint32_t bits = tw_pinbits(o) | 1u << (g->q[t] - 1);
                            tw_set_pinbits(o, bits);
                        }
                    }
                    if (contact == TW_PIN && s->b[p] == 1 && p <= 24 && s->b[26 + p] && !(c->ri.pinned_me >> p & 1u)) {
                        /* the last pinner left p: the opponent's checker there is free */
                        uint32_t bits = tw_pinbits(o) & ~(1u << (g->q[p] - 1));
                        tw_set_pinbits(o, bits);
                    }
                    c->nout++;
                }
            }
        } else {
            uint64_t code = tw_dice_code(c, nh2, nl2);
            int fd = nsteps ? first_die : d;
            while (cand) {
                int p = tw_hibit(cand), t = p - d;
                tw_state n;
                cand &= ~(1u << p);
                if (t < 0) t = 0;
                tw_apply(c, s, &n, p, t);
                if (c->P->wall_rule && !tw_walls_ok(c, n.mm)) continue;
                ext = 1;
                if (!tw_set_insert(&c->set, n.k0, n.k1 | code)) continue;
                if (tw_ended(c, &n)) {
                    /* D17: a sequence that ends the game with mover checkers on the board counts
                       as complete; one that bears off the last checker counts the dice it used */
                    if (n.b[0] == 15) tw_short_leaf(c, &n, nsteps + 1, fd);
                    else if (tw_set_insert(&c->set, n.k0, n.k1)) { c->full = 1; tw_emit_row(c, n.b); }
                } else {
                    tw_dfs_expand(c, &n, nh2, nl2, nsteps + 1, fd);
                }
                if (TW_UNLIKELY(c->oom)) return;
            }
        }
    }
    if (!ext) tw_short_leaf(c, s, nsteps, first_die);
}


/* ------------------------------------------------------------------------------------------ */
/* Hash-free paths for the rules where they are exact (tw_canon_ok).                          */
/*                                                                                             */
/* Doubles: every legal sequence of steps with one die value can be reordered so that its     */
/* from-points never increase, and the reordered sequence is legal and reaches the same        */
/* position (swap two adjacent steps s1 from p1 < p2 from s2: s1 cannot have enabled s2 -     */
/* it lands below p2, and it cannot change the landing, bar or bear-off status s2 sees). So   */
/* generating only non-increasing from-points finds every final position, and each exactly    */
/* once (a multiset of from-points determines the position). This needs rules whose legality  */
/* depends only on what the swap argument covers: it fails with a start lock, a post-step    */
/* check (wall rule), a mid-turn game end other than the 15th checker off (quadrant lock,     */
/* mother rule), or the opponent-in-home bear-off condition in a hitting game.                 */
/*                                                                                             */
/* Non-doubles {a > b}, every ruleset: A-sequences (a first) and B-sequences (b first) are    */
/* generated from the exact legal-step masks (post-step checks included); a sequence is       */
/* skipped when it reaches the same position as one generated before: the same two steps in  */
/* the other order, the same single checker moved through either intermediate point (unless  */
/* a blot hit on the way tells them apart) or relayed by a second checker, or two bear-offs   */
/* with the roles of the dice swapped (see tw_nd_fast). Which sequences are legal is read     */
/* from the masks, so the rules only enter through tw_legal_mask and tw_ended. Positions with */
/* 15 checkers off go through the hash set.                                                    */
/* Doubles, where tw_canon_doubles_row allows: non-increasing from-points, no hashing.         */
/* Both count only complete sequences, so a row whose last checker can come off before every  */
/* die is used (D17: such a sequence counts the dice it used) goes to the full search          */
/* (tw_dfs_expand), and so does a row where no complete sequence exists.                       */

/* Whether the doubles of this row can use the non-increasing order (see above): the rules
   that break the swap argument cannot act during this turn. The start lock is released for
   good once released; the quadrant lock needs every empty point of 19..24 filled (at most 4
   steps, none held by the opponent); the mother rule needs the opponent's mother alone on
   its start point; an illegal wall needs a window of six points, none held by the opponent,
   with at most 4 of them still empty. */
static int tw_canon_doubles_row(const tw_params *P, const tw_rowinfo *ri, const tw_state *s) {
    uint32_t opp_occ = ~ri->opp_zero & TW_BITS_1_24;
    if (P->start_lock && s->b[0] == 0 && !(s->mm & ((2u << P->start_lock) - 2u))) return 0;
    if (P->quadrant_lock_win && !(opp_occ & TW_BITS_19_24)
        && tw_popcount(TW_BITS_19_24 & ~s->mm) <= 4) return 0;
    if (P->mother_plakoto && s->b[26 + ri->x24] == 1) return 0;
    if (P->wall_rule && ri->wall_live) return 0;
    return 1;
}

/* the flipped row after a step: patch the flipped row `o` of the state s before the step */
TW_INLINE void tw_fpatch(const tw_ctx *c, uint8_t *o, const tw_state *s, int p, int t, int hit) {
    const tw_geo *g = &c->geo;
    const int contact = c->P->contact;
    o[g->me_to[p]]--;
    o[g->me_to[t]]++;
    if (hit) {
        if (contact == TW_HIT) { o[g->opp_to[t]] = 0; o[25]++; }
        else tw_set_pinbits(o, tw_pinbits(o) | 1u << (g->q[t] - 1));
    }
    if (contact == TW_PIN && p <= 24 && s->b[p] == 1 && s->b[26 + p] && !(c->ri.pinned_me >> p & 1u))
        tw_set_pinbits(o, tw_pinbits(o) & ~(1u << (g->q[p] - 1)));  /* last pinner left p */
}

TW_INLINE int tw_hit_at(const tw_ctx *c, const tw_state *s, int t) {
    return t >= 1 && c->P->contact != TW_BLOCK && s->b[26 + t] == 1 && s->b[t] == 0;
}

/* a node of the hash-free search: the state and its row seen from the other seat */
typedef struct { tw_state s; uint8_t f[64]; } tw_node;

/* tw_apply without the key (the hash-free paths need it only for rows with 15 off) */
TW_INLINE int tw_apply_nokey(const tw_ctx *c, const tw_state *s, tw_state *n, int p, int t) {
    int hit = 0;
    memcpy(n->b, s->b, 64);
    n->mm = s->mm;
    if (--n->b[p] == 0) n->mm &= ~(1u << p);
    if (t <= 0) {
        n->b[0]++;
    } else {
        if (c->P->contact != TW_BLOCK && n->b[26 + t] == 1 && n->b[t] == 0) {
            hit = 1;
            if (c->P->contact == TW_HIT) { n->b[26 + t] = 0; n->b[51]++; }
        }
        n->b[t]++; n->mm |= 1u << t;
    }
    return hit;
}

TW_INLINE void tw_node_step(const tw_ctx *c, const tw_node *from, tw_node *to, int p, int t) {
    int hit = tw_apply_nokey(c, &from->s, &to->s, p, t);
    memcpy(to->f, from->f, 64);
    tw_fpatch(c, to->f, &from->s, p, t, hit);
}

/* emit the child "node + one step"; a child with all 15 off goes through the hash set */
TW_INLINE void tw_emit_step(tw_ctx *c, const tw_node *n, int p, int t) {
    int hit = tw_hit_at(c, &n->s, t);
    uint8_t *o;
    if (TW_UNLIKELY(t == 0 && n->s.b[0] == 14)) {
        tw_state e;
        tw_apply_nokey(c, &n->s, &e, p, t);
        tw_state_key(&e, c->root_row);
        if (!tw_set_insert(&c->set, e.k0, e.k1)) { c->full = 1; return; }
    }
    if (TW_UNLIKELY(!tw_out_reserve(c, 1))) return;
    o = c->out + c->nout * TW_W;
    memcpy(o, n->f, 64);
    tw_fpatch(c, o, &n->s, p, t, hit);
    c->nout++;
    c->full = 1;
}

TW_INLINE void tw_emit_node_ended(tw_ctx *c, const tw_node *n) {
    tw_state e = n->s;
    tw_state_key(&e, c->root_row);
    if (!tw_set_insert(&c->set, e.k0, e.k1)) { c->full = 1; return; }
    if (TW_UNLIKELY(!tw_out_reserve(c, 1))) return;
    memcpy(c->out + c->nout * TW_W, n->f, 64);
    c->nout++;
    c->full = 1;
}

/* doubles: non-increasing from-points; `left` steps to go, from-points <= maxp */
static void tw_dbl_fast(tw_ctx *c, const tw_node *n, int left, int maxp) {
    const int d = c->dv[0];
    uint32_t cand = tw_candidates(c, &n->s, d) & ((2u << maxp) - 1u);
    if (left == 1) {
        while (cand) {
            int p = tw_hibit(cand), t = p - d;
            cand &= ~(1u << p);
            tw_emit_step(c, n, p, t < 0 ? 0 : t);
        }
        return;
    }
    while (cand) {
        int p = tw_hibit(cand), t = p - d;
        tw_node m;
        cand &= ~(1u << p);
        if (t < 0) t = 0;
        tw_node_step(c, n, &m, p, t);
        if (m.s.b[0] == 15) tw_emit_node_ended(c, &m);
        else tw_dbl_fast(c, &m, left - 1, p);
        if (TW_UNLIKELY(c->oom)) return;
    }
}

static void tw_nd_fast(tw_ctx *c, const tw_node *root) {
    const int a = c->dv[0], b = c->dv[1];
    const tw_state *S = &root->s;
    const uint32_t candA = tw_legal_mask(c, S, a), candB = tw_legal_mask(c, S, b);
    uint32_t cand;
    uint32_t afterB[26];  /* A-branch: b-candidates after a@p (read only where candA has p) */
    uint32_t afterA[26];  /* B-branch: a-candidates after b@q (read only where candB has q) */
    const int blot_ok = c->P->contact != TW_HIT;
    /* One checker r moving r -> r-a-b ("single move of r") has four realisations:
         YA(r)  a@r, b@(r-a)        via r-a (hits a blot there, if any)
         YB(r)  b@r, a@(r-b)        via r-b (hits a blot there, if any)
         RA(r)  a@(r-b), b@r        relay: another checker on r-b moves on, r's lands on r-b
         RB(r)  b@(r-a), a@r        relay the other way round
       All "clean" ones (no blot hit on the way) reach the same position; a blot hit
       makes YA / YB unique. The first realisation in generation order is emitted. */
#define TW_CLEAN_A(r) (blot_ok || S->b[26 + (r) - a] != 1)
#define TW_CLEAN_B(r) (blot_ok || S->b[26 + (r) - b] != 1)
#define TW_YA_CLEAN(r) ((r) - a >= 1 && (candA >> (r) & 1u) && (afterB[r] >> ((r) - a) & 1u) && TW_CLEAN_A(r))
#define TW_RA(r) ((r) - b >= 1 && (candA >> ((r) - b) & 1u) && (afterB[(r) - b] >> (r) & 1u))
#define TW_YB_CLEAN(r) ((r) - b >= 1 && (candB >> (r) & 1u) && (afterA[r] >> ((r) - b) & 1u) && TW_CLEAN_B(r))
    /* A: a first. Generation order: p high to low, so r = q > p was done before. */
    cand = candA;
    while (cand) {
        int p = tw_hibit(cand), t = p - a;
        uint32_t cb;
        tw_node m;
        cand &= ~(1u << p);
        if (t < 0) t = 0;
        tw_node_step(c, root, &m, p, t);
        if (tw_ended(c, &m.s)) { afterB[p] = 0; tw_emit_node_ended(c, &m); continue; }
        cb = afterB[p] = tw_legal_mask(c, &m.s, b);
        while (cb) {
            int q = tw_hibit(cb), u = q - b;
            cb &= ~(1u << q);
            if (u == p && TW_YA_CLEAN(q)) continue;  /* RA(q) after YA(q) */
            tw_emit_step(c, &m, q, u < 0 ? 0 : u);
        }
        if (TW_UNLIKELY(c->oom)) return;
    }
    /* B: b first, skipping what an A-sequence (or an earlier B one) already reached */
    cand = candB;
    while (cand) {
        int q = tw_hibit(cand), u = q - b;
        uint32_t ca;
        tw_node m;
        cand &= ~(1u << q);
        if (u < 0) u = 0;
        tw_node_step(c, root, &m, q, u);
        if (tw_ended(c, &m.s)) { afterA[q] = 0; tw_emit_node_ended(c, &m); continue; }
        ca = afterA[q] = tw_legal_mask(c, &m.s, a);
        while (ca) {
            int p = tw_hibit(ca), t = p - a;
            ca &= ~(1u << p);
            if (t < 0) t = 0;
            if (u >= 1 && p == u) {                  /* YB(q) */
                if (TW_CLEAN_B(q) && (TW_YA_CLEAN(q) || TW_RA(q))) continue;
            } else if (t >= 1 && t == q) {           /* RB(p) */
                if (TW_YA_CLEAN(p) || TW_RA(p) || TW_YB_CLEAN(p)) continue;
            } else {                                 /* two checkers */
                if ((candA >> p & 1u) && (afterB[p] >> q & 1u)) continue;  /* a@p, b@q */
                if (p <= b && q <= b && (candA >> q & 1u) && (afterB[q] >> p & 1u)) continue;
            }
            tw_emit_step(c, &m, p, t);
        }
        if (TW_UNLIKELY(c->oom)) return;
    }
#undef TW_CLEAN_A
#undef TW_CLEAN_B
#undef TW_YA_CLEAN
#undef TW_RA
#undef TW_YB_CLEAN
}

/* ------------------------------------------------------------------------------------------ */
/* Expand one row for one roll (c->ri set for the row, its game not over). Appends its        */
/* children (flipped) to c->out. frozen_state: in/out cache of the frozen test for this row   */
/* (-1 unknown, 0 no, 1 frozen). Returns the number of children appended.                      */
size_t tw_expand_row(tw_ctx *c, const uint8_t *row, const tw_state *root, int d1, int d2, int *frozen_state) {
    size_t start = c->nout;
    int hi = d1 > d2 ? d1 : d2, lo = d1 > d2 ? d2 : d1;
    tw_set_clear(&c->set);
    c->nrec = 0; c->short_best = 0; c->full = 0;
    c->root_row = row;
    /* the hash-free paths count only complete sequences: not for a row whose last checker
       can come off before every die is used (D17: such a sequence counts the dice it used) */
    if (15 - root->b[0] >= (hi == lo ? 4 : 2)
        && (hi != lo || (c->canon && tw_canon_doubles_row(c->P, &c->ri, root)))) {
        /* the hash-free paths: non-doubles for every ruleset, doubles where the rules allow */
        tw_node rn;
        rn.s = *root;
        tw_flip(&c->geo, root->b, rn.f);
        if (tw_turn_dice(c, d1, d2) == 4) tw_dbl_fast(c, &rn, 4, 25);
        else tw_nd_fast(c, &rn);
        if (c->oom) return 0;
        if (c->full) return c->nout - start;
        /* no complete sequence: the full search sorts out short moves and passes */
        c->nout = start;
        tw_set_clear(&c->set);
    }
    {
        tw_state r0 = *root;
        tw_state_key(&r0, NULL);
        if (tw_turn_dice(c, d1, d2) == 4) tw_dfs_expand(c, &r0, 4, 0, 0, 0);
        else tw_dfs_expand(c, &r0, 1, 1, 0, 0);
    }
    if (c->set.oom) c->oom = 1;
    if (c->oom) return 0;
    if (!c->full) {
        /* only sequences shorter than the dice: keep the longest (1.4) */
        size_t i;
        int best = 0, high_only = 0;
        for (i = 0; i < c->nrec; i++) if (c->rec[i].nsteps > best) best = c->rec[i].nsteps;
        if (best == 0) {
            /* the turn passes, unless the position is frozen (a draw: no child) */
            if (c->P->can_freeze) {
                if (*frozen_state < 0) *frozen_state = tw_is_frozen(c->P, &c->geo, row);
                if (*frozen_state) return 0;
            }
            tw_emit_row(c, row);
            return c->nout - start;
        }
        if (best == 1 && hi != lo)
            for (i = 0; i < c->nrec; i++)
                if (c->rec[i].nsteps == 1 && c->rec[i].first_die == hi) high_only = 1;
        for (i = 0; i < c->nrec; i++) {
            tw_rec *r = &c->rec[i];
            if (r->nsteps != best) continue;
            if (high_only && r->first_die != hi) continue;
            tw_emit_row(c, r->row);
        }
    }
    return c->nout - start;
}

/* ------------------------------------------------------------------------------------------ */
/* Batches (tawla.native._movegen.expand / expand_all_rolls). Rows are checked by the caller; a row     */
/* whose game is over has no children. Children are appended to c->out, their row index to   */
/* par (and the roll's index in tawla.ROLLS to rol). Return 0 when out of memory.              */

long tw_check_dice(const uint8_t *dice, long n) {
    long i;
    for (i = 0; i < n; i++) {
        int a = dice[2 * i], b = dice[2 * i + 1];
        if (a < 1 || a > 6 || b < 1 || b > 6) return i;
    }
    return -1;
}

int tw_expand_rows(tw_ctx *c, const uint8_t *rows, const uint8_t *dice, long n, tw_vec64 *par) {
    tw_state root;
    long i;
    size_t k, cnt;
    for (i = 0; i < n; i++) {
        const uint8_t *row = rows + (size_t)i * TW_W;
        int frozen = -1;
        tw_rowinfo_init(c->P, &c->ri, row);
        if (tw_over_cheap(c->P, &c->geo, row)) continue;
        tw_state_from_row(&root, row);
        cnt = tw_expand_row(c, row, &root, dice[2 * i], dice[2 * i + 1], &frozen);
        if (c->oom || !tw_vec64_reserve(par, c->nout)) return 0;
        for (k = c->nout - cnt; k < c->nout; k++) par->p[k] = i;
    }
    par->n = c->nout;
    return 1;
}

int tw_expand_rows_all_rolls(tw_ctx *c, const uint8_t *rows, long n, tw_vec64 *par, tw_vec64 *rol) {
    tw_state root;
    long i;
    size_t k, cnt;
    for (i = 0; i < n; i++) {
        const uint8_t *row = rows + (size_t)i * TW_W;
        int frozen = -1, a, b, ri = 0;
        tw_rowinfo_init(c->P, &c->ri, row);
        if (tw_over_cheap(c->P, &c->geo, row)) continue;
        tw_state_from_row(&root, row);
        for (a = 1; a <= 6 && frozen != 1; a++) {
            for (b = a; b <= 6 && frozen != 1; b++, ri++) {
                cnt = tw_expand_row(c, row, &root, a, b, &frozen);
                if (c->oom || !tw_vec64_reserve(par, c->nout) || !tw_vec64_reserve(rol, c->nout)) return 0;
                for (k = c->nout - cnt; k < c->nout; k++) { par->p[k] = i; rol->p[k] = ri; }
            }
        }
    }
    par->n = rol->n = c->nout;
    return 1;
}
