"""How long the Vocabulary diff page's library work takes: reading a vocabulary (every id's bytes,
each token classified), the diff of two read vocabularies, its summary by kind, the 15 largest rank
shifts, and all of it from two registry names (`total`: what the page computes once per pair); beside the plain set arithmetic the
tests use as the reference. Run with the app's venv from the repository root:

    .venv/bin/python benchmarks/vocab_diff_bench.py             # o200k_base vs llama3 and three more pairs

Each figure is the median of 5 runs in this process, after one untimed load of the tokenizers. The
last line of the output is one JSON object with every figure.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.api_bench import median_time  # noqa: E402  (one way to time a call)

from tokenizers import get_tokenizer, vocab_diff  # noqa: E402
from tokenizers.analysis.vocab_diff import VocabDiff, vocabulary  # noqa: E402

PAIRS = [("o200k_base", "llama3"), ("cl100k_base", "o200k_base"), ("cl100k_base", "llama3"), ("mistral_sp", "llama3")]


def median_seconds(fn, runs: int = 5) -> float:
    return median_time(fn, runs)


def reference(a, b):
    """Set arithmetic over decode_single_token_bytes for every id (the tests' reference)."""
    def ordinary(tok):
        apart = set(tok.special_tokens.values()) | {tok.unk_id}
        return {tok.decode_single_token_bytes(i) for i, _ in tok.iter_vocab() if i not in apart}

    sa, sb = ordinary(a), ordinary(b)
    return sa & sb, sa - sb, sb - sa


def main() -> None:
    figures = {}
    print(f"{'A':<12}{'B':<12}{'read A s':>9}{'read B s':>9}{'diff s':>8}{'kinds s':>8}{'shifts s':>9}"
          f"{'total s':>9}{'sets s':>8}   shared / only A / only B")
    for a, b in PAIRS:
        ta, tb = get_tokenizer(a), get_tokenizer(b)
        read_a = median_seconds(lambda: vocabulary(ta))
        read_b = median_seconds(lambda: vocabulary(tb))
        va, vb = vocabulary(ta), vocabulary(tb)
        diff = median_seconds(lambda: vocab_diff(va, vb))
        d = vocab_diff(va, vb)
        kinds = median_seconds(lambda: VocabDiff(va, vb, d.shared, d.only_a, d.only_b).by_kind)
        shifts = median_seconds(lambda: d.rank_shifts(15))  # what the page shows
        total = median_seconds(lambda: (lambda x: (x.by_kind, x.rank_shifts(15)))(vocab_diff(a, b)))
        sets = median_seconds(lambda: reference(ta, tb))
        f = figures[f"{a} vs {b}"] = {
            "read_a_s": round(read_a, 3), "read_b_s": round(read_b, 3), "diff_s": round(diff, 3),
            "by_kind_s": round(kinds, 3), "rank_shifts_s": round(shifts, 3), "total_s": round(total, 3),
            "reference_sets_s": round(sets, 3), "shared": len(d.shared), "only_a": len(d.only_a),
            "only_b": len(d.only_b)}
        print(f"{a:<12}{b:<12}{read_a:>9.3f}{read_b:>9.3f}{diff:>8.3f}{kinds:>8.3f}{shifts:>9.3f}{total:>9.3f}"
              f"{sets:>8.3f}   {f['shared']:,} / {f['only_a']:,} / {f['only_b']:,}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
