"""Bytes and build time of a 5,000-token spans view (issue 20: what the keyboard and screen-reader
attributes cost), for the checkout it runs in.

    .venv/bin/python benchmarks/span_bytes.py [--tokens 5000] [--repeat 5]

For each tokenizer and each way a page draws spans: the HTML of render_spans (st.html: static spans, and
clickable spans with an owner, as Inside draws them) and the JSON Compare's spans component receives
(span_model), in UTF-8 bytes, plus the best time of --repeat to build each (the least disturbed by other work on the machine). The text is the standard library's
docstrings (tokenizers.core.corpus, read from this machine), cut to the first N tokens. Run it in two
checkouts (before and after a change) to compare; ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tokenizers import get_tokenizer  # noqa: E402
from tokenizers.core.corpus import stdlib_docstrings  # noqa: E402
from tokenizers.core.html import model_html, span_model  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    text = stdlib_docstrings(200_000)
    out = {}
    for name in ("gpt2", "cl100k_base"):
        tok = get_tokenizer(name)
        toks = tok.tokenize(text, disallowed_special=())[:args.tokens]
        cut = text[:toks[-1].char_span[1]]
        for view, options in (("static", {}), ("clickable", {"owner": f"compare:{name}:a", "pinned": 3})):
            times, html_bytes, json_bytes = [], 0, 0
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                model = span_model(cut, toks, rank_of=tok.merge_rank, **options)
                html = model_html(model)
                times.append(time.perf_counter() - t0)
                html_bytes = len(html.encode("utf-8"))
                json_bytes = len(json.dumps(model, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
            key = f"{name}/{view}"
            out[key] = {"tokens": len(toks), "html_bytes": html_bytes, "json_bytes": json_bytes,
                        "build_ms": round(min(times) * 1000, 1)}
            print(f"{key:24} {len(toks):,} tokens  HTML {html_bytes:>9,} B  JSON {json_bytes:>9,} B  "
                  f"build {out[key]['build_ms']} ms")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
