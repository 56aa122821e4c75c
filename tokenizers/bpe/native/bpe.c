/* Token Lens native core: chunk counting, the BPE merge loop of training, and encoding.

   Each function here has a pure-Python twin that the tests hold it equal to:
     tl_chunks_*  <->  tokenizers.core.patterns.chunk_counts   (distinct chunks and their counts)
     tl_train     <->  tokenizers.bpe.fast.train_fast      (same merges, same tie and overlap rules)
     tl_encode    <->  BPETokenizer.encode_ordinary        (same ids)
     tl_sp_encode <->  the sentencepiece package's encode  (same ids, for the models it accepts)
   Read the Python first: this file is the same algorithm with arrays and hash tables in place of
   lists, dicts and sets. Ids, word indices and pair indices are int32 (training refuses more than
   2^31 - 1 words or pairs, which would take tens of GB); counts are int64.
   An encoder is read-only once built, so threads (Streamlit sessions) may share one. */
#include <stdlib.h>
#include <string.h>
#include "tl_native.h"

/* ---- hashing ------------------------------------------------------------------------------- */

static uint64_t mix64(uint64_t x) { /* a full-avalanche finalizer (MurmurHash3's fmix64) */
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static uint64_t hash_bytes(const uint8_t *p, size_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = mix64(h ^ w);
        p += 8; n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    return mix64(h ^ w ^ ((uint64_t)n << 56));
}

static int grow(void **arr, int64_t *cap, int64_t need, size_t item) {
    if (need <= *cap) return 0;
    int64_t c = *cap ? *cap : 16;
    while (c < need) c *= 2;
    void *p = realloc(*arr, (size_t)c * item);
    if (!p) return -1;
    *arr = p; *cap = c;
    return 0;
}

/* ---- pair table: (a, b) -> index, open addressing --------------------------------------------- */

typedef struct {
    uint64_t *keys;   /* (a << 32 | b) + 1; 0 marks an empty slot */
    int32_t *vals;
    int64_t mask, used;
} pairmap;

static uint64_t pkey(int32_t a, int32_t b) { return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b; }

static int pm_init(pairmap *m, int64_t want) {
    int64_t size = 1024;
    while (size < want * 2) size *= 2;
    m->keys = calloc((size_t)size, sizeof *m->keys);
    m->vals = malloc((size_t)size * sizeof *m->vals);
    m->mask = size - 1; m->used = 0;
    return (m->keys && m->vals) ? 0 : -1;
}

static void pm_free(pairmap *m) { free(m->keys); free(m->vals); m->keys = NULL; m->vals = NULL; }

static int64_t pm_slot(const pairmap *m, uint64_t key) { /* the slot holding key, or its empty slot */
    int64_t i = (int64_t)(mix64(key) & (uint64_t)m->mask);
    while (m->keys[i] && m->keys[i] != key + 1) i = (i + 1) & m->mask;
    return i;
}

static int32_t pm_get(const pairmap *m, uint64_t key) { /* -1 when absent */
    int64_t i = pm_slot(m, key);
    return m->keys[i] ? m->vals[i] : -1;
}

static int pm_put(pairmap *m, uint64_t key, int32_t val) {
    if ((m->used + 1) * 2 > m->mask + 1) { /* keep the load under 1/2 */
        pairmap bigger;
        if (pm_init(&bigger, m->mask + 1) != 0) { pm_free(&bigger); return -1; }
        for (int64_t i = 0; i <= m->mask; i++)
            if (m->keys[i]) {
                int64_t j = pm_slot(&bigger, m->keys[i] - 1);
                bigger.keys[j] = m->keys[i]; bigger.vals[j] = m->vals[i];
            }
        bigger.used = m->used;
        pm_free(m);
        *m = bigger;
    }
    int64_t i = pm_slot(m, key);
    if (!m->keys[i]) { m->keys[i] = key + 1; m->used++; }
    m->vals[i] = val;
    return 0;
}

/* ---- byte-string table: distinct byte strings, stored back to back, each with a value ---------- */

struct tl_strtab {
    uint8_t *bytes; int64_t nbytes, capbytes;
    int64_t *start; int64_t capstart;     /* string i is bytes[start[i] .. start[i+1]) */
    int64_t *val; int64_t capval;
    int64_t n;
    int64_t *slots; int64_t mask;          /* slot -> string index + 1; 0 = empty */
};
typedef struct tl_strtab strtab;

static int st_init(strtab *t) {
    memset(t, 0, sizeof *t);
    t->mask = 4095;
    t->slots = calloc((size_t)t->mask + 1, sizeof *t->slots);
    if (!t->slots || grow((void **)&t->start, &t->capstart, 1, sizeof *t->start)) return -1;
    t->start[0] = 0;
    return 0;
}

static void st_free(strtab *t) { free(t->bytes); free(t->start); free(t->val); free(t->slots); memset(t, 0, sizeof *t); }

static int64_t st_find(const strtab *t, const uint8_t *p, int64_t len, uint64_t h) { /* slot */
    int64_t i = (int64_t)(h & (uint64_t)t->mask);
    for (;; i = (i + 1) & t->mask) {
        int64_t k = t->slots[i];
        if (!k) return i;
        k--;
        if (t->start[k + 1] - t->start[k] == len && memcmp(t->bytes + t->start[k], p, (size_t)len) == 0)
            return i;
    }
}

static int st_rehash(strtab *t) {
    int64_t size = (t->mask + 1) * 2;
    int64_t *slots = calloc((size_t)size, sizeof *slots);
    if (!slots) return -1;
    free(t->slots);
    t->slots = slots; t->mask = size - 1;
    for (int64_t k = 0; k < t->n; k++) {
        const uint8_t *p = t->bytes + t->start[k];
        int64_t len = t->start[k + 1] - t->start[k];
        int64_t i = (int64_t)(hash_bytes(p, (size_t)len) & (uint64_t)t->mask);
        while (t->slots[i]) i = (i + 1) & t->mask;
        t->slots[i] = k + 1;
    }
    return 0;
}

/* add `delta` to the value of string p[0..len), inserting it with value 0 first if new */
static int st_add(strtab *t, const uint8_t *p, int64_t len, int64_t delta) {
    uint64_t h = hash_bytes(p, (size_t)len);
    int64_t i = st_find(t, p, len, h);
    if (t->slots[i]) { t->val[t->slots[i] - 1] += delta; return 0; }
    if ((t->n + 1) * 2 > t->mask + 1) {
        if (st_rehash(t)) return -1;
        i = st_find(t, p, len, h);
    }
    if (grow((void **)&t->bytes, &t->capbytes, t->nbytes + len, 1)
        || grow((void **)&t->start, &t->capstart, t->n + 2, sizeof *t->start)
        || grow((void **)&t->val, &t->capval, t->n + 1, sizeof *t->val)) return -1;
    if (len) memcpy(t->bytes + t->nbytes, p, (size_t)len); /* bytes is NULL until the first byte */
    t->nbytes += len;
    t->val[t->n] = delta;
    t->n++;
    t->start[t->n] = t->nbytes;
    t->slots[i] = t->n;
    return 0;
}

static int64_t st_get(const strtab *t, const uint8_t *p, int64_t len) { /* value, or -1 if absent */
    int64_t i = st_find(t, p, len, hash_bytes(p, (size_t)len));
    return t->slots[i] ? t->val[t->slots[i] - 1] : -1;
}

/* ---- chunk counting ------------------------------------------------------------------------- */

/* tl_chunks (tl_native.h) is a strtab: distinct chunks; the value is how often each occurs */

tl_chunks *tl_chunks_new(void) {
    tl_chunks *c = malloc(sizeof *c);
    if (c && st_init(c) != 0) { st_free(c); free(c); return NULL; }
    return c;
}

void tl_chunks_free(tl_chunks *c) { if (c) { st_free(c); free(c); } }

int tl_chunks_add(tl_chunks *c, const uint8_t *p, int64_t len, int64_t count) {
    return st_add(c, p, len, count);
}

/* Cut s[0..n) with a pre-tokenizer mode (0: no split, the whole text is one chunk) and count every
   chunk. Returns the number of chunks cut, or -1 (out of memory or unknown mode). */
int64_t tl_chunks_count_text(tl_chunks *c, int mode, const uint8_t *s, int64_t n) {
    if (n <= 0) return 0;
    if (mode == 0) return st_add(c, s, n, 1) ? -1 : 1;
    if (!tl_mode_known(mode)) return -1;
    int64_t cut = 0;
    for (size_t pos = 0; pos < (size_t)n; cut++) {
        size_t end = tl_chunk_end(mode, s, (size_t)n, pos);
        if (end <= pos || end > (size_t)n) return -1; /* a pre-tokenizer bug; never loop forever */
        if (st_add(c, s + pos, (int64_t)(end - pos), 1)) return -1;
        pos = end;
    }
    return cut;
}

int64_t tl_chunks_distinct(const tl_chunks *c) { return c->n; }

int64_t tl_chunks_total(const tl_chunks *c) { /* chunks counted, with repeats */
    int64_t t = 0;
    for (int64_t k = 0; k < c->n; k++) t += c->val[k];
    return t;
}

int64_t tl_chunks_tokens(const tl_chunks *c) { /* tokens before any merge: every byte of every chunk */
    int64_t t = 0;
    for (int64_t k = 0; k < c->n; k++) t += c->val[k] * (c->start[k + 1] - c->start[k]);
    return t;
}

/* Copy out distinct chunk k: its length, and its bytes into buf when buf is not NULL. */
int64_t tl_chunks_get(const tl_chunks *c, int64_t k, uint8_t *buf, int64_t *count) {
    if (k < 0 || k >= c->n) return -1;
    int64_t len = c->start[k + 1] - c->start[k];
    if (buf) memcpy(buf, c->bytes + c->start[k], (size_t)len);
    if (count) *count = c->val[k];
    return len;
}

/* ---- training ------------------------------------------------------------------------------- */

typedef struct {
    int64_t count;
    int32_t *where; int64_t nwhere, capwhere; /* words that held this pair (some no longer do) */
    int64_t stamp;                            /* last merge that raised this pair's count */
} pairinfo;

#define FIRST_UNSET (-1) /* pairs.first: no occurrence seen yet */
#define FIRST_LOST (-2)  /* pairs.first: the first occurrence was merged away; locate() finds the next */

/* tie: what breaks a tie between equal counts, the smaller first. ties "smallest": the pair's key
   (a, then b); ties "first": the position of its first occurrence (see tl_train). */
typedef struct { int64_t count; uint64_t tie; int32_t idx; } heapent;

/* the heap's order: higher count first; among equal counts the smaller tie */
static int before(const heapent *x, const heapent *y) {
    return x->count > y->count || (x->count == y->count && x->tie < y->tie);
}

typedef struct { heapent *e; int64_t n, cap; } heap;

static void sift_down(heap *h, int64_t i) {
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && before(&h->e[l], &h->e[m])) m = l;
        if (r < h->n && before(&h->e[r], &h->e[m])) m = r;
        if (m == i) return;
        heapent t = h->e[i]; h->e[i] = h->e[m]; h->e[m] = t;
        i = m;
    }
}

