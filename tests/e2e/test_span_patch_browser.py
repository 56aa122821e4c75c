"""Issue 22, in Chromium: the spans component (ui/web/token_spans.js) draws its boxes in lines (one block
element per run of boxes that ends with a line break of the text) and patches its drawing when a newer
model comes (a keystroke, the server's run): (a) the lines on screen are exactly those of model_html's
flat HTML (every box's rectangles equal, at a phone's width and a wide one); (b) a patched drawing is the
DOM a fresh draw of the new model makes, node by node, over edits of every kind; and it keeps the lines
an edit did not touch (the point of patching)."""

from __future__ import annotations

import pytest

from app_pages.kit.widgets import WEB, spans_js
from tests.e2e.conftest import watched_page
from tests.payloads import PAYLOADS
from tokenizers import get_tokenizer
from tokenizers.core.html import CSS, model_html, span_model

pytestmark = pytest.mark.e2e

PROSE = ("The lighthouse keeper counted 1234567 waves.\nSecond line, with  two spaces\tand a tab.\n\n"
         "After an empty line: 안녕하세요, 세계! 👩\u200d👩\u200d👧 <|endoftext|>\r\nCRLF ended that; a lone \r CR "
         "does not.\n" + "=" * 120 + " https://example.com/" + "aGVsbG8gd29ybGQ" * 8 + "\n"
         "def f(x):\n    return x  # indented\n\n\n\nthree empty lines above\n")
TEXTS = [PROSE, "\n\nstarts with line breaks", "no line break at all " * 40, "ends with breaks\n\n\n", "\n",
         PAYLOADS["script"] + "\n" + PAYLOADS.get("endoftext", "<|endoftext|>") + "\n"]

LOAD = """async src => {
  const url = URL.createObjectURL(new Blob([src], {type: 'text/javascript'}));
  window.M = await import(url);
}"""
# every node below the root: tag, attributes sorted, text; for comparing two drawings
SHAPE = """root => { const out = [];
  const walk = (n, depth) => {
    if (n.nodeType === 3) { out.push(depth + ' #' + JSON.stringify(n.data)); return; }
    const attrs = [...n.attributes].map(a => a.name + '=' + JSON.stringify(a.value)).sort().join(' ');
    out.push(depth + ' ' + n.tagName + ' ' + attrs);
    for (const c of n.childNodes) walk(c, depth + 1);
  };
  for (const c of root.childNodes) walk(c, 0);
  return out; }"""
RECTS = """root => { const o = root.getBoundingClientRect();
  return [...root.querySelectorAll('.tl-tok')].map(b => [b.textContent,
    ...[...b.getClientRects()].map(r => [r.left - o.left, r.top - o.top, r.width, r.height].map(x => Math.round(x * 100) / 100))]); }"""


# two panes `w` px wide: `ours` holds the model `m` drawn by token_spans.js (in `root`), `flat` is left empty
PANES = """
  document.body.innerHTML = '';
  const mk = () => { const d = document.createElement('div'); d.style.width = w + 'px';
                     document.body.append(d); return d; };
  const ours = mk(), flat = mk();
  const root = document.createElement('div'); ours.append(root);
  M.draw(root, m);"""


@pytest.fixture
def bare(browser):
    ctx, pg = watched_page(browser, 1200, 900)
    pg.set_content('<!doctype html><html><head><meta charset="utf-8">' + CSS + "</head><body></body></html>")
    pg.evaluate(LOAD, spans_js())
    yield pg
    assert not pg.errors, pg.errors
    ctx.close()


def model(text: str, name: str = "cl100k_base", **kw) -> dict:
    tok = get_tokenizer(name)
    return span_model(text, tok.tokenize(text, disallowed_special=()), rank_of=tok.merge_rank, **kw)


