"""SentencePiece Lab: train BPE and unigram models with SentencePiece's own settings, and watch them
segment: the vocabulary's layout, byte fallback, merge trees, the unigram lattice, sampling."""

import json

import pandas as pd
import streamlit as st

from app_pages.kit.long_work import progress_and_stop, was_stopped
from app_pages.kit import links
from app_pages.kit.links import KEEP
from app_pages.kit.settings import KEYS, SENTENCEPIECE_VOCAB
from app_pages.kit.shared import clean_state_text, spans_downloads, user_tokenizers
from app_pages.kit.training_text import training_text
from app_pages.kit.widgets import live_text
from tokenizers.sentencepiece.lattice import build_lattice
from tokenizers.sentencepiece.train import (FLOAT_RANGE, INT_HIGHEST, INT_LOWEST, OPTIONS, PRESETS,
                                            SentencePieceTrainingError, split_long_lines, train)
from tokenizers.core.text import clean_text
from tokenizers.user_files import UserFileError, load_user_file
from service import limits
from service.visits import visitor_key
from ui.figures import layout_figure, lattice_figure, sample_figure
from ui.formatting import duration, escape_markdown, md_code
from ui.spans import render_spans
from ui.trees import render_tree
from ui.tables import CATEGORIES, SP_KINDS, lattice_rows, nbest_rows, piece_rows, sample_rows, sp_vocab_rows

K = KEYS["sentencepiece_lab"]
MAX_TRAIN_CHARS = 5_000_000      # the upload limit; SentencePiece trains this in seconds
TIMEOUT = 60.0                   # seconds a training may take before it is stopped
MEMORY_MB = 2048                 # the training process's address-space cap
MAX_VOCAB = SENTENCEPIECE_VOCAB.hi
LATTICE_CHARS = 40               # normalized characters drawn in the lattice
SAMPLE_CHARS = 300               # characters of text sampled from, and compared with byte fallback on and off
SHOWN_CHARS = 20_000             # characters of decoded text shown
DEFAULT_TEXT = ("The cat sat on the mat. The cat ate the rat. A fat rat sat on the cat's hat, and the cat sat and sat "
                "and sat.\nTokenizers cut text into pieces; a unigram model keeps the pieces that make the text most "
                "likely.\n")
PROBE_TEXT = "hello 안녕하세요 👋🏽 naïve café 1234567"
KIND_OF_OPTION = {bool: "bool", int: "int", float: "float", str: "str"}
LAB_NAME, UPLOAD_NAME = "sp_lab", "sp_upload"
PRESET_NOTES = {
    "Llama 2": "Exactly Meta's published settings for Llama 2's tokenizer (only vocab_size and the text differ).",
    "Library defaults": "SentencePiece's own default for every option: a unigram model, NFKC-based normalization.",
    "T5-style unigram": "T5's vocabulary layout (pad 0, eos 1, unk 2, no bos) on a unigram model with nmt_nfkc.",
}


def opt_key(name: str) -> str:
    return f"{K}opt_{name}"


def apply_preset() -> None:
    """Set every option's widget to the chosen preset (vocab_size stays: the presets change the recipe,
    not the size)."""
    preset = PRESETS[st.session_state[f"{K}preset"]]
    for name, opt in OPTIONS.items():
        if name != "vocab_size":
            st.session_state[opt_key(name)] = preset.get(name, opt.default)


def chosen_options() -> dict:
    """The options as set on the page, each one that differs from SentencePiece's default (plus
    model_type and vocab_size, always)."""
    out = {}
    for name, opt in OPTIONS.items():
        value = st.session_state[opt_key(name)]
        if isinstance(opt.default, int) and not isinstance(opt.default, bool):
            value = limits.clamp_int(value, INT_LOWEST.get(name, -1), MAX_VOCAB if name == "vocab_size"
                                     else INT_HIGHEST, opt.default)
        elif isinstance(opt.default, float) and not (isinstance(value, (int, float))
                                                     and FLOAT_RANGE[0] <= value <= FLOAT_RANGE[1]):
            value = opt.default  # NaN, an infinity, a crafted value
        if name in ("model_type", "vocab_size") or value != opt.default:
            out[name] = value
    return out


