"""Algorithms: five ways to cut text into tokens, trained on one text side by side."""

import pandas as pd
import streamlit as st

from app_pages.kit import links
from app_pages.kit.links import KEEP
from app_pages.kit.settings import ALGORITHMS_VOCAB, KEYS
from app_pages.kit.long_work import run_with_stop, was_stopped
from app_pages.kit.shared import clean_state_text, spans_downloads, user_tokenizers
from app_pages.kit.training_text import training_text
from app_pages.kit.widgets import live_text
from tokenizers.classic.algorithms import ALGORITHMS, NAMES, curve_sizes, held_out_split, model_name, train_algorithms, usage
from tokenizers.jobs import JobError
from tokenizers.core.text import clean_text
from service import limits
from service.cache import tokenized
from ui.figures import length_curve_figure
from ui.formatting import escape_markdown, md_code, plural
from ui.spans import WORD_LEGEND, render_header, render_spans
from ui.tables import candidate_rows, step_rows, token_label, vocab_rows

K = KEYS["algorithms"]
MAX_VOCAB = ALGORITHMS_VOCAB.hi
# every algorithm trains on at most this much. Classic BPE and WordPiece are pure Python: on 250 KB at
# vocab 8,192 they take 0.6 s and 1.7 s of CPU; all five with their curves took 16 s on a busy 2-core machine
MAX_TRAIN_CHARS = 500_000
TRAIN_TIMEOUT = 120.0        # seconds for all five and their curves, in a child process
MAX_DRAWN = 2_000            # tokens drawn per algorithm in the segmentation
STEP_TEXT_CHARS = 1_500      # characters of training text drawn in the step view
MIN_HELD_OUT_TEXT = 2_000    # shorter texts are trained on whole, with nothing held out
DEFAULT_VOCAB = ALGORITHMS_VOCAB.default
DEFAULT_TEXT = ("The lowest, newest and widest words: tokenization isn't magic. "
                "Unseen words like 안녕하세요 or 👋 show what each one does with what it never saw.")
SCORE_COLUMNS = {"WordPiece score": st.column_config.NumberColumn(format="%.3g",
                                                                  help="count / (count(left) × count(right))")}
DEFAULT_CORPUS = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)


def title(name: str) -> str:
    return ALGORITHMS[name].title


st.title("Algorithms")
st.caption("Five ways to cut text into tokens, trained on the same text with the same vocabulary size: "
           "characters, the classic word-level BPE with </w>, BERT's WordPiece with ##, SentencePiece's unigram "
           "model, and the byte-level BPE of GPT models. See what each learns, where it fails on text it never "
           "saw, and why byte-level BPE won.")

with st.expander("The five algorithms, in a sentence each"):
    st.dataframe(pd.DataFrame([{"algorithm": a.title, "how": a.how, "normalization": a.normalization,
                                "what it never saw": a.unknowns} for a in ALGORITHMS.values()]),
                 hide_index=True, key=f"{K}about")

links.read("algorithms")  # a link (or a reload) opens the same form and text: app_pages/kit/links.py

# -- corpus ----------------------------------------------------------------------------------------
corpus = training_text(K, default_text=DEFAULT_CORPUS, height=140)

vocab_size = st.number_input(f"Target vocabulary size ({ALGORITHMS_VOCAB.words()}), the same for all five", ALGORITHMS_VOCAB.lo, MAX_VOCAB,
                             DEFAULT_VOCAB, step=50, key=f"{K}vocab", persist_state=KEEP)
vocab_size = limits.clamp_int(vocab_size, ALGORITHMS_VOCAB.lo, MAX_VOCAB, DEFAULT_VOCAB)  # NaN or a crafted value: never past the bounds
links.write("algorithms")  # before training: the segmentation's text and toggle are in session state already
if len(corpus) > MAX_TRAIN_CHARS:
    st.info(f"The text has {len(corpus):,} characters; the page trains on the first {MAX_TRAIN_CHARS:,} so that "
            "training all five stays within a few seconds.")
st.caption(f"The last 10% of the text is held out (not trained on) to measure each algorithm on text it never saw "
           f"(a text under {MIN_HELD_OUT_TEXT:,} characters is trained on whole).")

if was_stopped(f"{K}stop"):
    st.warning("Training stopped. The models trained before (if any) are kept.")
