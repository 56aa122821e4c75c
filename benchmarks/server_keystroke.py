"""Issue 22, the server's path: one keystroke in a long text, encoded whole or only where it changed.

    .venv/bin/python benchmarks/server_keystroke.py [--repeat 7] [--no-app]

For the tokenizers the browser cannot run (DeepSeek-V3, Qwen, Claude's legacy file: tokenizer.json
pipelines; Llama 3), with the text of benchmarks/app_speed.py at 1, 10 and 100 KB:
  * encode: the results store's tokenize (service/cache.py `tokenized`) of the text after one keystroke
    typed at its end, in its middle and at its start, the text before it in the store: whole (the
    reference, `Tokenizer.tokenize`) against only the lines the edit touched (`Tokenizer.tokenize_edit`,
    tokenizers/core/edits.py), and the ratio;
  * rerun: the server's whole rerun of Compare for the same keystroke at the end of the text (AppTest,
    custom_bpe, gpt2, cl100k_base and deepseek_v3, as benchmarks/live_keystroke.py's server column),
    whole against edit.
"Whole" is the same code with the edit path turned off (EDIT_MIN_CHARS above any text). Medians of
--repeat keystrokes, each a new text (the reruns alternate whole and edit keystroke by keystroke). Ends
with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from app_speed import corpus  # noqa: E402

SIZES = {"1 KB": 1_000, "10 KB": 10_000, "100 KB": 100_000}
TOKENIZERS = ("deepseek_v3", "qwen", "claude_legacy", "llama3")
APP_TOKENIZERS = "custom_bpe,gpt2,cl100k_base,deepseek_v3"
WHERE = ("end", "middle", "start")


def typed(text: str, where: str, k: int) -> str:
    """`text` with one letter typed (a different one for each k) at the end, the middle or the start."""
    ch = "abcdefghijklmnopqrstuvwxyz"[k % 26]
    at = {"end": len(text), "middle": len(text) // 2, "start": 0}[where]
    return text[:at] + ch + text[at:]


def encode_times(repeat: int, edits: bool) -> dict:
    from service import cache
    from tokenizers import get_tokenizer

    cache.EDIT_MIN_CHARS = 2_000 if edits else 10**12
    out = {}
    for name in TOKENIZERS:
        tok = get_tokenizer(name)
        for label, n in SIZES.items():
            base = corpus(n)
            for where in WHERE:
                times = []
                for k in range(repeat):
                    cache.results_store().clear()
                    before = base + f" {k}"  # in the store, as the run before the keystroke left it
                    cache.tokenized(tok, before, parse_special=False)
                    after = typed(before, where, k)
                    t = time.perf_counter()
                    cache.tokenized(tok, after, parse_special=False)
                    times.append(time.perf_counter() - t)
                out[f"{name} {label} {where}"] = statistics.median(times)
    return out


def rerun_times(repeat: int, tokenizers: str = APP_TOKENIZERS) -> dict:
    """{size: (whole, edit)}: the two alternate keystroke by keystroke in one visit, so that the machine's
    load weighs on both alike."""
    from streamlit.testing.v1 import AppTest

    from service import cache

    out = {}
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params["tokenizers"] = tokenizers
    at.run()
    for label, n in SIZES.items():
        text = corpus(n)
        at.session_state["compare_text"] = text
        at.run()
        times: dict[bool, list[float]] = {False: [], True: []}
        for k in range(2 * repeat):
            edits = k % 2 == 1
            cache.EDIT_MIN_CHARS = 2_000 if edits else 10**12
            text = typed(text, "end", k)
            at.session_state["compare_text"] = text
            t = time.perf_counter()
            at.run()
            times[edits].append(time.perf_counter() - t)
            assert not at.exception, at.exception
        out[label] = (statistics.median(times[False]), statistics.median(times[True]))
    cache.EDIT_MIN_CHARS = 2_000
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--no-app", action="store_true", help="only the encode figures")
    ap.add_argument("--no-encode", action="store_true", help="only the rerun figures")
    ap.add_argument("--app-tokenizers", default=APP_TOKENIZERS, help="Compare's columns in the rerun figures")
    args = ap.parse_args()
    whole, edit = ({}, {}) if args.no_encode else (encode_times(args.repeat, False), encode_times(args.repeat, True))
    report: dict = {"encode": {}}
    print(f"{'tokenizer, size, keystroke at':36} {'whole ms':>9} {'edit ms':>9} {'ratio':>7}")
    for key in whole:
        ratio = whole[key] / edit[key]
        report["encode"][key] = {"whole_ms": round(whole[key] * 1e3, 2), "edit_ms": round(edit[key] * 1e3, 2),
                                 "ratio": round(ratio, 1)}
        print(f"{key:36} {whole[key] * 1e3:9.2f} {edit[key] * 1e3:9.2f} {ratio:6.1f}x")
    if not args.no_app:
        reruns = rerun_times(args.repeat, args.app_tokenizers)
        report["rerun"] = {"tokenizers": args.app_tokenizers}
        print(f"\nCompare's rerun for one keystroke at the end ({args.app_tokenizers})")
        for label in SIZES:
            whole_s, edit_s = reruns[label]
            ratio = whole_s / edit_s
            report["rerun"][label] = {"whole_ms": round(whole_s * 1e3), "edit_ms": round(edit_s * 1e3),
                                      "ratio": round(ratio, 2)}
            print(f"{label:8} whole {whole_s * 1e3:6.0f} ms   edit {edit_s * 1e3:6.0f} ms   {ratio:.2f}x")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