def option_widget(col, name: str) -> None:
    opt = OPTIONS[name]
    key, kind = opt_key(name), KIND_OF_OPTION[type(opt.default)]
    default = f"{opt.default:,}" if kind == "int" else (repr(opt.default) if kind == "str" else str(opt.default))
    if opt.choices:
        col.selectbox(name, opt.choices, key=key, persist_state=KEEP)
    elif kind == "bool":
        col.checkbox(name, key=key, persist_state=KEEP)
    elif kind == "int":
        lo = INT_LOWEST.get(name, -1)
        col.number_input(name, min_value=lo, max_value=MAX_VOCAB if name == "vocab_size" else INT_HIGHEST,
                         step=1, key=key, persist_state=KEEP)
    elif kind == "float":
        col.number_input(name, min_value=FLOAT_RANGE[0], max_value=FLOAT_RANGE[1], step=0.0001, format="%.5f",
                         key=key, persist_state=KEEP)
    else:
        col.text_input(name, key=key, persist_state=KEEP)
    changed = st.session_state[key] != opt.default
    col.caption(f"{opt.help} Library default: `{default or '(empty)'}`" + (" · **changed**" if changed else ""))


def split_and_train() -> None:
    st.session_state[f"{K}split_long"] = True
    st.session_state[f"{K}train_again"] = True


def store_model(tok, *, slot: str, trained_on: str = "", options: dict | None = None) -> None:
    st.session_state[f"{K}model"] = tok
    st.session_state[f"{K}slot"] = slot
    st.session_state[f"{K}trained"] = {"text": trained_on, "options": options} if options is not None else None
    st.session_state[f"{K}twins"] = {}
    user_tokenizers()[slot] = tok


def train_twin(label: str, changes: dict) -> None:
    """Train the current model again on the same text with `changes` to its options (a twin for a
    side-by-side view). A vocab_size the twin cannot have is moved to the nearest it can, and said."""
    base = st.session_state[f"{K}trained"]
    options = {**base["options"], **changes}
    note = ""
    with progress_and_stop(f"{K}stop_twin", "Stop training", timeout=TIMEOUT,
                           text=f"Training the twin ({label})…") as bar:
        def progress(p) -> None:  # each call is a point where a Stop ends the wait (and the child)
            bar.progress(min(1.0, p.fraction or 0.0), text=f"Training the twin ({label}) · {p.phase} · "
                                                          f"{p.elapsed:.1f} s")

        for _ in range(2):
            try:
                twin = train(base["text"], timeout=TIMEOUT, memory_mb=MEMORY_MB, name=f"{LAB_NAME}_{label}",
                             title=label, progress=progress, owner=visitor_key(), **options)
                st.session_state[f"{K}twins"][label] = (twin, note)
                return
            except SentencePieceTrainingError as e:
                if e.reason in ("vocab_too_large", "vocab_too_small") and e.limit and not note:
                    note = (f"vocab_size {options['vocab_size']:,} is impossible for this twin, so it has "
                            f"{e.limit:,}: {e.message}")
                    options["vocab_size"] = e.limit
                    continue
                st.session_state[f"{K}twins"][label] = (None, str(e))
                return


