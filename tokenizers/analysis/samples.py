"""Deterministic, download-free sample texts for tests and benchmarks: prose, code, many scripts,
emoji, whitespace runs, numbers. Same seed, same text."""

from __future__ import annotations

import random
import sysconfig
from pathlib import Path

SCRIPTS = {  # inclusive code point ranges of letters in several scripts
    "latin-ext": (0x00C0, 0x024F), "greek": (0x0391, 0x03C9), "cyrillic": (0x0410, 0x044F),
    "hebrew": (0x05D0, 0x05EA), "arabic": (0x0627, 0x064A), "devanagari": (0x0905, 0x0939),
    "thai": (0x0E01, 0x0E2E), "hangul": (0xAC00, 0xD7A3), "cjk": (0x4E00, 0x9FFF),
    "hiragana": (0x3041, 0x3096), "emoji": (0x1F300, 0x1F6FF),
}
EXTRAS = ["\u200d", "\ufe0f", "\u0301", "🇫🇷", "👨‍👩‍👧‍👦", "👍🏽", "\t", "\r\n", "    ", "\n\n\n", "  ", " ",
          "'s", "'LL", "’re", "1234567", "3.14", "0x1F", "!!!", "...", "<|endoftext|>", "\x00", "\u00a0"]


def stdlib_source(max_bytes: int) -> str:
    """Python standard-library source, files in sorted order, up to max_bytes."""
    root = Path(sysconfig.get_paths()["stdlib"])
    parts, total = [], 0
    for p in sorted(root.glob("*.py")):
        try:
            t = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        parts.append(t)
        total += len(t.encode("utf-8"))
        if total >= max_bytes:
            break
    return "".join(parts)


def mixed_scripts(n_chars: int, seed: int = 0) -> str:
    """Words in many scripts, emoji, joiners, combining marks, numbers and whitespace runs."""
    rng = random.Random(seed)
    names = sorted(SCRIPTS)
    out, size = [], 0
    while size < n_chars:
        r = rng.random()
        if r < 0.15:
            piece = rng.choice(EXTRAS)
        else:
            lo, hi = SCRIPTS[rng.choice(names)]
            piece = "".join(chr(rng.randint(lo, hi)) for _ in range(rng.randint(1, 8)))
            piece += rng.choice([" ", " ", ", ", ". ", "\n", ""])
        out.append(piece)
        size += len(piece)
    return "".join(out)


def varied_text(n_bytes: int = 1_000_000, seed: int = 0) -> str:
    """At least n_bytes of UTF-8: prose (up to a third), code, then many scripts to fill up."""
    from tokenizers.core.corpus import stdlib_docstrings

    third = n_bytes // 3
    prose = stdlib_docstrings(10**7).encode()[:third].decode("utf-8", "ignore")
    code_budget = 2 * third - len(prose.encode())
    code = stdlib_source(code_budget).encode()[:code_budget].decode("utf-8", "ignore")
    text = prose + code
    return text + mixed_scripts(max(0, n_bytes - len(text.encode())), seed)
