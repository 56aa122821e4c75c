/* Token Lens native core: every function the C files export, declared once. tokenizers/bpe/native/lib.py
   tells ctypes the same signatures; keep the two in step (the build uses -Werror=missing-prototypes,
   so an exported function missing here does not compile). */
#ifndef TL_NATIVE_H
#define TL_NATIVE_H
#include <stddef.h>
#include <stdint.h>

/* Pre-tokenizer modes (tokenizers/bpe/native/lib.py MODES; tokenizers/core/patterns.py CUTTERS names the
   patterns each cuts); 0 means no split. */
#define TL_MODE_GPT2 1        /* GPT-2's pattern, as the library, tiktoken and Whisper spell it */
#define TL_MODE_GPT4 2        /* cl100k_base */
#define TL_MODE_O200K 3       /* o200k_base and o200k_harmony (tiktoken's pat_str) */
#define TL_MODE_LLAMA3 4      /* Llama 3 */
#define TL_MODE_QWEN 5        /* Qwen (Llama 3's with single digits) */
#define TL_MODE_TEKKEN 6      /* Mistral's Tekken (o200k_base's without contractions, single digits) */
#define TL_MODE_DEEPSEEK_V3 7 /* DeepSeek V3's Sequence of three Isolated Splits */

/* ---- pretok.c ---------------------------------------------------------------------------------- */

/* 1 when `mode` is one of the TL_MODE_* above, else 0. */
int tl_mode_known(int mode);

/* The end (byte offset, > pos) of the chunk that starts at byte `pos` of the valid UTF-8 text
   s[0..n), exactly as Python's `regex` module cuts it with the mode's patterns. pos < n. */
size_t tl_chunk_end(int mode, const uint8_t *s, size_t n, size_t pos);

/* All chunk ends of s[0..n), written to ends[0..cap); returns how many there are (may be more than
   cap, in which case only cap were written), or -1 for an unknown mode. */
int64_t tl_split(int mode, const uint8_t *s, int64_t n, int64_t *ends, int64_t cap);

/* ---- bpe.c: chunk counting (the twin of tokenizers.core.patterns.chunk_counts) ---------------------- */

typedef struct tl_strtab tl_chunks;   /* distinct byte strings, each with a count */

tl_chunks *tl_chunks_new(void);
void tl_chunks_free(tl_chunks *c);
/* add `count` occurrences of p[0..len); 0, or -1 when out of memory */
int tl_chunks_add(tl_chunks *c, const uint8_t *p, int64_t len, int64_t count);
/* cut s[0..n) with `mode` and count every chunk; the number of chunks, or -1 */
int64_t tl_chunks_count_text(tl_chunks *c, int mode, const uint8_t *s, int64_t n);
int64_t tl_chunks_distinct(const tl_chunks *c);
int64_t tl_chunks_total(const tl_chunks *c);
int64_t tl_chunks_tokens(const tl_chunks *c);
/* chunk k: its length; with buf != NULL its bytes are copied there and its count to *count */
int64_t tl_chunks_get(const tl_chunks *c, int64_t k, uint8_t *buf, int64_t *count);

/* ---- bpe.c: training (the twin of tokenizers.bpe.fast.train_fast) ----------------------------- */

typedef int (*tl_progress_fn)(int64_t done, int64_t total);

/* Learn up to num_merges merges from the distinct chunks in c; ties: 0 = the smaller pair wins a tie,
   1 = the pair met first in the text; see bpe.c. Returns the number made, or -1 (memory). */
int64_t tl_train(const tl_chunks *c, int64_t num_merges, int32_t *out_a, int32_t *out_b,
                 int64_t *out_count, int64_t *out_saved, tl_progress_fn progress, int64_t every, int ties);

/* ---- bpe.c: encoding (the twin of BPETokenizer.encode_ordinary_python) ------------------------ */

typedef struct tl_encoder tl_encoder;

/* by_ranks: 0 = merges (pa[i], pb[i]) -> pnew[i]; 1 = tiktoken's byte-rank form of the same rule.
   shortcut: 1 = a chunk that is itself a token becomes that token. The ntok tokens' bytes are
   tok_bytes[tok_start[t] .. tok_start[t + 1]) with ids tok_id[t]. NULL when out of memory. */
tl_encoder *tl_encoder_new(int by_ranks, int shortcut, const int32_t *byte_ids, const int32_t *pa,
                           const int32_t *pb, const int32_t *pnew, int64_t npairs, const uint8_t *tok_bytes,
                           const int64_t *tok_start, const int32_t *tok_id, int64_t ntok);
void tl_encoder_free(tl_encoder *e);
/* encode s[0..n) cut with `mode`; out must hold n ids. The number of ids, or -1. */
int64_t tl_encode(const tl_encoder *e, int mode, const uint8_t *s, int64_t n, int32_t *out);

/* ---- bpe.c: SentencePiece BPE (the twin of the sentencepiece package's encoder) ------------- */

typedef struct tl_sp tl_sp;

#define TL_SP_DUMMY_PREFIX 1   /* normalizer_spec.add_dummy_prefix: a U+2581 in front of the text */
#define TL_SP_ESCAPE_SPACES 2  /* normalizer_spec.escape_whitespaces: each ' ' becomes U+2581 */
#define TL_SP_BYTE_FALLBACK 4  /* trainer_spec.byte_fallback: an unknown character becomes its bytes */

/* The model's ntok normal pieces: bytes tok_bytes[tok_start[t] .. tok_start[t + 1]), ids tok_id[t],
   scores scores[t]; byte_ids[b] is the id of the piece <0xbb>. NULL when out of memory. */
tl_sp *tl_sp_new(int flags, int32_t unk_id, const int32_t *byte_ids, const uint8_t *tok_bytes,
                 const int64_t *tok_start, const int32_t *tok_id, const float *scores, int64_t ntok);
void tl_sp_free(tl_sp *m);
/* encode the UTF-8 text s[0..n); out must hold 3 * n + 3 ids (the normalized text's bytes: a space
   becomes 3, and the dummy prefix adds 3). The number of ids, or -1 (memory, or n >= 2^29). */
int64_t tl_sp_encode(const tl_sp *m, const uint8_t *s, int64_t n, int32_t *out);
/* the same for s[0..n) that is a part of a text: at_start 0 when it does not start the text, and then no
   dummy prefix goes in front (tl_sp_encode is at_start 1). Where no piece holds a line break and the
   model has byte fallback, a text's ids are those of its parts cut after line breaks, each encoded so:
   a break's byte piece never merges (tl_sp.inner), and the prefix acts only at the start
   (tests/test_native_sentencepiece.py, test_a_text_is_its_parts_cut_after_line_breaks) */
int64_t tl_sp_encode_part(const tl_sp *m, const uint8_t *s, int64_t n, int32_t *out, int at_start);

#endif
