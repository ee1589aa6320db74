/*
 * Turns step by step: the canonical step sequences of every legal move (Position.legal_moves),
 * found by the reference engine's legal_turns search and kept by the maximum-dice rule
 * (RULES.md 1.4 with D17: a game end with mover checkers on the board counts every die, the
 * last checker borne off the dice it used; the larger die when only one can be played).
 */
#include "tw_turn.h"

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