static int heap_push(heap *h, heapent x) {
    if (grow((void **)&h->e, &h->cap, h->n + 1, sizeof x)) return -1;
    int64_t i = h->n++;
    while (i > 0) {
        int64_t p = (i - 1) / 2;
        if (!before(&x, &h->e[p])) break;
        h->e[i] = h->e[p];
        i = p;
    }
    h->e[i] = x;
    return 0;
}

static heapent heap_pop(heap *h) {
    heapent top = h->e[0];
    h->e[0] = h->e[--h->n];
    if (h->n) sift_down(h, 0);
    return top;
}

typedef struct {
    pairmap map;
    pairinfo *p; int64_t np, capp;
    uint64_t *keys; int64_t capkeys;  /* keys[i]: the pair of p[i] */
    /* ties "first" only: first[i], the position of p[i]'s first occurrence (or FIRST_*). An array of
       its own, not a field of pairinfo: a pairinfo of 48 bytes instead of 40 made training without a
       split (one long word) about 40% slower, whatever the tie rule */
    int64_t *first; int64_t capfirst;
    int ties;
} pairs;

/* index of pair (a, b), created with count 0 when new; -1 when out of memory */
static int32_t pair_index(pairs *ps, int32_t a, int32_t b) {
    uint64_t key = pkey(a, b);
    int32_t i = pm_get(&ps->map, key);
    if (i >= 0) return i;
    if (ps->np >= INT32_MAX) return -1;
    if (grow((void **)&ps->p, &ps->capp, ps->np + 1, sizeof *ps->p)
        || grow((void **)&ps->keys, &ps->capkeys, ps->np + 1, sizeof *ps->keys)
        || (ps->ties && grow((void **)&ps->first, &ps->capfirst, ps->np + 1, sizeof *ps->first))) return -1;
    i = (int32_t)ps->np++;
    memset(&ps->p[i], 0, sizeof ps->p[i]);
    ps->p[i].stamp = -1;
    if (ps->ties) ps->first[i] = FIRST_UNSET;
    ps->keys[i] = key;
    return pm_put(&ps->map, key, i) ? -1 : i;
}

