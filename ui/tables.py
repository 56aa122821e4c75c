"""Rows for the pages' tables: merges, pair counts, vocabulary search. No Streamlit calls."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from tokenizers.analysis.vocab_search import VocabQuery

from .formatting import hexbytes, render_token


MAX_MERGE_ROWS = 5_000  # rows of the merge table sent to the browser (a loaded model may have a million)


def merge_rows(tok, query: str = "", limit: int | None = MAX_MERGE_ROWS) -> tuple[list[dict], int]:
    """(rows, how many merges match) of the merge table in rank order; `query` keeps the merges whose
    left, right or new token matches it (the one vocabulary search: tokenizers/analysis/vocab_search.py);
    at most `limit` rows are built."""
    q = VocabQuery.parse(query)
    v = tok.vocab
    if tok.history:
        merges = ((r.rank, r.pair, r.new_id, r.count) for r in tok.history)
    else:  # a loaded model: merges without a training record
        merges = ((idx - 256, pair, idx, None) for pair, idx in sorted(tok.merges.items(), key=lambda kv: kv[1]))
    total = len(tok.history) if tok.history else len(tok.merges)
    rows, matched = [], 0
    for rank, (a, b), new, count in merges:
        if not q.text and limit is not None and len(rows) >= limit:
            return rows, total  # every merge matches: no need to render the rest
        if q.text and not (q.matches(a, v[a]) or q.matches(b, v[b]) or q.matches(new, v[new])):
            continue
        left, right, token = render_token(v[a]), render_token(v[b]), render_token(v[new])
        matched += 1
        if limit is None or len(rows) < limit:
            rows.append({"rank": rank, "left": left, "right": right, "new token": token, "new id": new,
                         "pair ids": f"{a}, {b}", "count": count})
    return rows, matched


def pair_rows(tok, pairs: list[tuple[tuple[int, int], int]], chosen: tuple[int, int] | None) -> list[dict]:
    v = tok.vocab
    return [{"": "◀ merged next" if p == chosen else "", "left": render_token(v[p[0]]), "right": render_token(v[p[1]]),
             "pair ids": f"{p[0]}, {p[1]}", "count": c} for p, c in pairs]


SCRIPTS = ["Latin", "Hangul", "CJK", "Cyrillic", "Greek", "Arabic", "Hebrew", "Devanagari", "Thai", "Hiragana",
           "Katakana"]
CATEGORIES = ["all tokens", "whitespace only", "digits only", *[f"only {s}" for s in SCRIPTS]]


def _script(ch: str) -> str:
    name = unicodedata.name(ch, "")
    for s in SCRIPTS:
        if name.startswith(s.upper()) or (s == "CJK" and name.startswith("CJK")):
            return s
    return ""


def in_category(text: str, category: str) -> bool:
    letters = text.strip()
    if category == "all tokens":
        return True
    if category == "whitespace only":
        return bool(text) and text.isspace()
    if category == "digits only":
        return bool(letters) and letters.isdigit() and letters.isascii()
    script = category.removeprefix("only ")
    return bool(letters) and "\ufffd" not in letters and all(_script(c) == script for c in letters if not c.isspace())


def vocab_entries(tok) -> tuple[list[tuple[int, bytes, str]], list[tuple[int, bytes, str]]]:
    """(every token as (id, bytes, piece) in id order, the 15 longest), for the vocabulary browser.
    Walks tok.iter_vocab(), the ids in use: an uploaded model's range can be a million ids wide with
    a few hundred tokens in it."""
    vocab = [(i, b, tok.piece_of(i)) for i, b in tok.iter_vocab()]
    return vocab, sorted(vocab, key=lambda t: (-len(t[1]), t[0]))[:15]


def search_vocab(vocab: Sequence[tuple[int, bytes, str]], query: str, category: str, limit: int = 200) -> list[dict]:
    """Tokens that match the query (by id, text or hex bytes: tokenizers/analysis/vocab_search.py), in a
    category."""
    q = VocabQuery.parse(query)
    out = []
    for tid, b, piece in vocab:
        text = b.decode("utf-8", errors="replace")
        if not q.matches(tid, b, piece):
            continue
        if not in_category(text, category):
            continue
        out.append({"id": tid, "token": piece or render_token(b), "bytes_hex": hexbytes(b), "length": len(b)})
        if len(out) >= limit:
            break
    return out


def id_rows(tok, ids: Sequence[int]) -> list[dict]:
    """One row per token id for the decoder: the id, its text and its bytes."""
    rows = []
    for i in ids:
        b = tok.token_bytes(i)
        rows.append({"id": i, "token": tok.piece_of(i) or render_token(b), "bytes_hex": hexbytes(b)})
    return rows


# -- SentencePiece --------------------------------------------------------------------------------
SP_KINDS = ["all pieces", "control", "byte", "user-defined", "learned", "character", "unused"]


def sp_vocab_rows(tok, query: str, kind: str, category: str, limit: int = 200) -> tuple[list[dict], int]:
    """(rows, how many matched) of a SentencePiece vocabulary in id order: id, piece (▁ as written),
    kind, score, bytes. Search by id, piece text or hex bytes, as the vocabulary browser does."""
    q = VocabQuery.parse(query)
    rows, matched = [], 0
    for i, b in tok.iter_vocab():
        piece = tok.piece_of(i)
        k = tok.piece_kind(i)
        if kind != "all pieces" and k != kind:
            continue
        if not q.matches(i, b, piece):
            continue
        if category != "all tokens" and not in_category(piece.replace("\u2581", " "), category):
            continue
        matched += 1
        if len(rows) < limit:
            rows.append({"id": i, "piece": piece, "kind": k, "score": round(tok.score_of(i), 4),
                         "bytes_hex": hexbytes(b), "characters": len(piece)})
    return rows, matched


def piece_rows(tok, ids: Sequence[int]) -> list[dict]:
    """One row per id of an encoded text: the piece with ▁ as written, its kind and score."""
    return [{"id": i, "piece": tok.piece_of(i), "kind": tok.piece_kind(i), "score": round(tok.score_of(i), 4),
             "bytes_hex": hexbytes(tok.token_bytes(i))} for i in ids]


def segmentation(tok, ids: Sequence[int]) -> str:
    """Pieces of one segmentation joined by a thin bar: ▁Hel|lo|▁world."""
    return "|".join(tok.piece_of(i) for i in ids)


def nbest_rows(tok, nbest: Sequence[tuple[Sequence[int], float]]) -> list[dict]:
    import math

    return [{"rank": k + 1, "segmentation": segmentation(tok, ids), "pieces": len(ids), "score": round(score, 4),
             "probability vs best": f"{math.exp(score - nbest[0][1]):.3g}"}
            for k, (ids, score) in enumerate(nbest)]


def sample_rows(tok, counts: Sequence[tuple[Sequence[int], int]], best: Sequence[int]) -> list[dict]:
    """Distinct sampled segmentations, most frequent first, the deterministic encoding marked."""
    total = sum(c for _, c in counts) or 1
    return [{"segmentation": segmentation(tok, ids), "times": c, "share": round(c / total, 3),
             "pieces": len(ids), "best": list(ids) == list(best)} for ids, c in counts]


def lattice_rows(lattice) -> list[dict]:
    """Every node of a unigram lattice: where it starts and ends, the piece, its log-probability."""
    best = set(lattice.best)
    return [{"from": n.start, "to": n.end, "piece": n.piece, "id": n.id, "log-prob": round(n.score, 4),
             "best path": "✓" if n in best else "", "note": "<unk>: no piece" if n.unknown else ""}
            for n in lattice.nodes]


# -- the Algorithms page -------------------------------------------------------------------------------
def token_label(tok, token_id: int) -> str:
    """A token as its vocabulary spells it (`low</w>`, `##est`, `▁the`, `<unk>`), else its bytes."""
    return tok.piece_of(token_id) or render_token(tok.token_bytes(token_id))


def vocab_rows(tok, query: str = "", limit: int = 2000) -> tuple[list[dict], int]:
    """(rows, how many tokens match): every token of a model, with how it came to be: the pair whose
    merge made it and the step, or its score for a unigram model. `query` filters by spelling or id."""
    unk = tok.unk_id
    score_of = tok.score_of if tok.capabilities.scores else None
    q = query.strip()
    rows, matched = [], 0
    for i, b in tok.iter_vocab():
        label = tok.piece_of(i) or render_token(b)
        if q and q not in label and q != str(i):
            continue
        matched += 1
        if len(rows) >= limit:
            continue
        parents = tok.merge_parents(i)
        row = {"id": i, "token": label, "characters": len(b.decode("utf-8", errors="replace"))}
        if i == unk:
            row["characters"], row["made by"] = 0, "unknown token"
        elif tok.is_special(i):
            row["made by"] = "special token"
        elif parents:
            row["made by"] = f"{token_label(tok, parents[0])} + {token_label(tok, parents[1])}"
        else:
            row["made by"] = "piece" if score_of else "base"
        rank = tok.merge_rank(i)
        row["step"] = None if rank is None else rank + 1  # steps count from 1, as the step view does
        if score_of:
            row["log-probability"] = round(score_of(i), 4)
        rows.append(row)
    return rows, matched


def step_rows(tok, wordpiece_score: bool = True) -> list[dict]:
    """One row per training step of a word-level or character-level model (tokenizers.classic.pair_merges.Step)."""
    rows = []
    for s in tok.history:
        if s.pair is None:  # the character-level model: a step adds a character
            rows.append({"step": s.rank + 1, "character": token_label(tok, s.new_id), "count": s.count})
            continue
        row = {"step": s.rank + 1, "left": token_label(tok, s.pair[0]), "right": token_label(tok, s.pair[1]),
               "new token": token_label(tok, s.new_id), "count": s.count, "count(left)": s.left_count,
               "count(right)": s.right_count}
        if wordpiece_score:
            row["WordPiece score"] = s.count / (s.left_count * s.right_count)
        if not s.new_token:
            row["new token"] += " (already there)"
        rows.append(row)
    return rows


def candidate_rows(tok, candidates, chosen: tuple[int, int] | None, *, by: str) -> list[dict]:
    """The best pairs at one training step (pair_merges.Candidate), with both rules' numbers side by
    side: the count, and WordPiece's count / (count(left) × count(right))."""
    return [{"": "◀ merged" if c.pair == chosen else "", "left": token_label(tok, c.pair[0]),
             "right": token_label(tok, c.pair[1]), "count": c.count, "count(left)": c.left_count,
             "count(right)": c.right_count, "WordPiece score": c.score("wordpiece"),
             "rank by " + by: k + 1} for k, c in enumerate(candidates)]


