"""Languages & code: what the same message costs in tokens, in 26 languages, in 8 programming
languages, and in a parallel corpus of your own; and the corpus metrics (fertility, continued words,
bytes per token, byte fallback, Rényi efficiency) of each tokenizer on the same texts, from the same
count (tokenizers.analysis.metrics.language_counts)."""

import time
from collections import Counter
from dataclasses import replace

import pandas as pd
import streamlit as st

from app_pages.kit import links
from app_pages.kit.links import KEEP
from app_pages.kit.settings import KEYS
from app_pages.kit.shared import TOKENIZE_ERRORS, all_tokenizer_names, resolve, title_of
from tokenizers import REGISTRY, Tokenizer, default_tokenizers
from tokenizers.analysis.languages import MAX_LANGUAGES, MAX_TOTAL_CHARS, flat, premium_frame
from tokenizers.analysis.metrics import (CorpusCounts, language_counts, language_metrics, metrics_frame, overall,
                                         with_premium)
from tokenizers.analysis.parallel import LANGUAGES, PROGRAMS, as_tsv, language_texts, program_texts
from ui.explain import METRIC_NOTES
from ui.export import frame_csv
from ui.figures import color_of, grouped_bars, metric_panels, table_heatmap
from ui.formatting import escape_markdown
from service import uploads

K = KEYS["languages"]
METRICS = {"Token premium (÷ reference)": "premium", "Tokens": "tokens", "Characters per token": "chars_per_token",
           "Bytes per token": "bytes_per_token"}
TABS = ["Parallel text", "Programs", "Your corpus"]
VIEWS = ["Token premium", "Corpus metrics"]
Counts = dict[str, dict[str, CorpusCounts]]  # {tokenizer key: {language: counts}}
# what a tab keeps of one count: the counts without their per-token tallies (tokens, characters and
# bytes, for the premium), the metrics of all languages together per tokenizer, and the metrics per
# (tokenizer, language) without the premium, which follows the reference picked (with_premium)
Measured = tuple[Counts, pd.DataFrame, pd.DataFrame]


def measure(counts: Counts) -> Measured:
    """What the views need of a count, without keeping a tally per token id per language (an upload's
    would be hundreds of thousands of entries a tokenizer, held in the visitor's session)."""
    slim = {n: {lang: replace(c, token_counts=Counter()) for lang, c in by_lang.items()}
            for n, by_lang in counts.items()}
    return slim, metrics_frame(overall(counts)), language_metrics(counts)


@st.cache_data(max_entries=32, show_spinner="Counting tokens…")
def registry_measured(texts: tuple[tuple[str, str], ...], names: tuple[str, ...]) -> Measured:
    return measure(language_counts(dict(texts), list(names)))


def count(texts: dict[str, str], toks: dict[str, Tokenizer], progress=None) -> Measured:
    """The one count behind both views, keyed by the page's names for the tokenizers (a Tokenizer's
    own .name may differ). Cached for registry tokenizers; a visitor's own are counted on each run."""
    if progress is None and all(n in REGISTRY for n in toks):
        return registry_measured(tuple(texts.items()), tuple(toks))
    out, step = {}, len(texts)
    for k, (n, t) in enumerate(toks.items()):
        out[n] = language_counts(texts, [t], progress=None if progress is None else
                                 lambda d, _, k=k: progress(k * step + d, step * len(toks)))[t.name]
    return measure(out)


def unique_titles(names) -> dict[str, str]:
    """Each tokenizer's title, with its name added where two titles are the same (an uploaded file may
    call itself GPT-2)."""
    titles = {n: title_of(n) for n in names}
    seen = Counter(titles.values())
    return {n: t if seen[t] == 1 else f"{t} ({n})" for n, t in titles.items()}


