/* Token Lens native core: the pre-tokenizers of every registry vocabulary, hand-written: GPT-2's
   (Whisper's), GPT-4's, Llama 3's, Qwen's, o200k_base's, Tekken's and DeepSeek V3's sequence of splits.

   Python cuts text with the patterns of tokenizers/core/patterns.py (its CUTTERS table names the mode
   of this file that cuts each) through the `regex` module. A general regex engine is slow at this (it
   tries each alternative in turn, with backtracking, for every chunk), but these patterns are simple
   enough that each one becomes a short decision on the first one or two characters of a chunk,
   followed by a scan over a run of characters of one class. This file is that decision, written so
   that every chunk boundary is byte-for-byte the one `regex` finds (tests/test_native_split.py holds
   them equal, on every code point and a fuzz).

   It works on the UTF-8 bytes directly: an ASCII byte's class is one table look-up, and only
   non-ASCII characters are decoded. Character classes (letter \p{L}, number \p{N}, whitespace \s,
   other) come from tl_tables.h, generated from the installed `regex` module by tables.py.

   How `regex` reads the patterns, in short (the functions below spell out each case):
     - at each position the alternatives are tried left to right, and the FIRST one that matches
       wins, even if a later one would match more;
     - a greedy quantifier (+, *, ?) backtracks when what follows it fails; a possessive one
       (++, *+, ?+, {1,3}+) never gives back what it took. */
#include "tl_native.h"
#include "tl_tables.h"

/* ---------------------------------------------------------------------------------------------
   Characters
   --------------------------------------------------------------------------------------------- */

#define TL_BAD_CP 0xFFFFFFFFu /* what decode() returns for a byte that does not start valid UTF-8 */

/* The code point of the character starting at s[i] (i < n), and its length in bytes. Input comes
   from Python's str.encode("utf-8") so it is valid; still, a malformed or truncated sequence must
   not crash or read past s[n-1], so it becomes TL_BAD_CP, 1 byte long (an "other" character). */
static uint32_t decode(const uint8_t *s, size_t n, size_t i, size_t *len)
{
    uint32_t b0 = s[i], cp, min;
    size_t k, need;

    *len = 1;
    if (b0 < 0x80)
        return b0;
    if (b0 >= 0xC2 && b0 <= 0xDF) {        /* 0xC0, 0xC1 would only start overlong forms */
        need = 1; cp = b0 & 0x1F; min = 0x80;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        need = 2; cp = b0 & 0x0F; min = 0x800;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        need = 3; cp = b0 & 0x07; min = 0x10000;
    } else {
        return TL_BAD_CP;                  /* a stray continuation byte, or 0xF5..0xFF */
    }
    if (need >= n - i)                     /* n - i > 0 bytes are left, and we need 1 + need */
        return TL_BAD_CP;
    for (k = 1; k <= need; k++) {
        uint32_t b = s[i + k];
        if ((b & 0xC0) != 0x80)
            return TL_BAD_CP;
        cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min || cp >= TL_MAX_CP || (cp >= 0xD800 && cp <= 0xDFFF))
        return TL_BAD_CP;                  /* overlong, out of range, or a surrogate */
    *len = need + 1;
    return cp;
}

static int class_of_cp(uint32_t cp)
{
    if (cp >= TL_MAX_CP)                   /* TL_BAD_CP */
        return TL_C_OTHER;
    return tl_stage2[((size_t)tl_stage1[cp >> TL_BLOCK_SHIFT] << TL_BLOCK_SHIFT)
                     | (cp & ((1u << TL_BLOCK_SHIFT) - 1))];
}

/* The class (TL_C_*) of the character at s[i] (i < n), and its length. Kept tiny so that it is
   inlined: for ASCII, which is most of most text, it is one table look-up. */
static inline int class_at(const uint8_t *s, size_t n, size_t i, size_t *len)
{
    if (s[i] < 0x80) {
        *len = 1;
        return tl_ascii_class[s[i]];
    }
    return class_of_cp(decode(s, n, i, len));
}

/* Where the run of characters of class `cls` that starts at i ends (i itself if s[i] is not of
   that class). This loop is where nearly all the time goes, hence its ASCII shortcut. */
static size_t run_end(const uint8_t *s, size_t n, size_t i, int cls)
{
    size_t len;
    while (i < n) {
        if (s[i] < 0x80) {
            if (tl_ascii_class[s[i]] != cls)
                break;
            i++;
        } else {
            if (class_of_cp(decode(s, n, i, &len)) != cls)
                break;
            i += len;
        }
    }
    return i;
}

