"""What the Compare page says about a text: counts per tokenizer, boundary differences, notices."""

from __future__ import annotations

from collections.abc import Sequence

from tokenizers import Token
from tokenizers.core.tokenizer import TokenList

def stats_rows(text: str, results: dict[str, Sequence[Token]], titles: dict[str, str],
               reference: str | None = None) -> list[dict]:
    """Counts per tokenizer, each also relative to the `reference` tokenizer's (the first when it is
    None or not among the results): "tokens vs reference"."""
    n_chars, n_bytes = len(text), len(text.encode("utf-8"))
    rows = []
    for name, toks in results.items():
        n = len(toks)
        rows.append({"tokenizer": titles.get(name, name), "tokens": n, "characters": n_chars, "bytes": n_bytes,
                     "chars/token": round(n_chars / n, 3) if n else None,
                     "bytes/token": round(n_bytes / n, 3) if n else None,
                     "byte-fallback/unknown": toks.odd_count})
    base = len(results[reference]) if reference in results else rows[0]["tokens"] if rows else 0
    if base:
        for r in rows:
            r["tokens vs reference"] = round(r["tokens"] / base, 3)
    return rows


def differing_starts(tokens: TokenList, reference: TokenList) -> frozenset[int]:
    """Boundaries in `tokens` that the reference tokenizer does not have."""
    return tokens.boundaries - reference.boundaries


def special_strings_in(text: str, special_tokens: Sequence[str]) -> list[str]:
    """The special-token strings in the text, where a tokenizer would cut them (leftmost, then longest:
    tokenizers.core.literals, one automaton rather than one scan of the text per special)."""
    from tokenizers.core.literals import shared_finder

    return sorted({s for _, _, s in shared_finder(special_tokens).find(text)})


def trailing_space_token(text: str, tokens: Sequence[Token]) -> bool:
    """True when the text ends in a space (or tab) that became its own final token; a final newline,
    as in code and YAML, is normal and not flagged, nor is text that is all whitespace."""
    if not tokens or not text.strip() or text[-1] not in " \t":
        return False
    return tokens[-1].bytes.strip() == b""  # SentencePiece's ▁ is already a space in token bytes
