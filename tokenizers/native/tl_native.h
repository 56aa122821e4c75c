/* Token Lens native core: what its C files share. Every exported function is declared to ctypes in
   api.py; keep the two in step. */
#ifndef TL_NATIVE_H
#define TL_NATIVE_H
#include <stddef.h>
#include <stdint.h>

/* Pre-tokenizer modes (tokenizers/native/__init__.py MODES). */
#define TL_MODE_GPT2 1
#define TL_MODE_GPT4 2

/* pretok.c: the end (byte offset, > pos) of the chunk that starts at byte `pos` of the valid UTF-8
   text s[0..n), exactly as Python's `regex` module cuts it with tokenizers.patterns.GPT2_PATTERN or
   GPT4_PATTERN. pos < n. */
size_t tl_chunk_end(int mode, const uint8_t *s, size_t n, size_t pos);

/* pretok.c: all chunk ends of s[0..n), written to ends[0..cap); returns how many there are (may be
   more than cap, in which case only cap were written), or -1 for an unknown mode. */
int64_t tl_split(int mode, const uint8_t *s, int64_t n, int64_t *ends, int64_t cap);

#endif