/* A run of whitespace: the whitespace alternatives of both patterns backtrack inside it, so besides
   its end they need where its last character starts, and (GPT-4) where its last \r or \n is. */
typedef struct {
    size_t end;          /* the first byte after the run */
    size_t last;         /* where the run's last character starts */
    size_t after_newline; /* one past the last '\r' or '\n' in the run, or 0 if it has none */
} space_run;

static space_run scan_spaces(const uint8_t *s, size_t n, size_t pos)
{
    space_run r;
    size_t i = pos, len;

    r.last = pos;
    r.after_newline = 0;
    while (i < n && class_at(s, n, i, &len) == TL_C_SPACE) {
        if (s[i] == '\r' || s[i] == '\n')
            r.after_newline = i + 1;
        r.last = i;
        i += len;
    }
    r.end = i;
    return r;
}

/* ---------------------------------------------------------------------------------------------
   GPT-2:  '(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
   --------------------------------------------------------------------------------------------- */

static size_t gpt2_end(const uint8_t *s, size_t n, size_t pos)
{
    size_t len0, len1;
    int c0, c1;
    space_run r;

    /* '(?:[sdmt]|ll|ve|re): case-sensitive and ASCII-only here. When it fails, the apostrophe
       is just an "other" character, handled below. */
    if (s[pos] == '\'' && pos + 1 < n) {
        uint8_t a = s[pos + 1];
        if (a == 's' || a == 'd' || a == 'm' || a == 't')
            return pos + 2;
        if (pos + 2 < n) {
            uint8_t b = s[pos + 2];
            if ((a == 'l' && b == 'l') || (a == 'v' && b == 'e') || (a == 'r' && b == 'e'))
                return pos + 3;
        }
    }

    /* ' ?X+' for X = letter, number, other: a space joins the run of whatever non-space class
       follows it. (If a space is followed by whitespace, ` ?` gives the space back, and then
       X+ fails on the space itself, so these three alternatives fail.) */
    if (s[pos] == ' ' && pos + 1 < n) {
        c1 = class_at(s, n, pos + 1, &len1);
        if (c1 != TL_C_SPACE)
            return run_end(s, n, pos + 1 + len1, c1);
    }
    c0 = class_at(s, n, pos, &len0);
    if (c0 != TL_C_SPACE)
        return run_end(s, n, pos + len0, c0);

    /* \s+(?!\S)|\s+ : the greedy \s+ takes the whole run, then (?!\S) fails on the non-space
       after it, so it gives back one character: the run minus its last character is a chunk, and
       that last character (a space, say) is left to start the next chunk (" word"). This fails
       only for a run of one character, and \s+ then takes it. At the end of the text (?!\S)
       holds, so the whole run is one chunk. */
    r = scan_spaces(s, n, pos);
    if (r.end == n || r.last == pos)
        return r.end;
    return r.last;
}

/* ---------------------------------------------------------------------------------------------
   GPT-4:  '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+
           |\s++$|\s*[\r\n]|\s+(?!\S)|\s
   Llama 3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*
           |\s*[\r\n]+|\s+(?!\S)|\s+
   Qwen:   Llama 3's with \p{N} for \p{N}{1,3}
   --------------------------------------------------------------------------------------------- */

/* Which of the contraction letters s d m t l v r e the character at s[i] matches under (?i)
   (e.g. 'S', and U+017F LATIN SMALL LETTER LONG S for 's'), or 0. Only asked after an
   apostrophe, so a linear search of the small table is plenty. */
static char contraction_letter(const uint8_t *s, size_t n, size_t i, size_t *len)
{
    uint32_t cp;
    int k;

    *len = 0;
    if (i >= n)
        return 0;
    cp = decode(s, n, i, len);
    for (k = 0; k < TL_CI_PAIRS; k++)
        if (tl_ci_cp[k] == cp)
            return tl_ci_letter[k];
    return 0;
}