# -- the tabs ----------------------------------------------------------------------------------------
def vocabulary_tab(tok, report, trained) -> None:
    runs = tok.layout()
    counts = {}
    for kind, a, b in runs:
        counts[kind] = counts.get(kind, 0) + b - a + 1
    st.markdown("**Layout** — " + " · ".join(f"{kind}: {n:,}" for kind, n in counts.items()))
    st.plotly_chart(layout_figure(runs, tok.vocab_size), key=f"{K}layout")
    st.caption("Ids in order: the control pieces first (unk, bos, eos), then the 256 byte pieces <0x00>…<0xFF> "
               "when byte fallback is on, then the learned pieces. A BPE model lists its single characters last; a "
               "unigram model orders every piece by its log-probability, so characters sit among the others.")
    v1, v2, v3 = st.columns([2, 1, 1])
    q = v1.text_input("Search by id, piece or hex bytes", key=f"{K}vq",
                      persist_state=KEEP, placeholder="300, ▁the, E2 96 81")
    kind = v2.selectbox("Kind", SP_KINDS, key=f"{K}vkind", persist_state=KEEP)
    cat = v3.selectbox("Show", CATEGORIES, key=f"{K}vcat", persist_state=KEEP)
    rows, matched = sp_vocab_rows(tok, q, kind, cat)
    st.caption(f"{matched:,} piece(s) match; the first {len(rows):,} are listed. The score is a log-probability "
               "in a unigram model and minus the merge order in a BPE model.")
    st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{K}vrows")


def encode_tab(tok, report, trained) -> None:
    st.session_state.setdefault(f"{K}etext", PROBE_TEXT)
    lone = clean_state_text(f"{K}etext")
    etext = live_text(f"{K}etext", label="Text to encode", height=80)
    if lone:
        st.warning(f"{lone:,} lone surrogate code point(s) were replaced by U+FFFD �.")
    clean, _ = clean_text(etext)
    clean, size = limits.cut_text(clean, limits.ENCODE_TEXT_BYTES)
    if size > limits.ENCODE_TEXT_BYTES:
        st.warning(limits.cut_message(size, limits.ENCODE_TEXT_BYTES, "the encoder"))
    if not clean:
        st.info("Type some text.")
    else:
        ids = tok.encode(clean, disallowed_special=())
        toks = tok.tokenize(clean, disallowed_special=())
        st.html(render_spans(clean, toks[:5000]))
        spans_downloads(f"{K}encode_spans", {"lab": toks}, each={"lab": {"title": "Lab SentencePiece model"}},
                        file_stem="sentencepiece_lab_spans")
        st.markdown(f"**{len(ids):,} pieces**, as the model spells them (`▁` is a space):")
        st.code(" ".join(tok.piece_of(i) for i in ids[:2000]), language=None, wrap_lines=True)
        st.markdown("**Ids**")
        st.code(", ".join(map(str, ids[:2000])), language=None, wrap_lines=True)
        st.markdown("**Decoded back**")
        decoded = tok.decode(ids)
        st.code(decoded[:SHOWN_CHARS] + (" …" if len(decoded) > SHOWN_CHARS else ""), language=None,
                wrap_lines=True)
        if len(ids) > 2000:
            st.caption(f"Pieces and ids above are the first 2,000 of {len(ids):,}; the decoded text the first "
                       f"{SHOWN_CHARS:,} characters.")
        st.dataframe(pd.DataFrame(piece_rows(tok, ids[:500])), hide_index=True, key=f"{K}epieces")


