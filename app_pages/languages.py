"""Languages & code: what the same message costs in tokens, in 26 languages, in 8 programming
languages, and in a parallel corpus of your own."""

import time

import pandas as pd
import streamlit as st

from app_pages import links
from app_pages.links import KEEP
from app_pages.shared import TOKENIZE_ERRORS, all_tokenizer_names, resolve, title_of
from tokenizers import REGISTRY, Tokenizer, default_tokenizers
from tokenizers.analysis.languages import MAX_LANGUAGES, MAX_TOTAL_CHARS, flat, token_premium
from tokenizers.analysis.parallel import LANGUAGES, PROGRAMS, as_tsv, language_texts, program_texts
from ui import export
from ui.figures import grouped_bars, table_heatmap
from ui.formatting import escape_markdown
from service import uploads

K = "languages_"
METRICS = {"Token premium (÷ reference)": "premium", "Tokens": "tokens", "Characters per token": "chars_per_token",
           "Bytes per token": "bytes_per_token"}
TABS = ["Parallel text", "Programs", "Your corpus"]


@st.cache_data(max_entries=32, show_spinner="Counting tokens…")
def registry_premium(texts: tuple[tuple[str, str], ...], names: tuple[str, ...], reference: str) -> pd.DataFrame:
    return token_premium(dict(texts), list(names), reference)


def premium(texts: dict[str, str], toks: dict[str, Tokenizer], reference: str) -> pd.DataFrame:
    """Cached for registry tokenizers; a visitor's own tokenizers are counted on each run."""
    if all(n in REGISTRY for n in toks):
        return registry_premium(tuple(texts.items()), tuple(toks), reference)
    return by_key(token_premium(texts, list(toks.values()), reference), toks)


def by_key(df: pd.DataFrame, toks: dict[str, Tokenizer]) -> pd.DataFrame:
    """Columns named by the page's keys for the tokenizers (a Tokenizer's own .name may differ)."""
    return df.rename(columns={t.name: n for n, t in toks.items()}, level="tokenizer")


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
    st.plotly_chart(grouped_bars(table, metric_label, reference_line=1.0 if metric == "premium" else None),
                    key=f"{key}_bars")
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
    st.download_button("Download the table (CSV)", export.frame_csv(out).encode("utf-8"), file_name, "text/csv",
                       key=f"{key}_csv")


def reference_picker(codes: list[str], default: str, labels: dict[str, str], key: str) -> str:
    if st.session_state.get(key) not in codes:
        st.session_state[key] = default if default in codes else codes[0]
    return st.selectbox("Reference (premium 1.0)", codes, format_func=lambda c: labels.get(c, c), key=key,
                        persist_state=KEEP)


# -- the page ----------------------------------------------------------------------------------------
st.title("Languages & code")
st.caption("The same message costs a different number of tokens in every language and every tokenizer. The "
           "*token premium* is a language's token count divided by the reference language's count on a text "
           "that says the same thing: 2.0 means twice the price, half the context and twice the steps.")
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

tabs = links.tabs(TABS, key=f"{K}tab", bind="query-params")

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
            df = premium(language_texts(), toks, ref)
        except TOKENIZE_ERRORS as e:  # an uploaded split pattern that runs out of time
            st.error(escape_markdown(str(e)))
            st.stop()
        draw_results(df, {c: lang.name for c, lang in LANGUAGES.items()}, ref, f"{K}langs", about,
                     "token_premium_languages.csv")
        with st.expander("The parallel text"):
            st.dataframe(pd.DataFrame([{"code": c, "language": lang.name, "script": lang.script,
                                        **{f"sentence {k + 1}": s for k, s in enumerate(lang.sentences)}}
                                       for c, lang in LANGUAGES.items()]), hide_index=True, key=f"{K}texts")
            st.download_button("Download it as TSV (the upload format of *Your corpus*)", as_tsv().encode("utf-8"),
                               "token_lens_parallel.tsv", "text/tab-separated-values", key=f"{K}tsv")

with tabs[1]:
    if tabs[1].open:
        st.markdown(f"The same small program, FizzBuzz from 1 to 100, in **{len(PROGRAMS)} programming languages**, "
                    "each in its usual style and indentation (Go's gofmt indents with tabs). The premium here is "
                    "against the Python version.")
        labels = {c: p.name for c, p in PROGRAMS.items()}
        ref = reference_picker(list(PROGRAMS), "python", labels, f"{K}code_ref")
        try:
            df = premium(program_texts(), toks, ref)
        except TOKENIZE_ERRORS as e:
            st.error(escape_markdown(str(e)))
            st.stop()
        draw_results(df, labels, ref, f"{K}code", None, "token_premium_code.csv")
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
            f"({uploads.size_words()} per file) and "
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
            if len(codes) < 2:
                st.error("The upload holds fewer than two languages with text; the premium compares at least two.")
            else:
                ref = reference_picker(codes, "eng", {}, f"{K}up_ref")
                texts = {c: corpus.texts[c] for c in codes}
                sig = (tuple((f.file_id, f.size) for f in files), tuple((n, id(t)) for n, t in toks.items()), ref)
                done = st.session_state.get(f"{K}up_result")
                if done is None or done[0] != sig:
                    bar = st.progress(0.0, text="Counting tokens…")
                    start = time.perf_counter()

                    def progress(k: int, total: int) -> None:
                        bar.progress(k / total, text=f"{k:,} of {total:,} (language, tokenizer) pairs · "
                                                     f"{time.perf_counter() - start:.1f} s")

                    try:
                        df = by_key(token_premium(texts, list(toks.values()), ref, progress=progress), toks)
                    except TOKENIZE_ERRORS as e:
                        st.error(escape_markdown(str(e)))
                        st.stop()
                    bar.progress(1.0, text=f"Done: {len(codes)} languages × {len(toks)} tokenizers in "
                                           f"{time.perf_counter() - start:.1f} s")
                    st.session_state[f"{K}up_result"] = done = (sig, df)
                draw_results(done[1], {}, ref, f"{K}up", None, "token_premium_upload.csv")
