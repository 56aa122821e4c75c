"""A test-only Streamlit script: every payload of tests/payloads.py through every kind of Markdown the
app uses (st.markdown, a caption, an alert, a widget label and its help, a code span) and a plotly
chart, escaped with the app's helpers, so the browser test can read what Streamlit really renders.
`?raw=1` renders them unescaped: the test's proof that it can tell an injection when it sees one."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import plotly.graph_objects as go  # noqa: E402
import streamlit as st  # noqa: E402

from tests.payloads import PAYLOADS  # noqa: E402
from ui.figures import plotly_text  # noqa: E402
from ui.formatting import escape_markdown, md_inline_code  # noqa: E402

if st.query_params.get("boom") == "1":  # an uncaught exception: .streamlit/config.toml decides what shows
    raise RuntimeError(f"secret detail: {ROOT}/tests/e2e/markdown_probe_app.py")

raw = st.query_params.get("raw") == "1"
esc = (lambda s: s) if raw else escape_markdown
code = (lambda s: f"`{s}`") if raw else (lambda s: md_inline_code(s, limit=10_000))
ptext = (lambda s: s) if raw else plotly_text

for i, (name, text) in enumerate(PAYLOADS.items()):
    with st.container(key=f"md_{i}"):
        st.markdown(esc(text))
    with st.container(key=f"caption_{i}"):
        st.caption(esc(text))
    with st.container(key=f"alert_{i}"):
        (st.error, st.warning, st.info, st.success)[i % 4](esc(text))
    with st.container(key=f"label_{i}"):
        st.text_input(esc(text), key=f"input_{i}", help=esc(text))
    with st.container(key=f"code_{i}"):
        st.markdown(code(text))

with st.container(key="chart"):
    names = list(PAYLOADS)
    fig = go.Figure(go.Bar(x=[ptext(t) for t in PAYLOADS.values()], y=list(range(1, len(names) + 1)),
                           hovertext=[ptext(t) for t in PAYLOADS.values()]))
    fig.update_layout(title=ptext(PAYLOADS["md_link"] + " " + PAYLOADS["span_div_breakout"]), height=500)
    st.plotly_chart(fig, key="chart_fig")
st.markdown("done", help=None)
with st.container(key="done"):
    st.write("all drawn")
