/*
 * Cube models: the cubeful equities of a cube decision from cubeless pre-roll probabilities,
 * the ones the rollout trial loop calls. Money play: Janowski's model (tw_cube.c;
 * tawla.bots.cube.MoneyCube is its Python twin). A match: GNU Backgammon's model on a match
 * equity table (tw_cube_match.c; tawla.met.MatchCube is its twin). Tests compare each pair.
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

/* Janowski's cube efficiency by GNU Backgammon's position classes (tawla.bots.cube.
   CubeEfficiency): contact (crashed alike); in a race race_base + race_per_pip x the side on
   roll's pips within [race_min, race_max]; bearoff with every checker of both sides home. */
typedef struct {
    double contact, race_base, race_per_pip, race_min, race_max, bearoff;
} tw_cube_efficiency;

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

/* A match equity table (tawla.met.MatchEquityTable): pre[(a - 1) * TW_MET_MAX + b - 1] the
   chance of a player a away against one b away at the start of a game that is not
   post-Crawford, post[b - 1] the trailer's b away after the Crawford game. */
#define TW_MET_MAX 64
typedef struct {
    const double *pre;
    const double *post;
} tw_met;

/* A match as the side on roll sees it (tawla.met.ScoreState). */
typedef struct {
    int away, opp_away;  /* points each still needs, 1 .. TW_MET_MAX */
    int cube;            /* the cube's value, a power of two */
    int owner;           /* TW_CUBE_CENTRED, TW_CUBE_OWN, TW_CUBE_OPP */
    int crawford;        /* the Crawford game */
} tw_score;

/* The chance of a player away against opp_away after a game that moved won points to it or
   lost points to the opponent; post: the next game is post-Crawford if nobody has won. */
double tw_met_after(const tw_met *t, int away, int opp_away, int won, int lost, int post);
/* The side on roll's chance after this game moved won or lost points (times nothing: points). */
double tw_score_me(const tw_met *t, const tw_score *s, int won, int lost);
/* Whether the side on roll may double (not the Crawford game, not the opponent's cube, a cube
   short of its match, not the leader after the Crawford game). */
int tw_score_may_double(const tw_score *s);
/* The side on roll's chance of winning the match from cubeless pre-roll probabilities p[5]
   (as tw_cube_match's) at the score, the cube as it is and never turned. */
double tw_match_cubeless(const tw_met *t, const double *p, const tw_score *s);
/* The decision of the side on roll at the score from its cubeless pre-roll probabilities p[5]
   (win, win gammon, win backgammon, lose gammon, lose backgammon; held within [0, 1]) with cube
   efficiency x: TW_CUBE_NO_DOUBLE, TW_CUBE_TAKE or TW_CUBE_PASS, and the chances of winning the
   match not doubling (*nd), doubling and the opponent taking (*dt) or passing (*dp) and of the
   decision (*mwc); a side that may not double gets *nd in all four. Any pointer may be NULL. */
int tw_cube_match(const tw_met *t, const double *p, const tw_score *s, double x, double *nd, double *dt,
                  double *dp, double *mwc);

#endif /* TW_CUBE_H */
