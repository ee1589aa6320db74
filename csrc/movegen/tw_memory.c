/*
 * Big buffers (mmap/mremap on Linux), the cache of dropped output buffers, int64 vectors and
 * the hash set's allocation and growth.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1  /* mremap */
#endif
#include <stdlib.h>
#include "tw_memory.h"
#if defined(__linux__)
#include <sys/mman.h>
#define TW_HAVE_MMAP 1
#endif

void *tw_big_resize(void *p, size_t old, size_t n) {
#ifdef TW_HAVE_MMAP
    void *q;
    if (n == 0) n = 64;
    if (!p) {
        q = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    } else {
        if (old == n) return p;
        q = mremap(p, old, n, MREMAP_MAYMOVE);
    }
    if (q == MAP_FAILED) return NULL;
    return q;
#else
    (void)old;
    return realloc(p, n ? n : 64);
#endif
}

void tw_big_free(void *p, size_t bytes) {
    if (!p) return;
#ifdef TW_HAVE_MMAP
    munmap(p, bytes ? bytes : 64);
#else
    (void)bytes;
    free(p);
#endif
}

/* --- the buffer cache: up to TW_CACHE_SLOTS buffers, TW_CACHE_LIMIT bytes in all ---------- */
#define TW_CACHE_SLOTS 6
#define TW_CACHE_LIMIT ((size_t)1 << 30)
static void *tw_cache_ptr[TW_CACHE_SLOTS];
static size_t tw_cache_bytes[TW_CACHE_SLOTS];

/* pop the smallest cached buffer of at least `want` bytes, else the largest; (NULL, 0) when
   the cache is empty */
void tw_cache_take(void **ptr, size_t *nbytes, size_t want) {
    int i, best = -1, big = -1;
    for (i = 0; i < TW_CACHE_SLOTS; i++) {
        if (!tw_cache_ptr[i]) continue;
        if (tw_cache_bytes[i] >= want && (best < 0 || tw_cache_bytes[i] < tw_cache_bytes[best])) best = i;
        if (big < 0 || tw_cache_bytes[i] > tw_cache_bytes[big]) big = i;
    }
    if (best < 0) best = big;
    if (best < 0) { *ptr = NULL; *nbytes = 0; return; }
    *ptr = tw_cache_ptr[best]; *nbytes = tw_cache_bytes[best];
    tw_cache_ptr[best] = NULL; tw_cache_bytes[best] = 0;
}

void tw_cache_give(void *ptr, size_t nbytes) {
    int i, free_slot = -1;
    size_t total = nbytes;
    for (i = 0; i < TW_CACHE_SLOTS; i++) {
        if (!tw_cache_ptr[i]) free_slot = i;
        else total += tw_cache_bytes[i];
    }
    if (free_slot >= 0 && total <= TW_CACHE_LIMIT && nbytes >= 4096) {
        tw_cache_ptr[free_slot] = ptr; tw_cache_bytes[free_slot] = nbytes;
    } else {
        tw_big_free(ptr, nbytes);
    }
}

void tw_cache_clear(void) {
    int i;
    for (i = 0; i < TW_CACHE_SLOTS; i++) {
        if (tw_cache_ptr[i]) tw_big_free(tw_cache_ptr[i], tw_cache_bytes[i]);
        tw_cache_ptr[i] = NULL; tw_cache_bytes[i] = 0;
    }
}

/* --- int64 vectors -------------------------------------------------------------------------- */
int tw_vec64_grow(tw_vec64 *v, size_t need) {
    size_t cap = v->cap ? v->cap : 4096;
    int64_t *nb;
    while (cap < need) cap *= 2;
    nb = (int64_t *)tw_big_resize(v->p, v->bytes, cap * 8);
    if (!nb) return 0;
    v->p = nb; v->cap = cap; v->bytes = cap * 8;
    return 1;
}

void tw_vec64_adopt(tw_vec64 *v, void *p, size_t nbytes) {
    v->p = (int64_t *)p; v->bytes = nbytes; v->cap = nbytes / 8; v->n = 0;
}

/* give back most of a buffer that is mostly unused (keeps a result from pinning a big one) */
void tw_vec64_trim(tw_vec64 *v) {
    size_t need = v->n * 8 + 64;
    int64_t *nb;
    if (!v->p || v->bytes < ((size_t)1 << 20) || v->bytes / 4 < need) return;
    nb = (int64_t *)tw_big_resize(v->p, v->bytes, 2 * need);
    if (!nb) return;
    v->p = nb; v->bytes = 2 * need; v->cap = v->bytes / 8;
}

void tw_vec64_free(tw_vec64 *v) {
    tw_big_free(v->p, v->bytes);
    v->p = NULL; v->n = v->cap = v->bytes = 0;
}

/* --- the hash set --------------------------------------------------------------------------- */
int tw_set_init(tw_set *h, int logcap) {
    h->cap = 1u << logcap; h->mask = h->cap - 1; h->shift = 64 - logcap;
    h->count = 0; h->gen = 1; h->oom = 0;
    h->slots = (tw_slot *)calloc(h->cap, sizeof(tw_slot));
    return h->slots != NULL;
}

void tw_set_free(tw_set *h) { free(h->slots); h->slots = NULL; }

void tw_set_clear(tw_set *h) {
    h->count = 0;
    if (++h->gen == 0) {  /* wrapped: really clear */
        memset(h->slots, 0, (size_t)h->cap * sizeof(tw_slot));
        h->gen = 1;
    }
}

void tw_set_grow(tw_set *h) {
    tw_slot *old = h->slots;
    uint32_t oldcap = h->cap, i, gen = h->gen;
    tw_slot *ns = (tw_slot *)calloc((size_t)oldcap * 2, sizeof(tw_slot));
    if (!ns) { h->oom = 1; return; }
    h->slots = ns; h->cap = oldcap * 2; h->mask = h->cap - 1; h->shift -= 1;
    /* keep gen: new slots are 0, i.e. empty while gen != 0 */
    for (i = 0; i < oldcap; i++) {
        if (old[i].gen == gen) {
            uint32_t j = tw_hash(h, old[i].k0, old[i].k1);
            while (ns[j].gen == gen) j = (j + 1) & h->mask;
            ns[j] = old[i];
        }
    }
    free(old);
}