def draw_results(df: pd.DataFrame, labels: dict[str, str], reference: str, key: str, about: pd.DataFrame | None = None,
                 file_name: str = "token_premium.csv") -> None:
    """Grouped bars of a chosen metric, a premium heatmap, a sortable table and a CSV download."""
    titles = {n: title_of(n) for n in df["tokens"].columns}
    c1, c2 = st.columns([1, 1])
    metric_label = c1.selectbox("Chart", list(METRICS), key=f"{key}_metric", persist_state=KEEP)
    metric = METRICS[metric_label]
    order = c2.selectbox("Order", ["as listed", "by the first tokenizer's value"], key=f"{key}_order",
                         persist_state=KEEP)
    table = df[metric].rename(columns=titles)
    if order != "as listed":
        table = table.sort_values(table.columns[0], ascending=False)
    table.index = [labels.get(i, i) for i in table.index]
    st.plotly_chart(grouped_bars(table, metric_label, reference_line=1.0 if metric == "premium" else None,
                                 colors=[color_of(n) for n in df[metric].columns]), key=f"{key}_bars")
    st.markdown(f"**Token premium** (tokens ÷ tokens of {escape_markdown(labels.get(reference, reference))}), "
                "languages × tokenizers")
    heat = df["premium"].rename(columns=titles)
    heat.index = [labels.get(i, i) for i in heat.index]
    st.plotly_chart(table_heatmap(heat, "premium"), key=f"{key}_heat")
    out = flat(df).round(3)
    if about is not None:
        out = about.join(out)
    st.markdown("**All figures** (click a column header to sort)")
    st.dataframe(out, key=f"{key}_table")
    st.download_button("Download the table (CSV)", frame_csv(out), file_name, "text/csv",
                       key=f"{key}_csv", on_click="ignore")


def draw_metrics(measured: Measured, labels: dict[str, str], reference: str, key: str, file_name: str) -> None:
    """The corpus metrics: a panel per metric for all languages together, the table and its CSV, one
    metric by language, and what each metric means."""
    counts, total, by_lang = measured
    titles = unique_titles(counts)
    notes = {c: label for c, label, _, _ in METRIC_NOTES}
    total = total.rename(index=titles)
    st.markdown(f"**All {len(next(iter(counts.values())))} texts together**, each encoded on its own")
    st.plotly_chart(metric_panels(total, {c: notes[c] for c in total.columns if c != "words"},
                                  colors=[color_of(n) for n in counts]), key=f"{key}_panels")
    short = {"continued_words": "continued", "bytes_per_token": "bytes/token", "chars_per_token": "chars/token",
             "fallback_rate": "fallback", "renyi_efficiency": "Rényi eff."}
    st.dataframe(total.round(4), key=f"{key}_mtable", column_config={
        c: st.column_config.NumberColumn(short.get(c, c), help=text) for c, _, text, _ in METRIC_NOTES
        if c in total.columns})
    st.download_button("Download these figures (CSV)", frame_csv(total, digits=4), file_name, "text/csv",
                       key=f"{key}_mcsv", on_click="ignore")

    by_lang = with_premium(by_lang, reference)
    choices = [c for c in notes if c in by_lang.columns]
    if st.session_state.get(f"{key}_lmetric") not in choices:
        st.session_state[f"{key}_lmetric"] = "fertility"
    metric = st.selectbox("By language", choices, format_func=notes.get, key=f"{key}_lmetric", persist_state=KEEP)
    wide = by_lang[metric].unstack("tokenizer")
    wide = wide.loc[list(next(iter(counts.values()))), list(counts)].rename(columns=titles)
    wide.index = [labels.get(i, i) for i in wide.index]
    st.plotly_chart(grouped_bars(wide, notes[metric], reference_line=1.0 if metric == "premium" else None,
                                 colors=[color_of(n) for n in counts]), key=f"{key}_lbars")
    with st.expander("Every metric by language and tokenizer"):
        st.dataframe(by_lang.rename(index=titles, level="tokenizer").round(4), key=f"{key}_ltable")
        st.download_button("Download (CSV)", frame_csv(by_lang, digits=4), file_name.replace(".csv", "_by_language.csv"),
                           "text/csv", key=f"{key}_lcsv", on_click="ignore")
    with st.expander("What the metrics mean", expanded=True):
        st.markdown("\n".join(f"- **{label}**: {text}" + (f" *Source:* {src}." if src else "")
                               for _, label, text, src in METRIC_NOTES))