def byte_fallback_tab(tok, report, trained) -> None:
    st.session_state.setdefault(f"{K}btext", PROBE_TEXT)
    lone = clean_state_text(f"{K}btext")
    btext = clean_text(live_text(f"{K}btext", label="Text with characters the corpus never had", height=68))[0]
    if lone:
        st.warning(f"{lone:,} lone surrogate code point(s) were replaced by U+FFFD �.")
    if len(btext) > SAMPLE_CHARS:
        st.caption(f"The first {SAMPLE_CHARS} characters are compared.")
        btext = btext[:SAMPLE_CHARS]
    has_bytes = bool(tok.trainer_spec()["byte_fallback"])
    unseen = sorted({c for c in btext.replace(" ", "") if tok.piece_id(c) is None}, key=btext.index)
    if unseen:
        st.markdown("Characters with no piece of their own in this model: "
                    + ", ".join(f"{escape_markdown(c)} `U+{ord(c):04X}`" for c in unseen[:40]))
    label = "byte_fallback off" if has_bytes else "byte_fallback on"
    twin, twin_note = st.session_state.get(f"{K}twins", {}).get(label, (None, ""))
    if twin is None:
        if trained is None:
            st.info("A loaded model has no training text, so its twin cannot be trained; train a model here to "
                    "compare byte fallback on and off.")
        elif st.button(f"Train the same model with {label}", key=f"{K}twin_bytes"):
            train_twin(label, {"byte_fallback": not has_bytes})
            st.rerun()
        if twin_note:
            st.error(md_code(twin_note, 1000))
    if btext:
        models = [(tok, "byte_fallback on" if has_bytes else "byte_fallback off")]
        if twin is not None:
            models.append((twin, label))
            models.sort(key=lambda m: m[1] != "byte_fallback on")
        cols, drawn = st.columns(2), {}
        for col, (model, title) in zip(cols, models):
            with col:
                ids = model.encode(btext, disallowed_special=())
                odd = sum(1 for i in ids if model.is_byte_fallback(i) or i == model.unk_id)
                st.markdown(f"**{title}** — {len(ids):,} pieces, {odd:,} of them "
                            + ("byte pieces" if "on" in title else "<unk\\>"))
                drawn[title] = toks = model.tokenize(btext, disallowed_special=())
                st.html(render_spans(btext, toks))
                st.code(" ".join(model.piece_of(i) for i in ids), language=None, wrap_lines=True)
                st.markdown("Decodes back to:")
                st.code(model.decode(ids), language=None, wrap_lines=True)
        spans_downloads(f"{K}bf_spans", drawn, each={t: {"title": t} for t in drawn}, file_stem="byte_fallback_spans")
        if twin_note and twin is not None:
            st.caption(md_code(twin_note, 600))
        st.caption("With byte fallback a character that has no piece is spelled as its UTF-8 bytes, so nothing is "
                   "lost and the text decodes back exactly; without it the character becomes <unk> (one <unk> for a "
                   "run of them), which decodes to ⁇.")


def merge_tree_tab(tok, report, trained) -> None:
    if tok.model_type != "bpe":
        st.info(f"This is a {tok.model_type} model: its pieces are not built by merging pairs, so they have no "
                "merge tree. Train with model_type bpe to see one.")
    else:
        learned = [i for i in range(tok.vocab_size) if tok.piece_kind(i) == "learned"]
        # the longest first, runs of ▁ (whitespace-only pieces) after the rest
        longest = sorted(learned, key=lambda i: (not tok.piece_of(i).strip("\u2581"), -len(tok.piece_of(i)), i))[:300]
        pick = st.selectbox("Piece (the 300 longest)", longest, key=f"{K}tree_pick", persist_state=KEEP,
                            format_func=lambda i: f"{tok.piece_of(i)}  (id {i})")
        typed = st.text_input("…or type a piece or an id", key=f"{K}tree_typed",
                              persist_state=KEEP, placeholder="▁the, 300")
        target = pick
        if typed.strip():
            # a leading space is the ▁ of a piece; ASCII digits only (str.isdigit() is true for "²")
            number = typed.strip().isascii() and typed.strip().isdigit()
            t = typed.strip() if number else typed
            target = int(t) if number and int(t) < tok.vocab_size else tok.piece_id(t.replace(" ", "\u2581"))
            if target is None:
                st.error(f"No piece {md_code(t.replace(' ', chr(0x2581)))} in this model (a space stands for ▁).")
        if target is not None:
            if tok.merge_parents(target) is None:
                st.info("A base piece: a single character, a byte or a control piece, where every merge tree ends.")
            else:
                st.html(render_tree(tok, target))  # Inside's tree: boxes fit their labels, dark theme too
                st.caption("Leaves are single characters; each box joins the two below it. SentencePiece keeps "
                           "scores, not merges: the parents are the last merge its own rule makes when it encodes the "
                           "piece alone (join the adjacent pair whose result scores highest).")


