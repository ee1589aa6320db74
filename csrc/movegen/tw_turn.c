/*
 * Turns step by step: the canonical step sequences of every legal move (Position.legal_moves),
 * and step-by-step play (RULES.md 1.3): the legal next steps of a partial turn and the final
 * positions it can still reach (tawla.turn.legal_steps, tawla.match.turn_play.TurnsMixin._finals).
 *
 * A next step is legal when after it the turn can still count M dice, M being the maximum of
 * 1.4's len' over the whole turn (D17: a game end with mover checkers on the board counts every
 * die, the last checker borne off the dice it used); when only one die can be played, the first
 * step must use the larger die if it can. best_length memoises, per (state, dice left), how
 * many more dice can be counted.
 */
#include "tw_turn.h"
#include "tw_result.h"

/* --- canonical sequences -------------------------------------------------------------------- */
static void tw_record(tw_ctx *c, const tw_state *s, int nsteps, int ended) {
    tw_rec *r;
    if (!tw_rec_reserve(c)) return;
    r = &c->rec[c->nrec++];
    memcpy(r->row, s->b, TW_W);
    r->nsteps = (uint8_t)nsteps; r->ended = (uint8_t)ended;
    r->first_die = nsteps ? c->path[0].d : 0;
    memcpy(r->steps, c->path, sizeof(c->path));
}

/* the reference's legal_turns search, step for step, recording every leaf */
static void tw_dfs_seq(tw_ctx *c, const tw_state *s, int nh, int nl, int nsteps) {
    int ext = 0, k;
    for (k = 0; k < 2; k++) {
        int cnt = k ? nl : nh, d, nh2, nl2;
        uint32_t cand;
        uint64_t code;
        if (!cnt) continue;
        d = c->dv[k];
        cand = tw_candidates(c, s, d);
        nh2 = nh - (k == 0); nl2 = nl - (k == 1);
        code = tw_dice_code(c, nh2, nl2);
        while (cand) {
            int p = tw_hibit(cand), t = p - d, hit;
            tw_state n;
            cand &= ~(1u << p);
            if (t < 0) t = 0;
            hit = tw_apply(c, s, &n, p, t);
            if (c->P->wall_rule && !tw_walls_ok(c, n.mm)) continue;
            ext = 1;
            if (!tw_set_insert(&c->set, n.k0, n.k1 | code)) continue;
            c->path[nsteps].p = (uint8_t)p; c->path[nsteps].t = (uint8_t)t;
            c->path[nsteps].d = (uint8_t)d; c->path[nsteps].hit = (uint8_t)hit;
            if (tw_ended(c, &n)) tw_record(c, &n, nsteps + 1, 1);
            else tw_dfs_seq(c, &n, nh2, nl2, nsteps + 1);
            if (TW_UNLIKELY(c->oom)) return;
        }
    }
    if (!ext) tw_record(c, s, nsteps, 0);
}

int tw_sequences(tw_ctx *c, const uint8_t *row, int d1, int d2) {
    tw_state root;
    tw_rowinfo_init(c->P, &c->ri, row);
    tw_state_from_row(&root, row);
    tw_state_key(&root, NULL);
    tw_set_clear(&c->set);
    c->nrec = 0;
    memset(c->path, 0, sizeof(c->path));
    if (tw_turn_dice(c, d1, d2) == 4) tw_dfs_seq(c, &root, 4, 0, 0);
    else tw_dfs_seq(c, &root, 1, 1, 0);
    if (c->set.oom) c->oom = 1;
    return !c->oom;
}

