/*
 * The ruleset as data, and the codes the C engine shares with Python.
 *
 * tw_params is filled from the dict tawla.rules.params.native_params gives for a Ruleset
 * (through tawla.native._params.Params, which takes exactly these field names): one move
 * generator serves every ruleset, switched by these fields (RULES.md section 7, the flag
 * table). The codes below are tawla.rules.params.CONTACT_CODES / SCORING_CODES and
 * tawla.core.results.ResultKind; tests/test_native_params.py checks that they agree.
 * Compiler helpers (inlining, branch hints, bit scans) used by every unit are here too.
 */
#ifndef TW_PARAMS_H
#define TW_PARAMS_H

#include <stdint.h>
#include <string.h>

#define TW_W 56 /* bytes of a packed row (tawla/layout.py) */

/* contact rule (RULES.md 2.1, 4.2, 5.2) */
#define TW_HIT 0
#define TW_PIN 1
#define TW_BLOCK 2

/* scoring (1.8) */
#define TW_SCORE_CUBE 0
#define TW_SCORE_MARS 1
#define TW_SCORE_CHECKERS_LEFT 2

/* result kinds (tawla.core.results.KINDS) */
#define TW_K_SINGLE 0
#define TW_K_GAMMON 1
#define TW_K_BACKGAMMON 2
#define TW_K_QUADRANT 3
#define TW_K_MOTHER 4
#define TW_K_DRAW 5
#define TW_K_UNFINISHED 6

typedef struct {
    int contact;              /* TW_HIT, TW_PIN or TW_BLOCK */
    int has_bar;              /* hitting games: a bar exists */
    int same;                 /* geometry: 1 = same direction (T31S), 0 = opposite */
    int start_lock;           /* 0, or the runner lock's release zone 1..start_lock (5.3, 6.3) */
    int bearoff_no_pinned;    /* 4.3 */
    int bearoff_no_opponent_in_home; /* 5.5 */
    int quadrant_lock_win;    /* 5.6 */
    int wall_rule;            /* 6.5 */
    int mother_plakoto;       /* 4.4 option */
    int can_freeze;           /* 1.7: frozen positions are draws (no-hit games) */
    int scoring;              /* TW_SCORE_* (1.8) */
    int bar_backgammon_counts_double; /* 2.2 option D14 */
    int opening_reroll;       /* 1.6 */
    uint8_t start[26];        /* starting checkers per own point (1.2) */
} tw_params;

/* the game result of a row, relative to its mover (tawla.reference.scoring.game_result) */
typedef struct { int over, winner, kind, points; } tw_result;  /* winner: 0 mover, 1 opponent, -1 draw */

/* one checker's single step: from p to t (0 off) with die d; hit = it hit or pinned a blot */
typedef struct { uint8_t p, t, d, hit; } tw_step;

#if defined(__GNUC__) || defined(__clang__)
#define TW_INLINE static inline __attribute__((always_inline))
#define TW_LIKELY(x) __builtin_expect(!!(x), 1)
#define TW_UNLIKELY(x) __builtin_expect(!!(x), 0)
TW_INLINE int tw_hibit(uint32_t x) { return 31 - __builtin_clz(x); }
TW_INLINE int tw_lobit(uint32_t x) { return __builtin_ctz(x); }
TW_INLINE int tw_popcount(uint32_t x) { return __builtin_popcount(x); }
TW_INLINE uint64_t tw_bswap64(uint64_t x) { return __builtin_bswap64(x); }
#else
#define TW_INLINE static inline
#define TW_LIKELY(x) (x)
#define TW_UNLIKELY(x) (x)
TW_INLINE int tw_hibit(uint32_t x) { int i = 31; while (!(x >> i)) i--; return i; }
TW_INLINE int tw_lobit(uint32_t x) { int i = 0; while (!(x >> i & 1u)) i++; return i; }
TW_INLINE int tw_popcount(uint32_t x) { int n = 0; while (x) { x &= x - 1; n++; } return n; }
TW_INLINE uint64_t tw_bswap64(uint64_t x) {
    uint64_t r = 0; int i;
    for (i = 0; i < 8; i++) { r = (r << 8) | (x & 0xFF); x >>= 8; }
    return r;
}
#endif

/* storage of one thread (the memos of the evaluators: the C loops run without the GIL) */
#if defined(_MSC_VER)
#define TW_THREAD __declspec(thread)
#elif defined(__GNUC__) || defined(__clang__)
#define TW_THREAD __thread
#else
#define TW_THREAD _Thread_local
#endif

TW_INLINE uint64_t tw_load64(const uint8_t *p) { uint64_t x; memcpy(&x, p, 8); return x; }
TW_INLINE void tw_store64(uint8_t *p, uint64_t x) { memcpy(p, &x, 8); }

#define TW_BITS_1_24 0x1FFFFFEu  /* bits 1..24 */
#define TW_BITS_7_25 0x3FFFF80u  /* bits 7..25 */
#define TW_BITS_19_24 0x1F80000u /* bits 19..24 */

#endif /* TW_PARAMS_H */
