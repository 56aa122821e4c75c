"""Interactive pieces built with Streamlit's components v2 (HTML, CSS and JS in the page itself, no
iframe): a text box that updates as you type, clicks on token spans, the Lab's Play button, and the
"text with boundaries" view. Their JS and CSS live in ui/web/. User text reaches the DOM only as a
textarea's value or an element's textContent, never as HTML."""

from __future__ import annotations

import json
from pathlib import Path

import streamlit as st

from ui.spans import CSS, segments

WEB = Path(__file__).resolve().parent.parent.parent / "ui" / "web"


def _asset(name: str) -> str:
    return (WEB / name).read_text(encoding="utf-8")


LIVE_LIMIT = 20_000      # UTF-8 bytes sent while typing; longer texts wait for Apply
LIVE_DEBOUNCE_MS = 150   # the pause after the last keystroke before the text is sent
# ... when every column that follows the box tokenizes in the browser (token_spans with `live`): the spans
# follow each keystroke there, and the server runs (counts, chart, decoder) once typing pauses this long
LIVE_IDLE_MS = 1000

_live_text = st.components.v2.component(
    "token_lens.live_text",
    html='<div class="tl-live"><label class="tl-live-label"></label><textarea spellcheck="false"></textarea>'
         '<div class="tl-live-bar"><button class="tl-live-apply" type="button" hidden>Apply</button>'
         '<span class="tl-live-status" aria-live="polite"></span></div>'
         '<div class="tl-live-engine" aria-live="polite"></div></div>',
    css=_asset("live_text.css"), js=_asset("live_text.js"), isolate_styles=False)  # a page's own textarea

_token_clicks = st.components.v2.component("token_lens.token_clicks", js=_asset("token_clicks.js"))

_sidebar = st.components.v2.component("token_lens.sidebar", js=_asset("sidebar.js"))

_lab_player = st.components.v2.component(
    "token_lens.lab_player",
    html='<div class="tl-player"><button type="button">▶ Play</button><label>Speed <select>'
         '<option value="1.5">slow</option><option value="0.7" selected>medium</option>'
         '<option value="0.3">fast</option></select></label></div>',
    css=(".tl-player{display:flex;gap:1rem;align-items:center;font-family:var(--st-font,sans-serif);"
         "color:var(--st-text-color,inherit);font-size:.9rem}"
         ".tl-player button{font:inherit;padding:.35rem 1rem;border-radius:.5rem;cursor:pointer;"
         "border:1px solid var(--st-border-color,#d1d5db);background:var(--st-secondary-background-color,#f0f2f6);"
         "color:inherit;min-width:8.5rem}"
         ".tl-player select{font:inherit;margin-left:.4rem;padding:.2rem;border-radius:.35rem;color:inherit;"
         "background:var(--st-secondary-background-color,#f0f2f6);border:1px solid var(--st-border-color,#d1d5db)}"),
    js=_asset("lab_player.js"))

_boundaries = st.components.v2.component(
    "token_lens.boundaries",
    html='<div class="tl-bview"><div class="tl-btext"></div><div class="tl-bmarks"></div></div>',
    css=_asset("boundaries.css"), js=_asset("boundaries.js"))


def spans_js() -> str:
    """The spans component's script: the in-browser span builder (live_spans.js), then the drawing."""
    return _asset("live_spans.js") + "\n" + _asset("token_spans.js")


_token_spans = st.components.v2.component(
    "token_lens.token_spans", html='<div class="tl-spans-root"></div>',
    css=CSS.replace("<style>", "").replace("</style>", ""), js=spans_js(), isolate_styles=False)