def draw(view: str, measured: Measured, labels: dict[str, str], reference: str, key: str,
         about: pd.DataFrame | None, stem: str) -> None:
    """One tab's results in the chosen view, or a clear message when its reference has no tokens."""
    if view == VIEWS[1]:
        draw_metrics(measured, labels, reference, key, f"corpus_metrics_{stem}.csv")
        return
    try:
        df = premium_frame(measured[0], reference)
    except ValueError as e:  # the reference text has no tokens
        st.error(escape_markdown(str(e)))
        return
    draw_results(df, labels, reference, key, about, f"token_premium_{stem}.csv")


def reference_picker(codes: list[str], default: str, labels: dict[str, str], key: str) -> str:
    if st.session_state.get(key) not in codes:
        st.session_state[key] = default if default in codes else codes[0]
    return st.selectbox("Reference (premium 1.0)", codes, format_func=lambda c: labels.get(c, c), key=key,
                        persist_state=KEEP)


# -- the page ----------------------------------------------------------------------------------------
st.title("Languages & code")
st.caption("The same message costs a different number of tokens in every language and every tokenizer. The "
           "*token premium* is a language's token count divided by the reference language's count on a text "
           "that says the same thing: 2.0 means twice the price, half the context and twice the steps. *Corpus "
           "metrics* measure each tokenizer on the same texts: fertility, continued words, bytes per token, byte "
           "fallback and Rényi efficiency.")
links.read("languages")
# the four defaults and GPT-4o's (the contrast with GPT-4 is the point of the page); every other
# tokenizer is one click away (loading all thirteen on a first visit took 4-10 s)
st.session_state.setdefault(f"{K}tokenizers", [*default_tokenizers(), "o200k_base"])
st.session_state[f"{K}tokenizers"] = [n for n in st.session_state[f"{K}tokenizers"] if n in all_tokenizer_names()]
names = st.multiselect("Tokenizers", all_tokenizer_names(), format_func=title_of, key=f"{K}tokenizers",
                       persist_state=KEEP)
toks = {n: t for n in names if (t := resolve(n)) is not None}
if not toks:
    st.info("Pick at least one tokenizer.")
    st.stop()

st.session_state.setdefault(f"{K}view", VIEWS[0])
view = st.segmented_control("Measure", VIEWS, key=f"{K}view", required=True, persist_state=KEEP, bind="query-params",
                            help="Token premium: what each language costs against a reference. Corpus metrics: "
                                 "fertility, continued words, bytes per token, byte fallback and Rényi efficiency "
                                 "of each tokenizer on the same texts.")
tabs = links.tabs(TABS, key=f"{K}tab", bind="query-params")
links.write("languages")  # the settings as this run starts with them (the references are drawn in their tabs)

with tabs[0]:
    if tabs[0].open:
        scripts = sorted({lang.script for lang in LANGUAGES.values()})
        st.markdown(f"Five plain sentences written for this app in **{len(LANGUAGES)} languages** and "
                    f"**{len(scripts)} scripts** ({', '.join(scripts)}), one sentence per line, meaning the same "
                    "in every language. Counted with every special-token string as text.")
        labels = {c: f"{lang.name} ({c})" for c, lang in LANGUAGES.items()}
        ref = reference_picker(list(LANGUAGES), "eng", labels, f"{K}ref")
        about = pd.DataFrame({"name": {c: lang.name for c, lang in LANGUAGES.items()},
                              "script": {c: lang.script for c, lang in LANGUAGES.items()}}).rename_axis("language")
        try:
            measured = count(language_texts(), toks)
        except TOKENIZE_ERRORS as e:  # an uploaded split pattern that runs out of time
            st.error(escape_markdown(str(e)))
            st.stop()
        draw(view, measured, {c: lang.name for c, lang in LANGUAGES.items()}, ref, f"{K}langs", about, "languages")
        with st.expander("The parallel text"):
            st.dataframe(pd.DataFrame([{"code": c, "language": lang.name, "script": lang.script,
                                        **{f"sentence {k + 1}": s for k, s in enumerate(lang.sentences)}}
                                       for c, lang in LANGUAGES.items()]), hide_index=True, key=f"{K}texts")
            st.download_button("Download it as TSV (the upload format of *Your corpus*)", as_tsv().encode("utf-8"),
                               "token_lens_parallel.tsv", "text/tab-separated-values", key=f"{K}tsv", on_click="ignore")