size_t tw_sequences_keep(tw_ctx *c) {
    size_t i, n = 0;
    int best = 0, high_only = 0, nd = c->ndice, hi = c->dv[0];
    for (i = 0; i < c->nrec; i++) {
        const tw_rec *r = &c->rec[i];
        int eff = tw_dice_counted(r->ended, r->row[0], r->nsteps, nd);
        if (eff > best) best = eff;
    }
    if (best == 1 && nd == 2)
        for (i = 0; i < c->nrec; i++)
            if (tw_dice_counted(c->rec[i].ended, c->rec[i].row[0], c->rec[i].nsteps, nd) == 1
                && c->rec[i].first_die == hi) high_only = 1;
    for (i = 0; i < c->nrec && best > 0; i++) {
        const tw_rec *r = &c->rec[i];
        if (tw_dice_counted(r->ended, r->row[0], r->nsteps, nd) != best) continue;
        if (high_only && r->first_die != hi) continue;
        c->rec[n++] = *r;
    }
    c->nrec = n;
    return n;
}

/* --- step by step --------------------------------------------------------------------------- */
/* a legal next single step and the search node after it */
typedef struct { tw_step st; int nh, nl; tw_state n; } tw_opt;

/* how many more dice can be counted from s with nh high and nl low dice left (1.4 len') */
static int tw_best_length(tw_turn *T, const tw_state *s, int nh, int nl) {
    tw_ctx *c = &T->c;
    int left = nh + nl, best = 0, k;
    uint64_t code;
    uint32_t v;
    if (!left) return 0;
    code = tw_dice_code(c, nh, nl);
    if (tw_set_get(&T->memo, s->k0, s->k1 | code, &v)) return (int)v;
    for (k = 0; k < 2 && best < left; k++) {
        int cnt = k ? nl : nh, d = c->dv[k], nh2 = nh - (k == 0), nl2 = nl - (k == 1);
        uint32_t cand = cnt ? tw_candidates(c, s, d) : 0;
        while (cand && best < left) {
            int p = tw_hibit(cand), t = p - d, got;
            tw_state n;
            cand &= ~(1u << p);
            if (t < 0) t = 0;
            tw_apply(c, s, &n, p, t);
            if (c->P->wall_rule && !tw_walls_ok(c, n.mm)) continue;
            if (tw_ended(c, &n)) got = tw_dice_counted(1, n.b[0], 1, left);
            else got = 1 + tw_best_length(T, &n, nh2, nl2);
            if (got > best) best = got;
        }
    }
    tw_set_add(&T->memo, s->k0, s->k1 | code, (uint32_t)best);
    return best;
}

/* The legal next single steps from s (after `used` dice), in tawla.turn.legal_steps' order
   (dice high to low, from-points high to low), from the points in `from` only. */
static int tw_next_single(tw_turn *T, const tw_state *s, int nh, int nl, int used, uint32_t from, tw_opt *out) {
    tw_ctx *c = &T->c;
    int k, n = 0, n_high = 0;
    for (k = 0; k < 2; k++) {
        int cnt = k ? nl : nh, d = c->dv[k], nh2 = nh - (k == 0), nl2 = nl - (k == 1);
        uint32_t cand = cnt ? tw_candidates(c, s, d) & from : 0;
        while (cand) {
            int p = tw_hibit(cand), t = p - d, hit, total;
            tw_opt *o = &out[n];
            cand &= ~(1u << p);
            if (t < 0) t = 0;
            hit = tw_apply(c, s, &o->n, p, t);
            if (c->P->wall_rule && !tw_walls_ok(c, o->n.mm)) continue;
            if (tw_ended(c, &o->n)) total = tw_dice_counted(1, o->n.b[0], used + 1, c->ndice);
            else total = used + 1 + tw_best_length(T, &o->n, nh2, nl2);
            if (total < T->target) continue;
            o->st.p = (uint8_t)p; o->st.t = (uint8_t)t; o->st.d = (uint8_t)d; o->st.hit = (uint8_t)hit;
            o->nh = nh2; o->nl = nl2;
            n++;
        }
        if (k == 0) n_high = n;
    }
    /* 1.4: with one die playable in all, the larger one when it can be played */
    if (T->high_only && used == 0 && n_high) n = n_high;
    return n;
}

int tw_turn_init(tw_turn *T, const tw_params *P) {
    if (!tw_ctx_init(&T->c, P)) return 0;
    if (!tw_set_init(&T->memo, 10)) { tw_ctx_free(&T->c); return 0; }
    return 1;
}

