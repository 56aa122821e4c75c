"""Issue 22: a keystroke in the browser encodes only the lines it touched (ui/web/live_spans.js editTokens,
tokenizers/core/edits.py's rule) and the column's model is built from those tokens; the whole text encoded
(liveModel with `whole`, the slow reference) must give the same ids and the same model, over the tricky texts
and a seeded fuzz of edits, for every vocabulary the browser draws (mistral_sp and any other tokenizer whose
pre-tokenizer is not line-local always takes the whole path, and is held equal all the same)."""

from __future__ import annotations

import random

from conftest import TRICKY_TEXTS
from test_live_spans import NAMES, run_node

BODY = """
  const fast = fresh(), slow = fresh();
  const problems = [];
  let edited = 0, steps = 0;
  for (const chain of job.cases) {
    fast.last = null;  // the edit path keeps its last text's tokens along the chain
    for (const text of chain.texts) {
      const a = L.liveModel(fast, text, chain.live, chain.d);
      const b = L.liveModel(slow, text, chain.live, chain.d, true);
      const parse = chain.live.parse && fast.table.parses ? 1 : 0;
      steps++;
      if (fast.last[parse].kept) edited++;
      const bad = Array.from(a.ids).join(",") !== Array.from(b.ids).join(",") ? "ids"
        : JSON.stringify(a.model) !== JSON.stringify(b.model) ? "model"
        : a.count !== b.count || a.chars !== b.chars || a.bytes !== b.bytes ? "counts" : "";
      if (bad) problems.push({ bad, text, before: chain.texts[chain.texts.indexOf(text) - 1] ?? null, live: chain.live });
    }
  }
  out[name] = { problems: problems.slice(0, 5), nproblems: problems.length, edited, steps };
"""

# line-local vocabularies: the edit path must be taken on most keystrokes of a text with many lines
LINE_LOCAL = {"custom_bpe", "gpt2", "cl100k_base", "o200k_base"}

SNIPPETS = ["a", "b", " ", "  ", "\n", "\n\n", " \n", "\n ", "\r\n", "\r", "\t", "x\ny", "é", "e\u0301", "😀",
            "\u200d", "👩‍👩‍👧", "한국", "'s", "'ll", "123", "4567", "<|endoftext|>", "<|endoftext", "|>",
            "\ud83d", "\ude00", "<script>", "\u00a0", "\u2028", "\x85", "\x1c", "\u3000", "▁", "!!", "x" * 40]
LINES = ["The quick brown fox jumps over the lazy dog.", "def f(x):", "    return x ** 2", "if a:\r\n    b()",
         "a  b\t\tc", "  indented", "trailing   ", "1234567890", "<|endoftext|>x", "end"]


def base_text(rng: random.Random) -> str:
    """Lines with line cuts between most of them (and some without: spaces or blank lines around a newline)."""
    parts = rng.sample(TRICKY_TEXTS + LINES + ["lone \ud83d and \udc00", "CR\ronly\rtext\r", "x<|endoftext|>\ny"],
                       rng.randint(4, 12))
    return "\n".join(p for p in parts) + rng.choice(["", "\n", " ", "\nz"])


def edit(rng: random.Random, text: str) -> str:
    """One edit: an insert, a delete, a replacement or a paste, at the start, the middle or the end."""
    n = len(text)
    at = rng.choice([0, n, rng.randint(0, n), rng.randint(0, n)])
    kind = rng.choice(["insert", "insert", "delete", "replace", "paste"])
    if kind == "delete":
        k = rng.randint(1, 3)
        return text[:max(0, at - k)] + text[at:] if rng.random() < 0.5 else text[:at] + text[at + k:]
    if kind == "paste":
        piece = "\n".join(rng.sample(LINES + TRICKY_TEXTS, 2))
    else:
        piece = rng.choice(SNIPPETS)
    end = at + (rng.randint(1, 8) if kind == "replace" else 0)
    return text[:at] + piece + text[end:]


def chains(seed: int, n: int, steps: int) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for k in range(n):
        text = base_text(rng)
        texts = [text]
        for _ in range(steps):
            text = edit(rng, text)
            texts.append(text)
        live = {"parse": k % 2 == 0, "whitespace": k % 3 == 0, "alternating": k % 5 == 4,
                "win": [rng.choice([120, 400]), rng.randint(0, 3)] if k % 4 == 3 else None}
        d = {"owner": "compare:e", "flip": False, "font": "", "label": "E"}
        out.append({"texts": texts, "live": live, "d": d})
    return out


def fixed_chains() -> list[dict]:
    """Each tricky text typed into a text of many lines, at its start, middle and end, then taken out again;
    CRLF, CR-only, lone surrogates, a special token's string parsed and not."""
    lines = "\n".join(LINES)
    out = []
    for k, tricky in enumerate([*TRICKY_TEXTS, "\r\n\r\nx\r\n", "a\rb\rc", "\ud83d\n\udc00", "<|endoftext|>\n<|endoftext|>"]):
        for at in (0, len(lines) // 2, len(lines)):
            texts = [lines, lines[:at] + tricky + lines[at:], lines[:at] + tricky + "\n" + lines[at:], lines]
            for parse in (False, True):
                out.append({"texts": texts, "live": {"parse": parse, "whitespace": k % 2 == 0, "alternating": False,
                                                     "win": None},
                            "d": {"owner": "compare:f", "flip": False, "font": "", "label": "F"}})
    return out


def test_an_edit_encoded_between_line_cuts_equals_the_whole_text_encoded(tmp_path):
    got = run_node(tmp_path, fixed_chains() + chains(seed=22, n=60, steps=12), BODY)
    for name in NAMES:
        g = got[name]
        assert g["nproblems"] == 0, f"{name}: {g['nproblems']} edits differ from the whole text's, e.g. {g['problems']}"
        if name in LINE_LOCAL:  # the fast path was taken, not skipped: most keystrokes keep earlier tokens
            assert g["edited"] > g["steps"] // 2, (name, g["edited"], g["steps"])
        else:
            assert g["edited"] == 0, name  # SentencePiece's dummy prefix: the whole text every time