/* `digits`: 3 for \p{N}{1,3}+ (GPT-4, Llama 3), 1 for Qwen's \p{N}. `end_whole`: 1 for GPT-4's whitespace
   alternatives (\s++$ first: a run that reaches the end of the text is one chunk), 0 for Llama 3's and
   Qwen's \s*[\r\n]+|\s+(?!\S)|\s+, the same but for that rule (a run with a newline that reaches the end
   is cut after its last newline, as o200k_base's is). Otherwise the three patterns are one: Llama 3's
   `(?i:'s|'t|...)` is GPT-4's `'(?i:[sdmt]|ll|ve|re)`, and its greedy quantifiers end their alternatives,
   where possessive ones take the same (nothing follows them to give back to). */
static inline size_t gpt4_like_end(const uint8_t *s, size_t n, size_t pos, int digits, int end_whole)
{
    size_t len0, len1 = 0, i;
    int c0, c1, k;
    uint8_t b = s[pos];
    space_run r;

    /* '(?i:[sdmt]|ll|ve|re): `regex` folds case one character at a time (no full case folding),
       so each letter is matched on its own. */
    if (b == '\'') {
        size_t l1, l2;
        char x = contraction_letter(s, n, pos + 1, &l1), y;
        if (x == 's' || x == 'd' || x == 'm' || x == 't')
            return pos + 1 + l1;
        if (x == 'l' || x == 'v' || x == 'r') {
            y = contraction_letter(s, n, pos + 1 + l1, &l2);
            if ((x == 'l' && y == 'l') || (x != 'l' && y == 'e'))
                return pos + 1 + l1 + l2;
        }
    }

    c0 = class_at(s, n, pos, &len0);
    /* [^\r\n\p{L}\p{N}]?+\p{L}++ with no prefix character: a run of letters. */
    if (c0 == TL_C_LETTER)
        return run_end(s, n, pos + len0, TL_C_LETTER);
    /* \p{N}{1,3}+ : numbers go in chunks of at most three digits, counted from the left. */
    if (c0 == TL_C_NUMBER) {
        i = pos + len0;
        for (k = 1; k < digits && i < n && class_at(s, n, i, &len1) == TL_C_NUMBER; k++)
            i += len1;
        return i;
    }

    /* From here on s[pos] is whitespace or "other". */
    c1 = pos + len0 < n ? class_at(s, n, pos + len0, &len1) : -1;

    /* [^\r\n\p{L}\p{N}]?+\p{L}++ : ANY one character but \r, \n, a letter or a number may lead a
       run of letters: " word", but also "\tword", "(word", "'word". The ?+ is possessive, but
       giving the character back could not help anyway (the letters must start right here). */
    if (c1 == TL_C_LETTER && b != '\r' && b != '\n')
        return run_end(s, n, pos + len0 + len1, TL_C_LETTER);

    /* ' ?[^\s\p{L}\p{N}]++[\r\n]*+' : a run of "other" characters, optionally after one space,
       with any newlines right after it ("};\n\n" is one chunk). */
    if (c0 == TL_C_OTHER || (b == ' ' && c1 == TL_C_OTHER)) {
        i = c0 == TL_C_OTHER ? pos + len0 : pos + 1 + len1;
        i = run_end(s, n, i, TL_C_OTHER);
        while (i < n && (s[i] == '\r' || s[i] == '\n'))
            i++;
        return i;
    }

    /* Whitespace. Four alternatives, in this order: */
    r = scan_spaces(s, n, pos);
    /* \s++$ : the possessive run must end where $ matches: at the very end of the text, or just
       before a final "\n". The latter can never happen, because that "\n" is whitespace too and
       the possessive run has already taken it. So: a run that reaches the end is one chunk. */
    if (end_whole && r.end == n)
        return r.end;
    /* \s*[\r\n] : \s* takes the run and backtracks until a \r or \n follows: the chunk ends
       after the run's LAST newline ("  \n\n  x" -> "  \n\n", "  x"). */
    if (r.after_newline)
        return r.after_newline;
    /* \s+(?!\S) : the whole run at the end of the text (without \s++$, when it has no newline), else the
       run minus its last character, as in GPT-2 ... */
    if (r.end == n)
        return r.end;
    if (r.last != pos)
        return r.last;
    /* \s : ... or, for a run of one, that character. */
    return r.end;
}

static size_t gpt4_end(const uint8_t *s, size_t n, size_t pos) { return gpt4_like_end(s, n, pos, 3, 1); }
static size_t llama3_end(const uint8_t *s, size_t n, size_t pos) { return gpt4_like_end(s, n, pos, 3, 0); }
static size_t qwen_end(const uint8_t *s, size_t n, size_t pos) { return gpt4_like_end(s, n, pos, 1, 0); }