def lattice_tab(tok, report, trained) -> None:
    if tok.model_type != "unigram":
        st.info(f"The lattice belongs to unigram models (this one is {tok.model_type}). Set model_type to unigram, "
                "or choose the T5-style unigram preset, and train.")
    else:
        st.session_state.setdefault(f"{K}ltext", "Hello world")
        lone = clean_state_text(f"{K}ltext")
        ltext = clean_text(live_text(f"{K}ltext", label="A short text", height=68))[0]
        if lone:
            st.warning(f"{lone:,} lone surrogate code point(s) were replaced by U+FFFD �.")
        # normalizing changes the length a little (the ▁ prefix, NFKC): a text far too long is not built at all
        lattice = build_lattice(tok, ltext) if ltext and len(ltext) <= 2 * LATTICE_CHARS else None
        if not ltext:
            st.info("Type a short text.")
        elif lattice is None or len(lattice.normalized) > LATTICE_CHARS:
            n = len(lattice.normalized) if lattice is not None else len(ltext)
            st.warning(f"The lattice is drawn for texts up to {LATTICE_CHARS} characters once normalized; this one "
                       f"has {n:,}. Shorten it.")
        elif not lattice.normalized:
            st.info("Nothing is left of this text once normalized (the model removes extra spaces).")
        else:
            fig = lattice_figure(lattice)
            st.plotly_chart(fig, key=f"{K}lattice")
            shown, total = fig.layout.meta["shown"], fig.layout.meta["total"]
            st.caption(f"Every piece that matches somewhere in {md_code(lattice.normalized)} ({total:,} in all"
                       + (f", {shown:,} drawn" if shown < total else "") + ") with its log-probability. The red "
                       f"path is Viterbi's best: total {lattice.best_score:.3f}, the highest sum of log-probabilities "
                       "of pieces that spell the text.")
            nb = st.columns(4)[0].number_input("n-best segmentations", 1, 50, 8, key=f"{K}nbest", persist_state=KEEP)
            best = tok.nbest(ltext, limits.clamp_int(nb, 1, 50, 8))
            st.markdown("**The n best segmentations** (SentencePiece's `nbest_encode`), best first; the first is "
                        "what `encode` returns:")
            st.dataframe(pd.DataFrame(nbest_rows(tok, best)), hide_index=True, key=f"{K}nbest_rows")
            with st.expander("Every node of the lattice"):
                st.dataframe(pd.DataFrame(lattice_rows(lattice)), hide_index=True, key=f"{K}lattice_rows")