# The same drawing without its lines: every box, line break and wbr back in the spans element itself, as
# token_spans.js drew them before it drew lines (model_html's HTML is that too, parsed: the HTML parser turns a
# segment's lone CR break into a line feed, and token_spans.js writes it as one)
FLAT = """spans => {
  const flat = spans.cloneNode(true);
  for (const soft of [...flat.querySelectorAll('.tl-soft')]) {  // a long line's blocks (token_spans.js cutLines)
    while (soft.firstChild) soft.parentNode.insertBefore(soft.firstChild, soft);
    soft.remove();
  }
  for (const line of [...flat.querySelectorAll('.tl-line')]) {
    const last = line.lastChild;
    while (line.firstChild) flat.insertBefore(line.firstChild, line);
    if (last) flat.insertBefore(document.createElement('wbr'), line);
    line.remove();
  }
  return flat;
}"""


@pytest.mark.parametrize("width", [390, 900])
def test_lines_break_where_the_flat_drawing_breaks(bare, width):
    for name in ("cl100k_base", "gpt2", "mistral_sp"):
        for k, text in enumerate(TEXTS):
            opts = dict(whitespace=k % 2 == 1, owner="t:x" if k % 3 else None, font_size="1.6rem" if k == 2 else None)
            m = model(text, name, **opts)
            got = bare.evaluate("""([m, w]) => {""" + PANES + """
              const spans = root.querySelector('.tl-spans');
              flat.append((%s)(spans));
              const f = flat.querySelector('.tl-spans');
              return {lines: spans.querySelectorAll('.tl-line').length, boxes: spans.querySelectorAll('.tl-tok').length,
                      nflat: f.querySelectorAll(':scope > .tl-tok').length,
                      flat: (%s)(f), ours: (%s)(spans),
                      hf: f.getBoundingClientRect().height, ho: spans.getBoundingClientRect().height};
            }""" % (FLAT, RECTS, RECTS), [m, width])
            assert got["nflat"] == got["boxes"] == len(m["segs"])
            assert got["ours"] == got["flat"], (name, text[:30], width)
            assert got["ho"] == got["hf"]
            if text == PROSE:
                assert got["lines"] >= 6  # drawn in lines, not one block
    # and the lines of model_html's HTML (what notebooks and other pages show), a lone CR included
    m = model(PROSE, "cl100k_base", owner="t:x")
    assert " \r CR" in PROSE
    got = bare.evaluate("""([m, html, w]) => {""" + PANES + """
      flat.innerHTML = html;
      return [(%s)(root.querySelector('.tl-spans')), (%s)(flat.querySelector('.tl-spans'))];
    }""" % (RECTS, RECTS), [m, model_html(m), width])
    assert got[0] == got[1]