/* ---------------------------------------------------------------------------------------------
   o200k_base (GPT-4o), tiktoken's pattern, where U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}],
   W = [\p{Ll}\p{Lm}\p{Lo}\p{M}] and C = (?i:'s|'t|'re|'ve|'m|'ll|'d):
     [^\r\n\p{L}\p{N}]?U*W+C? | [^\r\n\p{L}\p{N}]?U+W*C? | \p{N}{1,3} | ?[^\s\p{L}\p{N}]+[\r\n/]*
     | \s*[\r\n]+ | \s+(?!\S) | \s+
   Mistral's Tekken: the same without C? and with \p{N} for \p{N}{1,3}.
   No possessive quantifiers: regex backtracks, and the code below follows its order of trials.
   Classes (TL_O_*): UPPER (Lu, Lt) is only in U, LOWER (Ll) only in W, BOTH (Lm, Lo) and MARK (M)
   in both; MARK is not a letter, so it is also "other" for [^\r\n\p{L}\p{N}] and [^\s\p{L}\p{N}].
   --------------------------------------------------------------------------------------------- */

static int o_class_at(const uint8_t *s, size_t n, size_t i, size_t *len)
{
    uint32_t cp;

    if (s[i] < 0x80) {
        *len = 1;
        return tl_o_ascii_class[s[i]];
    }
    cp = decode(s, n, i, len);
    if (cp >= TL_MAX_CP)
        return TL_O_OTHER;
    return tl_o_stage2[((size_t)tl_o_stage1[cp >> TL_BLOCK_SHIFT] << TL_BLOCK_SHIFT)
                       | (cp & ((1u << TL_BLOCK_SHIFT) - 1))];
}

#define O_IN_U(c) ((c) == TL_O_UPPER || (c) == TL_O_BOTH || (c) == TL_O_MARK)
#define O_IN_W(c) ((c) == TL_O_LOWER || (c) == TL_O_BOTH || (c) == TL_O_MARK)

/* C? after a word ending at i: the apostrophe and one or two letters, matched as GPT-4's are. */
static size_t o_contraction(const uint8_t *s, size_t n, size_t i)
{
    size_t l1, l2;
    char x, y;

    if (i >= n || s[i] != '\'')
        return i;
    x = contraction_letter(s, n, i + 1, &l1);
    if (x == 's' || x == 't' || x == 'm' || x == 'd')
        return i + 1 + l1;
    if (x == 'r' || x == 'v' || x == 'l') {
        y = contraction_letter(s, n, i + 1 + l1, &l2);
        if ((x == 'l' && y == 'l') || (x != 'l' && y == 'e'))
            return i + 1 + l1 + l2;
    }
    return i;
}

/* The end of the run of W characters from i (i itself if s[i] is not one). */
static size_t o_w_run(const uint8_t *s, size_t n, size_t i)
{
    size_t len;
    while (i < n && O_IN_W(o_class_at(s, n, i, &len)))
        i += len;
    return i;
}

/* U*W+C? from i (C only when `contr`): the end, or 0 when it does not match. U* first takes its whole run; W+ then needs a
   W character right after what U* kept. After the whole run comes a non-U character, which is W only
   if it is LOWER; failing that, U* gives back characters until the one after it is W, i.e. up to the
   run's last BOTH or MARK, and W+ takes that one character (what follows it in the run is UPPER). */
static inline size_t o_upper_lower(const uint8_t *s, size_t n, size_t i, int contr)
{
    size_t len, last = 0, last_end = 0;
    int c;

    while (i < n) {
        c = o_class_at(s, n, i, &len);
        if (!O_IN_U(c))
            break;
        if (O_IN_W(c)) {
            last = i + 1;  /* + 1: 0 means none */
            last_end = i + len;
        }
        i += len;
    }
    if (i < n && o_class_at(s, n, i, &len) == TL_O_LOWER)
        return contr ? o_contraction(s, n, o_w_run(s, n, i)) : o_w_run(s, n, i);
    if (last)
        return contr ? o_contraction(s, n, last_end) : last_end;
    return 0;
}