def sampling_tab(tok, report, trained) -> None:
    st.session_state.setdefault(f"{K}stext", "subword regularization")
    lone = clean_state_text(f"{K}stext")
    stext = clean_text(live_text(f"{K}stext", label="Text to segment again and again", height=68))[0][:SAMPLE_CHARS]
    if lone:
        st.warning(f"{lone:,} lone surrogate code point(s) were replaced by U+FFFD �.")
    s1, s2, s3 = st.columns(3)
    n = s1.slider("Samples", 10, 1000, 200, step=10, key=f"{K}n", persist_state=KEEP)
    alpha = s2.slider("alpha", 0.0, 1.0, 0.1, step=0.01, key=f"{K}alpha", persist_state=KEEP,
                      help="Unigram: the smoothing exponent (small alpha: close to uniform over segmentations; "
                           "large: close to the best one). BPE: the probability of dropping each merge.")
    nbest_size = s3.number_input("nbest_size (unigram)", -1, 64, -1, key=f"{K}nbest_size", persist_state=KEEP,
                                 help="-1 samples from the whole lattice; k > 1 from the k best segmentations.")
    nbest_size = limits.clamp_int(nbest_size, -1, 64, -1)
    partner_type = "bpe" if tok.model_type == "unigram" else "unigram"
    partner, partner_note = st.session_state.get(f"{K}twins", {}).get(partner_type, (None, ""))
    if tok.model_type not in ("unigram", "bpe"):
        st.info(f"Sampling needs a unigram or BPE model (this one is {tok.model_type}).")
    elif not stext:
        st.info("Type some text.")
    elif nbest_size in (0, 1):
        st.error("nbest_size must be -1 (the whole lattice) or more than 1.")
    else:
        models = [tok] + ([partner] if partner is not None else [])
        models.sort(key=lambda m: m.model_type != "unigram")
        cols = st.columns(2)
        for col, model in zip(cols, models):
            with col:
                what = (f"unigram: subword regularization, alpha {alpha}, nbest_size {nbest_size}"
                        if model.model_type == "unigram" else f"BPE-dropout, each merge dropped with p = {alpha}")
                counts = model.sample_counts(stext, n, alpha=alpha, nbest_size=int(nbest_size))
                rows = sample_rows(model, counts, model.encode(stext, disallowed_special=()))
                st.markdown(f"**{what}** — {len(rows):,} distinct segmentation(s) in {n:,} samples")
                st.plotly_chart(sample_figure(rows, ""), key=f"{K}sample_fig_{model.model_type}")
                st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{K}sample_rows_{model.model_type}")
        st.caption("Red: the segmentation encode gives without sampling. Training a model on sampled segmentations "
                   "(subword regularization, BPE-dropout) makes it robust to the ways a word can be cut.")
        if partner is None:
            if trained is None:
                st.caption("A loaded model has no training text, so no partner of the other type can be trained.")
            elif st.button(f"Train a {partner_type} model on the same text to compare", key=f"{K}twin_type"):
                train_twin(partner_type, {"model_type": partner_type})
                st.rerun()
            if partner_note:
                st.error(md_code(partner_note, 1000))


def model_tab(tok, report, trained) -> None:
    d1, d2 = st.columns(2)
    stem = st.session_state.get(f"{K}slot", LAB_NAME)
    d1.download_button(f"{stem}.model", tok.serialized_model(), f"{stem}.model", key=f"{K}dl_model",
                       on_click="ignore", mime="application/octet-stream")
    d2.download_button(f"{stem}.vocab", tok.vocab_text(), f"{stem}.vocab", key=f"{K}dl_vocab", on_click="ignore")
    st.caption("The `.model` file loads in SentencePiece (`spm.SentencePieceProcessor(model_file=…)`) and back into "
               "this lab; the `.vocab` file lists each piece and its score, as spm_train writes it.")
    if trained is not None:
        st.markdown("**Options passed to the trainer** (those that differ from its defaults):")
        st.code(json.dumps(trained["options"], indent=1, ensure_ascii=False), language="json")
    spec = {"trainer_spec": {k: v for k, v in tok.trainer_spec().items() if k not in ("input", "model_prefix")},
            "normalizer_spec": tok.normalizer_spec()}
    st.markdown("**Stored in the model**")
    st.code(json.dumps(spec, indent=1, ensure_ascii=False), language="json")
    if report is not None:
        st.markdown("**Phases** (seconds since the training process started)")
        st.dataframe(pd.DataFrame([{"at": round(t, 3), "phase": p} for t, p in report.phases]), hide_index=True,
                     key=f"{K}phases")
        with st.expander("The trainer's log"):
            lines = report.log.splitlines()
            st.code("\n".join(lines[-400:]), language=None)


st.title("SentencePiece Lab")
st.caption("Train a SentencePiece model (BPE or unigram) with the settings that real models use, then look inside: "
           "the vocabulary's layout, byte fallback, merge trees, the unigram lattice and sampled segmentations.")