def edits() -> list[tuple[str, dict, dict]]:
    """(label, model before, model after): edits a keystroke, a paste or the server's run makes."""
    out = []
    base = PROSE
    for at in (0, 60, len(base) // 2, len(base) - 1, len(base)):
        out.append((f"letter at {at}", model(base, owner="c:x"), model(base[:at] + "Q" + base[at:], owner="c:x")))
    # a page of a long text keeps its number of characters: a letter typed at its start pushes its last one out
    out.append(("letter on a page", model(base[:200], owner="c:x"), model("Q" + base[:199], owner="c:x")))
    # a page of a text that repeats itself: its first line is also found far away, where it must not be taken from
    twice = base + base
    out.append(("letter removed, text repeats", model("Q" + twice[:-3], owner="c:x"), model(twice[:-2], owner="c:x")))
    out.append(("new line", model(base, owner="c:x"), model(base[:30] + "\n" + base[30:], owner="c:x")))
    out.append(("line joined", model(base, owner="c:x"), model(base.replace("\n", " ", 1), owner="c:x")))
    out.append(("deleted all", model(base, owner="c:x"), model("", owner="c:x")))
    out.append(("from empty", model("", owner="c:x"), model(base, owner="c:x")))
    out.append(("pinned", model(base, owner="c:x"), model(base, owner="c:x", pinned=5)))
    out.append(("pin moved", model(base, owner="c:x", pinned=5), model("Q" + base, owner="c:x", pinned=40)))
    out.append(("diff marks", model(base, owner="c:x"), model(base, owner="c:x", marks={0, 10, 20})))
    out.append(("alternating", model(base, alternating=True), model("Q" + base, alternating=True)))
    out.append(("whitespace marks", model(base), model(base, whitespace=True)))
    out.append(("owner dropped", model(base, owner="c:x"), model(base)))
    out.append(("owner taken", model(base), model(base, owner="c:y")))
    out.append(("flip, font, label", model(base, owner="c:x"),
                model(base, owner="c:x", flip_tips=True, font_size="1.3rem", label="Other")))
    out.append(("another tokenizer", model(base, owner="c:x"), model(base, "gpt2", owner="c:x")))
    out.append(("page start", model(base, owner="c:x"), model(base, owner="c:x", start=100)))
    out.append(("sentencepiece", model(base, "mistral_sp", owner="c:x"), model("Q " + base, "mistral_sp", owner="c:x")))
    return out


@pytest.mark.parametrize("label,before,after", edits(), ids=[e[0] for e in edits()])
def test_a_patched_drawing_is_a_fresh_drawing(bare, label, before, after):
    got = bare.evaluate("""([a, b]) => {
      document.body.innerHTML = '';
      const patched = document.createElement('div'), fresh = document.createElement('div');
      document.body.append(patched, fresh);
      M.draw(patched, a);
      const kept = [...patched.querySelectorAll('.tl-line')], boxes = [...patched.querySelectorAll('.tl-tok')];
      // token_clicks.js pins a box itself (and says so), and moves the tab stop: the next drawing still follows
      // the model
      const tok = patched.querySelectorAll('.tl-tok')[3];
      if (tok) { tok.classList.add('tl-pin'); tok.setAttribute('aria-selected', 'true'); tok.tabIndex = -1; }
      globalThis.__tlLive.touched = (globalThis.__tlLive.touched || 0) + 1;
      M.draw(patched, b);
      M.writePositions();  // the boxes' positions are written after the frame (or when token_clicks.js reads one)
      M.draw(fresh, b);
      const now = [...patched.querySelectorAll('.tl-line')];
      const nowBoxes = [...patched.querySelectorAll('.tl-tok')];
      return {patched: (%s)(patched), fresh: (%s)(fresh), kept: now.filter(l => kept.includes(l)).length,
              lines: now.length, keptBoxes: nowBoxes.filter(b => boxes.includes(b)).length, boxes: nowBoxes.length};
    }""" % (SHAPE, SHAPE), [before, after])
    assert got["patched"] == got["fresh"], label
    if label.startswith("letter ") or label in ("pinned", "pin moved", "diff marks", "alternating", "page start"):
        assert got["kept"] >= got["lines"] - 2, (label, got["kept"], got["lines"])  # only the edited line rebuilt
    if label.startswith("letter at"):  # and of the edited line only the boxes the letter changed (patchLine)
        assert got["keptBoxes"] >= got["boxes"] - 3, (label, got["keptBoxes"], got["boxes"])


def test_a_focused_box_keeps_the_focus_and_the_tab_stop(bare):
    a, b = model(PROSE, owner="c:x"), model(PROSE + "Q", owner="c:x", pinned=0)
    got = bare.evaluate("""([a, b]) => {
      document.body.innerHTML = '';
      const root = document.createElement('div'); document.body.append(root);
      M.draw(root, a);
      const tok = root.querySelectorAll('.tl-tok')[4];
      tok.tabIndex = 0; tok.focus();
      M.draw(root, b);
      return [document.activeElement === tok, [...root.querySelectorAll('[tabindex]')].map(t => t.dataset.pos)];
    }""", [a, b])
    assert got == [True, ["4"]]


def test_a_chain_of_drawings_keeps_one_tab_stop_on_the_pin_or_the_first_box(bare):
    """Drawings one after another with nothing else touching the boxes (token_spans.js then keeps the tab stop and
    the pin it set, without looking through the DOM): each is a fresh drawing of its model, node by node (one
    tabindex, on the pinned box, else the first)."""
    base = PROSE[:300]
    chain = [model(base, owner="c:x"), model(base, owner="c:x", pinned=5), model("Q" + base, owner="c:x", pinned=40),
             model("Q" + base, owner="c:x", pinned=0), model("QZ" + base, owner="c:x"), model(base, owner="c:x", pinned=3),
             model(base[:40], owner="c:x", pinned=3), model(base, owner="c:x"), model("", owner="c:x"),
             model(base, owner="c:x", pinned=7)]
    got = bare.evaluate("""chain => {
      document.body.innerHTML = '';
      const patched = document.createElement('div'), fresh = document.createElement('div');
      document.body.append(patched, fresh);
      const out = [];
      for (const m of chain) {
        M.draw(patched, m);
        M.writePositions();
        fresh.replaceChildren();
        fresh.tlView = null;
        M.draw(fresh, m);
        out.push([(%s)(patched), (%s)(fresh), [...patched.querySelectorAll('[tabindex]')].map(t => t.dataset.pos)]);
      }
      return out;
    }""" % (SHAPE, SHAPE), chain)
    for k, (patched, fresh, stops) in enumerate(got):
        assert patched == fresh, k
        assert len(stops) == (1 if chain[k]["segs"] else 0), (k, stops)
    assert [g[2] for g in got][:4] == [["0"], ["5"], ["40"], ["0"]]


def test_positions_are_written_after_the_frame_and_before_a_click_reads_one(bare):
    """The boxes' data-pos after an edit are written after the frame that shows it (token_spans.js
    writePositions), and at once when token_clicks.js is about to read one: a click right after a
    keystroke pins the token's position in the new text."""
    a, b = model("one\ntwo\nthree six", owner="c:x"), model("zero one\ntwo\nthree six", owner="c:x")
    bare.evaluate(LOAD.replace("window.M =", "window.C ="), (WEB / "token_clicks.js").read_text(encoding="utf-8"))
    got = bare.evaluate("""async ([a, b]) => {
      document.body.innerHTML = '';
      const root = document.createElement('div'); document.body.append(root);
      const picks = [];
      C.default({data: {prefix: 'c:', unpin: false}, parentElement: document.body,
                 setTriggerValue: (k, v) => picks.push(v)});
      M.draw(root, a);
      M.draw(root, b);  // "zero" comes first: the boxes of the lines kept move one on
      const six = [...root.querySelectorAll('.tl-tok')].find(t => t.textContent === ' six');
      six.click();  // before any frame
      const clicked = picks[0].pos;
      M.draw(root, a);
      await new Promise(r => requestAnimationFrame(() => setTimeout(r, 50)));
      return [clicked, [...root.querySelectorAll('.tl-tok')].map(t => +t.dataset.pos)];
    }""", [a, b])
    assert got[0] == next(seg[3] for seg in b["segs"] if seg[4] == [["", " six"]])
    assert got[1] == [seg[3] for seg in a["segs"]]


# Soft blocks (token_spans.js cutLines): a line of the text longer than LONG boxes, cut where the browser wrapped it
LONG_LINES = ["no line break at all " * 200, ("Tokenization is at the heart of much weirdness. " * 60 + "안녕하세요, 세계! "
              + "👩\u200d👩\u200d👧 " * 20 + "=" * 300 + " " + "aGVsbG8gd29ybGQ" * 30 + " ") * 2 + "\nand a short line\n"]
UNWRAP = """root => { const c = root.cloneNode(true);
  for (const soft of [...c.querySelectorAll('.tl-soft')]) {
    while (soft.firstChild) soft.parentNode.insertBefore(soft.firstChild, soft);
    soft.remove();
  }
  return c; }"""


def soft_edits(text: str) -> list[tuple[str, str]]:
    n = len(text)
    return [("letter at the end", text + "Q"), ("letters at the end", text + " QZ"), ("deleted at the end", text[:-3]),
            ("letter in the middle", text[:n // 2] + "Q" + text[n // 2:]),
            ("deleted in the middle", text[:n // 3] + text[n // 3 + 25:]), ("letter at the start", "Q" + text),
            ("paste", text[:n // 4] + "pasted " * 80 + text[n // 4:])]


@pytest.mark.parametrize("width", [390, 900])
def test_soft_blocks_break_where_the_flat_drawing_breaks(bare, width):
    """A long line cut into soft blocks puts every box where the flat drawing does (the rectangles equal), and
    after every kind of edit too, before it is cut again and after; an edit at the end keeps the blocks before it."""
    for name in ("cl100k_base", "mistral_sp"):
        for text in LONG_LINES:
            for label, after in soft_edits(text):
                a, b = model(text, name, owner="c:x"), model(after, name, owner="c:x")
                got = bare.evaluate("""([a, b, w]) => {""" + PANES.replace("M.draw(root, m);", "") + """
                  const rects = () => { flat.replaceChildren((%s)(root.querySelector('.tl-spans')));
                    return [(%s)(root.querySelector('.tl-spans')), (%s)(flat.querySelector('.tl-spans'))]; };
                  M.draw(root, a);
                  M.cutLines(root.tlView);
                  const soft = [...root.querySelectorAll('.tl-soft')];
                  const cut = rects();
                  M.draw(root, b);
                  const patched = rects(), kept = [...root.querySelectorAll('.tl-soft')].filter(s => soft.includes(s)).length;
                  M.writePositions();
                  const fresh = document.createElement('div'); document.body.append(fresh); M.draw(fresh, b);
                  const same = JSON.stringify((%s)((%s)(root))) === JSON.stringify((%s)(fresh));
                  fresh.remove();
                  M.cutLines(root.tlView);
                  return {blocks: soft.length, cut, patched, again: rects(), kept, same,
                          blocksAgain: root.querySelectorAll('.tl-soft').length};
                }""" % (FLAT, RECTS, RECTS, SHAPE, UNWRAP, SHAPE), [a, b, width])
                where = (name, label, width)
                assert got["blocks"] >= 3, where
                for k in ("cut", "patched", "again"):
                    assert got[k][0] == got[k][1], (k,) + where
                assert got["same"], where  # but for its blocks, the DOM a fresh drawing makes
                assert got["blocksAgain"] >= 3, where
                if label.endswith("at the end"):
                    assert got["kept"] >= got["blocks"] - 2, where


def test_soft_blocks_follow_a_new_width_and_keep_the_focus(bare):
    """The column gets narrower (a phone turned, the sidebar opened): the blocks are joined and cut again, and the
    boxes still sit where the flat drawing puts them; a focused box keeps the focus while its line is cut."""
    m = model(LONG_LINES[0], owner="c:x")
    got = bare.evaluate("""async ([m, w]) => {""" + PANES + """
      const tok = root.querySelectorAll('.tl-tok')[700];
      tok.tabIndex = 0; tok.focus();
      M.cutLines(root.tlView);
      const focused = document.activeElement === tok, before = root.querySelectorAll('.tl-soft').length;
      ours.style.width = '390px'; flat.style.width = '390px';
      await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
      M.cutLines(root.tlView);
      flat.replaceChildren((%s)(root.querySelector('.tl-spans')));
      return {focused, before, after: root.querySelectorAll('.tl-soft').length,
              ours: (%s)(root.querySelector('.tl-spans')), flat: (%s)(flat.querySelector('.tl-spans'))};
    }""" % (FLAT, RECTS, RECTS), [m, 900])
    assert got["focused"]
    assert got["after"] > got["before"] >= 3  # narrower: more rows, more blocks
    assert got["ours"] == got["flat"]
