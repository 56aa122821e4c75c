"""How long the Quirks and Languages pages' library work takes: the vocabulary audit per vocabulary,
the numbers 0-9999, and the token premium of the built-in parallel text. Run with the app's venv
from the repository root:

    .venv/bin/python benchmarks/audit.py

Each figure is the median of 3 runs in this process, after one untimed load of the tokenizer. The
last line of the output is one JSON object with every figure.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.api_bench import median_time  # noqa: E402  (one way to time a call)

from tokenizers import available_tokenizers, get_tokenizer  # noqa: E402
from tokenizers.analysis.languages import token_premium  # noqa: E402
from tokenizers.analysis.parallel import language_texts  # noqa: E402
from tokenizers.analysis.vocab_audit import audit_tokenizer, number_tokens  # noqa: E402


def median_seconds(fn, runs: int = 3) -> float:
    return median_time(fn, runs)


def main() -> None:
    figures: dict[str, dict] = {}
    print(f"{'tokenizer':<14}{'tokens':>9}{'load s':>9}{'audit s':>9}{'0-9999 s':>10}  unreachable / partial / digits")
    for name in available_tokenizers():
        start = time.perf_counter()
        tok = get_tokenizer(name)
        load = time.perf_counter() - start
        result = audit_tokenizer(tok)
        audit = median_seconds(lambda: audit_tokenizer(tok))
        numbers = median_seconds(lambda: number_tokens(tok))
        figures[name] = {"tokens": result["ordinary"] + result["special"], "load_s": round(load, 3),
                         "audit_s": round(audit, 3), "numbers_s": round(numbers, 3),
                         "unreachable": len(result["unreachable"]), "partial_utf8": len(result["partial_utf8"]),
                         "all_digit": len(result["all_digit"])}
        f = figures[name]
        print(f"{name:<14}{f['tokens']:>9,}{load:>9.2f}{audit:>9.3f}{numbers:>10.3f}  "
              f"{f['unreachable']} / {f['partial_utf8']} / {f['all_digit']}")
    names = available_tokenizers()
    premium = median_seconds(lambda: token_premium(language_texts(), names))
    print(f"token_premium, {len(language_texts())} languages x {len(names)} tokenizers: {premium:.3f} s")
    print(json.dumps({"vocabularies": figures, "premium_s": round(premium, 3)}))


if __name__ == "__main__":
    main()