/* U+W*C? from i (C only when `contr`): the end, or 0 when s[i] is not U. */
static inline size_t o_upper_then_lower(const uint8_t *s, size_t n, size_t i, int contr)
{
    size_t len, start = i;
    while (i < n && O_IN_U(o_class_at(s, n, i, &len)))
        i += len;
    if (i == start)
        return 0;
    return contr ? o_contraction(s, n, o_w_run(s, n, i)) : o_w_run(s, n, i);
}

/* `contr`: 1 for o200k_base's contractions C? after a word, 0 for Tekken's pattern, which has none;
   `digits`: 3 for \p{N}{1,3}, 1 for Tekken's \p{N}. Otherwise the two patterns are the same. */
static inline size_t o200k_like_end(const uint8_t *s, size_t n, size_t pos, int contr, int digits)
{
    size_t len0, len1, i, e;
    int c0, c1, k;
    uint8_t b = s[pos];
    space_run r;

    c0 = o_class_at(s, n, pos, &len0);
    /* [^\r\n\p{L}\p{N}]? : one character that is not \r, \n, a letter or a number may lead either
       word alternative; `?` is greedy, so each is tried with it first, then without */
    int lead = b != '\r' && b != '\n' && (c0 == TL_O_OTHER || c0 == TL_O_MARK || c0 == TL_O_SPACE);
    if (lead && pos + len0 < n && (e = o_upper_lower(s, n, pos + len0, contr)))
        return e;
    if ((e = o_upper_lower(s, n, pos, contr)))
        return e;
    if (lead && pos + len0 < n && (e = o_upper_then_lower(s, n, pos + len0, contr)))
        return e;
    if ((e = o_upper_then_lower(s, n, pos, contr)))
        return e;
    /* \p{N}{1,3} (Tekken: \p{N}) */
    if (c0 == TL_O_NUMBER) {
        i = pos + len0;
        for (k = 1; k < digits && i < n && o_class_at(s, n, i, &len1) == TL_O_NUMBER; k++)
            i += len1;
        return i;
    }
    /* ' ?[^\s\p{L}\p{N}]+[\r\n/]*' : a run of other characters (marks included; a mark here is one
       the word alternatives left, which cannot happen but costs nothing), after at most one space */
    c1 = pos + len0 < n ? o_class_at(s, n, pos + len0, &len1) : -1;
    if (c0 == TL_O_OTHER || c0 == TL_O_MARK || (b == ' ' && (c1 == TL_O_OTHER || c1 == TL_O_MARK))) {
        i = (c0 == TL_O_OTHER || c0 == TL_O_MARK) ? pos + len0 : pos + 1 + len1;
        while (i < n) {
            int c = o_class_at(s, n, i, &len1);
            if (c != TL_O_OTHER && c != TL_O_MARK)
                break;
            i += len1;
        }
        while (i < n && (s[i] == '\r' || s[i] == '\n' || s[i] == '/'))
            i++;
        return i;
    }
    /* Whitespace (letters, numbers and others were all taken above; \s is the same class as GPT-4's). */
    r = scan_spaces(s, n, pos);
    /* \s*[\r\n]+ : \s* gives back until a \r or \n follows, i.e. to the run's last newline, and [\r\n]+
       takes that one (the next character is not a newline, or it would be the last) */
    if (r.after_newline)
        return r.after_newline;
    /* \s+(?!\S) : the whole run at the end of the text, else the run minus its last character ... */
    if (r.end == n)
        return r.end;
    if (r.last != pos)
        return r.last;
    /* \s+ : ... or, for a run of one before a non-space, that character */
    return r.end;
}

static size_t o200k_end(const uint8_t *s, size_t n, size_t pos) { return o200k_like_end(s, n, pos, 1, 3); }
static size_t tekken_end(const uint8_t *s, size_t n, size_t pos) { return o200k_like_end(s, n, pos, 0, 1); }

/* ---------------------------------------------------------------------------------------------
   DeepSeek V3: its tokenizer.json cuts with a Sequence of three Splits, each "Isolated" (what a split's
   pattern leaves between its matches is a piece too), every one applied to each piece of the one before:
     1.  \p{N}{1,3}
     2.  [\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+                        (CJK: Han, hiragana, katakana)
     3.  [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+ | [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
         | ?[\p{P}\p{S}]+[\r\n]* | \s*[\r\n]+ | \s+(?!\S) | \s+
   Split 1 isolates every number character (digits go in threes from the left of each run), so the pieces
   split 2 meets are runs of numbers or of none; split 2 cuts the latter into runs of CJK and of the rest.
   A piece of split 2 is therefore a maximal run of one *kind* (number, CJK, rest), but for runs of numbers,
   which are cut in threes and which split 3 leaves whole (none of its alternatives starts at a number
   char: they are not letters, marks, punctuation or whitespace, and a number is never followed by a
   letter inside a run of numbers). So split 3 runs on a run of one kind, and the end of that run is its
   end of text: what it sees past a kind change is nothing (ds_at returns DS_END), which is where
   (?!\S) holds. Classes (TL_D_*): LETTER \p{L}, MARK \p{M}, PUNCT \p{P} or \p{S}, NUMBER \p{N}, SPACE \s.
   --------------------------------------------------------------------------------------------- */