static int note_word(pairinfo *pi, int32_t w) { /* record that word w holds this pair */
    if (pi->nwhere && pi->where[pi->nwhere - 1] == w) return 0;
    if (grow((void **)&pi->where, &pi->capwhere, pi->nwhere + 1, sizeof *pi->where)) return -1;
    pi->where[pi->nwhere++] = w;
    return 0;
}

/* The words, laid out as tl_train keeps them: word w's symbols are sym[wstart[w] .. wstart[w] + wlen[w]),
   and since words start as their bytes, wstart[w] is also where word w's bytes start in the words laid
   end to end; tlen[id] is the byte length of token id. */
typedef struct { int32_t *sym; const int64_t *wstart, *wlen, *tlen; } words;

/* ties "first": the position of pair i's first occurrence, found by walking its words in order; the
   words before it no longer hold the pair (and never will again), so they leave its list. */
static int64_t locate(pairs *ps, const words *ws, int32_t i) {
    pairinfo *pi = &ps->p[i];
    int32_t a = (int32_t)(ps->keys[i] >> 32), b = (int32_t)(ps->keys[i] & 0xffffffffu);
    for (int64_t k = 0; k < pi->nwhere; k++) {
        int32_t w = pi->where[k];
        const int32_t *s = ws->sym + ws->wstart[w];
        int64_t off = ws->wstart[w];
        for (int64_t j = 0; j + 1 < ws->wlen[w]; j++) {
            if (s[j] == a && s[j + 1] == b) {
                memmove(pi->where, pi->where + k, (size_t)(pi->nwhere - k) * sizeof *pi->where);
                pi->nwhere -= k;
                return off;
            }
            off += ws->tlen[s[j]];
        }
    }
    return -1; /* unreachable for a pair with a count */
}

static uint64_t tie_of(pairs *ps, const words *ws, int ties, int32_t i) {
    if (!ties) return ps->keys[i];
    if (ps->first[i] < 0) ps->first[i] = locate(ps, ws, i);
    return (uint64_t)ps->first[i];
}


/* Learn up to num_merges merges from the distinct chunks in c. Merge k joins (out_a[k], out_b[k])
   into id 256 + k; out_count[k] is the pair's count when merged, out_saved[k] how many tokens the
   merge removed from the text. progress(done, num_merges) is called every `every` merges and at
   the end; a nonzero return stops training. Returns the number of merges made, or -1 (memory).
   ties: 0 breaks a tie between equal counts by the smaller pair, 1 by the pair met first in the
   text (tokenizers/bpe/fast.py says how: the chunks in c are in the order first met, so a pair's
   position is the offset of its first occurrence's bytes in the words laid end to end). */
