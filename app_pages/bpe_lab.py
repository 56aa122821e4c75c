"""BPE Lab: train a byte-level BPE on your text and watch it learn, merge by merge."""

import pandas as pd
import streamlit as st

from app_pages.kit import links
from app_pages.kit.links import KEEP
from app_pages.kit.settings import KEYS, LAB_SPLITS, LAB_TIES, LAB_VOCAB
from app_pages.kit.long_work import run_with_stop, was_stopped
from app_pages.kit.shared import spans_downloads, user_tokenizers
from app_pages.kit.training_text import training_text
from tokenizers import PatternError, TrainingError
from tokenizers.bpe.model import bpe_is_small, train_bpe
from tokenizers.bpe import files as bpe_files
from tokenizers.jobs import JobError
from tokenizers.user_files import UserFileError, load_user_file
from tokenizers.core.patterns import GPT2_PATTERN, GPT4_PATTERN, compile_pattern
from service import limits
from service import uploads
from ui.figures import compression_figure, length_histogram, sweep_figure
from app_pages.kit.widgets import lab_player
from ui.formatting import duration, escape_markdown, md_code, md_inline_code, render_token
from ui.spans import render_spans
from ui.tables import merge_rows, pair_rows

K = KEYS["bpe_lab"]
MAX_VOCAB = LAB_VOCAB.hi
ENGINES = {"native": "C core", "python": "pure Python: no C core built on this machine",
           "reference": "reference trainer"}
MAX_TRAIN_CHARS = 2_000_000       # bounds training to about a second with the C core (~15 s without)
# with no split the text is one chunk that every merge walks again: ~5 s per 1 M characters at
# vocab 8192 in C, far more in pure Python, so the plain algorithm gets a smaller bound
MAX_TRAIN_CHARS_NO_SPLIT = 200_000
TRAIN_TIMEOUT = 60.0              # seconds; training runs in a child process and is stopped after this
STEP_TEXT_CHARS = 3_000           # how much of the training text the step view draws
PAIR_VIEW_CHARS = 100_000         # pair counts per step are shown for corpora up to this size
SPLITS = dict(zip(LAB_SPLITS, (GPT4_PATTERN, GPT2_PATTERN, None, "custom")))  # labels as the link names them
# how a tie between equally frequent pairs is broken (BPETokenizer.train's `ties`; labels as the link names them)
TIES = dict(zip(LAB_TIES, ("smallest", "first")))
TIES_LABEL = {rule: label for label, rule in TIES.items()}
TIES_SAID = {"smallest": "ties to the smallest pair", "first": "ties to the pair met first"}
DEFAULT_TEXT = ("aaabdaaabac\n\nThe cat sat on the mat. The cat ate the rat. A fat rat sat on the cat's hat, "
                "and the cat sat and sat and sat.")

CLASSIC_TEXT, CLASSIC_VOCAB, CLASSIC_SPLIT = "aaabdaaabac", 259, "No split (the plain algorithm)"


def load_classic():
    """One click: the text, size and split that turn aaabdaaabac into [258, 100, 258, 97, 99], with the
    lecture's settings: ties to the pair met first (minbpe's rule) and no special token, so the
    vocabulary is the 259 tokens the example names."""
    st.session_state.update({f"{K}source": "Paste", f"{K}text": CLASSIC_TEXT, f"{K}vocab": CLASSIC_VOCAB,
                             f"{K}split": CLASSIC_SPLIT, f"{K}ties": TIES_LABEL["first"], f"{K}specials": "",
                             f"{K}autotrain": True, f"{K}view": "Step by step", f"{K}step": 3})


st.title("BPE Lab")
st.caption("Train a byte-level BPE on a text and watch it learn, merge by merge. It starts from the 256 "
           "single bytes and repeatedly merges the most frequent adjacent pair into a new token.")

links.read("bpe_lab")  # a link (or a reload) opens the same form: app_pages/kit/links.py

# -- corpus ----------------------------------------------------------------------------------------
corpus = training_text(K, default_text=DEFAULT_TEXT, first="Paste")

# -- options ---------------------------------------------------------------------------------------
c1, c2, c3 = st.columns(3)
vocab_size = c1.number_input(f"Vocabulary size ({LAB_VOCAB.words()})", LAB_VOCAB.lo, MAX_VOCAB, LAB_VOCAB.default, step=16, key=f"{K}vocab",
                             persist_state=KEEP)
vocab_size = limits.clamp_int(vocab_size, LAB_VOCAB.lo, MAX_VOCAB, LAB_VOCAB.default)  # NaN or a crafted value: never past the bounds
split = c2.selectbox("Split pattern", list(SPLITS), key=f"{K}split", persist_state=KEEP,
                     help="Text is cut into chunks first; merges never cross a chunk boundary.")
