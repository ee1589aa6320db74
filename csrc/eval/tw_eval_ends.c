/*
 * The rows no contact model sees, for every ruleset (tawla.evaluation.routing.evaluate_np's
 * steps 1 and 2): a finished game, valued by the engine's one game-result function
 * (tw_game_result, tw_result.c), and a race, valued by the race model (tw_eval_race.c); and
 * the one-pass evaluation of backgammon and adi (those, then the linear contact model).
 */
#include "tw_eval.h"
#include "tw_result.h"

/* Both sides have passed each other: no checker of either can meet one of the other again
   (opposite geometry: tw_no_contact_opposite; same geometry: both sides on their own 1..12,
   me and opp filled by tw_sides). */
static int tw_no_contact(const tw_params *P, const uint8_t *row, int *me, int *opp) {
    int p;
    if (!P->same) return tw_no_contact_opposite(row);
    tw_sides(row, 1, me, opp);
    for (p = 13; p < 26; p++) if (me[p] || opp[p]) return 0;
    return 1;
}

int tw_eval_ends(const tw_params *P, const tw_geo *g, const uint8_t *row, const tw_race_tables *t,
                 double *o) {
    int me[26], opp[26], p, k;
    tw_result res = {0, -1, -1, 0};
    if (tw_may_be_over(P, row)) res = tw_game_result(P, g, row, 1);
    if (res.over) {
        for (k = 0; k < 6; k++) o[k] = 0.0;
        if (res.winner == 1) {  /* lost: the opponent has borne off 15, or holds its quadrant */
            o[0] = -res.points;
            o[4] = row[0] == 0;
            o[5] = res.kind == TW_K_BACKGAMMON;
            return TW_END_LOST;
        }
        if (res.winner == 0) {  /* won: not reachable from expansion (the winner's turn never comes) */
            o[0] = res.points;
            o[1] = 1.0;
            o[2] = row[26] == 0;
            o[3] = res.kind == TW_K_BACKGAMMON;
            return TW_END_WON;
        }
        return TW_END_DRAW;
    }
    if (!t || !tw_no_contact(P, row, me, opp)) return TW_END_CONTACT;
    if (P->bearoff_no_opponent_in_home) {  /* RULES.md 5.5: no race while a side blocks a bear-off */
        for (p = 1; p <= 6; p++) if (row[26 + p]) return TW_END_CONTACT;
        for (p = 19; p <= 24; p++) if (row[p]) return TW_END_CONTACT;
    }
    if (!P->same) tw_sides(row, 0, me, opp);
    if (t->beyond) {
        for (p = 7, k = 0; p <= 25; p++) k |= me[p] | opp[p];
        if (k) {
            t->beyond(t->ctx, P, row, o);
            return TW_END_RACE;
        }
    }
    tw_race_sides(P, me, opp, t, o);
    return TW_END_RACE;
}

int tw_eval_bg_row(const tw_params *P, const tw_geo *g, const uint8_t *row, const double *W, long ldw,
                   const tw_race_tables *t, double *o) {
    int kind = tw_eval_ends(P, g, row, t, o);
    if (kind != TW_END_CONTACT) return kind;
    tw_linear_row(P, row, W, ldw, o);
    return TW_END_CONTACT;
}