# -- the vocabulary diff (tokenizers/analysis/vocab_diff.py) -------------------------------------------
DIFF_STATUS = {"added": "only in B", "dropped": "only in A", "shared": "shared"}


def diff_selection(diff, show: str, kind: str = "all kinds", query: str = ""):
    """(status, token bytes) of the diff's tokens that `show` ("added", "dropped", "shared" or "all"),
    `kind` (one of vocab_audit.KINDS, or "all kinds") and `query` (the one vocabulary search: by either
    id, text or hex bytes) keep, in the diff's order."""
    q = VocabQuery.parse(query)
    sides = [("added", diff.only_b), ("dropped", diff.only_a), ("shared", diff.shared)]
    for status, tokens in sides:
        if show not in ("all", status):
            continue
        for t in tokens:
            if kind != "all kinds" and diff.kind(t) != kind:
                continue
            if q.text:
                ia, ib = diff.ids(t)
                if not (q.matches(-1 if ia is None else ia, t) or (ib is not None and q.token_id == ib)):
                    continue
            yield status, t


def diff_row(diff, status: str, t: bytes) -> dict:
    """One token of a diff for the table and the CSV: its text (whitespace marked, bytes that are not
    UTF-8 as \\xNN), its bytes in hex, where it is, its kind, and its ids and ranks on each side."""
    (ia, ib), (ra, rb) = diff.ids(t), diff.ranks(t)
    return {"token": render_token(t), "bytes_hex": hexbytes(t), "status": DIFF_STATUS[status], "kind": diff.kind(t),
            "bytes": len(t), "id A": ia, "id B": ib, "rank A": ra, "rank B": rb,
            "rank shift": None if ra is None or rb is None else rb - ra}


