/*
 * The money cube model (tw_cube.h): Janowski's cubeful equity, (1 - x) times the dead cube's
 * plus x times the fully live cube's, the live one a broken line through the take point
 * TP = (L - 1/2) / (W + L + 1/2) and the cash point CP = (L + 1) / (W + L + 1/2), W and L the
 * average points of a win and of a loss (tawla.bots.cube).
 */
#include "tw_cube.h"

#define TW_CUBE_EPS 1e-6

static double tw_janowski(double win, double W, double L, int owner, double x, int jacoby) {
    double tp = (L - 0.5) / (W + L + 0.5), cp = (L + 1.0) / (W + L + 0.5), live;
    double dead = jacoby ? 2 * win - 1 : win * W - (1 - win) * L;
    if (owner == TW_CUBE_OWN)
        live = win < cp ? -L + (1 + L) * win / cp : 1 + (W - 1) * (win - cp) / (1 - cp);
    else if (owner == TW_CUBE_OPP)
        live = win < tp ? -L + (L - 1) * win / tp : -1 + (W + 1) * (win - tp) / (1 - tp);
    else if (win < tp)
        live = jacoby ? -1.0 : -L + (L - 1) * win / tp;
    else if (win < cp)
        live = -1 + 2 * (win - tp) / (cp - tp);
    else
        live = jacoby ? 1.0 : 1 + (W - 1) * (win - cp) / (1 - cp);
    return (1 - x) * dead + x * live;
}

void tw_cube_equities(const tw_cube_model *m, const double *p, int owner, double *nd, double *dt) {
    double win = p[1], W, L;
    if (win < TW_CUBE_EPS) win = TW_CUBE_EPS;
    if (win > 1 - TW_CUBE_EPS) win = 1 - TW_CUBE_EPS;
    W = 1.0 + (p[2] + p[3]) / win;
    L = 1.0 + (p[4] + p[5]) / (1 - win);
    *nd = tw_janowski(win, W, L, owner, m->efficiency, m->jacoby && owner == TW_CUBE_CENTRED);
    *dt = 2 * tw_janowski(win, W, L, TW_CUBE_OPP, m->efficiency, 0);
    if (m->beaver && *dt < 0) *dt *= 2;
}

int tw_cube_decide(const tw_cube_model *m, const double *p, int owner, double *equity) {
    double nd, dt, doubled;
    tw_cube_equities(m, p, owner, &nd, &dt);
    doubled = dt < 1.0 ? dt : 1.0;
    if (owner == TW_CUBE_OPP || !(doubled > nd)) {
        if (equity) *equity = nd;
        return TW_CUBE_NO_DOUBLE;
    }
    if (equity) *equity = doubled;
    if (dt > 1.0) return TW_CUBE_PASS;
    return m->beaver && dt < 0 ? TW_CUBE_BEAVER : TW_CUBE_TAKE;
}
