"""Issue 22: a keystroke in the browser encodes only the lines it touched (ui/web/live_spans.js editTokens,
tokenizers/core/edits.py's rule) and the column's model is built from those tokens; the whole text encoded
(liveModel with `whole`, the slow reference) must give the same ids and the same model, over the tricky texts
and a seeded fuzz of edits, for every vocabulary the browser draws (mistral_sp too: a part after a line cut is
encoded without SentencePiece's dummy prefix, tests/test_native_sentencepiece.py says why that is exact)."""

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
      if (!a.model && !b.model && a.ids.length === 0) { steps--; continue; }  // a text its normalizer changes: the server's
      if (fast.last[parse].kept) edited++;
      const bad = Array.from(a.ids).join(",") !== Array.from(b.ids).join(",") ? "ids"
        : JSON.stringify(a.model) !== JSON.stringify(b.model) ? "model"
        : a.count !== b.count || a.chars !== b.chars || a.bytes !== b.bytes ? "counts" : "";
      if (bad) problems.push({ bad, text, before: chain.texts[chain.texts.indexOf(text) - 1] ?? null, live: chain.live });
    }
  }
  out[name] = { problems: problems.slice(0, 5), nproblems: problems.length, edited, steps };
"""

# every vocabulary the browser draws is line-local: the edit path must be taken on most keystrokes of a text with
# many lines
LINE_LOCAL = set(NAMES)

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
    # lines that start with a literal ▁ (SentencePiece: a part after a cut has no dummy prefix, so its first ▁ is
    # the text's own three bytes), edited inside such a line
    marked = "\n".join("\u2581" + line for line in LINES)
    for whitespace in (False, True):
        out.append({"texts": [marked, marked.replace("def f(x):", "def f(xy):"), marked.replace("\u2581end", "\u2581\u2581end"),
                              marked],
                    "live": {"parse": False, "whitespace": whitespace, "alternating": False, "win": None},
                    "d": {"owner": "compare:m", "flip": False, "font": "", "label": "M"}})
    return out


def test_an_edit_encoded_between_line_cuts_equals_the_whole_text_encoded(tmp_path):
    got = run_node(tmp_path, fixed_chains() + chains(seed=22, n=60, steps=12), BODY)
    for name in NAMES:
        g = got[name]
        assert g["nproblems"] == 0, f"{name}: {g['nproblems']} edits differ from the whole text's, e.g. {g['problems']}"
        assert name in LINE_LOCAL
        # the fast path was taken, not skipped: most keystrokes keep earlier tokens
        assert g["edited"] > g["steps"] // 2, (name, g["edited"], g["steps"])


SP_BODY = """
  if (name === "mistral_sp") {
    const v = fresh(), bad = [];
    const enc = (s, atStart) => L.encodeText(v.vocab, v.table, s, false, atStart);
    let cuts = 0;
    for (const text of job.cases) {
      const whole = enc(text, true).join(",");
      for (let c = 1; c < text.length; c++) {
        if (text[c - 1] !== "\\n") continue;
        cuts++;
        if ([...enc(text.slice(0, c), true), ...enc(text.slice(c), false)].join(",") !== whole) bad.push([text, c]);
      }
    }
    out[name] = { whole: job.cases.map(t => enc(t, true)), bad: bad.slice(0, 5), cuts, lineLocal: v.table.lineLocal };
  }
"""


def test_the_browsers_sentencepiece_parts_after_line_breaks_are_the_whole_texts(tmp_path):
    """The browser's encodeText for mistral_sp (WebAssembly, tl_sp_encode_part): a text's ids are those of its part
    before a line break's end and of the rest encoded without the dummy prefix, at every such cut, and the whole
    text's are sentencepiece's own (tests/test_native_sentencepiece.py proves the same of sentencepiece and says
    why); the table says the model is line-local, so editTokens runs for it."""
    from tokenizers import get_tokenizer
    from tokenizers.core.text import clean_text
    from wasm_parity import texts

    items = [t for t in (clean_text(x)[0] for x in texts()) if "\n" in t] + ["a\nb", "x\n\u2581y\n \n\n▁▁ z\n", "\n" * 5]
    got = run_node(tmp_path, items, SP_BODY)["mistral_sp"]
    sp = get_tokenizer("mistral_sp").sp
    assert got["lineLocal"] is True
    assert got["bad"] == [] and got["cuts"] > 300
    assert got["whole"] == [list(sp.EncodeAsIds(t)) for t in items]
