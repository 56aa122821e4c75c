"""Streamlit's own round trip, the floor of benchmarks/live_speed.py and app_speed.py (issue 32): a components-v2
text box that sends every input at once (no debounce, no send rule of the app's: the quickest a Streamlit
app can hear a keystroke), echoed by a fragment. Nothing drawn from a Streamlit rerun can show a key sooner.

    .venv/bin/python -m streamlit run benchmarks/floor_app.py     # live_speed.py starts it on its own port

The echo (`.echo`) holds the text's first and last 40 characters, so that a key typed at either end shows in
it. Not part of the app. (Until issue 32 the floor held the app's own live box, whose send rule waits between
sends, which made the floor slower than Streamlit's round trip and our ratio look better than a visitor feels.)
"""

import html

import streamlit as st

st.set_page_config(page_title="round-trip floor", layout="wide")

box = st.components.v2.component(
    "floor.box", html='<textarea id="fb" rows="6" cols="80" aria-label="Text"></textarea>',
    js="""export default function({parentElement, setStateValue}) {
      const t = parentElement.querySelector('textarea');
      if (t.dataset.bound) return;
      t.dataset.bound = '1';
      t.addEventListener('input', () => setStateValue('text', t.value));
    }""", isolate_styles=False)


@st.fragment
def live() -> None:
    r = box(key="box", default={"text": ""}, on_text_change=lambda: None)
    txt = (r.text if r is not None else "") or ""
    st.html(f'<div class="echo">{html.escape(txt[:40])}…{html.escape(txt[-40:])}</div>')


live()