with tabs[1]:
    if tabs[1].open:
        st.markdown(f"The same small program, FizzBuzz from 1 to 100, in **{len(PROGRAMS)} programming languages**, "
                    "each in its usual style and indentation (Go's gofmt indents with tabs). The premium here is "
                    "against the Python version.")
        labels = {c: p.name for c, p in PROGRAMS.items()}
        ref = reference_picker(list(PROGRAMS), "python", labels, f"{K}code_ref")
        try:
            measured = count(program_texts(), toks)
        except TOKENIZE_ERRORS as e:
            st.error(escape_markdown(str(e)))
            st.stop()
        draw(view, measured, labels, ref, f"{K}code", None, "code")
        with st.expander("The programs"):
            shown = st.selectbox("Program", list(PROGRAMS), format_func=labels.get, key=f"{K}code_show",
                                 persist_state=KEEP)
            st.code(PROGRAMS[shown].source, language=shown)

with tabs[2]:
    if tabs[2].open:
        st.markdown(
            "Upload **one UTF-8 text file per language**, each named by its language code (`eng.txt`, `fra.txt`, "
            "`pt-BR.txt`), whose lines are parallel sentences; **or one TSV/CSV table** whose header row holds the "
            f"language codes and whose rows are parallel sentences. Up to {MAX_LANGUAGES} languages "
            f"({uploads.upload_size_words()} per file) and "
            f"{MAX_TOTAL_CHARS:,} characters in all (longer texts are cut at a line break, and the page says so). "
            "The *Parallel text* tab offers its own corpus as a TSV to try.")
        files = st.file_uploader("Parallel corpus", type=["txt", "tsv", "csv"], accept_multiple_files=True,
                                 key=f"{K}upload")
        if not files:
            st.info("No files yet.")
        else:
            # read by the one text reader, which also decides "one table or one file per language"
            corpus = uploads.parallel_corpus([(f.name, f.getvalue()) for f in files])
            for p in corpus.notes:
                st.warning(escape_markdown(p))
            codes = [c for c, t in corpus.texts.items() if t.strip()]
            least = 2 if view == VIEWS[0] else 1  # the metrics measure one language too
            if len(codes) < least:
                st.error("The upload holds no text to measure." if least == 1 else
                         "The upload holds fewer than two languages with text; the premium compares at least two "
                         "(the *Corpus metrics* view measures one).")
            else:
                ref = reference_picker(codes, "eng", {}, f"{K}up_ref")
                texts = {c: corpus.texts[c] for c in codes}
                sig = (tuple((f.file_id, f.size) for f in files), tuple((n, id(t)) for n, t in toks.items()))
                done = st.session_state.get(f"{K}up_result")
                if done is None or done[0] != sig:
                    bar = st.progress(0.0, text="Counting tokens…")
                    start = time.perf_counter()

                    def progress(k: int, total: int) -> None:
                        bar.progress(k / total, text=f"{k:,} of {total:,} (language, tokenizer) pairs · "
                                                     f"{time.perf_counter() - start:.1f} s")

                    try:
                        measured = count(texts, toks, progress)
                    except TOKENIZE_ERRORS as e:
                        st.error(escape_markdown(str(e)))
                        st.stop()
                    bar.progress(1.0, text=f"Done: {len(codes)} languages × {len(toks)} tokenizers in "
                                           f"{time.perf_counter() - start:.1f} s")
                    st.session_state[f"{K}up_result"] = done = (sig, measured)
                draw(view, done[1], {}, ref, f"{K}up", None, "upload")
