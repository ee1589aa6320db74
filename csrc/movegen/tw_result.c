/*
 * The end of a game: the result of a row (15 off with single / gammon / backgammon or the
 * loser's checkers left, the quadrant lock, the plakoto mother rule) and the frozen test
 * (RULES.md 1.7: neither side has a legal single step with any die).
 */
#include "tw_result.h"

/* One side can make a single step with some die (1.7 frozen test, for the mover of row). */
static int tw_side_can_step(const tw_params *P, const uint8_t *row) {
    tw_ctx c;
    tw_state s, n;
    int d;
    memset(&c, 0, sizeof(c));
    c.P = P;
    tw_rowinfo_init(P, &c.ri, row);
    tw_state_from_row(&s, row);
    for (d = 1; d <= 6; d++) {
        uint32_t cand = tw_candidates(&c, &s, d);
        if (!cand) continue;
        if (!P->wall_rule) return 1;
        while (cand) {
            int p = tw_hibit(cand), t = p - d;
            cand &= ~(1u << p);
            if (t < 0) t = 0;
            tw_apply(&c, &s, &n, p, t);
            if (tw_walls_ok(&c, n.mm)) return 1;
        }
    }
    return 0;
}

int tw_is_frozen(const tw_params *P, const tw_geo *g, const uint8_t *row) {
    uint8_t f[64];
    if (!P->can_freeze) return 0;
    if (row[0] == 15 || row[26] == 15) return 0;
    if (tw_side_can_step(P, row)) return 0;
    tw_flip(g, row, f);
    return !tw_side_can_step(P, f);
}

/* Game result of a row (tawla.reference.scoring.game_result), relative to the row's mover;
   no_freeze_check: skip the frozen test (1.7). */
tw_result tw_game_result(const tw_params *P, const tw_geo *g, const uint8_t *b, int no_freeze_check) {
    tw_result r = {0, -1, -1, 0};
    uint8_t me[26], op[26];
    int who;
    if (!tw_may_be_over(P, b) && (no_freeze_check || !P->can_freeze))
        return r;  /* the hitting games: only the 15th checker off ends a game */
    tw_own(g, b, 0, me); tw_own(g, b, 1, op);
    for (who = 0; who < 2; who++) {
        const uint8_t *win = who ? op : me, *lose = who ? me : op;
        if (win[0] == 15) {
            int q, in_home = 0, kind, base;
            for (q = 19; q <= 24; q++) if (lose[q]) in_home = 1;
            if (lose[25] > 0 && !P->bar_backgammon_counts_double) in_home = 1;
            r.over = 1; r.winner = who;
            if (P->scoring == TW_SCORE_CHECKERS_LEFT) {
                r.kind = lose[0] == 0 ? TW_K_GAMMON : TW_K_SINGLE;
                r.points = 15 - lose[0];
                return r;
            }
            if (lose[0]) kind = TW_K_SINGLE;
            else if (P->scoring == TW_SCORE_CUBE && in_home) kind = TW_K_BACKGAMMON;
            else kind = TW_K_GAMMON;
            base = kind == TW_K_SINGLE ? 1 : kind == TW_K_GAMMON ? 2 : 3;
            r.kind = kind; r.points = base;
            return r;
        }
    }
    if (P->quadrant_lock_win) {
        for (who = 0; who < 2; who++) {
            const uint8_t *side = who ? op : me, *other = who ? me : op;
            int q, all = 1;
            for (q = 19; q <= 24; q++) if (!side[q]) all = 0;
            if (all) { r.over = 1; r.winner = who; r.kind = TW_K_QUADRANT; r.points = 15 - other[0]; return r; }
        }
    }
    if (P->mother_plakoto) {
        uint32_t pins = tw_pinbits(b) << 1;
        int x = tw_opp_point(24, P->same);
        int mp_me = b[24] == 1 && (pins >> 24 & 1u);
        int mp_opp = b[26 + x] == 1 && b[x] > 0 && !(pins >> x & 1u);
        if (mp_me && mp_opp) { r.over = 1; r.winner = -1; r.kind = TW_K_DRAW; r.points = 0; return r; }
        if (mp_opp && b[24] == 0) { r.over = 1; r.winner = 0; r.kind = TW_K_MOTHER; r.points = 2; return r; }
        if (mp_me && b[26 + x] == 0) { r.over = 1; r.winner = 1; r.kind = TW_K_MOTHER; r.points = 2; return r; }
    }
    if (!no_freeze_check && P->can_freeze && tw_is_frozen(P, g, b)) {
        r.over = 1; r.winner = -1; r.kind = TW_K_DRAW; r.points = 0;
    }
    return r;
}

/* Game over without the frozen test (cheap part of game_result). */
int tw_over_cheap(const tw_params *P, const tw_geo *g, const uint8_t *b) {
    if (b[0] == 15 || b[26] == 15) return 1;
    if (!tw_may_be_over(P, b)) return 0;
    return tw_game_result(P, g, b, 1).over;
}
