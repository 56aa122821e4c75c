"""Vocabulary diff: two tokenizers' vocabularies compared by what their tokens spell (the library's
tokenizers.vocab_diff): shared, added and dropped tokens, by script and kind, the longest added tokens,
rank shifts, a searchable table and a CSV."""

import streamlit as st

from app_pages.kit import links
from app_pages.kit.links import KEEP
from app_pages.kit.settings import DIFF_SHOWS, KEYS
from app_pages.kit.shared import all_tokenizer_names, md_title, per_visit, resolve, title_of
from service.cache import BoundedStore
from tokenizers import REGISTRY, Tokenizer, vocab_diff
from tokenizers.analysis.vocab_audit import KINDS
from tokenizers.analysis.vocab_diff import VocabDiff, vocabulary
from ui.export import vocab_diff_csv
from ui.figures import vocab_diff_figure
from ui.tables import diff_rows, diff_selection, longest_rows, shift_rows, special_rows

K = KEYS["vocab_diff"]
MAX_ROWS = 500   # rows of the table sent to the browser (the CSV has every match)
DIFF_BUDGET = 1_000_000  # ordinary tokens of both sides, over the diffs kept (~120 B each): o200k_base vs llama3 is 328,000
SHOW_LABELS = {"added": "Added (only in B)", "dropped": "Dropped (only in A)", "shared": "Shared", "all": "All"}
QUESTIONS = [  # (label, A, B, what to show): the questions the page answers at a glance
    ("What did GPT-4o add over GPT-4?", "cl100k_base", "o200k_base", "added"),
    ("Does Llama 3 contain GPT-4's tokens?", "cl100k_base", "llama3", "dropped"),
    ("How much of Mistral 7B is in Llama 3?", "mistral_sp", "llama3", "shared"),
]


@st.cache_resource
def diff_store() -> BoundedStore:
    """The diffs this server keeps for every visitor, least recently used out first, within a budget of
    tokens (o200k_base read for a diff is about 23 MB, measured with tracemalloc)."""
    return BoundedStore(DIFF_BUDGET, 16)


def side(name: str, tok: Tokenizer):
    """(a key naming a vocabulary's content, a function that reads it). A registry vocabulary is read
    when its diff is made; a visitor's own once per visit (as Inside's vocabulary browser does) and
    named by its fingerprint, so two uploads of one file share their diffs."""
    if name in REGISTRY:
        return ("registry", name), lambda: vocabulary(tok)
    v = per_visit(f"{K}own_vocab", name, tok, lambda: vocabulary(tok))
    return ("own", v.fingerprint, v.name), lambda: v


def diff_of(name_a: str, tok_a: Tokenizer, name_b: str, tok_b: Tokenizer) -> VocabDiff:
    (ka, read_a), (kb, read_b) = side(name_a, tok_a), side(name_b, tok_b)
    store = diff_store()

    def make() -> VocabDiff:
        with st.spinner("Reading and comparing the two vocabularies…"):  # only when it is not kept
            return vocab_diff(read_a(), read_b())

    return store.get((ka, kb), make, lambda d: d.a.size + d.b.size)


def ask(a: str, b: str, show: str) -> None:
    st.session_state.update({f"{K}a": a, f"{K}b": b, f"{K}show": show, f"{K}kind": "all kinds", f"{K}q": ""})


def answer(d: VocabDiff, ta: str, tb: str) -> str:
    """One sentence on how much of A is in B (Markdown; the titles are escaped by the caller)."""
    if not d.only_a:
        return f"**{tb} contains every one of {ta}'s {d.a.size:,} ordinary tokens**, and adds {len(d.only_b):,}."
    return (f"{tb} has **{len(d.shared):,} of {ta}'s {d.a.size:,}** ordinary tokens "
            f"(**{d.share_of_a:.1%}**), drops {len(d.only_a):,} and adds {len(d.only_b):,}.")


st.title("Vocabulary diff")
st.caption("Two vocabularies compared by what their tokens spell, as bytes: GPT-2's `Ġthe` and SentencePiece's "
           "`▁the` are both the bytes `20 74 68 65` (a space, then *the*), a byte piece `<0x0A>` is the byte "
           "`0A`. Special and control tokens are listed apart.")

links.read("vocab_diff")

q_cols = st.columns(len(QUESTIONS))
for col, (label, a, b, show) in zip(q_cols, QUESTIONS):
    col.button(label, key=f"{K}ask_{a}_{b}", on_click=ask, args=(a, b, show), width="stretch",
               help=f"A = {REGISTRY[a].title}, B = {REGISTRY[b].title}")

