"""cProfile of BPETokenizer.train (or of encoding) on a benchmark corpus: where the time goes.

    benchmarks/.venv/bin/python benchmarks/profile_train.py                 # prose, vocab 8192
    benchmarks/.venv/bin/python benchmarks/profile_train.py --corpus code --vocab 2048 --top 25
    benchmarks/.venv/bin/python benchmarks/profile_train.py --encode        # profile encode_ordinary

Builds the corpus as run.py does (benchmarks/.work/corpora/<name>.txt, reused if present).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))  # this project's `tokenizers` (no Hugging Face import here)

import corpora  # noqa: E402


def phases(text: str, vocab: int) -> None:
    """Wall time of the steps BPETokenizer.train takes (mirrors tokenizers/bpe/model.py), no profiler."""
    from collections import Counter

    from tokenizers.bpe import fast as bpe_fast
    from tokenizers.core.patterns import GPT4_PATTERN, compile_pattern, split_text
    from tokenizers.core.text import clean_text

    compiled = compile_pattern(GPT4_PATTERN)
    rows, t = [], time.perf_counter()

    def mark(name):
        nonlocal t
        now = time.perf_counter()
        rows.append((name, now - t))
        t = now

    text2, _ = clean_text(text)
    mark("clean_text")
    chunks = split_text(text2, compiled)
    mark(f"split_text ({len(chunks):,} chunks)")
    counts = Counter(chunks)
    mark(f"Counter ({len(counts):,} unique)")
    byte_counts = [(c.encode("utf-8"), n) for c, n in counts.items()]
    mark("encode unique chunks")
    bpe_fast.train_fast(byte_counts, vocab - 256)
    mark(f"bpe_fast.train_fast ({vocab - 256} merges)")
    total = sum(s for _, s in rows)
    print(f"phases of train() on {len(text.encode()) / 1e6:.2f} MB, vocab {vocab} (no profiler): {total:.2f} s")
    for name, s in rows:
        print(f"  {s:7.3f} s  {100 * s / total:5.1f}%  {name}")
    print()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="prose", choices=["sample", "prose", "code", "mem10"])
    ap.add_argument("--vocab", type=int, default=8192)
    ap.add_argument("--trainer", default="fast", choices=["fast", "reference"])
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--sort", default="cumulative", help="pstats sort key (cumulative, tottime, ...)")
    ap.add_argument("--encode", action="store_true", help="profile encode_ordinary (cold cache) instead")
    ap.add_argument("--phases", action="store_true",
                    help="also time train()'s phases without the profiler (cProfile inflates code that "
                         "makes many small builtin calls)")
    a = ap.parse_args()

    path = HERE / ".work" / "corpora" / f"{a.corpus}.txt"
    if not path.exists():
        corpora.write_all(path.parent, names=[a.corpus])
    text = path.read_text(encoding="utf-8")

    from tokenizers.bpe import BPETokenizer

    if a.phases and not a.encode:
        phases(text, a.vocab)

    tok = BPETokenizer("gpt4")
    prof = cProfile.Profile()
    if a.encode:
        tok.train(text, a.vocab)
        tok._reset_caches()
        t0 = time.perf_counter()
        prof.runcall(tok.encode_ordinary, text)
    else:
        t0 = time.perf_counter()
        prof.runcall(tok.train, text, a.vocab, trainer=a.trainer)
    wall = time.perf_counter() - t0
    what = "encode_ordinary" if a.encode else f"train(trainer={a.trainer!r})"
    print(f"{what} on {a.corpus} ({len(text.encode()) / 1e6:.2f} MB), vocab {a.vocab}: "
          f"{wall:.2f} s under cProfile")
    s = io.StringIO()
    pstats.Stats(prof, stream=s).strip_dirs().sort_stats(a.sort).print_stats(a.top)
    print(s.getvalue())


if __name__ == "__main__":
    main()
