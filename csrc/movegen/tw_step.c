/*
 * The search context, the per-row facts of single-step generation (landing masks, bear-off
 * extras, the wall rule's window), state keys, and the children buffer.
 */
#include <stdlib.h>
#include "tw_step.h"

int tw_ctx_init(tw_ctx *c, const tw_params *P) {
    memset(c, 0, sizeof(*c));
    c->P = P;
    tw_geo_init(&c->geo, P->same, P->contact == TW_PIN);
    c->canon = tw_canon_ok(P);
    if (!tw_set_init(&c->set, 10)) return 0;
    return 1;
}

void tw_ctx_free(tw_ctx *c) {
    tw_set_free(&c->set);
    free(c->rec); c->rec = NULL;
    /* c->out is owned by the caller (tw_out_trim / tw_out_free) */
}

/* Whether the hash-free paths of the expansion are exact for these rules: not with the
   opponent-in-home bear-off condition in a hitting game (a hit changes what a later step
   sees). */
int tw_canon_ok(const tw_params *P) {
#ifdef TW_NO_CANON
    if (P) return 0;
#endif
    return !(P->bearoff_no_opponent_in_home && P->contact == TW_HIT);
}

/* the state of a row (the key is computed by tw_state_key when a hashed search needs it) */
void tw_state_from_row(tw_state *s, const uint8_t *row) {
    memcpy(s->b, row, TW_W);
    memset(s->b + TW_W, 0, 64 - TW_W);
    s->mm = tw_me_mask(row);
    s->pad = 0;
    s->k0 = s->k1 = 0;
}

void tw_state_key(tw_state *s, const uint8_t *root) {
    int p;
    s->k0 = s->k1 = 0;
    for (p = 1; p <= 25; p++) { s->k0 += TW_NIB0[p] * s->b[p]; s->k1 += TW_NIB1[p] * s->b[p]; }
    if (root) for (p = 1; p <= 24; p++) if (root[26 + p] == 1 && s->b[26 + p] == 0) s->k1 |= TW_HITB[p];
}

/* 6.5: can an illegal wall arise within `steps` steps? (conservative: a window of six of the
   opponent's points starting at or below his lowest checker, none of them held by him, with at
   most `steps` of them not yet held by the mover) */
static int tw_wall_possible(const tw_params *P, const tw_rowinfo *ri, uint32_t mm, uint32_t opp_occ, int steps) {
    uint32_t o = tw_map_mask(mm & TW_BITS_1_24, P->same) >> 1;   /* bit q-1 */
    uint32_t oq = tw_map_mask(opp_occ & TW_BITS_1_24, P->same) >> 1;
    int st;
    for (st = 0; st + 6 <= 24; st++) {
        uint32_t w = 0x3Fu << st;
        if (!(ri->wall_bad >> st & 1u)) continue;
        if (w & oq) continue;
        if (tw_popcount(w & ~o) <= steps) return 1;
    }
    return 0;
}

void tw_rowinfo_init(const tw_params *P, tw_rowinfo *ri, const uint8_t *b) {
    uint32_t opp_occ = ~tw_eq_mask24(b, 26, 0) & TW_BITS_1_24;
    uint32_t opp_one = tw_eq_mask24(b, 26, 1);
    uint32_t opp_ge2 = opp_occ & ~opp_one;
    uint32_t opp_q = P->wall_rule ? tw_map_mask(opp_occ, P->same) : 0;
    ri->pinned_me = tw_pinbits(b) << 1;
    ri->opp_zero = ~opp_occ & TW_BITS_1_24;
    ri->opp_one = opp_one;
    if (P->contact == TW_HIT) ri->land = ~opp_ge2 & TW_BITS_1_24;
    else if (P->contact == TW_BLOCK) ri->land = ~opp_occ & TW_BITS_1_24;
    else ri->land = 0;
    ri->bear_extra = 1;
    if (P->bearoff_no_pinned && ri->pinned_me) ri->bear_extra = 0;
    ri->x24 = tw_opp_point(24, P->same);
    /* wall rule, 6.5: a wall starting at opponent point b is illegal unless an opponent
       checker stands on a point q < b, or the opponent has borne off */
    ri->wall_ok_always = b[26] > 0;
    if (P->wall_rule) {
        int lowest = 25;
        if (opp_q) { int q = 1; while (!(opp_q >> q & 1u)) q++; lowest = q; }
        /* window starts q = 1..lowest are illegal: bits 0..lowest-1 */
        ri->wall_bad = lowest >= 24 ? 0xFFFFFFu : ((1u << lowest) - 1u);
        ri->wall_live = !ri->wall_ok_always && tw_wall_possible(P, ri, tw_me_mask(b), opp_occ, 4);
    } else {
        ri->wall_bad = 0;
        ri->wall_live = 0;
    }
}

int tw_rec_reserve(tw_ctx *c) {
    if (c->nrec < c->caprec) return 1;
    {
        size_t cap = c->caprec ? c->caprec * 2 : 64;
        tw_rec *nr = (tw_rec *)realloc(c->rec, cap * sizeof(tw_rec));
        if (!nr) { c->oom = 1; return 0; }
        c->rec = nr; c->caprec = cap;
    }
    return 1;
}

/* --- the children buffer -------------------------------------------------------------------- */
int tw_out_grow(tw_ctx *c, size_t need) {
    size_t cap = c->capout ? c->capout : 4096, nbytes;
    uint8_t *nb;
    while (cap < need) cap *= 2;
    nbytes = cap * TW_W + 64;
    nb = (uint8_t *)tw_big_resize(c->out, c->outbytes, nbytes);
    if (!nb) { c->oom = 1; return 0; }
    c->out = nb; c->capout = cap; c->outbytes = nbytes;
    return 1;
}

/* make room for `rows` rows in all */
int tw_out_reserve_total(tw_ctx *c, size_t rows) {
    return rows <= c->capout ? 1 : tw_out_grow(c, rows);
}

/* adopt a buffer of nbytes (from the cache) as the children buffer */
void tw_out_adopt(tw_ctx *c, void *p, size_t nbytes) {
    c->out = (uint8_t *)p; c->outbytes = nbytes;
    c->capout = nbytes >= 64 + TW_W ? (nbytes - 64) / TW_W : 0;
}

/* give back most of a buffer that is mostly unused (keeps a result from pinning a big one) */
void tw_out_trim(tw_ctx *c) {
    size_t need = c->nout * TW_W + 64;
    uint8_t *nb;
    if (!c->out || c->outbytes < ((size_t)1 << 20) || c->outbytes / 4 < need) return;
    nb = (uint8_t *)tw_big_resize(c->out, c->outbytes, 2 * need);
    if (!nb) return;
    c->out = nb; c->outbytes = 2 * need; c->capout = (2 * need - 64) / TW_W;
}

void tw_out_free(tw_ctx *c) {
    tw_big_free(c->out, c->outbytes);
    c->out = NULL; c->capout = 0; c->nout = 0; c->outbytes = 0;
}

void tw_emit_row(tw_ctx *c, const uint8_t *row) {
    if (!tw_out_reserve(c, 1)) return;
    tw_flip(&c->geo, row, c->out + c->nout * TW_W);
    c->nout++;
}
