/*
 * The inputs of the neural evaluators (layout in tw_net.h), sparse: the indices and values of
 * the nonzero inputs of a packed row.
 */
#include "tw_net.h"
#include "tw_eval.h"
#include "tw_board.h"

/* The input of a point with n checkers (0 .. 15): its offset in the side's block (before
   p - 1) and its value; n = 0 gives no input (the loop below writes it and does not count it). */
static const int TW_POINT_OFF[16] = {0, 0, 24, 48, 72, 72, 72, 72, 72, 72, 72, 72, 72, 72, 72, 72};
static const float TW_POINT_VAL[16] = {0.0f, 1.0f, 1.0f, 1.0f, 0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f, 3.5f,
                                       4.0f, 4.5f, 5.0f, 5.5f, 6.0f};  /* (n - 3) / 2 from 4 on */

static int tw_side_inputs(const tw_params *P, const int *S, const int *O, uint32_t pinned,
                          int base, int *idx, float *val, int m, int *raw) {
    int p, n, k;
    double hand[TW_NHAND];
    for (p = 1; p <= 24; p++) {  /* without branches: written at m, counted when n > 0 */
        n = S[p] & 15;
        idx[m] = base + TW_POINT_OFF[n] + p - 1;
        val[m] = TW_POINT_VAL[n];
        m += n != 0;
    }
    if (S[25]) { idx[m] = base + 96; val[m++] = (float)(S[25] / 2.0); }
    if (S[0]) { idx[m] = base + 97; val[m++] = (float)(S[0] / 15.0); }
    *raw = m;
    tw_hand_features(S, O, hand);
    if (P->contact == TW_BLOCK) hand[9] = hand[10] = 0.0;  /* no blot is ever hit or pinned */
    for (k = 0; k < TW_NHAND; k++)
        if (hand[k] != 0.0) { idx[m] = base + 98 + k; val[m++] = (float)hand[k]; }
    while (pinned) {
        p = tw_hibit(pinned);
        pinned &= ~(1u << p);
        idx[m] = base + 112 + p - 1; val[m++] = 1.0f;
    }
    if (P->start_lock && S[0] == 0) {
        for (p = 1; p <= P->start_lock && !S[p]; p++) {}
        if (p > P->start_lock) { idx[m] = base + 136; val[m++] = 1.0f; }
    }
    return m;
}

int tw_net_inputs(const tw_params *P, const uint8_t *row, int *idx, float *val) {
    int raw;
    return tw_net_inputs_raw(P, row, idx, val, &raw);
}

int tw_net_inputs_raw(const tw_params *P, const uint8_t *row, int *idx, float *val, int *raw) {
    int me[26], opp[26], p, q, m, raw_opp;
    uint32_t bits = tw_pinbits(row), mine = 0, theirs = 0;
    for (p = 0; p < 26; p++) me[p] = row[p];
    opp[0] = row[26];
    opp[25] = row[51];
    for (p = 1; p <= 24; p++) {
        q = tw_opp_point(p, P->same);
        opp[q] = row[26 + p];
        if (bits >> (p - 1) & 1) mine |= 1u << p;
        else if (row[p] && row[26 + p]) theirs |= 1u << q;
    }
    m = tw_side_inputs(P, me, opp, mine, 0, idx, val, 0, raw);
    return tw_side_inputs(P, opp, me, theirs, TW_NET_SIDE, idx, val, m, &raw_opp);
}
