"""How fast the corpus metrics count (tokenizers.analysis.metrics.count_corpus) against encoding alone
(encode_ordinary), one process, on the built-in parallel texts repeated to about 10 MB (one text per
sentence line, as `python -m tokenizers.report` reads a file by lines). Run from the repository root:

    .venv/bin/python benchmarks/corpus_metrics.py [MB]

Each figure is the best of 3 runs, after one untimed load of the tokenizer; MB are UTF-8 megabytes
(10^6 bytes). The last line is one JSON object with every figure.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tokenizers import get_tokenizer  # noqa: E402
from tokenizers.analysis.metrics import count_corpus  # noqa: E402
from tokenizers.analysis.parallel import language_texts  # noqa: E402

NAMES = ["gpt2", "cl100k_base", "o200k_base", "mistral_sp", "llama3"]


def best_seconds(fn, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    mb = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    lines = [line for text in language_texts().values() for line in text.split("\n")]
    unit = sum(len(line.encode()) for line in lines)
    texts = lines * max(1, round(mb * 1e6 / unit))
    size = sum(len(t.encode()) for t in texts) / 1e6
    print(f"{len(texts):,} texts, {size:.1f} MB")
    figures = {}
    for name in NAMES:
        tok = get_tokenizer(name)
        tok.encode_ordinary(lines[0])
        enc = best_seconds(lambda: [tok.encode_ordinary(t) for t in texts])
        cnt = best_seconds(lambda: count_corpus(tok, texts))
        figures[name] = {"encode_mb_s": round(size / enc, 2), "count_mb_s": round(size / cnt, 2)}
        print(f"{name:<12} encode_ordinary {size / enc:6.2f} MB/s   count_corpus {size / cnt:6.2f} MB/s")
    print(json.dumps({"mb": round(size, 2), "texts": len(texts), "tokenizers": figures}))


if __name__ == "__main__":
    main()
