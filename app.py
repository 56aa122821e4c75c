"""Token Lens: the entry point is a router and a picture frame, nothing else."""

import streamlit as st

from app_pages.kit import nested_fragments
from app_pages.kit.shared import clean_all_state_texts, notice_area
from service import machine, visits
from ui.a11y import PAGE_CSS

st.set_page_config(page_title="Token Lens", page_icon="🔍", layout="wide")
st.html(PAGE_CSS)  # contrast Streamlit's theme misses (ui/a11y.py)

pg = st.navigation([
    st.Page("app_pages/compare.py", title="Compare", icon="🔍", default=True),
    st.Page("app_pages/bpe_lab.py", title="BPE Lab", icon="🧪", url_path="bpe-lab"),
    st.Page("app_pages/inside.py", title="Inside a token", icon="🔬", url_path="inside"),
    st.Page("app_pages/quirks.py", title="Quirks", icon="🃏", url_path="quirks"),
    st.Page("app_pages/languages.py", title="Languages", icon="🌐", url_path="languages"),
    st.Page("app_pages/sentencepiece_lab.py", title="SentencePiece Lab", icon="🧩", url_path="sentencepiece"),
    st.Page("app_pages/algorithms.py", title="Algorithms", icon="⚖️", url_path="algorithms"),
    st.Page("app_pages/vocab_diff.py", title="Vocabulary diff", icon="🆚", url_path="vocab-diff"),
])

with st.sidebar:
    st.markdown("### 🔍 Token Lens")
    st.caption("See how text becomes tokens: spans, ids and counts, side by side. "
               "Every vocabulary is read from local files, provisioned at set-up (or by the server at first use).")
    st.caption(machine.one_line(machine.look()))  # what set-up's last block says, in one line

nested_fragments.install()  # once per process: a busy server must not blank a page with a nested fragment
visits.watch()  # once a visit is over (its tab closed a minute ago), what it held is released
clean_all_state_texts()  # before any widget: no text in state may hold a lone surrogate
notice_area()  # downloads on first use and missing vocabularies are said here, above the page
pg.run()