def token_spans(key: str, model: dict, live: dict | None = None) -> None:
    """Token spans from ui.spans.span_model, drawn by the browser with DOM calls (for pages that
    redraw them on every keystroke; st.html(render_spans(...)) draws the same from HTML).

    `live` makes them follow a live_text box as the person types: {"source": the box's key, "assets":
    service.browser_assets.live_assets(name) or None (this column waits for the server), "head": the
    column heading's data-tokenizer (its counts follow too), "parse", "whitespace", "alternating" (the
    model's options), "win": [characters per page, page] or None for the whole text, "limit": the UTF-8
    bytes above which the server cuts the text}. The server's next run draws them again, from `model`:
    span_model's, or for a column the box reports the browser draws (`reported`) a compact one, {"owner",
    "flip", "font", "label", "marks", "pinned"} without segments, which the browser draws from its own
    encode of the box's text (live_spans.js buildModel; it asks the box to report again if it cannot)."""
    if live is not None:
        model = {**model, "live": live}
    # as JSON bytes made once: given a dict, Streamlit would serialize it twice (payload and identity)
    _token_spans(key=key, data=json.dumps(model, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def component_key(*parts: str) -> str:
    """A component key made of names someone chose (a tokenizer named after an uploaded file): a
    components v2 key may not hold "__", so each part goes in as hex."""
    return "_".join(p.encode("utf-8").hex() if not p.isidentifier() or "__" in p else p for p in parts)


def _noop() -> None:
    pass


def live_text(key: str, *, label: str, placeholder: str = "", height: int = 150,
              font_size: str | None = None) -> str:
    """A text box bound to st.session_state[key] (the text) that sends edits while the person types.

    Python changes the text by assigning st.session_state[key] and calling `bump(key)`; the box then
    shows the new text. Edits the box sends are stamped with the revision they were typed on, so an
    edit that crosses such a change on the wire is dropped rather than undoing it. A run that takes an
    edit from the box finds its caret (in characters) in st.session_state[key + "_caret"], for the page
    to pop. Each edit also says which spans columns following the box this browser draws
    (`reported(key)`)."""
    rev_key, box_key = f"{key}_rev", f"{key}_box"
    st.session_state.setdefault(key, "")
    st.session_state.setdefault(rev_key, 0)

    def on_text() -> None:  # before the script runs, so the box's data already holds what it sent
        take_text(key, (st.session_state.get(box_key) or {}).get("text"), "box")

    result = _live_text(key=box_key, data={"value": st.session_state[key], "rev": st.session_state[rev_key],
                                           "limit": LIVE_LIMIT, "debounce": LIVE_DEBOUNCE_MS, "idle": LIVE_IDLE_MS,
                                           "key": key, "label": label,
                                           "placeholder": placeholder, "height": height, "font_size": font_size},
                        on_text_change=on_text)
    take_text(key, result.get("text"), "box")
    return st.session_state[key]


def take_text(key: str, sent, via: str) -> bool:
    """A text the live box for `key` sent (itself, or through a text_sink: `via`) into st.session_state[key],
    with its caret and report, unless it was typed on an older revision (Python changed the text since) or
    was taken already: each way keeps the number of the last send it took, so the state a component keeps
    from an earlier send is not taken again after a newer one came the other way."""
    rev_key, seen_key = f"{key}_rev", f"{key}_seq_{via}"
    if not (isinstance(sent, dict) and sent.get("rev") == st.session_state.get(rev_key, 0)
            and sent.get("seq") != st.session_state.get(seen_key) and isinstance(sent.get("value"), str)):
        return False
    st.session_state[seen_key] = sent["seq"]
    st.session_state[key] = sent["value"]
    st.session_state[f"{key}_browser"] = browser_heads(sent.get("browser"))
    caret = sent.get("caret")  # where the person typed, in characters: the page of spans follows it
    if isinstance(caret, int) and not isinstance(caret, bool):
        st.session_state[f"{key}_caret"] = caret
    return True


_text_sink = st.components.v2.component("token_lens.text_sink", js=_asset("text_sink.js"))


def text_sink(key: str, light: bool) -> None:
    """Where the live box for `key` sends a pause's text instead of to itself (ui/web/text_sink.js), while
    `light`: the fragment this is drawn in then runs alone, not the box's. For a page whose columns all
    draw in the browser, so that a pause runs only what needs Python (issue 22: Compare's counts)."""
    sink_key = f"{key}_sink"

    def on_text() -> None:
        take_text(key, (st.session_state.get(sink_key) or {}).get("text"), "sink")

    result = _text_sink(key=sink_key, data={"source": key, "light": light}, on_text_change=on_text, height=0)
    take_text(key, result.get("text"), "sink")


MAX_REPORTED = 64  # columns a live box may report (Compare shows far fewer); a longer report is no report


def browser_heads(report) -> frozenset[str]:
    """The columns a live box says this browser draws itself (live_text.js sends their heads, the
    `live["head"]` of token_spans, with each text): a list of short strings, or nothing. Only a hint,
    kept in st.session_state[f"{key}_browser"]: a page sends such a column a compact payload only when
    it has browser assets (app_pages/compare.py), and every other column its full spans."""
    if not isinstance(report, list) or len(report) > MAX_REPORTED:
        return frozenset()
    return frozenset(h for h in report if isinstance(h, str) and len(h) <= 256)


def reported(key: str) -> frozenset[str]:
    """What the live box `key` last reported (browser_heads); nothing before its first send."""
    return st.session_state.get(f"{key}_browser", frozenset())


def bump(key: str) -> None:
    """Tell the live box for `key` that Python set a new text."""
    st.session_state[f"{key}_rev"] = st.session_state.get(f"{key}_rev", 0) + 1


def token_clicks(key: str, prefix: str, *, unpin: bool = False) -> dict | None:
    """{"owner", "pos"} on the run after a click on a token of spans rendered with an owner that
    starts with `prefix` (or Enter or Space on the focused token), else None. With `unpin`, Escape on
    a token asks to unpin: {"owner", "pos": None}. The keyboard is ui/web/token_clicks.js's."""
    result = _token_clicks(key=key, data={"prefix": prefix, "unpin": unpin}, on_pick_change=_noop, height=0)
    pick = result.get("pick")
    if not isinstance(pick, dict) or not isinstance(pick.get("owner"), str):
        return None
    if isinstance(pick.get("pos"), int) or (unpin and pick.get("pos") is None):
        return {"owner": pick["owner"], "pos": pick.get("pos")}
    return None


def presentation_sidebar(key: str, present: bool) -> None:
    """Collapse the app's sidebar when `present` turns on (with Streamlit's own control, so its expand
    button stays), and expand it again when it turns off if this collapsed it (ui/web/sidebar.js).
    Streamlit's `initial_sidebar_state` cannot do it: it is ignored once a visitor has toggled the
    sidebar, whose state the browser then remembers."""
    _sidebar(key=key, data={"present": present}, height=0)


def lab_player(key: str, data: dict, *, on_tick, on_restart) -> None:
    """Play / Pause with a speed choice. `on_tick` runs (before the script) each time a step is due,
    `on_restart` when Play is pressed at the end. data: {"step", "n"}."""
    _lab_player(key=key, data=data, on_tick_change=on_tick, on_restart_change=on_restart)


def utf16_offsets(text: str, char_offsets) -> list[int]:
    """Code point offsets -> JavaScript string offsets (characters above U+FFFF count twice)."""
    out, extra, last = [], 0, 0
    for c in sorted(char_offsets):
        extra += sum(1 for ch in text[last:c] if ord(ch) > 0xFFFF)
        last = c
        out.append(c + extra)
    return out


def boundaries_view(key: str, text: str, tokens, *, font_size: str | None = None) -> None:
    """The text shaped as a browser shapes it, with a tick above and below the line at each token
    boundary (never over a letter)."""
    segs = segments(text, tokens)
    if not segs:
        return
    c0, c1 = segs[0].char_span[0], segs[-1].char_span[1]
    shown = text[c0:c1]
    cuts = [seg.char_span[0] - c0 for seg in segs[1:]]
    _boundaries(key=key, data={"text": shown, "cuts": utf16_offsets(shown, cuts), "font_size": font_size})
