"""How long "Where a prompt ends" takes (tokenizers.token_healing and the vocabulary search's prefix
query), per registered tokenizer. Run with the app's venv from the repository root:

    .venv/bin/python benchmarks/token_healing.py

Columns: building the prefix index (once per tokenizer and process), one prefix query through the index
and through the plain scan it is tested against (ids_with_prefix_reference), for the bytes " " (the
largest answer: every word-start token) and " bro" (a typical one); token_healing on "Hello " the first
time (the merge ranks of its candidates are read then) and again; and token_healing on a 1 MB text ending
in "http:", against a plain encode_ordinary of the same text. Each figure after the first-time ones is
the median of 3 runs. The last line of the output is one JSON object with every figure.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tokenizers import available_tokenizers, get_tokenizer, token_healing  # noqa: E402
from tokenizers.analysis.vocab_search import PrefixIndex, ids_with_prefix_reference, prefix_index  # noqa: E402

LONG = "The quick brown fox jumps over the lazy dog. " * 23_000 + "http:"  # ~1 MB


def once(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def median_seconds(fn, runs: int = 3) -> float:
    return statistics.median(once(fn) for _ in range(runs))


def main() -> None:
    figures: dict[str, dict] = {}
    print(f"{'tokenizer':<15}{'index s':>8}{'q(sp) ms':>9}{'scan ms':>9}{'q(bro) ms':>10}{'scan ms':>9}"
          f"{'heal 1st s':>11}{'heal ms':>9}{'1MB heal s':>11}{'1MB enc s':>10}")
    for name in available_tokenizers():
        tok = get_tokenizer(name)
        build = once(lambda: PrefixIndex(tok))
        index = prefix_index(tok)
        row = {"index_build_s": build}
        for label, p in (("space", b" "), ("bro", b" bro")):
            assert index.ids_with_prefix(p) == ids_with_prefix_reference(tok, p)
            row[f"query_{label}_ms"] = 1000 * median_seconds(lambda: index.ids_with_prefix(p))
            row[f"scan_{label}_ms"] = 1000 * median_seconds(lambda: ids_with_prefix_reference(tok, p), runs=1)
        row["heal_first_s"] = once(lambda: token_healing(tok, "Hello "))
        row["heal_ms"] = 1000 * median_seconds(lambda: token_healing(tok, "Hello "))
        row["heal_1mb_s"] = median_seconds(lambda: token_healing(tok, LONG), runs=1)
        row["encode_1mb_s"] = median_seconds(lambda: tok.encode_ordinary(LONG), runs=1)
        figures[name] = row
        print(f"{name:<15}{build:>8.2f}{row['query_space_ms']:>9.1f}{row['scan_space_ms']:>9.1f}"
              f"{row['query_bro_ms']:>10.3f}{row['scan_bro_ms']:>9.1f}{row['heal_first_s']:>11.2f}"
              f"{row['heal_ms']:>9.1f}{row['heal_1mb_s']:>11.2f}{row['encode_1mb_s']:>10.2f}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