if st.button("Train all five", type="primary", key=f"{K}train"):
    text = corpus[:MAX_TRAIN_CHARS]
    # a small text is trained on whole (Sennrich's example must stay the example); the curve then reads
    # the training text itself, and says so
    train_text, held = held_out_split(text) if len(text) >= MIN_HELD_OUT_TEXT else (text, "")
    held_for_curve = held or train_text[-20_000:]

    def describe(state) -> tuple[float, str]:
        fraction, detail = state.last or (0.0, f"Starting · {state.elapsed:.1f} s")
        return fraction, detail

    try:  # in a child process: a Stop (or leaving the page) ends it at once, and other visitors never wait
        done = run_with_stop(train_algorithms, train_text, held_for_curve, int(vocab_size),
                             key=f"{K}stop", timeout=TRAIN_TIMEOUT, describe=describe, stop_label="Stop training")
    except JobError as e:
        st.error(escape_markdown(str(e)))
        done = None
    if done is not None:
        models = done["models"]
        own = user_tokenizers()
        for name in NAMES:
            own.pop(model_name(name), None)
        for name, tok in models.items():
            tok.title = f"{title(name)} (Algorithms)"
            own[tok.name] = tok
        st.session_state[f"{K}result"] = {
            **done, "vocab": int(vocab_size), "train_chars": len(train_text), "held_out": held_for_curve,
            "held_is_training": not held, "train_text": train_text}

result = st.session_state.get(f"{K}result")
if result is None:
    st.info("Choose a text and a vocabulary size, then press **Train all five**. The built-in corpus with 1,000 "
            "tokens is a good start; the Paste box holds Sennrich et al.'s four-word example (low, lower, newest, "
            "widest), where a vocabulary of 20 shows the first merges.")
    st.stop()

models, errors = result["models"], result["errors"]
st.success(f"Trained on {result['train_chars']:,} characters with a target of {result['vocab']:,} tokens: "
           f"{len(models)} of {len(NAMES)} algorithms. Each one is now on the Compare page for the rest of this "
           "visit, as *… (Algorithms)*.")
for name in NAMES:
    if name in errors:
        st.error(f"**{title(name)}** could not train: {escape_markdown(errors[name])}")
notes = [f"- **{title(name)}**: {escape_markdown(note)}" for name in NAMES
         for note in (models[name].notes if name in models else [])]
if notes:
    st.warning("\n".join(notes))

if not models:
    st.stop()

held_out = result["held_out"]
summary = []
for name in NAMES:
    tok = models.get(name)
    if tok is None:
        summary.append({"algorithm": title(name), "vocab size": None, "training steps": "—", "seconds": None,
                        "held-out tokens": None, "unknown on held-out": None})
        continue
    final = result["curves"][name][-1].usage
    summary.append({"algorithm": title(name), "vocab size": tok.vocab_size,
                    "training steps": (f"{len(tok.history):,}" if tok.capabilities.training_history
                                       else "none: EM prunes candidates"),
                    "seconds": round(result["seconds"][name], 3), "held-out tokens": final.tokens,
                    "unknown on held-out": final.unknown})
st.dataframe(pd.DataFrame(summary).astype({"vocab size": "Int64",
                                           "held-out tokens": "Int64", "unknown on held-out": "Int64"}),
             hide_index=True, key=f"{K}summary")

# -- one text, five segmentations --------------------------------------------------------------------
st.subheader("Segmentation")
st.session_state.setdefault(f"{K}segment", DEFAULT_TEXT)
lone = clean_state_text(f"{K}segment")  # lone surrogates cannot reach the browser
segment_text = live_text(f"{K}segment", label="Text to segment", height=90)
if lone:
    st.warning(f"{lone:,} lone surrogate code point(s) were replaced by U+FFFD �.")
show_ws = st.toggle("Show whitespace", key=f"{K}ws", persist_state=KEEP, help="space ·  tab →  newline ↵")
clean, _ = clean_text(segment_text)
clean, size = limits.cut_text(clean, limits.SEGMENT_TEXT_BYTES)
if size > limits.SEGMENT_TEXT_BYTES:
    st.warning(limits.cut_message(size, limits.SEGMENT_TEXT_BYTES, "the segmentation"))
st.html(WORD_LEGEND)
if not clean:
    st.info("Type some text above to see how each algorithm cuts it.")