void tw_turn_free(tw_turn *T) {
    tw_set_free(&T->memo);
    tw_ctx_free(&T->c);
}

int tw_turn_begin(tw_turn *T, const tw_params *P, const uint8_t *row, int d1, int d2) {
    tw_ctx *c = &T->c;
    c->P = P;
    c->oom = 0;
    tw_geo_init(&c->geo, P->same, P->contact == TW_PIN);
    tw_rowinfo_init(P, &c->ri, row);
    tw_state_from_row(&T->s, row);
    tw_state_key(&T->s, NULL);
    tw_set_clear(&T->memo);
    tw_set_clear(&c->set);
    c->nrec = 0;
    if (tw_turn_dice(c, d1, d2) == 4) { T->nh = 4; T->nl = 0; }
    else { T->nh = 1; T->nl = 1; }
    T->used = 0;
    T->ended = 0;
    T->over = tw_game_result(P, &c->geo, row, 0).over;
    T->target = T->over ? 0 : tw_best_length(T, &T->s, T->nh, T->nl);
    T->high_only = T->target == 1 && c->ndice == 2;
    return !(T->memo.oom || c->oom);
}

int tw_turn_play(tw_turn *T, int a, int b, int d) {
    tw_opt opts[TW_MAX_STEPS];
    int n, i;
    if (T->target == 0) return 3;
    if (T->ended) return 2;
    n = tw_next_single(T, &T->s, T->nh, T->nl, T->used, ~0u, opts);
    for (i = 0; i < n; i++)
        if (opts[i].st.p == a && opts[i].st.t == b && opts[i].st.d == d) break;
    if (i == n) return 1;
    T->s = opts[i].n; T->nh = opts[i].nh; T->nl = opts[i].nl;
    T->used++;
    T->ended = tw_ended(&T->c, &T->s);
    return 0;
}

int tw_turn_singles(tw_turn *T, tw_step *out) {
    tw_opt opts[TW_MAX_STEPS];
    int n, i;
    if (T->target == 0 || T->ended) return 0;
    n = tw_next_single(T, &T->s, T->nh, T->nl, T->used, ~0u, opts);
    for (i = 0; i < n; i++) out[i] = opts[i].st;
    return n;
}

/* whether two paths take the same checker to the same point with the same hits and the same
   dice (in any order): the same step, reached in another order of the dice */
static int tw_same_step(const tw_path *a, const tw_path *b) {
    int i;
    uint32_t ca = 0, cb = 0;  /* the dice as a multiset: a 4-bit count per value */
    if (a->p != b->p || a->t != b->t || a->hm != b->hm || a->n != b->n) return 0;
    for (i = 0; i < a->n; i++) {
        ca += 1u << (4 * a->d[i]);
        cb += 1u << (4 * b->d[i]);
    }
    return ca == cb;
}

/* the one-checker continuations of the path `cur` (its checker now on cur->t), depth first;
   a continuation that repeats an earlier one in another order of the dice is left out, with
   its own continuations (they repeat the earlier one's) */
static void tw_extend(tw_turn *T, const tw_state *s, int nh, int nl, int used, const tw_path *cur,
                      tw_path *out, int *nc) {
    tw_opt opts[TW_MAX_STEPS];
    int n, i, j, dup;
    if (cur->t == 0 || tw_ended(&T->c, s)) return;
    n = tw_next_single(T, s, nh, nl, used, 1u << cur->t, opts);
    for (i = 0; i < n && *nc < TW_MAX_PATHS; i++) {
        tw_path *nx = &out[*nc];
        *nx = *cur;
        nx->t = opts[i].st.t;
        nx->d[nx->n++] = opts[i].st.d;
        nx->hit |= opts[i].st.hit;
        if (opts[i].st.hit) nx->hm |= 1u << opts[i].st.t;
        for (dup = 0, j = 0; j < *nc && !dup; j++) dup = tw_same_step(&out[j], nx);
        if (dup) continue;
        (*nc)++;
        tw_extend(T, &opts[i].n, opts[i].nh, opts[i].nl, used + 1, nx, out, nc);
    }
}

