"""How long the SentencePiece Lab's training takes, and what its child process costs.

    .venv/bin/python benchmarks/sentencepiece_train.py            # ~1 minute on 2 cores
    .venv/bin/python benchmarks/sentencepiece_train.py --quick    # one size, one run

For each preset of the lab (Llama 2, library defaults, T5-style unigram), on the built-in corpus at
the lab's three sizes (vocab 500, 2,000, 4,000) and on the 4.5 MB prose corpus of benchmarks/corpora.py (vocab 8,000; the
upload limit is 5 MB): the median of 3 runs of tokenizers.sentencepiece.train.train (wall time in the parent), of
SentencePieceTrainer.train inside the child (the trainer alone), their difference (the child's
overhead: starting Python, importing sentencepiece, writing and reading files), the same training
in this process with no child at all, and the child's peak memory. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import sentencepiece as spm  # noqa: E402

from tokenizers.core.corpus import stdlib_docstrings  # noqa: E402
from tokenizers.sentencepiece.train import PRESETS, train  # noqa: E402


def in_process(text: str, options: dict) -> float:
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "c.txt").write_text(text, encoding="utf-8", newline="")
        start = time.perf_counter()
        spm.SentencePieceTrainer.train(input=str(Path(d) / "c.txt"), model_prefix=str(Path(d) / "m"),
                                       minloglevel=2, **options)
        return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    runs = 1 if args.quick else 3
    corpora = {f"builtin {n // 1000} KB": stdlib_docstrings(n) for n in ([100_000] if args.quick
                                                                         else [20_000, 100_000, 250_000])}
    if not args.quick:
        import corpora as bench_corpora

        corpora["prose 4.5 MB"] = bench_corpora.build("prose")[0]
    results = []
    for cname, text in corpora.items():
        # a vocabulary every preset can reach on that text (unigram's ceiling is the lowest)
        vocab = 500 if len(text) < 50_000 else 2000 if len(text) < 200_000 else 4000 if len(text) < 1_000_000 else 8000
        for preset, options in PRESETS.items():
            opts = {**options, "vocab_size": vocab}
            walls, trainers, peaks, direct = [], [], [], []
            for _ in range(runs):
                tok = train(text, **opts)
                walls.append(tok.report.seconds)
                trainers.append(tok.report.trainer_seconds)
                peaks.append(tok.report.peak_memory_mb)
                direct.append(in_process(text, opts))
            row = {"corpus": cname, "chars": len(text), "preset": preset, "vocab_size": vocab,
                   "train_s": round(statistics.median(walls), 3), "trainer_s": round(statistics.median(trainers), 3),
                   "overhead_s": round(statistics.median(w - t for w, t in zip(walls, trainers)), 3),
                   "in_process_s": round(statistics.median(direct), 3), "peak_mb": round(max(peaks), 1)}
            results.append(row)
            print(f"{cname:>16}  {preset:<17} vocab {vocab:>5}:  train() {row['train_s']:6.3f} s = trainer "
                  f"{row['trainer_s']:6.3f} s + child {row['overhead_s']:5.3f} s   (in process {row['in_process_s']:6.3f} s)"
                  f"   peak {row['peak_mb']:6.1f} MB", file=sys.stderr)
    print(json.dumps({"sentencepiece": spm.__version__, "runs": runs, "results": results}))


if __name__ == "__main__":
    main()