names = all_tokenizer_names()
st.session_state.setdefault(f"{K}a", "cl100k_base")
st.session_state.setdefault(f"{K}b", "o200k_base")
c1, c2 = st.columns(2)
name_a = c1.selectbox("A (from)", names, format_func=title_of, key=f"{K}a", persist_state=KEEP)
name_b = c2.selectbox("B (to)", names, format_func=title_of, key=f"{K}b", persist_state=KEEP)

tok_a, tok_b = resolve(name_a), resolve(name_b)
if tok_a is None or tok_b is None:
    links.write("vocab_diff")
    st.stop()
d = diff_of(name_a, tok_a, name_b, tok_b)
ta, tb = md_title(name_a), md_title(name_b)

m1, m2, m3, m4 = st.columns(4)
m1.metric("Shared", f"{len(d.shared):,}", help="Ordinary tokens both vocabularies have (the same bytes).")
m2.metric("Added by B", f"{len(d.only_b):,}", help="Ordinary tokens only B has.")
m3.metric("Dropped by B", f"{len(d.only_a):,}", help="Ordinary tokens only A has.")
m4.metric("Share of A in B", f"{d.share_of_a:.1%}", help="Shared ÷ A's distinct ordinary tokens.")
st.markdown(answer(d, ta, tb))
notes = []
for v, t in ((d.a, ta), (d.b, tb)):
    if v.duplicates:
        notes.append(f"{t} has {v.duplicates:,} ordinary id(s) spelling the same bytes as an earlier id "
                     "(a byte piece and a one-character piece, say): each is counted once, at its first id.")
if notes:
    st.caption(" ".join(notes))

st.subheader("By script and kind")
st.plotly_chart(vocab_diff_figure(d.by_kind, title_of(name_a), title_of(name_b)), key=f"{K}kinds")
st.caption("A token's kind is its script when the characters that have one (not digits, punctuation, spaces "
           "or emoji) are all of one script; else digits, whitespace, code punctuation (ASCII), symbols & other, "
           "or partial UTF-8: bytes that are not a whole character.")

left, right = st.columns(2)
with left:
    st.subheader("Longest added tokens")
    rows = longest_rows(d, "only_b")
    if rows:
        st.dataframe(rows, hide_index=True, key=f"{K}longest", column_order=["token", "bytes", "kind", "id B"],
                     column_config={"token": st.column_config.TextColumn(width="medium"),
                                    "kind": st.column_config.TextColumn(width="small")})
    else:
        st.info(f"{tb} adds no token to {ta}.")
with right:
    st.subheader("Largest rank shifts")
    rows = shift_rows(d)
    if rows and rows[0]["rank shift"]:
        st.dataframe(rows, hide_index=True, key=f"{K}shifts", column_order=["token", "rank A", "rank B", "rank shift"])
    else:
        st.info("Every shared token has the same rank in both.")
    st.caption("A token's rank is its position among the ordinary tokens in id order: the merge rank in a "
               "tiktoken-format vocabulary, the piece order in SentencePiece. A negative shift: B learned it "
               "earlier.")

st.subheader("Every token")
st.session_state.setdefault(f"{K}show", DIFF_SHOWS[0])
show = st.segmented_control("Show", DIFF_SHOWS, format_func=SHOW_LABELS.get, key=f"{K}show",
                            persist_state=KEEP) or DIFF_SHOWS[0]
f2, f3 = st.columns([1, 2])
kind = f2.selectbox("Kind", ["all kinds", *KINDS], key=f"{K}kind", persist_state=KEEP)
query = f3.text_input("Search the tokens", key=f"{K}q", persist_state=KEEP, max_chars=200,
                      placeholder="text (spaces count), an id, or hex bytes: E4 B8 AD",
                      help="The vocabulary search every page uses: a token id (of A or B), hex bytes, or text.")
links.write("vocab_diff")

rows, matched = diff_rows(d, show, kind, query, MAX_ROWS)
st.caption(f"{matched:,} token(s); the table shows the first {min(matched, MAX_ROWS):,}, the CSV all of them.")
st.dataframe(rows, hide_index=True, key=f"{K}table", column_order=["token", "status", "kind", "bytes", "id A", "id B",
                                                                  "rank A", "rank B", "rank shift", "bytes_hex"])
st.download_button("Download these tokens (CSV)", lambda: vocab_diff_csv(d, diff_selection(d, show, kind, query)),
                   f"vocab_diff_{d.a.name}_{d.b.name}.csv", "text/csv", key=f"{K}csv", on_click="ignore")

with st.expander(f"Listed apart: {len(d.specials_a):,} special or control tokens in A, {len(d.specials_b):,} in B"):
    s1, s2 = st.columns(2)
    s1.markdown(f"**{ta}**")
    s1.dataframe(special_rows(d.specials_a), hide_index=True, key=f"{K}spec_a")
    s2.markdown(f"**{tb}**")
    s2.dataframe(special_rows(d.specials_b), hide_index=True, key=f"{K}spec_b")
