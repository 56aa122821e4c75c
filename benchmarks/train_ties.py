"""BPETokenizer.train under each tie rule: what ties="first" (minbpe's rule, the lecture's) costs next
to the default "smallest", for the C core and the pure-Python trainer.

    python benchmarks/train_ties.py                       # prose (GPT-4 split) and 200 K chars with no split
    python benchmarks/train_ties.py --reps 7 --vocab 8192 --python-vocab 2048

Two cases: the benchmark prose corpus cut by the GPT-4 pattern, and the first 200,000 characters of the
sample with no split (the BPE Lab's bound for no split: the whole text is one chunk that every merge
walks). Wall times are medians over --reps runs of the whole train() call; the ratio is first/smallest.
Builds the corpora as run.py does (benchmarks/.work/corpora/<name>.txt, reused if present).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))  # this project's `tokenizers`

import corpora  # noqa: E402


def corpus(name: str, work: Path) -> str:
    path = work / "corpora" / f"{name}.txt"
    if not path.exists():
        corpora.write_all(path.parent, names=[name])
    return path.read_text(encoding="utf-8")


def median_seconds(text: str, pattern: str | None, vocab: int, trainer: str, ties: str, reps: int) -> float:
    from tokenizers.bpe import BPETokenizer

    runs = []
    for _ in range(reps):
        tok = BPETokenizer(pattern)
        t0 = time.perf_counter()
        tok.train(text, vocab, trainer=trainer, ties=ties)
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--vocab", type=int, default=8192, help="vocab size for the C core")
    ap.add_argument("--python-vocab", type=int, default=2048, help="vocab size for the pure-Python trainer")
    ap.add_argument("--work", default=str(HERE / ".work"))
    a = ap.parse_args()

    from tokenizers.bpe import native

    cases = [("prose, GPT-4 split", corpus("prose", Path(a.work)), "gpt4"),
             ("200 K chars, no split", corpus("sample", Path(a.work))[:200_000], None)]
    trainers = [("native", a.vocab)] if native.available() else []
    trainers.append(("python", a.python_vocab))
    print(f"{'case':24s} {'trainer':8s} {'vocab':>6s} {'smallest':>10s} {'first':>10s} {'first/smallest':>15s}")
    for name, text, pattern in cases:
        for trainer, vocab in trainers:
            s = median_seconds(text, pattern, vocab, trainer, "smallest", a.reps)
            f = median_seconds(text, pattern, vocab, trainer, "first", a.reps)
            print(f"{name:24s} {trainer:8s} {vocab:6d} {s:9.3f}s {f:9.3f}s {f / s:14.2f}x", flush=True)


if __name__ == "__main__":
    main()
