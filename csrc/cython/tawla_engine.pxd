# The C engine (csrc/tawla_engine.h) as the Cython modules see it, declared once: every module
# of csrc/cython cimports it.

from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t, uint64_t

cdef extern from "tawla_engine.h" nogil:
    enum:
        TW_W
        TW_HIT
        TW_PIN
        TW_BLOCK
        TW_SCORE_CUBE
        TW_SCORE_MARS
        TW_SCORE_CHECKERS_LEFT
        TW_K_SINGLE
        TW_K_GAMMON
        TW_K_BACKGAMMON
        TW_K_QUADRANT
        TW_K_MOTHER
        TW_K_DRAW
        TW_K_UNFINISHED
        TW_MAX_STEPS
        TW_MAX_PATHS
        TW_NF

    # tw_params.h: the ruleset as data
    ctypedef struct tw_params:
        int contact
        int has_bar
        int same
        int start_lock
        int bearoff_no_pinned
        int bearoff_no_opponent_in_home
        int quadrant_lock_win
        int wall_rule
        int mother_plakoto
        int can_freeze
        int scoring
        int bar_backgammon_counts_double
        int opening_reroll
        uint8_t start[26]

    ctypedef struct tw_result:
        int over, winner, kind, points

    ctypedef struct tw_step:
        uint8_t p, t, d, hit

    # tw_board.h: geometry and validation
    ctypedef struct tw_geo:
        pass

    void tw_geo_init(tw_geo *g, int same, int pins)
    void tw_flip(const tw_geo *g, const uint8_t *src, uint8_t *dst)
    int tw_validate(const tw_params *P, const uint8_t *b)
    long tw_validate_rows(const tw_params *P, const uint8_t *rows, long n, int *reason)
    const char *tw_invalid_reason(int code)

    # tw_memory.h: big buffers, their cache, int64 vectors
    void *tw_big_resize(void *p, size_t old, size_t n)
    void tw_big_free(void *p, size_t nbytes)
    void tw_cache_take(void **ptr, size_t *nbytes, size_t want)
    void tw_cache_give(void *ptr, size_t nbytes)
    void tw_cache_clear()

    ctypedef struct tw_vec64:
        int64_t *p
        size_t n, cap, bytes

    int tw_vec64_reserve(tw_vec64 *v, size_t need)
    void tw_vec64_adopt(tw_vec64 *v, void *p, size_t nbytes)
    void tw_vec64_trim(tw_vec64 *v)
    void tw_vec64_free(tw_vec64 *v)

    # tw_step.h: the search context and its children buffer
    ctypedef struct tw_rowinfo:
        pass

    ctypedef struct tw_rec:
        uint8_t row[56]
        uint8_t nsteps, ended, first_die
        tw_step steps[4]

    ctypedef struct tw_ctx:
        const tw_params *P
        tw_geo geo
        uint8_t *out
        size_t nout, capout, outbytes
        int oom
        tw_rec *rec
        size_t nrec

    int tw_ctx_init(tw_ctx *c, const tw_params *P)
    void tw_ctx_free(tw_ctx *c)
    int tw_out_reserve_total(tw_ctx *c, size_t rows)
    void tw_out_adopt(tw_ctx *c, void *p, size_t nbytes)
    void tw_out_trim(tw_ctx *c)
    void tw_out_free(tw_ctx *c)

    # tw_expand.h: children of rows
    long tw_check_dice(const uint8_t *dice, long n)
    int tw_expand_rows(tw_ctx *c, const uint8_t *rows, const uint8_t *dice, long n, tw_vec64 *par)
    int tw_expand_rows_all_rolls(tw_ctx *c, const uint8_t *rows, long n, tw_vec64 *par, tw_vec64 *rol)

    # tw_turn.h: step sequences and step-by-step play
    int tw_sequences(tw_ctx *c, const uint8_t *row, int d1, int d2)
    size_t tw_sequences_keep(tw_ctx *c)

    ctypedef struct tw_path:
        uint8_t p, t, n, hit
        uint8_t d[4]

    ctypedef struct tw_turn:
        tw_ctx c
        int used, target, ended, over

    int tw_turn_init(tw_turn *T, const tw_params *P)
    void tw_turn_free(tw_turn *T)
    int tw_turn_begin(tw_turn *T, const tw_params *P, const uint8_t *row, int d1, int d2)
    int tw_turn_play(tw_turn *T, int a, int b, int d)
    int tw_turn_singles(tw_turn *T, tw_step *out)
    int tw_turn_steps(tw_turn *T, tw_step *singles, tw_path *combined, int *nc)
    int tw_turn_finals(tw_turn *T)

    # tw_result.h, tw_playout.h
    tw_result tw_game_result(const tw_params *P, const tw_geo *g, const uint8_t *b, int no_freeze_check)
    int tw_is_frozen(const tw_params *P, const tw_geo *g, const uint8_t *row)
    int tw_playout(const tw_params *P, long n_games, uint64_t seed, long max_turns,
                   int32_t *length, int8_t *winner, int8_t *kind, int16_t *points)

    # tw_eval.h: evaluators
    ctypedef void (*tw_race_beyond)(const void *ctx, const tw_params *P, const uint8_t *row, double *o) noexcept nogil
    ctypedef struct tw_race_tables:
        const double *one
        long s0, s1, n2
        const double *two
        tw_race_beyond beyond
        const void *ctx

    void tw_eval_init()
    void tw_features(const uint8_t *row, double *f)
    void tw_linear_row(const tw_params *P, const uint8_t *row, const double *W, long ldw, double *o)
    void tw_race_row(const tw_params *P, const uint8_t *row, const tw_race_tables *t, double *o)
    enum:
        TW_END_CONTACT
        TW_END_LOST
        TW_END_WON
        TW_END_RACE
        TW_END_DRAW

    int tw_eval_ends(const tw_params *P, const tw_geo *g, const uint8_t *row, const tw_race_tables *t,
                     double *o)
    void tw_race_sides(const tw_params *P, const int *me, const int *opp, const tw_race_tables *t, double *o)
    int tw_eval_bg_row(const tw_params *P, const tw_geo *g, const uint8_t *row, const double *W, long ldw,
                       const tw_race_tables *t, double *o)
    void tw_nohit_row(const tw_params *P, const uint8_t *row, double *o)

    # tw_net.h: neural evaluators and their self-play training
    enum:
        TW_NET_NI
        TW_NET_NO
        TW_NET_MAXH

    ctypedef struct tw_net:
        int nh
        float *w1
        float *b1
        float *w2
        float *b2

    void tw_net_init()
    int tw_net_inputs(const tw_params *P, const uint8_t *row, int *idx, float *val)
    void tw_net_forward(const tw_net *n, const int *idx, const float *val, int m, float *h, float *o)
    void tw_net_columns(const tw_params *P, const float *o, double *out)
    void tw_net_row(const tw_params *P, const tw_net *n, const uint8_t *row, float *h, float *o)
    void tw_net_rows(const tw_params *P, const tw_net *n, const uint8_t *rows, long count, float *o)
    void tw_net_race_beyond(const void *ctx, const tw_params *P, const uint8_t *row, double *o) noexcept nogil
    void tw_net_eval_bg(const tw_params *P, const tw_net *n, const uint8_t *rows, long count,
                        const tw_race_tables *t, double *out)
    int tw_net_train(const tw_params *P, tw_net *n, long n_games, uint64_t seed, float alpha,
                     long max_turns, const tw_race_tables *race, int32_t *length, int8_t *winner,
                     int16_t *points)
    long tw_net_positions(const tw_params *P, const tw_net *n, long n_games, uint64_t seed,
                          float explore, long max_turns, const tw_race_tables *race, uint8_t *rows,
                          long cap)
    int tw_net_ply1_targets(const tw_params *P, const tw_net *n, const tw_race_tables *race,
                            const uint8_t *rows, long count, float *targets)
    int tw_net_ply2_targets(const tw_params *P, const tw_net *n, const tw_race_tables *race,
                            const uint8_t *rows, long count, int prune, float *targets)
    int tw_net_rollout_targets(const tw_params *P, const tw_net *n, const tw_race_tables *race,
                               const uint8_t *rows, long count, long first, int trials, int horizon,
                               uint64_t seed, float *targets)
    double tw_net_fit(const tw_params *P, tw_net *n, const uint8_t *rows, const float *targets,
                      const int64_t *order, long count, float alpha)

    # tw_choose.h, tw_cube.h, tw_rollout.h: the move choice, cube models, the rollout trial loop
    enum:
        TW_CONTACT_NET
        TW_CONTACT_LINEAR
        TW_CONTACT_NOHIT
        TW_CUBE_MONEY
        TW_MET_MAX
        TW_RO_NV

    ctypedef struct tw_evaluator:
        int contact
        const tw_net *net
        const double *W
        long ldw
        const tw_race_tables *race
        int ply
        int prune
        double margin

    ctypedef struct tw_cube_model:
        int kind
        double efficiency
        int jacoby
        int beaver

    ctypedef struct tw_cube_efficiency:
        double contact
        double race_base
        double race_per_pip
        double race_min
        double race_max
        double bearoff

    void tw_cube_equities(const tw_cube_model *m, const double *p, int owner, double *nd, double *dt)
    int tw_cube_decide(const tw_cube_model *m, const double *p, int owner, double *equity)

    ctypedef struct tw_met:
        const double *pre
        const double *post

    ctypedef struct tw_score:
        int away
        int opp_away
        int cube
        int owner
        int crawford

    int tw_score_may_double(const tw_score *s)
    int tw_cube_match(const tw_met *t, const double *p, const tw_score *s, double x, double *nd, double *dt,
                      double *dp, double *mwc)

    ctypedef struct tw_ro_settings:
        long truncate
        int vr
        int stop_bearoff
        int stop_race
        int stratify
        int rot[2]
        int cubeful
        tw_cube_model cube
        int by_class
        tw_cube_efficiency eff
        int owner
        int decide_first
        int match
        tw_met met
        int away[2]
        int cube_value
        int crawford
        int no_cube
        uint64_t seed

    int tw_rollout(const tw_params *P, const tw_evaluator *E, const tw_ro_settings *S,
                   const uint8_t *rows, long count, long first, long n, double *out, double *raw,
                   int32_t *plies)