links.read("sentencepiece_lab")  # a link (or a reload) opens the same form: app_pages/kit/links.py

# -- corpus ----------------------------------------------------------------------------------------
corpus = training_text(K, default_text=DEFAULT_TEXT, text_label="Text to train on (each line is a sentence)",
                       builtin_note="English only: Korean and emoji are characters it never saw.")
if len(corpus) > MAX_TRAIN_CHARS:
    st.info(f"The text has {len(corpus):,} characters; the lab trains on the first {MAX_TRAIN_CHARS:,}.")
    corpus = corpus[:MAX_TRAIN_CHARS]

# -- options ---------------------------------------------------------------------------------------
st.session_state.setdefault(f"{K}preset", "Llama 2")
for name, opt in OPTIONS.items():  # first visit: the preset's values, and a vocabulary the corpus supports
    if opt_key(name) not in st.session_state:
        st.session_state[opt_key(name)] = SENTENCEPIECE_VOCAB.default if name == "vocab_size" else \
            PRESETS[st.session_state[f"{K}preset"]].get(name, opt.default)
c1, c2, c3 = st.columns([1.2, 1, 1])
c1.selectbox("Preset", list(PRESETS), key=f"{K}preset", persist_state=KEEP, on_change=apply_preset,
             help="Sets every option below except vocab_size.")
option_widget(c2, "model_type")
option_widget(c3, "vocab_size")
options = chosen_options()
preset = PRESETS[st.session_state[f"{K}preset"]]
differs = [n for n in OPTIONS if n != "vocab_size" and st.session_state[opt_key(n)] != preset.get(n, OPTIONS[n].default)]
if differs:
    c1.caption(f"Preset **{st.session_state[f'{K}preset']}** with changes: {', '.join(differs)}.")
else:
    c1.caption(PRESET_NOTES[st.session_state[f"{K}preset"]])

with st.expander("All options, with what each does and SentencePiece's default", expanded=False):
    rest = [n for n in OPTIONS if n not in ("model_type", "vocab_size")]
    cols = st.columns(3)
    for k, name in enumerate(rest):
        option_widget(cols[k % 3], name)

split_long = st.checkbox("Split lines longer than max_sentence_length before training (SentencePiece skips them)",
                         key=f"{K}split_long", persist_state=KEEP)
links.write("sentencepiece_lab")
train_now = st.button("Train", type="primary", key=f"{K}train")
if any([was_stopped(f"{K}stop"), was_stopped(f"{K}stop_twin")]):
    st.warning("Training stopped. The model trained before (if any) is kept.")
if st.session_state.pop(f"{K}train_again", False):
    train_now = True

if train_now:
    text = corpus
    cut = 0
    if split_long:
        text, cut = split_long_lines(text, max(1, int(options.get("max_sentence_length",
                                                                  OPTIONS["max_sentence_length"].default))))
    st.session_state[f"{K}error"] = None
    # the trainer runs in a child process; each progress call is a point where a Stop (this button,
    # Streamlit's own, leaving the page) ends the wait, and train() kills the child on the way out
    try:
        with progress_and_stop(f"{K}stop", "Stop training", timeout=TIMEOUT, text="Starting the training process…",
                               keep_bar=True) as bar:
            def progress(p) -> None:
                fraction = p.fraction if p.fraction is not None else 0.0
                bar.progress(min(1.0, fraction), text=f"{p.phase}" + (f" · {p.detail}" if p.detail else "")
                             + f" · {p.elapsed:.1f} s")

            tok = train(text, timeout=TIMEOUT, memory_mb=MEMORY_MB, progress=progress, name=LAB_NAME,
                        owner=visitor_key(), **options)
            tok.title = f"SentencePiece Lab ({tok.model_type}, {tok.vocab_size:,})"
            store_model(tok, slot=LAB_NAME, trained_on=text, options=options)
            st.session_state[f"{K}split_count"] = cut
            bar.progress(1.0, text=f"Done in {duration(tok.report.seconds)}")
    except SentencePieceTrainingError as e:
        st.session_state[f"{K}error"] = (e.reason, str(e), e.log)

