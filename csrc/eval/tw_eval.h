/*
 * Position evaluators in C (tawla.native._eval), the same arithmetic as their numpy twins in
 * tawla.evaluation: the shared tables and the contact test (tw_eval_tables.c), the linear
 * contact model of backgammon / adi (tw_eval_contact.c), the race model (tw_eval_race.c), the
 * effective-pip model of the no-hit games (tw_eval_nohit.c), and finished games and races
 * routed before any contact model (tw_eval_ends.c). Every unit takes the ruleset as the one
 * tw_params block. Rows are packed rows (mover's seat); each evaluator writes six numbers:
 * equity, win, win gammon, win backgammon, lose gammon, lose backgammon.
 */
#ifndef TW_EVAL_H
#define TW_EVAL_H

#include "tw_params.h"
#include "tw_board.h"  /* tw_sides */

#define TW_NRAW 98                            /* per side: 4 x 24 point features, bar, off */
#define TW_NHAND 14                           /* per side: hand-made features */
#define TW_NF (2 * (TW_NRAW + TW_NHAND) + 1)  /* both sides and the bias */
#define TW_EVAL_L 64                          /* length of the roll distributions */
#define TW_MU (49.0 / 6.0)                    /* mean pips per roll */
#define TW_VAR_PER_PIP (18.472222 / (TW_MU * TW_MU * TW_MU))

extern double TW_SHOTS[26];      /* chance that a shot at distance d hits (direct and combined) */
extern double TW_LOGMISS[26];    /* log(1 - TW_SHOTS[d]), capped */
extern double TW_PHI_TAB[16002]; /* standard normal CDF on [-8, 8], step 0.001 */
extern int TW_BINOM[32][8];      /* binomial coefficients C(n, k), k <= 7 */
/* bit x (0 .. p - 1) of TW_SHOT_FROM[p]: a shooter x points from the far end (0 the bar, in the
   numbering of the side shot at: p - x away from a blot on p) can hit it */
extern uint32_t TW_SHOT_FROM[25];

/* fill the tables above (once, at module import) */
void tw_eval_init(void);

/* standard normal CDF from the table (linear interpolation, error < 1e-7) */
TW_INLINE double tw_phi(double x) {
    double t;
    int j;
    if (x <= -8.0) return 0.0;
    if (x >= 8.0) return 1.0;
    t = (x + 8.0) * 1000.0;
    j = (int)t;
    t -= j;
    return TW_PHI_TAB[j] * (1.0 - t) + TW_PHI_TAB[j + 1] * t;
}

/* the TW_NHAND hand-made features of side S against O (each int[26] in its own numbering,
   opposite geometry; [9] and [10] are the shot features) */
void tw_hand_features(const int *S, const int *O, double *f);
/* the linear contact model's TW_NF features of a backgammon-geometry row */
void tw_features(const uint8_t *row, double *f);
/* the linear model (weights W[5][TW_NF], row stride ldw doubles); backgammons count under the
   cube's scoring */
void tw_linear_row(const tw_params *P, const uint8_t *row, const double *W, long ldw, double *o);

/* An evaluator of the races beyond the bear-off databases (a checker of either side outside
   its home board): the six columns of a row (mover's seat) into o; ctx is its own data. */
typedef void (*tw_race_beyond)(const void *ctx, const tw_params *P, const uint8_t *row, double *o);
/* The race model: one-sided bear-off distributions `one` (shape [n, 2, n2], strides s0, s1
   doubles; [., 0, .] all off, [., 1, .] first off) and the two-sided table `two` (924 x 924);
   with `beyond` set (a race network, tw_net_race_beyond), tw_eval_ends gives it the races in
   which a checker of either side is outside its home board. */
typedef struct {
    const double *one; long s0, s1, n2; const double *two;
    tw_race_beyond beyond; const void *ctx;
} tw_race_tables;
/* the race model of a row with no contact (tw_sides, then tw_race_sides) */
void tw_race_row(const tw_params *P, const uint8_t *row, const tw_race_tables *t, double *o);
/* the race model of two sides with no contact, each int[26] in its own numbering (0 off,
   1..24 its points, 25 bar); o[0] is tawla31's expected points under checkers-left scoring
   (RULES.md 5.7), else 2 win - 1 + win gammon - lose gammon */
void tw_race_sides(const tw_params *P, const int *me, const int *opp, const tw_race_tables *t, double *o);
/* expected points of tawla31's 15-minus-off scoring from the four roll distributions of the
   side to move (pm_*) and the opponent (po_*); every bin from hi up is 0 */
double tw_t31_equity(const double *pm_a, const double *pm_f, const double *po_a, const double *po_f,
                     const int *me, const int *opp, int hi);

/* no contact left (opposite geometry): every mover checker, bar included, below every opponent
   checker in the mover's numbering */
int tw_no_contact_opposite(const uint8_t *row);

/* What tw_eval_ends found. */
#define TW_END_CONTACT 0  /* contact: o untouched, for a contact model */
#define TW_END_LOST 1     /* the opponent has won: the exact result from the loser's seat */
#define TW_END_WON 2      /* the mover has won (not reachable from expansion) */
#define TW_END_RACE 3     /* a race: the race model (column 0 tawla31's expected points under
                             checkers-left scoring, else 2 win - 1 + wg - lg) */
#define TW_END_DRAW 4     /* a draw (the plakoto mother rule): all zero */

/* The rows no contact model sees, for every ruleset: tw_game_result without the frozen test
   (RULES.md 1.7, 1.8, 4.4, 5.6), then the race test (RULES.md 5.5's condition where it
   applies; without race tables, t NULL, no race is looked for). g: the ruleset's geometry (tw_geo_init(g, P->same, P->contact == TW_PIN)). */
int tw_eval_ends(const tw_params *P, const tw_geo *g, const uint8_t *row, const tw_race_tables *t,
                 double *o);
/* backgammon / adi in one pass: tw_eval_ends, then the linear contact model (weights W[5][TW_NF],
   row stride ldw doubles). Returns the TW_END_* code. */
int tw_eval_bg_row(const tw_params *P, const tw_geo *g, const uint8_t *row, const double *W, long ldw,
                   const tw_race_tables *t, double *o);

/* the no-hit games' effective-pip contact model (mahbusa, tawla31, tawla31-saharat) */
void tw_nohit_row(const tw_params *P, const uint8_t *row, double *o);

#endif /* TW_EVAL_H */