else:
    n_bytes = len(clean.encode("utf-8"))
    rows, drawn, each = [], {}, {}
    for name in NAMES:
        tok = models.get(name)
        if tok is None:
            continue
        toks = tokenized(tok, clean, parse_special=False)  # the shared, bounded store (service/cache.py)
        drawn[name], each[name] = toks, {"title": title(name), "unknown_id": tok.unk_id}
        use = usage(tok, clean, toks)
        st.html(render_header(tok.name, title(name), len(toks), len(clean), n_bytes, unknown=use.unknown))
        if toks:
            st.html(render_spans(clean, toks[:MAX_DRAWN], whitespace=show_ws, rank_of=tok.merge_rank,
                                 unknown_id=tok.unk_id))
        else:
            st.caption("No tokens: this model discards whitespace, and the text is only whitespace.")
        if len(toks) > MAX_DRAWN:
            st.caption(f"The first {MAX_DRAWN:,} of {len(toks):,} tokens are drawn; the counts cover them all.")
        rows.append({"algorithm": title(name), "tokens": use.tokens, "unknown tokens": use.unknown,
                     "characters they replace": use.unknown_chars,
                     "characters per token": round(len(clean) / use.tokens, 2) if use.tokens else None})
    st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{K}counts")
    spans_downloads(f"{K}segment_spans", drawn, each=each, whitespace=show_ws, file_stem="segmentation_spans")

# -- vocabularies, training steps, length against vocab size -------------------------------------------
trained = [n for n in NAMES if n in models]


def vocab_tab() -> None:
    c1, c2 = st.columns([1, 2])
    which = c1.selectbox("Vocabulary of", trained, format_func=title, key=f"{K}vocab_alg", persist_state=KEEP)
    q = c2.text_input("Search by spelling or id", key=f"{K}vocab_q",
                      persist_state=KEEP, placeholder="e.g. ##ing, est</w>, ▁the")
    tok = models[which]
    rows, matched = vocab_rows(tok, q)
    st.caption(f"{matched:,} of {tok.vocab_size:,} tokens" + (f" match {md_code(q)}" if q.strip() else "")
               + (f"; the first {len(rows):,} are listed" if matched > len(rows) else "")
               + ". · is a space, ↵ a newline.")
    st.dataframe(pd.DataFrame(rows), hide_index=True, height=420, key=f"{K}vocab_rows")


