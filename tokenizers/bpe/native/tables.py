"""The Unicode data of the C pre-tokenizer (pretok.c), generated at build time as the header
`tl_tables.h` from the installed `regex` module, so that C and Python agree on what a letter is.

The GPT-2 and GPT-4 patterns only ever ask four questions of a character: is it a letter (\\p{L}),
a number (\\p{N}), whitespace (\\s), or none of these ("other")? And, for the GPT-4 contractions
`'(?i:[sdmt]|ll|ve|re)`, which of the letters s d m t l v r e does it match case-insensitively?
Both answers are taken from `regex` itself rather than from `unicodedata`, because the two need not
agree (e.g. `regex`'s \\s is Unicode White_Space, which leaves out U+001C..U+001F that Python's
str.isspace() counts, and ASCII 's' also matches U+017F LATIN SMALL LETTER LONG S under (?i)).

Layout (see pretok.c for the look-up):
  - tl_ascii_class[128]: the class of each ASCII byte, for the fast path;
  - a two-level table for all code points: tl_stage1[cp >> 7] names one of the distinct 128-entry
    blocks, and tl_stage2[block * 128 + (cp & 127)] is the class. Most of Unicode is made of blocks
    that are all "other" or all letters, so only ~200 distinct blocks remain (~36 KB in all);
  - tl_ci_cp[k], tl_ci_letter[k] (k < TL_CI_PAIRS): each code point that one of the letters
    s d m t l v r e matches under (?i), and that letter (17 pairs with regex 2026.11.15);
  - tl_o_ascii_class, tl_o_stage1, tl_o_stage2: the same layout for o200k_base's pattern (and Tekken's),
    whose classes split letters by case and count marks (O_* below; 230 distinct blocks, ~38 KB);
  - tl_d_ascii_class, tl_d_stage1, tl_d_stage2: the same for DeepSeek V3's splits, which ask for marks and
    for punctuation and symbols (D_* below).
"""

from __future__ import annotations

import regex

# Class codes; pretok.c uses the same numbers (TL_C_*), written out in the header.
OTHER, LETTER, NUMBER, SPACE = 0, 1, 2, 3
CLASS_PATTERNS = ((LETTER, r"\p{L}+"), (NUMBER, r"\p{N}+"), (SPACE, r"\s+"))
CONTRACTION_LETTERS = "sdmtlvre"  # the letters of '(?i:[sdmt]|ll|ve|re)
BLOCK_SHIFT = 7
MAX_CP = 0x110000


def all_code_points() -> tuple[tuple[int, str], ...]:
    """(first code point, string of consecutive code points): all of Unicode but the surrogates,
    which a Python str from valid UTF-8 never holds. Two pieces so that string index + offset is
    the code point."""
    return ((0, "".join(map(chr, range(0, 0xD800)))),
            (0xE000, "".join(map(chr, range(0xE000, MAX_CP)))))


def classes(points=None, patterns=CLASS_PATTERNS) -> bytearray:
    """The class of every code point, as `regex` sees it. `points`: all_code_points(), if at hand."""
    points = points or all_code_points()
    cls = bytearray(MAX_CP)  # all OTHER to start with
    for first, text in points:
        for code, pattern in patterns:
            for m in regex.finditer(pattern, text):
                lo, hi = first + m.start(), first + m.end()
                if any(cls[lo:hi]):
                    raise AssertionError(f"{pattern} overlaps another class in U+{lo:04X}..U+{hi - 1:04X}")
                cls[lo:hi] = bytes([code]) * (hi - lo)
    return cls