pattern, problem = SPLITS[split], ""
if pattern == "custom":
    pattern = c2.text_input("Regex (Python `regex` syntax)", r"\w+|\s+|[^\w\s]+", key=f"{K}regex", persist_state=KEEP)
    try:
        compile_pattern(pattern)
    except PatternError as e:
        problem = str(e)
specials_raw = c3.text_input("Special tokens (comma-separated)", "<|endoftext|>", key=f"{K}specials", persist_state=KEEP)
specials = [s.strip() for s in specials_raw.split(",") if s.strip()]
ties_label = st.radio("When two pairs are equally frequent, merge the", list(TIES), horizontal=True, key=f"{K}ties",
                      persist_state=KEEP)
ties = TIES[ties_label]
st.caption("Why they differ: minbpe and the lecture merge the tied pair met first in the text, Hugging Face "
           "tokenizers and rustbpe the smallest one.")
links.write("bpe_lab")  # the form in the link

if problem:
    st.error(escape_markdown(problem))
limit = MAX_TRAIN_CHARS if pattern is not None else MAX_TRAIN_CHARS_NO_SPLIT
if len(corpus) > limit:
    why = "" if pattern is not None else (" (with no split the whole text is one chunk, which every merge "
                                          "walks again)")
    st.info(f"The text has {len(corpus):,} characters; the lab trains on the first {limit:,} "
            f"so that training stays under a few seconds{why}.")

b1, b2 = st.columns([1, 3], vertical_alignment="center")
clicked = b1.button("Train", type="primary", disabled=bool(problem), key=f"{K}train")
b2.button("Classic example: `aaabdaaabac` with 259 tokens, no split", key=f"{K}classic", on_click=load_classic,
          help="Loads the worked example of the BPE literature (no split, 3 merges, ties to the pair met first as "
               "in the lecture, no special token) and trains on it.")
if was_stopped(f"{K}stop"):
    st.warning("Training stopped. The model trained before (if any) is kept.")
if clicked or st.session_state.pop(f"{K}autotrain", False):
    text = corpus[:limit]

    def describe(state) -> tuple[float, str]:
        done, total = state.last or (0, max(1, int(vocab_size) - 256))
        return done / max(1, total), f"{done:,} of {total:,} merges · {state.elapsed:.1f} s"

    try:  # in a child process: a Stop (or leaving the page) ends it at once, and other visitors never wait
        tok, report = run_with_stop(train_bpe, text, int(vocab_size), pattern, specials, key=f"{K}stop",
                                    timeout=TRAIN_TIMEOUT, describe=describe, stop_label="Stop training",
                                    small=bpe_is_small(text, int(vocab_size)),  # the classic example
                                    ties=ties)
        st.session_state[f"{K}model"] = tok
        st.session_state[f"{K}report"] = report
        st.session_state[f"{K}trained_text"] = text
        st.session_state[f"{K}step"] = min(st.session_state.get(f"{K}step", 0), len(tok.history))
        user_tokenizers()["lab_bpe"] = tok
        st.caption(f"Done: {report.merges:,} merges in {duration(report.seconds)}.")
    except (TrainingError, PatternError, JobError) as e:
        st.error(escape_markdown(str(e)))

with st.container(border=True):
    up = st.file_uploader("…or load a saved `.model` file (saved here, or by minbpe)", type=["model"],
                          key=f"{K}load")
    if up is None:
        st.session_state.pop(f"{K}load_error", None)
    elif st.session_state.get(f"{K}loaded_id") != up.file_id:
        st.session_state[f"{K}loaded_id"] = up.file_id
        try:  # the one reader of tokenizer files (Compare's too): the same file, the same verdict
            loaded = load_user_file(up.name, up.getvalue(), expect=("minbpe",), name="lab_bpe")
            loaded.title = f"Lab BPE, loaded ({loaded.vocab_size:,} tokens)"
            st.session_state.update({f"{K}model": loaded, f"{K}report": None, f"{K}trained_text": "",
                                     f"{K}step": 0, f"{K}load_error": "", f"{K}load_note": uploads.vocabulary_note(loaded)})
            user_tokenizers()["lab_bpe"] = loaded
        except UserFileError as e:
            st.session_state[f"{K}load_error"] = escape_markdown(str(e))
    if st.session_state.get(f"{K}load_error"):
        st.error(st.session_state[f"{K}load_error"])  # escaped where it is written
    elif up is not None and st.session_state.get(f"{K}load_note"):
        st.info(st.session_state[f"{K}load_note"])

tok = st.session_state.get(f"{K}model")
if tok is None:
    st.info("Choose a text and press **Train**, or press **Classic example** to train on `aaabdaaabac` with a "
            "vocabulary of 259 and no split: three merges turn it into `[258, 100, 258, 97, 99]`.")
    st.stop()