error = st.session_state.get(f"{K}error")
if error:
    reason, message, log = error
    st.error(md_code(message, 2000), icon="⚠️")
    if reason == "too_long":
        st.button("Split the long lines and train again", key=f"{K}split_retry", on_click=split_and_train)
    if log:
        with st.expander("The trainer's log (last lines)"):
            st.code(log, language=None)

with st.container(border=True):
    up = st.file_uploader("…or inspect a SentencePiece `.model` file (Llama, T5, Mistral, or one saved here)",
                          type=["model"], key=f"{K}load")
    if up is None:
        st.session_state.pop(f"{K}load_error", None)
    elif st.session_state.get(f"{K}loaded_id") != up.file_id:
        st.session_state[f"{K}loaded_id"] = up.file_id
        st.session_state[f"{K}load_error"] = ""
        try:  # the one reader of tokenizer files (Compare's too): the same file, the same verdict
            loaded = load_user_file(up.name, up.getvalue(), expect=("sentencepiece",), name=UPLOAD_NAME)
            loaded.title = f"Uploaded SentencePiece ({loaded.model_type}, {loaded.vocab_size:,})"
            store_model(loaded, slot=UPLOAD_NAME)
        except UserFileError as e:
            st.session_state[f"{K}load_error"] = str(e)
    if st.session_state.get(f"{K}load_error"):
        st.error(escape_markdown(st.session_state[f"{K}load_error"]))

tok = st.session_state.get(f"{K}model")
if tok is None:
    st.info("Choose a text and press **Train**. The Llama 2 preset on the built-in corpus trains in well under a "
            "second; then try the **Byte fallback** tab with Korean text, which the corpus never had.")
    st.stop()

# -- the model -------------------------------------------------------------------------------------
report = tok.report
trained = st.session_state.get(f"{K}trained")
if report is not None and st.session_state.get(f"{K}slot") == LAB_NAME:
    st.success(f"Trained a **{report.model_type}** model of {report.vocab_size:,} pieces on {report.text_chars:,} "
               f"characters ({report.sentences or 0:,} lines) in {duration(report.seconds)} "
               f"(the trainer itself {duration(report.trainer_seconds or 0)}; starting its process and passing "
               f"files {duration(report.overhead_seconds or 0)}). It is on the Compare and Inside pages as "
               f"**{tok.title}** for the rest of this visit.")
    if report.skipped_too_long:
        st.warning(f"{report.skipped_too_long:,} line(s) were longer than max_sentence_length "
                   f"({report.options.get('max_sentence_length', OPTIONS['max_sentence_length'].default):,} bytes) and "
                   "were skipped in training.")
        st.button("Split the long lines and train again", key=f"{K}split_retry_ok", on_click=split_and_train)
    if st.session_state.get(f"{K}split_count"):
        st.caption(f"{st.session_state[f'{K}split_count']:,} long line(s) were split before training.")
else:
    st.success(f"Loaded a **{tok.model_type}** model of {tok.vocab_size:,} pieces. It is on the Compare and Inside "
               f"pages as **{tok.title}** for the rest of this visit.")


TABS = {"Vocabulary": vocabulary_tab, "Encode": encode_tab, "Byte fallback": byte_fallback_tab,
        "Merge tree": merge_tree_tab, "Lattice": lattice_tab, "Sampling": sampling_tab,
        "Model & downloads": model_tab}
# only the open tab runs (sampling and lattices are not free); the open tab and every widget keep their
# values while they are not drawn (another tab, another page: app_pages/kit/links.py)
for tab, draw in zip(links.tabs(list(TABS), key=f"{K}tab", on_change="rerun"), TABS.values()):
    if tab.open:
        with tab:
            draw(tok, report, trained)
