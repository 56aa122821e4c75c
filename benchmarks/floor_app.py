"""Streamlit's own round trip, the floor of benchmarks/app_speed.py (issue 22): a page whose fragment
holds the app's live text box (app_pages.widgets.live_text, the same JS and send rule as Compare's) and
echoes what it sends back as text. A keystroke's time to the echo on screen is what any server-drawn
view pays at least: the box sends, Streamlit reruns the fragment, the browser applies the delta.

    .venv/bin/python -m streamlit run benchmarks/floor_app.py     # app_speed.py starts it on its own port

The box's live limit is lifted here (the floor is live at every size measured, 100 KB included), and
nothing else differs from Compare's box. Not part of the app.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import streamlit as st  # noqa: E402

from app_pages import widgets  # noqa: E402

widgets.LIVE_LIMIT = 10_000_000  # read at each call: the box stays live at 100 KB

st.set_page_config(page_title="round-trip floor", layout="wide")


@st.fragment
def echo() -> None:
    text = widgets.live_text("floor_text", label="Text")
    st.text(text)  # the echo: plain text, as st.text draws it


echo()
