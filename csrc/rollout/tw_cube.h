/*
 * Cube models (tw_cube.c): the cubeful equities of a cube decision from cubeless pre-roll
 * probabilities, behind one interface that the rollout trial loop calls. The model of money
 * play is Janowski's (tawla.bots.cube.MoneyCube is its Python twin; tests compare the two).
 */
#ifndef TW_CUBE_H
#define TW_CUBE_H

#define TW_CUBE_MONEY 0  /* money play, Janowski's model */

typedef struct {
    int kind;           /* TW_CUBE_* */
    double efficiency;  /* Janowski's cube efficiency x, 0..1 */
    int jacoby;         /* money: gammons count single while the cube is centred (RULES.md 2.4) */
    int beaver;         /* money: the taker beavers a double whose take is worth less than 0 */
} tw_cube_model;

/* The cube's owner, seen from the side on roll. */
#define TW_CUBE_CENTRED 0
#define TW_CUBE_OWN 1
#define TW_CUBE_OPP (-1)

/* The cubeful equities per unit of the cube before the decision (a cash is 1) for the side on
   roll, from its cubeless pre-roll columns p[6] (equity, win, win gammon, win backgammon,
   lose gammon, lose backgammon) and the owner: *nd not doubling, *dt doubling and the
   opponent taking (beavering where the model allows it). */
void tw_cube_equities(const tw_cube_model *m, const double *p, int owner, double *nd, double *dt);

/* The decision for the side on roll. */
#define TW_CUBE_NO_DOUBLE 0
#define TW_CUBE_TAKE 1       /* double, take (the cube passes to the taker at twice its value) */
#define TW_CUBE_BEAVER 2     /* double, beaver (four times its value, the doubler owns it) */
#define TW_CUBE_PASS 3       /* double, pass (the doubler wins the cube's value) */
/* The right decision (no double when the opponent owns the cube); its equity per unit of cube
   into *equity (may be NULL). */
int tw_cube_decide(const tw_cube_model *m, const double *p, int owner, double *equity);

#endif /* TW_CUBE_H */