int64_t tl_train(const tl_chunks *c, int64_t num_merges, int32_t *out_a, int32_t *out_b,
                 int64_t *out_count, int64_t *out_saved, tl_progress_fn progress, int64_t every, int ties) {
    int64_t done = -1, nwords = 0, nsym = 0;
    int32_t *sym = NULL, *touched = NULL;
    int64_t *wstart = NULL, *wlen = NULL, *weight = NULL, *wstamp = NULL, *tlen = NULL;
    int64_t captouched = 0;
    pairs ps; memset(&ps, 0, sizeof ps);
    ps.ties = ties;
    heap h; memset(&h, 0, sizeof h);
    words ws;

    /* 1. words: every distinct chunk of two or more bytes, its bytes as symbols, its count as weight */
    for (int64_t k = 0; k < c->n; k++)
        if (c->start[k + 1] - c->start[k] >= 2) { nwords++; nsym += c->start[k + 1] - c->start[k]; }
    if (nwords >= INT32_MAX) goto out;
    sym = malloc((size_t)(nsym ? nsym : 1) * sizeof *sym);
    wstart = malloc((size_t)(nwords ? nwords : 1) * sizeof *wstart);
    wlen = malloc((size_t)(nwords ? nwords : 1) * sizeof *wlen);
    weight = malloc((size_t)(nwords ? nwords : 1) * sizeof *weight);
    wstamp = malloc((size_t)(nwords ? nwords : 1) * sizeof *wstamp);
    tlen = malloc((size_t)(256 + (num_merges > 0 ? num_merges : 0)) * sizeof *tlen);
    if (!sym || !wstart || !wlen || !weight || !wstamp || !tlen || pm_init(&ps.map, nsym / 4 + 1024)) goto out;
    for (int i = 0; i < 256; i++) tlen[i] = 1;
    ws = (words){sym, wstart, wlen, tlen};
    {
        int64_t w = 0, at = 0;
        for (int64_t k = 0; k < c->n; k++) {
            int64_t len = c->start[k + 1] - c->start[k];
            if (len < 2) continue;
            const uint8_t *b = c->bytes + c->start[k];
            wstart[w] = at; wlen[w] = len; weight[w] = c->val[k]; wstamp[w] = -1;
            for (int64_t i = 0; i < len; i++) sym[at + i] = b[i];
            at += len; w++;
        }
    }
    /* 2. every adjacent pair: its count and the words that hold it */
    for (int64_t w = 0; w < nwords; w++) {
        const int32_t *s = sym + wstart[w];
        for (int64_t i = 0; i + 1 < wlen[w]; i++) {
            int32_t pi = pair_index(&ps, s[i], s[i + 1]);
            if (pi < 0 || note_word(&ps.p[pi], (int32_t)w)) goto out;
            ps.p[pi].count += weight[w];
            if (ties && ps.first[pi] == FIRST_UNSET) ps.first[pi] = wstart[w] + i; /* bytes, so i bytes in */
        }
    }
    /* 3. the heap of (count, pair); filled once, then heapified */
    if (grow((void **)&h.e, &h.cap, ps.np + 1, sizeof *h.e)) goto out;
    for (int64_t i = 0; i < ps.np; i++)
        h.e[h.n++] = (heapent){ps.p[i].count, tie_of(&ps, &ws, ties, (int32_t)i), (int32_t)i};
    for (int64_t i = h.n / 2 - 1; i >= 0; i--) sift_down(&h, i);

    done = 0;
    while (done < num_merges && h.n) {
        heapent top = heap_pop(&h);
        int64_t current = ps.p[top.idx].count;
        if (current != top.count) { /* stale after a fall: back in with its true count */
            if (current > 0 && heap_push(&h, (heapent){current, tie_of(&ps, &ws, ties, top.idx), top.idx})) {
                done = -1; goto out;
            }
            continue;
        }
        uint64_t key = ps.keys[top.idx];
        int32_t a = (int32_t)(key >> 32), b = (int32_t)(key & 0xffffffffu);
        int32_t x = (int32_t)(256 + done);
        int64_t la = tlen[a];
        tlen[x] = la + tlen[b];
        int64_t saved = 0, ntouched = 0;
        /* the merged pair's word list is read while other pairs' lists grow; it never grows itself
           (every new pair holds x), so its pointer and length stay valid even if ps.p moves */
        int32_t *where = ps.p[top.idx].where;
        int64_t nwhere = ps.p[top.idx].nwhere;
        for (int64_t k = 0; k < nwhere; k++) {
            int32_t w = where[k];
            /* a guard: a pair gains words only in the merge that makes its newer id, which visits
               each word once, so a word is never listed twice; if it were, it must not merge twice */
            if (wstamp[w] == done) continue;
            wstamp[w] = done;
            int32_t *s = sym + wstart[w];
            int64_t n = wlen[w], j = 0, i = 0, wt = weight[w];
            /* ties "first": `at` is the position of the new sequence's s[jseen], brought up to date at
               each occurrence only, so the walk between occurrences does no more than before */
            int64_t at = wstart[w], jseen = 0;
            /* in place: the new sequence s[0..j) never overtakes the old one at s[i..n) */
            while (i < n) {
                if (s[i] == a && i + 1 < n && s[i + 1] == b) {
                    if (ties)
                        for (; jseen < j; jseen++) at += tlen[s[jseen]]; /* now the position of this a */
                    int64_t prev = j > 0 ? at - tlen[s[j - 1]] : -1;  /* and of the token left of it */
                    int32_t q[2] = {-1, -1}; /* the pairs (left, x) and (x, right) this occurrence makes */
                    int64_t qat[2] = {prev, at}; /* and where they start */
                    if (j > 0) { /* left is read from the new sequence: "aaaa" gives (X, X) */
                        int32_t left = s[j - 1];
                        int32_t gone = pm_get(&ps.map, pkey(left, a));
                        ps.p[gone].count -= wt;
                        if (ties && ps.first[gone] == prev) ps.first[gone] = FIRST_LOST;
                        if ((q[0] = pair_index(&ps, left, x)) < 0) { done = -1; goto out; }
                    }
                    if (i + 2 < n) {
                        int32_t right = s[i + 2];
                        int32_t gone = pm_get(&ps.map, pkey(b, right));
                        ps.p[gone].count -= wt;
                        if (ties && ps.first[gone] == at + la) ps.first[gone] = FIRST_LOST;
                        if ((q[1] = pair_index(&ps, x, right)) < 0) { done = -1; goto out; }
                    }
                    for (int t = 0; t < 2; t++) {
                        if (q[t] < 0) continue;
                        pairinfo *pi = &ps.p[q[t]];
                        pi->count += wt;
                        if (ties && ps.first[q[t]] == FIRST_UNSET) ps.first[q[t]] = qat[t];
                        if (note_word(pi, w)) { done = -1; goto out; }
                        if (pi->stamp != done) {
                            pi->stamp = done;
                            if (grow((void **)&touched, &captouched, ntouched + 1, sizeof *touched)) { done = -1; goto out; }
                            touched[ntouched++] = q[t];
                        }
                    }
                    s[j++] = x;
                    i += 2;
                    if (ties) { at += tlen[x]; jseen = j; }
                } else {
                    s[j++] = s[i++];
                }
            }
            saved += wt * (n - j);
            wlen[w] = j;
        }
        /* every occurrence is gone */
        ps.p[top.idx].count = 0;
        free(ps.p[top.idx].where);
        ps.p[top.idx].where = NULL; ps.p[top.idx].nwhere = ps.p[top.idx].capwhere = 0;
        out_a[done] = a; out_b[done] = b; out_count[done] = top.count; out_saved[done] = saved;
        done++;
        for (int64_t t = 0; t < ntouched; t++) {
            int64_t cnt = ps.p[touched[t]].count;
            if (cnt > 0 && heap_push(&h, (heapent){cnt, tie_of(&ps, &ws, ties, touched[t]), touched[t]})) {
                done = -1; goto out;
            }
        }
        if (progress && (done % (every > 0 ? every : 1) == 0 || done == num_merges))
            if (progress(done, num_merges)) break;
    }
out:
    for (int64_t i = 0; i < ps.np; i++) free(ps.p[i].where);
    free(ps.p); free(ps.keys); free(ps.first); pm_free(&ps.map); free(h.e); free(touched);
    free(sym); free(wstart); free(wlen); free(weight); free(wstamp); free(tlen);
    return done;
}

/* ---- encoding ------------------------------------------------------------------------------- */

/* Two rules, one encoder:
   - merges (a model trained here, minbpe's rule): the pair (a, b) with the lowest merged id is
     merged first; `merges` maps (a, b) to that id;
   - ranks (tiktoken's rule, for BPETokenizer.from_tiktoken): the two adjacent parts whose joined
     bytes have the lowest rank are merged first; the id of a part is the rank of its bytes, which
     `whole` holds for every token. A part is always a contiguous slice of the chunk, so the rank
     of a pair is a look-up of the slice from the pair's first byte to its last. */