# The o200k_base pattern asks finer questions of a letter: \p{Lu}\p{Lt} (upper and title case) may
# start a word, \p{Ll} may end one, \p{Lm}\p{Lo} and the marks \p{M} may do both. Its table
# (tl_o_*) has these classes; marks are not letters (\p{L}), so elsewhere they count as "other".
O_OTHER, O_UPPER, O_LOWER, O_BOTH, O_MARK, O_NUMBER, O_SPACE = range(7)
O200K_CLASS_PATTERNS = ((O_UPPER, r"[\p{Lu}\p{Lt}]+"), (O_LOWER, r"\p{Ll}+"), (O_BOTH, r"[\p{Lm}\p{Lo}]+"),
                        (O_MARK, r"\p{M}+"), (O_NUMBER, r"\p{N}+"), (O_SPACE, r"\s+"))


def o200k_classes(points=None, cls=None) -> bytearray:
    """The o200k class of every code point, as `regex` sees it; checked against classes(): the three
    letter classes make up \\p{L} exactly, and numbers and whitespace are the same."""
    points = points or all_code_points()
    out = classes(points, O200K_CLASS_PATTERNS)
    cls = cls if cls is not None else classes(points)
    to_gpt = bytes([OTHER, LETTER, LETTER, LETTER, OTHER, NUMBER, SPACE]).ljust(256, b"\0")
    if out.translate(to_gpt) != cls:
        raise AssertionError("the o200k classes do not refine the GPT classes")
    return out


# DeepSeek V3's splits ask of a character: a letter \p{L}, a mark \p{M}, punctuation or a symbol \p{P}\p{S}
# (one class: the pattern never tells them apart), a number \p{N}, whitespace \s, or none (tl_d_*).
D_OTHER, D_LETTER, D_MARK, D_PUNCT, D_NUMBER, D_SPACE = range(6)
DEEPSEEK_CLASS_PATTERNS = ((D_LETTER, r"\p{L}+"), (D_MARK, r"\p{M}+"), (D_PUNCT, r"[\p{P}\p{S}]+"),
                           (D_NUMBER, r"\p{N}+"), (D_SPACE, r"\s+"))


def deepseek_classes(points=None, cls=None) -> bytearray:
    """The DeepSeek V3 class of every code point, as `regex` sees it; checked against classes(): letters,
    numbers and whitespace are the same."""
    points = points or all_code_points()
    out = classes(points, DEEPSEEK_CLASS_PATTERNS)
    cls = cls if cls is not None else classes(points)
    to_gpt = bytes([OTHER, LETTER, OTHER, OTHER, NUMBER, SPACE]).ljust(256, b"\0")
    if out.translate(to_gpt) != cls:
        raise AssertionError("the DeepSeek classes do not refine the GPT classes")
    return out


def contraction_pairs(points=None) -> list[tuple[int, str]]:
    """(code point, letter) for each code point that letter matches case-insensitively. `regex`
    (version 0, no FULLCASE) folds one character at a time, so 'll' matches any two characters each
    matching 'l'; the tests check this against the full pattern."""
    points = points or all_code_points()
    pairs = []
    for letter in CONTRACTION_LETTERS:
        found = []
        for pattern in (rf"(?i:{letter})", rf"(?i:[{letter}])"):
            found.append(sorted(first + m.start() for first, text in points
                                for m in regex.finditer(pattern, text)))
        if found[0] != found[1]:
            raise AssertionError(f"(?i) matches {letter!r} differently as a literal and in a class")
        pairs += [(cp, letter) for cp in found[0]]
    return sorted(pairs)


def _c_array(ctype: str, name: str, values, per_line: int = 32) -> str:
    vals = list(values)
    lines = [", ".join(map(str, vals[i:i + per_line])) for i in range(0, len(vals), per_line)]
    return f"static const {ctype} {name}[{len(vals)}] = {{\n    " + ",\n    ".join(lines) + "\n};\n"


def two_stage(cls: bytearray) -> tuple[list[int], bytes]:
    """stage1 (block index of each 128 code points) and stage2 (the distinct blocks, in order)."""
    size = 1 << BLOCK_SHIFT
    blocks: dict[bytes, int] = {}
    stage1 = []
    for start in range(0, MAX_CP, size):
        block = bytes(cls[start:start + size])
        stage1.append(blocks.setdefault(block, len(blocks)))
    return stage1, b"".join(blocks)  # dicts keep insertion order, so block i is at i * size