def steps_tab() -> None:
    steppable = [n for n in trained if n != "unigram"]
    if st.session_state.get(f"{K}steps_alg") not in steppable:  # opens on classic BPE, the one to step through
        st.session_state[f"{K}steps_alg"] = "word_bpe" if "word_bpe" in steppable else (steppable or [None])[0]
    which = st.selectbox("Training of", steppable, format_func=title, key=f"{K}steps_alg", persist_state=KEEP)
    tok = models[which] if which else None
    if "unigram" in models:
        st.caption("Unigram is left out: SentencePiece does not merge pairs, it starts from many candidate pieces "
                   "and prunes them by likelihood (EM), inside its own trainer. Its pieces and their "
                   "log-probabilities are under Vocabularies.")
    if tok is not None and which == "char":
        st.markdown("A character-level model learns nothing but its alphabet: each step adds the next most "
                    "frequent character.")
        st.dataframe(pd.DataFrame(step_rows(tok)), hide_index=True, height=360, key=f"{K}char_steps")
    elif tok is not None and which == "byte_bpe":
        st.markdown("Byte-level BPE, as on the BPE Lab (which steps through it in more depth): each step merges "
                    "the most frequent pair of tokens.")
        st.dataframe(pd.DataFrame([{"step": r.rank + 1, "left": token_label(tok, r.pair[0]),
                                    "right": token_label(tok, r.pair[1]), "new token": token_label(tok, r.new_id),
                                    "count": r.count} for r in tok.history]),
                     hide_index=True, height=360, key=f"{K}byte_steps")
    elif tok is not None and not tok.history:
        st.info("No merges were learned: the vocabulary is only the alphabet (raise the vocabulary size).")
    elif tok is not None:
        n = len(tok.history)
        st.session_state[f"{K}step_{which}"] = max(1, min(st.session_state.get(f"{K}step_{which}", 1), n))
        k = st.slider("Step", 1, n, key=f"{K}step_{which}", persist_state=KEEP)
        s = tok.history[k - 1]
        left, right, new = (md_code(token_label(tok, i), 60) for i in (*s.pair, s.new_id))
        ratio = s.count / (s.left_count * s.right_count)
        why = (f"the most frequent pair ({s.count:,} times)" if which == "word_bpe" else
               f"the best score: {s.count:,} / ({s.left_count:,} × {s.right_count:,}) = {ratio:.5f}")
        st.markdown(f"Step **{k}** of {n:,} merged **{left}** + **{right}** → **{new}**: {why}."
                    + ("" if s.new_token else " That spelling was already a token (made from another pair), "
                       "so the vocabulary did not grow."))
        if which == "word_bpe":
            st.markdown("**The best pairs at this step, by count** — the rule merges the first. WordPiece's score, "
                        "count / (count(left) × count(right)), would rank them differently.")
            st.dataframe(pd.DataFrame(candidate_rows(tok, s.candidates, s.pair, by="count")), hide_index=True,
                         column_config=SCORE_COLUMNS, key=f"{K}cands")
        else:
            st.markdown("**The best pairs at this step, by WordPiece's score** — the rule merges the first")
            st.dataframe(pd.DataFrame(candidate_rows(tok, s.candidates, s.pair, by="score")), hide_index=True,
                         column_config=SCORE_COLUMNS, key=f"{K}cands")
            st.markdown("**The most frequent pairs at this step** — what classic BPE would merge")
            st.dataframe(pd.DataFrame(candidate_rows(tok, s.by_count, s.pair, by="count")), hide_index=True,
                         column_config=SCORE_COLUMNS, key=f"{K}cands_count")
            best = s.by_count[0] if s.by_count else None
            if best is not None and best.pair != s.pair:
                st.caption(f"Frequency alone would have merged {md_code(token_label(tok, best.pair[0]))} + "
                           f"{md_code(token_label(tok, best.pair[1]))} ({best.count:,} times); WordPiece prefers a "
                           "pair whose parts are rarely seen apart.")
        sample = result["train_text"][:STEP_TEXT_CHARS]
        small = tok.truncated(k)
        toks = small.tokenize(sample, disallowed_special=())
        st.markdown(f"**The start of the training text after {k:,} {plural(k, 'step')}**: {len(toks):,} tokens "
                    f"for {len(sample):,} characters.")
        st.html(render_spans(sample, toks, whitespace=show_ws, unknown_id=small.unk_id))
        after = f"{title(which)} after {k:,} {plural(k, 'step')}"
        spans_downloads(f"{K}step_spans", {which: toks}, each={which: {"title": after}}, whitespace=show_ws,
                        unknown_id=small.unk_id, file_stem="training_step_spans")
        with st.expander(f"All {n:,} steps"):
            st.dataframe(pd.DataFrame(step_rows(tok)), hide_index=True, height=360, column_config=SCORE_COLUMNS,
                         key=f"{K}all_steps")


def curve_tab() -> None:
    curves = result["curves"]
    held_chars = len(held_out)
    if result["held_is_training"]:
        st.warning(f"The text is shorter than {MIN_HELD_OUT_TEXT:,} characters, so none was held out: these counts "
                   "are for (the end of) the training text itself.")
    fig = length_curve_figure({n: [(p.vocab_size, p.usage.tokens) for p in curves[n]] for n in trained},
                              {n: title(n) for n in trained}, held_out_chars=held_chars,
                              ticks=curve_sizes(result["vocab"]))
    st.plotly_chart(fig, key=f"{K}curve")
    st.caption(f"Each point is one algorithm's token count for the held-out text ({held_chars:,} characters) at that "
               "vocabulary size: the first training steps of the same model (unigram is trained again at each "
               "size). Byte-level BPE starts at 256, its bytes; the character-level model cannot grow past the "
               "alphabet. WordPiece's score merges pairs of rare symbols first, so a small WordPiece vocabulary is "
               "full of rare words and spells common ones in pieces; and a whole unknown word is a single [UNK], "
               "which makes it look short where it fails.")
    rows = []
    for name in trained:
        u = curves[name][-1].usage
        rows.append({"algorithm": title(name), "vocab size": curves[name][-1].vocab_size, "tokens": u.tokens,
                     "unknown tokens": u.unknown, "unknown rate (of tokens)": f"{u.unknown_rate:.2%}",
                     "characters lost (of text)": f"{u.unknown_char_rate:.2%}"})
    st.markdown("**Unknown tokens on the held-out text**")
    st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{K}unknown")


# the tabs keep their state (a widget inside one reruns the page without going back to the first tab),
# and only the open one runs
tabs = links.tabs(["Vocabularies", "Training steps", "Length vs vocab size"], key=f"{K}tab", on_change="rerun")
for tab, draw in zip(tabs, (vocab_tab, steps_tab, curve_tab)):
    if tab.open:
        with tab:
            draw()
