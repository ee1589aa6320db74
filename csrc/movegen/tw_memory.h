/*
 * Memory of the C engine: big output buffers and a cache of them, growable int64 vectors,
 * and the hash set of 128-bit keys that the searches use.
 *
 * Big buffers: on Linux anonymous mappings with transparent huge pages (a batch of a million
 * children is tens of MB; 4 KiB page faults would cost more than generating them), grown and
 * shrunk by mremap without copying; elsewhere malloc/realloc.
 *
 * Hash set: open addressing, linear probing, generation stamps (clearing is O(1)); each slot
 * has a 32-bit value beside its key, for searches that memoise a number per state.
 */
#ifndef TW_MEMORY_H
#define TW_MEMORY_H

#include <stddef.h>
#include "tw_params.h"

void *tw_big_resize(void *p, size_t old, size_t n);
void tw_big_free(void *p, size_t bytes);

/* A few dropped output buffers, kept for the next call (their pages are already mapped, so a
   search loop that expands batch after batch pays no page faults). Not thread-safe: the
   Python module calls these with the GIL held. */
void tw_cache_take(void **ptr, size_t *nbytes, size_t want);
void tw_cache_give(void *ptr, size_t nbytes);
void tw_cache_clear(void);

/* growable int64 vector in a big buffer (parent / roll indices) */
typedef struct { int64_t *p; size_t n, cap, bytes; } tw_vec64;
int tw_vec64_grow(tw_vec64 *v, size_t need);
void tw_vec64_adopt(tw_vec64 *v, void *p, size_t nbytes);
void tw_vec64_trim(tw_vec64 *v);
void tw_vec64_free(tw_vec64 *v);
TW_INLINE int tw_vec64_reserve(tw_vec64 *v, size_t need) {
    return TW_LIKELY(need <= v->cap) ? 1 : tw_vec64_grow(v, need);
}

typedef struct { uint64_t k0, k1; uint32_t gen, val; } tw_slot;
typedef struct {
    tw_slot *slots;
    uint32_t cap, mask, count, gen;
    int shift;
    int oom;
} tw_set;

int tw_set_init(tw_set *h, int logcap);
void tw_set_free(tw_set *h);
void tw_set_clear(tw_set *h);
void tw_set_grow(tw_set *h);

TW_INLINE uint32_t tw_hash(const tw_set *h, uint64_t k0, uint64_t k1) {
    uint64_t x = k0 * 0x9E3779B97F4A7C15ULL ^ (k1 + (k1 >> 29)) * 0xC2B2AE3D27D4EB4FULL;
    x ^= x >> 32;
    x *= 0xD6E8FEB86659FD93ULL;
    return (uint32_t)(x >> h->shift);
}

/* 1 when (k0, k1) was not in the set (and is now, with value `val`), else 0 */
TW_INLINE int tw_set_add(tw_set *h, uint64_t k0, uint64_t k1, uint32_t val) {
    uint32_t i = tw_hash(h, k0, k1);
    for (;;) {
        tw_slot *e = &h->slots[i];
        if (e->gen != h->gen) {
            e->k0 = k0; e->k1 = k1; e->gen = h->gen; e->val = val;
            if (TW_UNLIKELY(++h->count * 2 > h->cap)) tw_set_grow(h);
            return 1;
        }
        if (e->k0 == k0 && e->k1 == k1) return 0;
        i = (i + 1) & h->mask;
    }
}

TW_INLINE int tw_set_insert(tw_set *h, uint64_t k0, uint64_t k1) { return tw_set_add(h, k0, k1, 0); }

/* 1 and *val when (k0, k1) is in the set, else 0 */
TW_INLINE int tw_set_get(const tw_set *h, uint64_t k0, uint64_t k1, uint32_t *val) {
    uint32_t i = tw_hash(h, k0, k1);
    for (;;) {
        const tw_slot *e = &h->slots[i];
        if (e->gen != h->gen) return 0;
        if (e->k0 == k0 && e->k1 == k1) { *val = e->val; return 1; }
        i = (i + 1) & h->mask;
    }
}

#endif /* TW_MEMORY_H */