int tw_turn_steps(tw_turn *T, tw_step *singles, tw_path *combined, int *nc) {
    tw_opt opts[TW_MAX_STEPS];
    int n, i;
    *nc = 0;
    if (T->target == 0 || T->ended) return 0;
    n = tw_next_single(T, &T->s, T->nh, T->nl, T->used, ~0u, opts);
    for (i = 0; i < n; i++) singles[i] = opts[i].st;
    for (i = 0; i < n; i++) {
        tw_path cur;
        memset(&cur, 0, sizeof(cur));
        cur.p = opts[i].st.p; cur.t = opts[i].st.t; cur.hit = opts[i].st.hit;
        cur.n = 1; cur.d[0] = opts[i].st.d;
        cur.hm = opts[i].st.hit ? 1u << cur.t : 0;
        tw_extend(T, &opts[i].n, opts[i].nh, opts[i].nl, T->used + 1, &cur, combined, nc);
    }
    return n;
}

/* --- the final positions of a partial turn --------------------------------------------------- */
#define TW_CODE_FINAL 15  /* final rows in the visited set: code 15 */

static void tw_add_final(tw_turn *T, const tw_state *s, int nsteps, int ended) {
    tw_ctx *c = &T->c;
    tw_rec *r;
    if (!tw_set_insert(&c->set, s->k0, s->k1 | TW_CODE(TW_CODE_FINAL))) return;
    if (!tw_rec_reserve(c)) return;
    r = &c->rec[c->nrec++];
    memcpy(r->row, s->b, TW_W);
    r->nsteps = (uint8_t)nsteps; r->ended = (uint8_t)ended;
    r->first_die = nsteps ? c->path[0].d : 0;
    memcpy(r->steps, c->path, sizeof(c->path));
}

/* Match._completions' search: depth first, dice high to low, from-points high to low; the
   first path that reaches a final row is kept */
static void tw_finals_rec(tw_turn *T, const tw_state *s, int nh, int nl, int npath, int only_high) {
    tw_ctx *c = &T->c;
    int ext = 0, k;
    if (!tw_set_insert(&c->set, s->k0, s->k1 | tw_dice_code(c, nh, nl))) return;
    for (k = 0; k < 2 - only_high; k++) {
        int cnt = k ? nl : nh, d = c->dv[k], nh2 = nh - (k == 0), nl2 = nl - (k == 1);
        uint32_t cand = cnt ? tw_candidates(c, s, d) : 0;
        while (cand) {
            int p = tw_hibit(cand), t = p - d, hit;
            tw_state n;
            cand &= ~(1u << p);
            if (t < 0) t = 0;
            hit = tw_apply(c, s, &n, p, t);
            if (c->P->wall_rule && !tw_walls_ok(c, n.mm)) continue;
            ext = 1;
            c->path[npath].p = (uint8_t)p; c->path[npath].t = (uint8_t)t;
            c->path[npath].d = (uint8_t)d; c->path[npath].hit = (uint8_t)hit;
            if (tw_ended(c, &n)) {
                if (tw_dice_counted(1, n.b[0], T->used + npath + 1, c->ndice) >= T->target)
                    tw_add_final(T, &n, npath + 1, 1);
            } else {
                tw_finals_rec(T, &n, nh2, nl2, npath + 1, 0);
            }
            if (TW_UNLIKELY(c->oom)) return;
        }
    }
    if (!ext && T->used + npath == T->target) tw_add_final(T, s, npath, 0);
}

int tw_turn_finals(tw_turn *T) {
    tw_ctx *c = &T->c;
    c->nrec = 0;
    tw_set_clear(&c->set);
    memset(c->path, 0, sizeof(c->path));
    if (T->over) return 1;
    if (T->ended) tw_add_final(T, &T->s, 0, 1);
    else tw_finals_rec(T, &T->s, T->nh, T->nl, 0,
                       T->high_only && T->used == 0 && tw_legal_mask(c, &T->s, c->dv[0]) != 0);
    if (c->set.oom) c->oom = 1;
    return !c->oom;
}