struct tl_encoder {
    int by_ranks;
    int shortcut;   /* 1: a chunk that is itself a token is that token (tiktoken); 0: merges only */
    int32_t byte_ids[256];
    pairmap merges; /* (a, b) -> merged id; a lower id is an earlier merge, so it is also the rank */
    strtab whole;   /* token bytes -> id: the whole-chunk shortcut, and the ranks of the rank rule */
};

void tl_encoder_free(tl_encoder *e) {
    if (!e) return;
    pm_free(&e->merges); st_free(&e->whole); free(e);
}

tl_encoder *tl_encoder_new(int by_ranks, int shortcut, const int32_t *byte_ids, const int32_t *pa, const int32_t *pb,
                           const int32_t *pnew, int64_t npairs, const uint8_t *tok_bytes,
                           const int64_t *tok_start, const int32_t *tok_id, int64_t ntok) {
    tl_encoder *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->by_ranks = by_ranks;
    e->shortcut = shortcut;
    memcpy(e->byte_ids, byte_ids, sizeof e->byte_ids);
    if (pm_init(&e->merges, npairs + 16) || st_init(&e->whole)) goto fail;
    for (int64_t i = 0; i < npairs; i++)
        if (pm_put(&e->merges, pkey(pa[i], pb[i]), pnew[i])) goto fail;
    for (int64_t t = 0; t < ntok; t++) {
        const uint8_t *p = tok_bytes + tok_start[t];
        int64_t len = tok_start[t + 1] - tok_start[t];
        if (st_add(&e->whole, p, len, tok_id[t])) goto fail; /* keys come from a dict: all distinct */
    }
    return e;
fail:
    tl_encoder_free(e);
    return NULL;
}

#define NEVER INT32_MAX
#define SHORT_CHUNK 64 /* longer chunks go to the heap-based bpe_long */

static int32_t rank_of(const tl_encoder *e, int32_t a, int32_t b) {
    int32_t r = pm_get(&e->merges, pkey(a, b));
    return r < 0 ? NEVER : r;
}

static int32_t rank_of_bytes(const tl_encoder *e, const uint8_t *p, int64_t len) {
    int64_t r = st_get(&e->whole, p, len);
    return r < 0 ? NEVER : (int32_t)r;
}

/* tiktoken's rule on a short chunk: part k is p[b[k] .. b[k+1]); merge the adjacent two parts whose
   joined bytes rank lowest, leftmost first (BPETokenizer's _merge_by_byte_ranks). */
static int64_t bpe_short_ranks(const tl_encoder *e, const uint8_t *p, int64_t n, int32_t *out) {
    int64_t b[SHORT_CHUNK + 1];
    int32_t rk[SHORT_CHUNK];
    int64_t m = n; /* parts */
    for (int64_t i = 0; i <= n; i++) b[i] = i;
    for (int64_t i = 0; i + 1 < m; i++) rk[i] = rank_of_bytes(e, p + b[i], b[i + 2] - b[i]);
    while (m > 1) {
        int64_t best = 0;
        for (int64_t i = 1; i + 1 < m; i++) if (rk[i] < rk[best]) best = i;
        if (rk[best] == NEVER) break;
        memmove(b + best + 1, b + best + 2, (size_t)(m - best - 1) * sizeof *b);
        memmove(rk + best, rk + best + 1, (size_t)(m - best - 2) * sizeof *rk);
        m--;
        if (best + 1 < m) rk[best] = rank_of_bytes(e, p + b[best], b[best + 2] - b[best]);
        if (best > 0) rk[best - 1] = rank_of_bytes(e, p + b[best - 1], b[best + 1] - b[best - 1]);
    }
    for (int64_t k = 0; k < m; k++) out[k] = rank_of_bytes(e, p + b[k], b[k + 1] - b[k]);
    return m;
}

/* minbpe's rule on one chunk: merge the adjacent pair with the lowest merge id, leftmost first,
   until no pair has a merge. Returns the number of ids written to out. For long chunks the same
   rule runs on a linked list with a heap (BPETokenizer.apply_merges), so it stays O(n log n). */
static int64_t bpe_short(const tl_encoder *e, const uint8_t *p, int64_t n, int32_t *out) {
    int32_t *s = out, rk[SHORT_CHUNK]; /* rk[i]: rank of the pair at i; on the stack, so calls never share it */
    for (int64_t i = 0; i < n; i++) s[i] = e->byte_ids[p[i]];
    for (int64_t i = 0; i + 1 < n; i++) rk[i] = rank_of(e, s[i], s[i + 1]);
    while (n > 1) {
        int64_t best = 0;
        for (int64_t i = 1; i + 1 < n; i++) if (rk[i] < rk[best]) best = i;
        if (rk[best] == NEVER) break;
        int32_t x = rk[best]; /* the rank is the new token's id */
        s[best] = x;
        memmove(s + best + 1, s + best + 2, (size_t)(n - best - 2) * sizeof *s);
        memmove(rk + best, rk + best + 1, (size_t)(n - best - 2) * sizeof *rk);
        n--;
        if (best + 1 < n) rk[best] = rank_of(e, x, s[best + 1]);
        if (best > 0) rk[best - 1] = rank_of(e, s[best - 1], x);
    }
    return n;
}

typedef struct { int32_t rank; int64_t pos; int32_t a, b; } mergeent;

/* the merge heap's order: lowest rank first; among equal ranks the leftmost */
static int m_before(const mergeent *x, const mergeent *y) {
    return x->rank < y->rank || (x->rank == y->rank && x->pos < y->pos);
}

typedef struct { mergeent *e; int64_t n, cap; } mheap;

static int m_push(mheap *h, mergeent x) {
    if (grow((void **)&h->e, &h->cap, h->n + 1, sizeof x)) return -1;
    int64_t i = h->n++;
    while (i > 0 && m_before(&x, &h->e[(i - 1) / 2])) { h->e[i] = h->e[(i - 1) / 2]; i = (i - 1) / 2; }
    h->e[i] = x;
    return 0;
}

