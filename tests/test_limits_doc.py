"""docs/limits.md's table against the code: every figure the table states is read here from the constant
that sets it, so a bound changed in one place and not the other fails (the bounds live in about ten
modules; the table is their one list)."""

from __future__ import annotations

import ast
import inspect
import re
import tomllib

from conftest import ROOT


def page_constant(path: str, name: str):
    """A module-level constant of a page, read without running the page (a page is a script)."""
    for node in ast.parse((ROOT / path).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"{path} has no constant {name}")


def rows() -> dict[str, str]:
    """The table's rows, by their first cell."""
    text = (ROOT / "docs" / "limits.md").read_text(encoding="utf-8")
    found = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 3 and not set(cells[0]) <= set("-") and cells[0] != "what":
            found[cells[0]] = cells[1]
    return found


def kb(n: int) -> str:
    return f"{n // 1000:,} KB" if n % 1000 == 0 else f"{n // 1024:,} KB"


def expected() -> dict[str, list[str]]:
    from app_pages.kit import settings
    from service import cache, limits, uploads
    from tokenizers import jobs, user_files
    from tokenizers.bpe import files
    from tokenizers.core import patterns
    from tokenizers.pipeline import normalizers
    from tokenizers.sentencepiece import train

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    lim = user_files.LIMITS
    check_timeout = inspect.signature(train.load_model).parameters["timeout"].default
    return {
        "Compare's text A and B": [f"{limits.COMPARE_TEXT_BYTES // 1_000_000} MB of UTF-8 each",
                                   f"about {page_constant('app_pages/compare.py', 'PAGE_SIZE'):,} tokens drawn"],
        "Inside a token's text": [kb(limits.INSIDE_TEXT_BYTES),
                                  f"chunks up to {page_constant('app_pages/inside.py', 'STEP_CHUNK_BYTES'):,} bytes"],
        "each Quirks card, the Algorithms page's text to segment": [
            kb(limits.CARD_TEXT_BYTES) if limits.CARD_TEXT_BYTES == limits.SEGMENT_TEXT_BYTES else "two bounds"],
        "the SentencePiece Lab's text to encode": [kb(limits.ENCODE_TEXT_BYTES)],
        "chat mode": [f"{page_constant('app_pages/kit/compare_chat.py', 'MAX_TURNS')} messages of "
                      f"{page_constant('app_pages/kit/compare_chat.py', 'MAX_CHARS'):,} characters",
                      f"{page_constant('app_pages/kit/compare_chat.py', 'MAX_TOTAL_CHARS'):,} in all",
                      f"{page_constant('app_pages/kit/compare_chat.py', 'SHOWN_CHARS'):,} characters of formatted text"],
        "text uploads (the labs' training text, the Languages page's parallel texts)": [
            f"{uploads.LIMITS.max_bytes // (1024 * 1024)} MB per file", f"{uploads.LIMITS.max_files} files per upload"],
        "tokenizer files (tokenizer.json, .tiktoken, .model; on Compare, the BPE Lab and the SentencePiece Lab)": [
            f"{lim.max_bytes // 1_000_000} MB each" if lim.max_bytes // 1_000_000 == config["server"]["maxUploadSize"]
            else "two upload bounds",
            f"{lim.max_vocab:,} tokens and merges" if lim.max_vocab == lim.max_merges else "two bounds",
            f"ids up to {lim.max_id:,}", f"{lim.max_added:,} added or special tokens",
            f"{lim.max_token_bytes // 1024} KB in one token", f"patterns of {lim.max_pattern_chars:,} characters",
            f"{page_constant('app_pages/kit/compare_upload.py', 'MAX_LOADED')} kept per visit"],
        "a minbpe `.model`": [f"{files.MAX_MERGES:,} merges", f"{files.MAX_SPECIALS:,} special tokens",
                              f"ids at most {files.MAX_ID_GAP:,} past the last merge",
                              f"{files.MAX_VOCAB_BYTES // 1_000_000} MB of token bytes"],
        "training corpora": [f"BPE Lab {page_constant('app_pages/bpe_lab.py', 'MAX_TRAIN_CHARS'):,} characters",
                             f"({page_constant('app_pages/bpe_lab.py', 'MAX_TRAIN_CHARS_NO_SPLIT'):,} without a split",
                             f"SentencePiece Lab {page_constant('app_pages/sentencepiece_lab.py', 'MAX_TRAIN_CHARS'):,}",
                             f"Algorithms {page_constant('app_pages/algorithms.py', 'MAX_TRAIN_CHARS'):,}"],
        "vocabulary sizes": [f"BPE Lab {settings.LAB_VOCAB.words()}", f"Algorithms up to {settings.ALGORITHMS_VOCAB.hi:,}",
                             f"SentencePiece Lab up to {settings.SENTENCEPIECE_VOCAB.hi:,}"],
        "training time and memory": [
            f"BPE Lab {page_constant('app_pages/bpe_lab.py', 'TRAIN_TIMEOUT'):g} s",
            f"SentencePiece Lab {page_constant('app_pages/sentencepiece_lab.py', 'TIMEOUT'):g} s",
            f"Algorithms {page_constant('app_pages/algorithms.py', 'TRAIN_TIMEOUT'):g} s",
            f"check {check_timeout:g} s",
            f"{page_constant('app_pages/sentencepiece_lab.py', 'MEMORY_MB') // 1024} GB address space",
            f"at most {jobs.MAX_CONCURRENT} children at once"],
        "a pattern from outside (the Lab's regex, a tokenizer file's splits and Replace normalizers, a pasted "
        "`.tiktoken` regex)": [f"{patterns.UNTRUSTED_TIMEOUT:g} s per text"],
        "a tokenizer file's normalizer": [f"at most {normalizers.MAX_GROWTH} × as long plus "
                                          f"{normalizers.GROWTH_SLACK} characters"],
        "tokenization results kept for everyone": [f"{cache.RESULTS_COST:,} tokens plus characters",
                                                   f"{cache.RESULTS_ENTRIES:,} entries"],
        "one websocket message": [f"{config['server']['maxMessageSize']} MB"],
    }


def test_every_figure_in_the_limits_table_is_the_codes():
    table, want = rows(), expected()
    assert set(table) == set(want), {"rows without a check": set(table) - set(want), "checks without a row": set(want) - set(table)}
    missing = [f"{row}: {figure!r} not in {table[row]!r}" for row, figures in want.items() for figure in figures
               if figure not in table[row]]
    assert not missing, "\n".join(missing)


def test_the_check_sees_a_changed_figure(monkeypatch):
    from service import limits

    monkeypatch.setattr(limits, "INSIDE_TEXT_BYTES", 300_000)
    got = expected()["Inside a token's text"][0]
    assert got == "300 KB" and got not in rows()["Inside a token's text"]
    assert re.search(r"\b200 KB\b", rows()["Inside a token's text"])