def diff_rows(diff, show: str, kind: str = "all kinds", query: str = "", limit: int = 500) -> tuple[list[dict], int]:
    """(the first `limit` rows of diff_selection, how many tokens it keeps)."""
    rows, matched = [], 0
    for status, t in diff_selection(diff, show, kind, query):
        matched += 1
        if len(rows) < limit:
            rows.append(diff_row(diff, status, t))
    return rows, matched


def longest_rows(diff, side: str = "only_b", limit: int = 15) -> list[dict]:
    """The longest tokens only one side has (vocab_diff.VocabDiff.longest)."""
    status = {"only_b": "added", "only_a": "dropped", "shared": "shared"}[side]
    return [diff_row(diff, status, t) for t in diff.longest(side, limit)]


def shift_rows(diff, limit: int = 15) -> list[dict]:
    """Shared tokens whose rank moved most (vocab_diff.VocabDiff.rank_shifts)."""
    return [{"token": render_token(s.token), "bytes_hex": hexbytes(s.token), "rank A": s.rank_a, "rank B": s.rank_b,
             "rank shift": s.shift} for s in diff.rank_shifts(limit)]


def special_rows(specials) -> list[dict]:
    """Tokens a diff lists apart (special, control, unknown, unused): id, text, bytes."""
    return [{"id": i, "token": render_token(b), "bytes_hex": hexbytes(b)} for i, b in specials]