static mergeent m_pop(mheap *h) {
    mergeent top = h->e[0], last = h->e[--h->n];
    int64_t i = 0;
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, m = -1;
        const mergeent *least = &last;
        if (l < h->n && m_before(&h->e[l], least)) { m = l; least = &h->e[l]; }
        if (r < h->n && m_before(&h->e[r], least)) m = r;
        if (m < 0) break;
        h->e[i] = h->e[m];
        i = m;
    }
    if (h->n) h->e[i] = last;
    return top;
}

/* the pair of nodes i and j (j's part ends at byte `end`) onto the heap if it has a merge */
static int m_offer(const tl_encoder *e, mheap *h, const uint8_t *p, const int32_t *v, int64_t i, int64_t j,
                   int64_t end) {
    int32_t r = e->by_ranks ? rank_of_bytes(e, p + i, end - i) : rank_of(e, v[i], v[j]);
    return r == NEVER ? 0 : m_push(h, (mergeent){r, i, v[i], v[j]});
}

/* the same rule as bpe_short on a linked list with a heap of (rank, position): O(n log n) */
static int64_t bpe_long(const tl_encoder *e, const uint8_t *p, int64_t n, int32_t *out) {
    int64_t *nxt = malloc((size_t)n * sizeof *nxt), *prv = malloc((size_t)n * sizeof *prv);
    uint8_t *alive = malloc((size_t)n);
    mheap h = {NULL, 0, 0};
    int64_t res = -1;
    int32_t *v = out;
    if (!nxt || !prv || !alive) goto done;
    for (int64_t i = 0; i < n; i++) { v[i] = e->byte_ids[p[i]]; nxt[i] = i + 1; prv[i] = i - 1; alive[i] = 1; }
    /* node i is the part that starts at byte i and ends where the next live node starts */
    for (int64_t i = 0; i + 1 < n; i++)
        if (m_offer(e, &h, p, v, i, i + 1, i + 2)) goto done;
    while (h.n) {
        mergeent top = m_pop(&h);
        int64_t i = top.pos, j = alive[i] ? nxt[i] : n;
        if (j >= n || v[i] != top.a || v[j] != top.b) continue; /* stale: a side was merged away */
        v[i] = top.rank;
        alive[j] = 0;
        nxt[i] = nxt[j];
        if (nxt[i] < n) prv[nxt[i]] = i;
        if (prv[i] >= 0 && m_offer(e, &h, p, v, prv[i], i, nxt[i])) goto done;
        if (nxt[i] < n && m_offer(e, &h, p, v, i, nxt[i], nxt[nxt[i]])) goto done;
    }
    res = 0;
    for (int64_t i = 0; i < n; i++) if (alive[i]) v[res++] = v[i];
done:
    free(nxt); free(prv); free(alive); free(h.e);
    return res;
}

static int64_t encode_chunk(const tl_encoder *e, const uint8_t *p, int64_t n, int32_t *out) {
    int64_t whole = e->shortcut ? st_get(&e->whole, p, n) : -1;
    if (whole >= 0) { out[0] = (int32_t)whole; return 1; } /* the chunk is itself a token */
    if (n > SHORT_CHUNK) return bpe_long(e, p, n, out);
    return e->by_ranks ? bpe_short_ranks(e, p, n, out) : bpe_short(e, p, n, out);
}

/* Encode s[0..n): cut it with `mode` (0: no split) and BPE each chunk. out must hold n ids (a
   token is at least one byte). Returns the number of ids, or -1 (memory, or unknown mode). */
int64_t tl_encode(const tl_encoder *e, int mode, const uint8_t *s, int64_t n, int32_t *out) {
    if (n <= 0) return 0;
    if (mode != 0 && !tl_mode_known(mode)) return -1;
    int64_t k = 0;
    for (size_t pos = 0; pos < (size_t)n;) {
        size_t end = mode ? tl_chunk_end(mode, s, (size_t)n, pos) : (size_t)n;
        if (end <= pos || end > (size_t)n) return -1;
        int64_t m = encode_chunk(e, s + pos, (int64_t)(end - pos), out + k);
        if (m < 0) return -1;
        k += m;
        pos = end;
    }
    return k;
}

/* ---- SentencePiece BPE ------------------------------------------------------------------------ */

/* The encoder of a SentencePiece BPE model (the Llama / Mistral 7B kind), the twin of the sentencepiece
   package's own encoder. Its rule, as sentencepiece's bpe_model.cc applies it:
     - the text is normalized: with an identity normalizer that is only the whitespace escape, each
       ' ' becomes U+2581 (the "meta space"), and a dummy U+2581 goes in front (add_dummy_prefix);
       a byte that is not valid UTF-8 becomes U+FFFD;
     - every character is a symbol; the pair of adjacent symbols whose joined bytes are a piece with
       the highest score merges first, the leftmost among equal scores (float32 scores, as stored);
       pieces are looked up as whole byte strings, so there is no merge list, only the vocabulary;
     - a symbol left that is not a piece (a character the vocabulary lacks) becomes its UTF-8 bytes as
       byte pieces <0xXX> with byte fallback, else one <unk> for a whole run of them.
   Only normal pieces can be met in text (control, unknown and byte pieces never are); a model with
   user-defined or unused pieces, or another normalizer, is not for this encoder (the Python side
   refuses it: tokenizers/sentencepiece/model.py native_refusal). */
struct tl_sp {
    int flags;          /* TL_SP_* */
    int32_t unk_id;
    int32_t byte_ids[256];
    strtab pieces;      /* piece bytes -> k, its index in id[] and score[] */
    int32_t *id;
    float *score;
    int64_t longest;    /* bytes of the longest piece: a longer pair is never a piece */
    /* a faster look-up of the same thing: (k of the left piece, k of the right) -> k of the piece their
       bytes make, for every way of cutting a piece at a character boundary into two pieces; the byte
       look-up above remains for a symbol that is not a piece (a character the model lacks) */
    pairmap joins;
    int32_t ascii[128]; /* k of each one-byte character, or -1 */
    int32_t meta;       /* k of U+2581, or -1 */
    /* every two characters (code points) that stand side by side inside some piece. Between two
       characters that never do, no merge can ever join (it would make a piece holding both), so the
       text falls there into segments that merge independently: each alone gives the ids the whole
       text would, and a repeated segment (a word) gives the same ids again */
    pairmap inner;
};