#define DS_END (-1)

static inline int ds_cjk(uint32_t cp)
{
    return (cp >= 0x4E00 && cp <= 0x9FA5) || (cp >= 0x3040 && cp <= 0x30FF);
}

/* The class of the character at s[i] and its length, and its kind (0 number, 1 CJK, 2 the rest). */
static inline int ds_class_at(const uint8_t *s, size_t n, size_t i, size_t *len, int *kind)
{
    uint32_t cp;
    int c;

    if (s[i] < 0x80) {
        *len = 1;
        c = tl_d_ascii_class[s[i]];
        *kind = c == TL_D_NUMBER ? 0 : 2;
        return c;
    }
    cp = decode(s, n, i, len);
    if (cp >= TL_MAX_CP) {
        *kind = 2;
        return TL_D_OTHER;
    }
    c = tl_d_stage2[((size_t)tl_d_stage1[cp >> TL_BLOCK_SHIFT] << TL_BLOCK_SHIFT) | (cp & ((1u << TL_BLOCK_SHIFT) - 1))];
    *kind = c == TL_D_NUMBER ? 0 : ds_cjk(cp) ? 1 : 2;
    return c;
}

/* The class at i within a piece of kind `kind`: DS_END at the end of the text or where the kind changes. */
static inline int ds_at(const uint8_t *s, size_t n, size_t i, int kind, size_t *len)
{
    int k, c;

    if (i >= n)
        return DS_END;
    c = ds_class_at(s, n, i, len, &k);
    return k == kind ? c : DS_END;
}

static inline int ds_ascii_punct(uint8_t b)
{
    return (b >= 0x21 && b <= 0x2F) || (b >= 0x3A && b <= 0x40) || (b >= 0x5B && b <= 0x60) || (b >= 0x7B && b <= 0x7E);
}