# -- results ---------------------------------------------------------------------------------------
report = st.session_state.get(f"{K}report")
trained_text = st.session_state.get(f"{K}trained_text", "")
text_bytes = len(trained_text.encode("utf-8"))
trained_here = report is not None  # a loaded model has merges but no training record
if trained_here:
    st.success(f"Learned {report.merges:,} merges from {report.text_bytes:,} bytes "
               f"({report.unique_chunks:,} distinct chunks) in {duration(report.seconds)} "
               f"({ENGINES.get(report.trainer, report.trainer)}, {TIES_SAID[report.ties]}). "
               f"Vocabulary: {tok.vocab_size:,} tokens"
               + (f", including {len(tok.special_tokens)} special. " if tok.special_tokens else ". ") +
               "It is now on the Compare page as **Lab BPE** for the rest of this visit.")
    if trained_text == CLASSIC_TEXT:
        st.markdown(f"`{CLASSIC_TEXT}` encodes to `{tok.encode(CLASSIC_TEXT, disallowed_special=())}`.")
    if report.stopped_early:
        st.warning(escape_markdown(report.stopped_early))
    if report.replaced_bytes:
        st.warning(f"{report.replaced_bytes:,} invalid byte sequence(s) in the text were replaced by U+FFFD.")
else:
    st.success(f"Loaded a model with {len(tok.merges):,} merges. It has no training record, so the "
               "curves and the step view need a model trained here.")
NO_RECORD = "A loaded model has no training record; train one here to see this."
NO_MERGES = ("0 merges were learned (a vocabulary of 256 is just the single bytes), so there is nothing to "
             "show here yet: raise the vocabulary size and train again.")


# the view is a keyed control, not st.tabs: tabs forget their selection when a widget inside them
# reruns the page, so moving the step slider jumped back to "Merges"
VIEWS = ["Merges", "Compression", "Step by step", "Vocabulary trade-off", "Tokens", "Save"]
st.session_state.setdefault(f"{K}view", VIEWS[0])
# required: a segmented control could otherwise be clicked off, leaving no view
view = st.segmented_control("View", VIEWS, key=f"{K}view", required=True, persist_state=KEEP,
                            label_visibility="collapsed")