/* The length of the valid UTF-8 character at s[0..n) (1..4), or 0 when it is not one: a bad lead or
   continuation byte, an overlong form, a surrogate, or past U+10FFFF. */
static int utf8_len(const uint8_t *s, int64_t n) {
    uint8_t c = s[0];
    if (c < 0x80) return 1;
    int len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (!len || c > 0xF4 || len > n) return 0;
    for (int i = 1; i < len; i++) if ((s[i] & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && s[1] < 0xA0) return 0; /* overlong */
    if (c == 0xED && s[1] >= 0xA0) return 0; /* a surrogate */
    if (c == 0xF0 && s[1] < 0x90) return 0; /* overlong */
    if (c == 0xF4 && s[1] >= 0x90) return 0; /* past U+10FFFF */
    return len;
}

/* the code point of the valid UTF-8 character p[0..len) */
static int32_t code_point(const uint8_t *p, int len) {
    if (len == 1) return p[0];
    int32_t cp = p[0] & (0x7F >> len);
    for (int i = 1; i < len; i++) cp = (cp << 6) | (p[i] & 0x3F);
    return cp;
}

void tl_sp_free(tl_sp *m) {
    if (!m) return;
    st_free(&m->pieces); pm_free(&m->joins); pm_free(&m->inner); free(m->id); free(m->score); free(m);
}

tl_sp *tl_sp_new(int flags, int32_t unk_id, const int32_t *byte_ids, const uint8_t *tok_bytes,
                 const int64_t *tok_start, const int32_t *tok_id, const float *scores, int64_t ntok) {
    tl_sp *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->flags = flags;
    m->unk_id = unk_id;
    memcpy(m->byte_ids, byte_ids, sizeof m->byte_ids);
    m->id = malloc((size_t)(ntok ? ntok : 1) * sizeof *m->id);
    m->score = malloc((size_t)(ntok ? ntok : 1) * sizeof *m->score);
    if (!m->id || !m->score || st_init(&m->pieces) || pm_init(&m->joins, 4 * ntok + 16)
        || pm_init(&m->inner, 4 * ntok + 16)) goto fail;
    for (int64_t t = 0; t < ntok; t++) {
        int64_t len = tok_start[t + 1] - tok_start[t];
        if (st_get(&m->pieces, tok_bytes + tok_start[t], len) >= 0) continue; /* the first of a repeat */
        if (st_add(&m->pieces, tok_bytes + tok_start[t], len, m->pieces.n)) goto fail;
        m->id[m->pieces.n - 1] = tok_id[t];
        m->score[m->pieces.n - 1] = scores[t];
        if (len > m->longest) m->longest = len;
    }
    for (int64_t k = 0; k < m->pieces.n; k++) {
        const uint8_t *p = m->pieces.bytes + m->pieces.start[k];
        int64_t len = m->pieces.start[k + 1] - m->pieces.start[k];
        for (int64_t cut = 1; cut < len; cut++) {
            if ((p[cut] & 0xC0) == 0x80) continue; /* inside a character */
            int64_t a = st_get(&m->pieces, p, cut), b = st_get(&m->pieces, p + cut, len - cut);
            if (a >= 0 && b >= 0 && pm_put(&m->joins, pkey((int32_t)a, (int32_t)b), (int32_t)k)) goto fail;
        }
        int32_t before = -1;
        for (int64_t at = 0; at < len;) {
            int w = utf8_len(p + at, len - at);
            if (!w) goto fail; /* pieces come from Python str: always valid UTF-8 */
            int32_t cp = code_point(p + at, w);
            if (before >= 0 && pm_put(&m->inner, pkey(before, cp), 1)) goto fail;
            before = cp;
            at += w;
        }
    }
    for (int c = 0; c < 128; c++) {
        uint8_t ch = (uint8_t)c;
        m->ascii[c] = (int32_t)st_get(&m->pieces, &ch, 1);
    }
    m->meta = (int32_t)st_get(&m->pieces, (const uint8_t *)"\xE2\x96\x81", 3);
    return m;
fail:
    tl_sp_free(m);
    return NULL;
}

/* a candidate merge: symbols left and right, whose joined bytes (`size` of them) are piece k */
typedef struct { float score; int32_t left, right, size, k; } sppair;

/* the agenda's order: the higher score first; among equal scores the leftmost */
static int sp_before(const sppair *x, const sppair *y) {
    return x->score > y->score || (x->score == y->score && x->left < y->left);
}

typedef struct { sppair *e; int64_t n, cap; } spheap;

static int sp_push(spheap *h, sppair x) {
    if (grow((void **)&h->e, &h->cap, h->n + 1, sizeof x)) return -1;
    int64_t i = h->n++;
    while (i > 0 && sp_before(&x, &h->e[(i - 1) / 2])) { h->e[i] = h->e[(i - 1) / 2]; i = (i - 1) / 2; }
    h->e[i] = x;
    return 0;
}

static sppair sp_pop(spheap *h) {
    sppair top = h->e[0], last = h->e[--h->n];
    int64_t i = 0;
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, m = -1;
        const sppair *least = &last;
        if (l < h->n && sp_before(&h->e[l], least)) { m = l; least = &h->e[l]; }
        if (r < h->n && sp_before(&h->e[r], least)) m = r;
        if (m < 0) break;
        h->e[i] = h->e[m];
        i = m;
    }
    if (h->n) h->e[i] = last;
    return top;
}

/* symbol i is t[start[i] .. start[i] + len[i]), the piece k[i] (-1: not a piece); len 0 once merged
   into its left neighbour. int32: the encoder refuses texts of 2^29 bytes or more (their normalized
   form could pass 2^31) */
typedef struct { const uint8_t *t; int32_t *start, *len, *prev, *next, *k; } spsyms;

static int sp_offer(const tl_sp *m, spheap *h, const spsyms *s, int32_t left, int32_t right) {
    if (left < 0 || right < 0) return 0;
    int32_t size = s->len[left] + s->len[right], k;
    if (size > m->longest) return 0;
    if (s->k[left] >= 0 && s->k[right] >= 0) k = pm_get(&m->joins, pkey(s->k[left], s->k[right]));
    else k = (int32_t)st_get(&m->pieces, s->t + s->start[left], size);
    return k < 0 ? 0 : sp_push(h, (sppair){m->score[k], left, right, size, k});
}