static inline int ds_ascii_letter(uint8_t b) { return (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z'); }

/* The end of the run of letters and marks from i. */
static size_t ds_lm_run(const uint8_t *s, size_t n, size_t i, int kind)
{
    size_t len;
    int c;
    while ((c = ds_at(s, n, i, kind, &len)) == TL_D_LETTER || c == TL_D_MARK)
        i += len;
    return i;
}

/* Split 3 at pos, in a piece of kind `kind`: the end of its match, or 0 when no alternative matches there
   (the character is then part of a gap, which Isolated keeps as a piece). */
static size_t ds_match(const uint8_t *s, size_t n, size_t pos, int kind)
{
    size_t len0, len1 = 0, i;
    int c0, c1, after_newline_end;
    uint8_t b = s[pos];

    c0 = ds_at(s, n, pos, kind, &len0);
    /* [!"#...~][A-Za-z]+ : one ASCII punctuation character or symbol, then ASCII letters */
    if (ds_ascii_punct(b) && pos + 1 < n && ds_ascii_letter(s[pos + 1])) {
        i = pos + 1;
        while (i < n && ds_ascii_letter(s[i]))
            i++;
        return i;
    }
    /* [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+ : a run of letters and marks, after at most one character that
       is none of \r, \n, a letter, punctuation or a symbol (a mark as that one is the same run) */
    if (c0 == TL_D_LETTER || c0 == TL_D_MARK)
        return ds_lm_run(s, n, pos + len0, kind);
    c1 = ds_at(s, n, pos + len0, kind, &len1);
    if (b != '\r' && b != '\n' && c0 != TL_D_PUNCT && (c1 == TL_D_LETTER || c1 == TL_D_MARK))
        return ds_lm_run(s, n, pos + len0 + len1, kind);
    /* ' ?[\p{P}\p{S}]+[\r\n]*' */
    if (c0 == TL_D_PUNCT || (b == ' ' && c1 == TL_D_PUNCT)) {
        i = c0 == TL_D_PUNCT ? pos + len0 : pos + 1 + len1;
        while (ds_at(s, n, i, kind, &len1) == TL_D_PUNCT)
            i += len1;
        while (kind == 2 && i < n && (s[i] == '\r' || s[i] == '\n'))  /* newlines are of the kind "the rest" */
            i++;
        return i;
    }
    if (c0 != TL_D_SPACE)
        return 0;
    /* \s*[\r\n]+ | \s+(?!\S) | \s+ , as o200k_base's (whitespace is always of the kind "the rest") */
    {
        size_t last = pos, after_newline = 0;
        i = pos;
        while (ds_at(s, n, i, kind, &len1) == TL_D_SPACE) {
            if (s[i] == '\r' || s[i] == '\n')
                after_newline = i + 1;
            last = i;
            i += len1;
        }
        if (after_newline)
            return after_newline;
        after_newline_end = ds_at(s, n, i, kind, &len1) == DS_END;  /* the piece's end: (?!\S) holds */
        if (after_newline_end)
            return i;
        if (last != pos)
            return last;
        return i;
    }
}

static size_t deepseek_end(const uint8_t *s, size_t n, size_t pos)
{
    size_t len, i, e;
    int kind, c, k;

    c = ds_class_at(s, n, pos, &len, &kind);
    if (kind == 0) {  /* split 1: \p{N}{1,3}, which splits 2 and 3 leave as it is */
        i = pos + len;
        for (k = 1; k < 3 && ds_at(s, n, i, 0, &len) == TL_D_NUMBER; k++)
            i += len;
        return i;
    }
    (void)c;
    if ((e = ds_match(s, n, pos, kind)))
        return e;
    /* a gap: up to where split 3 matches again, or its piece ends */
    i = pos + len;
    while (ds_at(s, n, i, kind, &len) != DS_END && !ds_match(s, n, i, kind))
        i += len;
    return i;
}

/* ---------------------------------------------------------------------------------------------
   Exported
   --------------------------------------------------------------------------------------------- */

int tl_mode_known(int mode)
{
    return mode >= TL_MODE_GPT2 && mode <= TL_MODE_DEEPSEEK_V3;
}

/* Returns 0 (never a valid end, which is > pos) for an unknown mode or pos >= n. */
size_t tl_chunk_end(int mode, const uint8_t *s, size_t n, size_t pos)
{
    if (pos >= n)
        return 0;
    switch (mode) {
    case TL_MODE_GPT2: return gpt2_end(s, n, pos);
    case TL_MODE_GPT4: return gpt4_end(s, n, pos);
    case TL_MODE_O200K: return o200k_end(s, n, pos);
    case TL_MODE_LLAMA3: return llama3_end(s, n, pos);
    case TL_MODE_QWEN: return qwen_end(s, n, pos);
    case TL_MODE_TEKKEN: return tekken_end(s, n, pos);
    case TL_MODE_DEEPSEEK_V3: return deepseek_end(s, n, pos);
    default: return 0;
    }
}

/* One loop per mode, so that each calls its chunk function directly (and inlined). */
#define TL_SPLIT_LOOP(fn)                          \
    while (pos < len) {                            \
        pos = fn(s, len, pos);                     \
        if (count < cap)                           \
            ends[count] = (int64_t)pos;            \
        count++;                                   \
    }

int64_t tl_split(int mode, const uint8_t *s, int64_t n, int64_t *ends, int64_t cap)
{
    size_t pos = 0, len = n > 0 ? (size_t)n : 0;
    int64_t count = 0;

    switch (mode) {
    case TL_MODE_GPT2: TL_SPLIT_LOOP(gpt2_end); break;
    case TL_MODE_GPT4: TL_SPLIT_LOOP(gpt4_end); break;
    case TL_MODE_O200K: TL_SPLIT_LOOP(o200k_end); break;
    case TL_MODE_LLAMA3: TL_SPLIT_LOOP(llama3_end); break;
    case TL_MODE_QWEN: TL_SPLIT_LOOP(qwen_end); break;
    case TL_MODE_TEKKEN: TL_SPLIT_LOOP(tekken_end); break;
    case TL_MODE_DEEPSEEK_V3: TL_SPLIT_LOOP(deepseek_end); break;
    default: return -1;
    }
    return count;
}