def letter_names(n_merges: int) -> dict[int, str]:
    """New tokens named as the worked examples write them: Z, Y, X, … A, then Z2, Y2, …"""
    letters = "ZYXWVUTSRQPONMLKJIHGFEDCBA"
    return {256 + k: letters[k % 26] + (str(k // 26 + 1) if k >= 26 else "") for k in range(n_merges)}


def advance_step():
    """Play's clock (a callback, so the step moves before the slider is drawn)."""
    model = st.session_state.get(f"{K}model")
    if model is not None and st.session_state.get(f"{K}step", 0) < len(model.history):
        st.session_state[f"{K}step"] = st.session_state.get(f"{K}step", 0) + 1


def restart_steps():
    st.session_state[f"{K}step"] = 0


@st.fragment
def step_view():
    """The text after k merges. A fragment: the slider and the Play clock rerun only this part."""
    n = len(tok.history)
    lab_player(key=f"{K}player", data={"step": min(st.session_state.get(f"{K}step", 0), n), "n": n},
               on_tick=advance_step, on_restart=restart_steps)
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    k = c1.slider("Merges applied", 0, n, key=f"{K}step", persist_state=KEEP)
    named = c2.toggle("Letter names (Z, Y, X…)", key=f"{K}names", persist_state=KEEP,
                      help="Write each new token as a capital letter, as worked examples of BPE do.")
    small = tok.truncated(k)
    sample = trained_text[:STEP_TEXT_CHARS]
    toks = small.tokenize(sample, disallowed_special=())
    names = letter_names(k) if named else None
    show = (lambda i: names[i] if names and i in names else render_token(tok.vocab[i]))
    if k:
        r = tok.history[k - 1]
        st.markdown(f"Merge **{k}** joined {md_inline_code(show(r.pair[0]))} + {md_inline_code(show(r.pair[1]))} "
                    f"→ {md_inline_code(show(r.new_id))}"
                    + (f" = {md_inline_code(render_token(tok.vocab[r.new_id]))}" if names else "")
                    + f" (id {r.new_id}), a pair seen {r.count:,} times. Its tokens are outlined in the text.")
    st.caption(f"{len(toks):,} tokens for the first {len(sample):,} characters of the training text "
               f"with {k:,} merges" + (" (the text is longer; the rest is not drawn)."
                                      if len(trained_text) > STEP_TEXT_CHARS else "."))
    highlight = {tok.history[k - 1].new_id} if k else frozenset()
    st.html(render_spans(sample, toks, whitespace=True, names=names, font_size="1.2rem", highlight=highlight))
    spans_downloads(f"{K}step_spans", {"lab": toks}, each={"lab": {"title": f"Lab BPE after {k:,} merges"}},
                    whitespace=True, names=names, highlight=highlight, file_stem=f"lab_bpe_{k}_merges")
    if len(trained_text) <= PAIR_VIEW_CHARS and k < n:
        top = tok.pair_counts_at(trained_text, k, ties=report.ties)
        st.markdown("**Most frequent pairs now** — the trainer merges the top one next")
        rows = pair_rows(tok, top, tok.history[k].pair)
        if names:
            for row, (pair, _) in zip(rows, top):
                row["left"], row["right"] = show(pair[0]), show(pair[1])
        st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{K}pairs")
    elif len(trained_text) > PAIR_VIEW_CHARS:
        st.caption(f"Pair counts per step are shown for texts up to {PAIR_VIEW_CHARS:,} characters.")


if view == "Merges":
    q = st.text_input("Search the merges", key=f"{K}search",
                      persist_state=KEEP, placeholder="a token, e.g. ' the' (a space is ·)")
    rows, matched = merge_rows(tok, q)
    st.caption(f"{matched:,} merges" + (f" matching {md_code(render_token(q.encode('utf-8', 'replace')))}" if q else "")
               + (f"; the first {len(rows):,} are listed" if matched > len(rows) else "")
               + ". · is a space, ↵ a newline, → a tab; type them as they are.")
    if rows:  # the table's height follows its rows (st.dataframe's own sizing), up to about ten
        st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{K}merges")

elif view == "Compression":
    if not trained_here:
        st.info(NO_RECORD)
    elif not tok.history:
        st.info(NO_MERGES)
    else:
        st.plotly_chart(compression_figure(tok, text_bytes), key=f"{K}curve")
        last = tok.history[-1]
        st.caption(f"{text_bytes:,} bytes → {last.tokens_after:,} tokens after {len(tok.history):,} merges "
                   f"({text_bytes / last.tokens_after:.2f} bytes per token).")

elif view == "Step by step":
    if not trained_here:
        st.info(NO_RECORD)
    elif not tok.history:
        st.info(NO_MERGES)
    else:
        step_view()

elif view == "Vocabulary trade-off":
    if not trained_here:
        st.info(NO_RECORD)
    elif not tok.history:
        st.info(NO_MERGES)
    else:
        d_model = st.number_input("Embedding width d_model", 16, 16384, 768, step=64, key=f"{K}dmodel",
                                  persist_state=KEEP)
        d_model = limits.clamp_int(d_model, 16, 16384, 768)
        st.plotly_chart(sweep_figure(tok, text_bytes, int(d_model)), key=f"{K}sweep")
        st.caption("A bigger vocabulary makes sequences shorter but the embedding table (and the output layer) "
                   "bigger: every point is this text's length at that vocabulary size, read from the training record.")

elif view == "Tokens":
    if len(tok.vocab) > 256:
        st.plotly_chart(length_histogram(len(b) for i, b in tok.vocab.items() if i >= 256), key=f"{K}hist")
        st.markdown("**Longest tokens**")
        st.dataframe(pd.DataFrame([{"id": i, "token": render_token(tok.vocab[i]), "bytes": len(tok.vocab[i])}
                                   for i in tok.longest_tokens()]), hide_index=True, key=f"{K}longest")
    else:
        st.info(NO_MERGES)

else:  # Save
    st.markdown("**Download** — the minbpe `.model` format (and its human-readable `.vocab`), or tiktoken's "
                "format with a JSON file holding the pattern and special tokens. A `.model` file loads back "
                "with the uploader under **Train**. The model lives only in this visit: download it to keep it "
                "or to share it.")
    d1, d2, d3, d4 = st.columns(4)
    # built when clicked: a loaded model of a million merges is megabytes in each format
    d1.download_button("lab_bpe.model", lambda: bpe_files.model_text(tok), "lab_bpe.model", key=f"{K}dl_model",
                       on_click="ignore")
    d2.download_button("lab_bpe.vocab", lambda: bpe_files.vocab_text(tok), "lab_bpe.vocab", key=f"{K}dl_vocab",
                       on_click="ignore")
    try:
        bpe_files.tiktoken_ranks(tok)  # refuses a vocabulary the format cannot hold, with the reason
        d3.download_button("lab_bpe.tiktoken", lambda: bpe_files.tiktoken_text(tok), "lab_bpe.tiktoken",
                           key=f"{K}dl_tiktoken", on_click="ignore")
        d4.download_button("lab_bpe.json", lambda: bpe_files.tiktoken_meta(tok), "lab_bpe.json", key=f"{K}dl_meta",
                           on_click="ignore")
    except ValueError as e:
        d3.caption(escape_markdown(str(e)))