/* merge symbols first..last (a segment: no pair outside it can merge, see tl_sp.inner) with the agenda
   h, empty on return; their ids to out: the number written */
static int64_t sp_segment(const tl_sp *m, spheap *h, spsyms *sy, int32_t first, int32_t last, int32_t *out) {
    for (int32_t i = first; i <= last; i++) { sy->prev[i] = i - 1; sy->next[i] = i < last ? i + 1 : -1; }
    sy->prev[first] = -1;
    for (int32_t i = first; i < last; i++)
        if (sp_offer(m, h, sy, i, i + 1)) return -1;
    while (h->n) {
        sppair top = sp_pop(h);
        /* stale: a side was merged away, or grew (symbols only grow, so equal sizes mean both are as
           they were when offered, and still neighbours) */
        if (!sy->len[top.left] || !sy->len[top.right] || sy->len[top.left] + sy->len[top.right] != top.size)
            continue;
        sy->len[top.left] = top.size;
        sy->k[top.left] = top.k;
        sy->len[top.right] = 0;
        sy->next[top.left] = sy->next[top.right];
        if (sy->next[top.right] >= 0) sy->prev[sy->next[top.right]] = top.left;
        if (sp_offer(m, h, sy, sy->prev[top.left], top.left) || sp_offer(m, h, sy, top.left, sy->next[top.left]))
            return -1;
    }
    /* a piece, or its bytes (byte fallback), or <unk> (tl_sp_encode joins a run of them into one) */
    int64_t res = 0;
    for (int32_t i = first; i >= 0; i = sy->next[i]) {
        const uint8_t *p = sy->t + sy->start[i];
        if (sy->k[i] >= 0) out[res++] = m->id[sy->k[i]];
        else if (m->flags & TL_SP_BYTE_FALLBACK) for (int32_t b = 0; b < sy->len[i]; b++) out[res++] = m->byte_ids[p[b]];
        else out[res++] = m->unk_id;
    }
    return res;
}

#define SP_CACHED 256 /* segments up to this many bytes are remembered within one call */

int64_t tl_sp_encode(const tl_sp *m, const uint8_t *s, int64_t n, int32_t *out) {
    return tl_sp_encode_part(m, s, n, out, 1);
}

int64_t tl_sp_encode_part(const tl_sp *m, const uint8_t *s, int64_t n, int32_t *out, int at_start) {
    if (n <= 0) return 0;
    if (n >= (1 << 29)) return -1;
    /* the normalized text: at most 3 bytes per input byte (a space or a bad byte) and the prefix's 3;
       its symbols: at most one per input byte, and the prefix */
    int32_t nt = 0, nsym = 0;
    int64_t res = -1;
    uint8_t *t = malloc((size_t)(3 * n + 3));
    size_t syms = (size_t)(n + 1) * sizeof(int32_t);
    spsyms sy = {t, malloc(syms), malloc(syms), malloc(syms), malloc(syms), malloc(syms)};
    int32_t *cp = malloc(syms);
    spheap h = {NULL, 0, 0};
    strtab seen; /* segment bytes -> where its ids start in out << 10 | how many */
    int have_seen = st_init(&seen) == 0;
    if (!t || !sy.start || !sy.len || !sy.prev || !sy.next || !sy.k || !cp || !have_seen) goto done;
    /* 1. normalize, one symbol per character */
#define SP_SYMBOL(bytes, count, piece, point) do { sy.start[nsym] = nt; sy.len[nsym] = (count); \
        sy.k[nsym] = (piece); cp[nsym] = (point); nsym++; memcpy(t + nt, (bytes), (count)); nt += (count); } while (0)
    if ((m->flags & TL_SP_DUMMY_PREFIX) && at_start) SP_SYMBOL("\xE2\x96\x81", 3, m->meta, 0x2581);
    for (int64_t i = 0; i < n;) {
        int len = utf8_len(s + i, n - i);
        if (len == 0) {
            SP_SYMBOL("\xEF\xBF\xBD", 3, (int32_t)st_get(&m->pieces, (const uint8_t *)"\xEF\xBF\xBD", 3), 0xFFFD);
            i++;
        } else if (s[i] == ' ' && (m->flags & TL_SP_ESCAPE_SPACES)) {
            SP_SYMBOL("\xE2\x96\x81", 3, m->meta, 0x2581);
            i++;
        } else {
            SP_SYMBOL(s + i, len, len == 1 ? m->ascii[s[i]] : (int32_t)st_get(&m->pieces, s + i, len),
                      code_point(s + i, len));
            i += len;
        }
    }
#undef SP_SYMBOL
    /* 2. segment by segment: merge the best pair until none is left, or copy a segment met before */
    res = 0;
    for (int32_t first = 0, last; first < nsym; first = last + 1) {
        last = first;
        while (last + 1 < nsym && pm_get(&m->inner, pkey(cp[last], cp[last + 1])) >= 0) last++;
        const uint8_t *seg = t + sy.start[first];
        int64_t bytes = sy.start[last] + sy.len[last] - sy.start[first];
        if (bytes <= SP_CACHED) {
            int64_t got = st_get(&seen, seg, bytes);
            if (got >= 0) {
                memmove(out + res, out + (got >> 10), (size_t)(got & 1023) * sizeof *out);
                res += got & 1023;
                continue;
            }
        }
        int64_t k = sp_segment(m, &h, &sy, first, last, out + res);
        if (k < 0) { res = -1; goto done; }
        if (bytes <= SP_CACHED && st_add(&seen, seg, bytes, res << 10 | k)) { res = -1; goto done; }
        res += k;
    }
    /* 3. without byte fallback, a run of unknown characters is one <unk> (no piece has <unk>'s id) */
    if (!(m->flags & TL_SP_BYTE_FALLBACK)) {
        int64_t j = 0;
        for (int64_t i = 0; i < res; i++)
            if (!(out[i] == m->unk_id && j > 0 && out[j - 1] == m->unk_id)) out[j++] = out[i];
        res = j;
    }
done:
    free(t); free(sy.start); free(sy.len); free(sy.prev); free(sy.next); free(sy.k); free(cp); free(h.e);
    st_free(&seen); /* st_init cleared it first, so this is safe even when it failed */
    return res;
}
