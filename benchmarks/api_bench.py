"""Decoding and batch encoding, side by side with tiktoken, in one run.

    .venv/bin/python benchmarks/api_bench.py            # about a minute
    .venv/bin/python benchmarks/api_bench.py --quick    # smaller inputs, one repetition

For each tokenizer: `decode` of 100,000 ids (and `decode_bytes`), and `encode_batch` /
`encode_ordinary_batch` of 2,000 texts of about 1 KB each (8 threads, as tiktoken's default), against
tiktoken doing the same on the same vocabulary (its own Encoding for OpenAI's vocabularies; for the
model trained here, the Encoding that `bpe_files.to_tiktoken_encoding` exports). Ids and texts are checked
equal to tiktoken's. Times are medians of 5 runs (1 with --quick); ratios are ours / tiktoken (lower is
faster). Runs in the app's .venv, from the repository root; no download.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def median_time(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    reps = 1 if args.quick else 5
    n_ids = 20_000 if args.quick else 100_000
    n_texts = 300 if args.quick else 2_000

    from tokenizers.vocabularies.tiktoken_files import get_encoding

    from tokenizers import BPETokenizer, get_tokenizer
    from tokenizers.bpe import files as bpe_files
    from tokenizers.bpe import native
    from tokenizers.core.corpus import stdlib_docstrings
    from tokenizers.analysis.samples import varied_text

    text = varied_text(1_200_000, seed=11)
    texts = [text[i * 997:(i + 1) * 997] for i in range(n_texts)]
    own = BPETokenizer("gpt4", name="own")
    own.train(stdlib_docstrings(400_000), 8192)
    sides = {
        "own model (C core), vs its tiktoken export": (own, bpe_files.to_tiktoken_encoding(own)),
        "gpt2 (registry: tiktoken inside)": (get_tokenizer("gpt2"), get_encoding("gpt2")),
        "cl100k_base (registry: tiktoken inside)": (get_tokenizer("cl100k_base"), get_encoding("cl100k_base")),
        "cl100k_base, BPETokenizer.from_tiktoken": (BPETokenizer.from_tiktoken("cl100k_base"),
                                                    get_encoding("cl100k_base")),
        "o200k_base (registry: tiktoken inside)": (get_tokenizer("o200k_base"), get_encoding("o200k_base")),
    }
    rows = []
    print(f"C core: {'loaded' if native.available() else 'NOT loaded'}; {os.cpu_count()} cores; "
          f"decode {n_ids:,} ids; encode_batch {n_texts:,} texts of ~1 KB; median of {reps}", file=sys.stderr)
    for label, (ours, enc) in sides.items():
        ids = enc.encode_ordinary(text)[:n_ids]
        assert ours.decode(ids) == enc.decode(ids) and ours.decode_bytes(ids) == enc.decode_bytes(ids)
        assert ours.encode_ordinary_batch(texts) == enc.encode_ordinary_batch(texts)
        clean = [t for t in texts if "<|" not in t]
        assert ours.encode_batch(clean) == enc.encode_batch(clean)
        row = {"tokenizer": label,
               "decode_s": median_time(lambda: ours.decode(ids), reps),
               "tiktoken_decode_s": median_time(lambda: enc.decode(ids), reps),
               "decode_bytes_s": median_time(lambda: ours.decode_bytes(ids), reps),
               "tiktoken_decode_bytes_s": median_time(lambda: enc.decode_bytes(ids), reps),
               "encode_batch_s": median_time(lambda: ours.encode_ordinary_batch(texts), reps),
               "tiktoken_encode_batch_s": median_time(lambda: enc.encode_ordinary_batch(texts), reps)}
        row["decode_ratio"] = row["decode_s"] / row["tiktoken_decode_s"]
        row["encode_batch_ratio"] = row["encode_batch_s"] / row["tiktoken_encode_batch_s"]
        rows.append(row)
        print(f"{label:45s} decode {row['decode_s'] * 1000:7.2f} ms vs {row['tiktoken_decode_s'] * 1000:7.2f} ms "
              f"({row['decode_ratio']:.2f}x)   encode_batch {row['encode_batch_s'] * 1000:8.1f} ms vs "
              f"{row['tiktoken_encode_batch_s'] * 1000:8.1f} ms ({row['encode_batch_ratio']:.2f}x)", file=sys.stderr)
    print("\n| tokenizer | decode 100k ids: ours | tiktoken | ratio | encode_batch 2,000 × 1 KB: ours | tiktoken | ratio |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['tokenizer']} | {r['decode_s'] * 1000:.1f} ms | {r['tiktoken_decode_s'] * 1000:.1f} ms | "
              f"{r['decode_ratio']:.2f}× | {r['encode_batch_s'] * 1000:.0f} ms | {r['tiktoken_encode_batch_s'] * 1000:.0f} ms | "
              f"{r['encode_batch_ratio']:.2f}× |")
    print(json.dumps({"rows": rows, "reps": reps, "n_ids": n_ids, "n_texts": n_texts}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