def header_text() -> str:
    """The C source of tl_tables.h."""
    points = all_code_points()  # ~4 MB: built once, freed on return
    cls = classes(points)
    stage1, stage2 = two_stage(cls)
    if max(stage1) > 255:
        raise AssertionError(f"{max(stage1) + 1} distinct blocks do not fit tl_stage1's uint8_t")
    ocls = o200k_classes(points, cls)
    o_stage1, o_stage2 = two_stage(ocls)
    o_type = "uint8_t" if max(o_stage1) < 256 else "uint16_t"
    dcls = deepseek_classes(points, cls)
    d_stage1, d_stage2 = two_stage(dcls)
    d_type = "uint8_t" if max(d_stage1) < 256 else "uint16_t"
    pairs = contraction_pairs(points)
    version = getattr(regex, "__version__", "unknown")
    return "".join([
        f"/* Generated by tokenizers/bpe/native/tables.py from regex {version}; do not edit. */\n",
        "#ifndef TL_TABLES_H\n#define TL_TABLES_H\n#include <stdint.h>\n\n",
        f"#define TL_C_OTHER {OTHER}\n#define TL_C_LETTER {LETTER}\n",
        f"#define TL_C_NUMBER {NUMBER}\n#define TL_C_SPACE {SPACE}\n",
        f"#define TL_BLOCK_SHIFT {BLOCK_SHIFT}\n#define TL_MAX_CP 0x{MAX_CP:X}\n\n",
        "/* class of each ASCII character */\n",
        _c_array("uint8_t", "tl_ascii_class", cls[:128]),
        "\n/* cp >> TL_BLOCK_SHIFT -> index of its block in tl_stage2 */\n",
        _c_array("uint8_t", "tl_stage1", stage1),
        "\n/* the distinct blocks of classes, one after the other */\n",
        _c_array("uint8_t", "tl_stage2", stage2),
        "\n/* code points that the contraction letters match under (?i), sorted by code point */\n",
        f"#define TL_CI_PAIRS {len(pairs)}\n",
        _c_array("uint32_t", "tl_ci_cp", (cp for cp, _ in pairs), per_line=16),
        _c_array("char", "tl_ci_letter", (f"'{letter}'" for _, letter in pairs), per_line=16),
        "\n/* o200k_base's classes (TL_O_*), the same two-stage layout */\n",
        "".join(f"#define TL_O_{k} {v}\n" for k, v in (("OTHER", O_OTHER), ("UPPER", O_UPPER), ("LOWER", O_LOWER),
                                                        ("BOTH", O_BOTH), ("MARK", O_MARK), ("NUMBER", O_NUMBER),
                                                        ("SPACE", O_SPACE))),
        _c_array("uint8_t", "tl_o_ascii_class", ocls[:128]),
        _c_array(o_type, "tl_o_stage1", o_stage1),
        _c_array("uint8_t", "tl_o_stage2", o_stage2),
        "\n/* DeepSeek V3's classes (TL_D_*), the same two-stage layout */\n",
        "".join(f"#define TL_D_{k} {v}\n" for k, v in (("OTHER", D_OTHER), ("LETTER", D_LETTER), ("MARK", D_MARK),
                                                        ("PUNCT", D_PUNCT), ("NUMBER", D_NUMBER), ("SPACE", D_SPACE))),
        _c_array("uint8_t", "tl_d_ascii_class", dcls[:128]),
        _c_array(d_type, "tl_d_stage1", d_stage1),
        _c_array("uint8_t", "tl_d_stage2", d_stage2),
        "\n#endif\n",
    ])


if __name__ == "__main__":
    print(header_text(), end="")
