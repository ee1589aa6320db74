/*
 * The evaluators' shared tables (shot chances, the normal CDF, binomial coefficients) and the
 * contact test of opposite-geometry rows: what the contact, race, no-hit and game-end units
 * all read, so that none of them calls another for it.
 */
#include <math.h>
#include "tw_eval.h"

double TW_SHOTS[26];
double TW_LOGMISS[26];
double TW_PHI_TAB[16002];
int TW_BINOM[32][8];

uint32_t TW_SHOT_FROM[25];

void tw_eval_init(void) {
    static const int shots[26] = {0, 11, 12, 14, 15, 15, 17, 6, 6, 5, 3, 2, 3, 0, 0, 1, 1, 0, 1, 0, 1,
                                  0, 0, 0, 1, 0};
    int i, j;
    for (i = 0; i < 26; i++) {
        TW_SHOTS[i] = shots[i] / 36.0;
        TW_LOGMISS[i] = log(1.0 - (TW_SHOTS[i] < 0.999 ? TW_SHOTS[i] : 0.999));
    }
    for (i = 0; i < 32; i++) {
        for (j = 0; j < 8; j++) TW_BINOM[i][j] = 0;
        TW_BINOM[i][0] = 1;
        for (j = 1; j < 8 && i > 0; j++) TW_BINOM[i][j] = TW_BINOM[i - 1][j - 1] + TW_BINOM[i - 1][j];
    }
    for (i = 1; i <= 24; i++)
        for (TW_SHOT_FROM[i] = 0, j = 0; j < i; j++)
            if (TW_SHOTS[i - j] > 0) TW_SHOT_FROM[i] |= 1u << j;
    for (i = 0; i < 16002; i++) TW_PHI_TAB[i] = 0.5 * (1.0 + erf((-8.0 + i * 0.001) / 1.4142135623730951));
}

int tw_no_contact_opposite(const uint8_t *row) {
    int p, my_max = 0, opp_min = 99;
    for (p = 25; p >= 1; p--) if (row[p]) { my_max = p; break; }
    if (row[51]) opp_min = 0;
    else for (p = 1; p <= 24; p++) if (row[26 + p]) { opp_min = p; break; }
    return my_max < opp_min;
}
