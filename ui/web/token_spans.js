// Token spans built with DOM calls from ui.spans.span_model's data (the same boxes, classes, tooltips
// and roles as model_html's HTML): no HTML parsing or sanitizing of a big string on every
// keystroke, and user text only ever set as text nodes and attribute values.
// For screen readers and keyboards (see model_html): clickable spans (an owner) are a listbox of
// options with one tab stop (the pinned token, else the first; token_clicks.js moves it with the
// arrows); other spans are a group of named images.
// With `live` in the data (Compare), the spans also follow the live text box as the person types: the
// box's text is encoded in the browser by the WebAssembly core and drawn from buildModel (live_spans.js,
// which this file follows in the component's script), until the server's next run draws them again.
//
// Lines: the boxes are drawn in block elements (div.tl-line, role none), one per run of boxes that ends with a
// line break of the text (a segment whose trailing breaks hold "\n"), so that a change re-lays out its own lines
// and not the whole column (Chromium lays out one inline block whole: 30-40 ms for a column of 3,500 boxes, on
// every keystroke). A line of the text ends there anyway, so the lines on screen are the same
// (tests/e2e/test_span_patch_browser.py holds every box's rectangles equal to the same boxes drawn flat).
// Patching: a newer model of the same spans keeps the lines whose boxes hold the same content (ids, text,
// tooltip, name), sets only their classes and positions where they changed, and builds the others again: a
// keystroke rebuilds the line it is on. The result is the DOM a fresh draw of the new model makes (the same test
// holds them equal, node by node), but for the focus: a focused box that is kept stays focused and keeps the tab
// stop; and the boxes' data-pos are written just after the frame (writePositions).
// A column the live box reported as drawn here gets no spans from the server, only a compact payload (the
// options, the red edges, the pinned token), and is drawn from the browser's own encode.

// Each line is painted apart (contain: paint): a keystroke repaints and pre-paints its own lines, not every box of
// the column (Chromium re-recorded every box in view and walked every one before painting: 30-40 ms a keystroke
// with four columns at 10 KB, more than the script's time). overflow-clip-margin keeps what reaches a little past
// a line (a pin's or a group's outline); a hovered or focused line is not contained, so that its tooltip and focus
// ring show whole, above the lines after it. Here, not in the spans CSS: only this drawing has lines
const LINE_CSS = ".tl-line,.tl-soft{contain:paint;overflow-clip-margin:8px}"
  + ".tl-line:hover,.tl-line:focus-within,.tl-soft:hover,.tl-soft:focus-within{contain:none}";

function lineCss(doc) {  // once per document, with its first drawing
  if (doc.getElementById("tl-line-css")) return;
  const style = doc.createElement("style");
  style.id = "tl-line-css";
  style.textContent = LINE_CSS;
  doc.head.append(style);
}

const endsLine = (breaks) => breaks !== "" && /[\n\r]/.test(breaks);
// a segment's trailing line breaks as text: a CR or CRLF as one line feed, as the HTML parser reads model_html's
// (a CR in a text node set from script breaks no line, so a lone CR's break was lost here)
const breakText = (breaks) => breaks.replace(/\r\n?/g, "\n");
const SKIP = 8;  // old lines a kept line may be found past the last one kept
const ENDS = [[0, 0], [1, 1], [1, 0], [0, 1], [2, 2], [2, 1], [1, 2], [2, 0], [0, 2]];  // (new, old) last lines set aside

// the box of segment k of the model, put at the end of `into` with what follows it (its line breaks as text, or a
// wbr); its row: {el, after, cls, ids, tip, label, parts, breaks, pos} (what a later model is compared with; after:
// the node that follows the box; cls: the class this drawing last set)
function buildBox(data, k, owned, into) {
  const [cls, tip, ids, pos, parts, breaks] = data.segs[k];
  const box = document.createElement("span");
  box.className = cls;
  box.dataset.tip = data.tips[tip];
  box.dataset.ids = ids;
  box.dataset.pos = String(pos);
  box.setAttribute("role", owned ? "option" : "img");
  const label = (data.labels || [])[(data.label_of || [])[k]] || "";
  box.setAttribute("aria-label", label);
  if (owned && pinned(cls)) {
    box.setAttribute("aria-selected", "true");
    pinsSeen.push(box);
  }
  for (const [kind, text] of parts) {
    if (!kind) {
      box.append(text);
    } else {
      const mark = document.createElement("span");
      mark.className = "tl-" + kind;
      mark.textContent = text;
      box.append(mark);
    }
  }
  // lines break between boxes only (see CSS); after a line break none is needed (and a wbr there would
  // start an empty line of its own at the end of the block)
  const after = breaks ? document.createTextNode(breakText(breaks)) : document.createElement("wbr");
  into.append(box, after);
  return { el: box, after, cls, ids, tip: data.tips[tip], label, parts, breaks, pos, shown: pos };
}

// the boxes of segments [from, to) of the model, each line as {el, rows, key}
function buildLines(data, from, to, owned) {
  const lines = [];
  let line = null;
  for (let k = from; k < to; k++) {
    if (!line) {
      const el = document.createElement("div");
      el.className = "tl-line";
      el.setAttribute("role", "none");  // the boxes stay the listbox's options (or the group's images)
      line = { el, rows: [], key: "", from: k };
      lines.push(line);
    }
    const row = buildBox(data, k, owned, line.el);
    line.rows.push(row);
    if (k + 1 === to || endsLine(row.breaks)) line.key = lineKey(data, [line.from, k + 1]);
    if (endsLine(row.breaks)) line = null;
  }
  return lines;
}

// A line an edit changed, patched in place into segments [from, to) of the model (a keystroke changes a box or
// two of a line): the boxes the same at its start and at its end are kept (their classes and positions set by
// refresh), the others built again; false when no box is kept (the line is then built again whole). The line's
// nodes are then those buildLines makes (tests/e2e/test_span_patch_browser.py holds a patched drawing equal to a
// fresh one), with fewer new elements to style and lay out.
function patchLine(line, data, [from, to], owned) {
  const rows = line.rows, n = to - from, m = rows.length;
  let a = 0;
  while (a < m && a < n && sameRow(rows[a], data, from + a)) a++;
  let b = 0;
  while (b < m - a && b < n - a && sameRow(rows[m - 1 - b], data, to - 1 - b)) b++;
  if (a + b === 0) return false;
  if (line.soft) joinFrom(line, a);
  const next = b ? rows[m - b].el : rows[m - 1].after.nextSibling;  // what the new boxes go before
  const frag = document.createDocumentFragment(), built = [];
  for (let k = from + a; k < to - b; k++) built.push(buildBox(data, k, owned, frag));
  for (let i = a; i < m - b; i++) { rows[i].el.remove(); rows[i].after.remove(); }
  (next ? next.parentNode : endOf(line)).insertBefore(frag, next);
  line.rows = rows.slice(0, a).concat(built, rows.slice(m - b));
  line.key = lineKey(data, [from, to]);
  return true;
}

// Soft blocks (issue 32). A line of the text with no line break in it (10 KB of prose, a minified file) is one
// inline block, which Chromium lays out whole when any box in it changes: 6 ms a column at 10 KB, 25 ms of every
// keystroke with four columns, in the task that shows the key (the editor lays out the page for the caret). So once
// a drawing has been laid out (the next idle moment), a line of more than LONG boxes is cut, where the browser
// itself wrapped it, into blocks of SOFT_ROWS rows (div.tl-soft, role none): boxes wrap only between boxes
// (white-space: pre inside one) and greedily, so a block that starts a row lays out its boxes exactly as the whole
// line did (tests/e2e/test_span_patch_browser.py holds every box's rectangles equal to the flat drawing's), and a
// keystroke lays out its own block. An edit joins its block, and the one before (a shortened first box may move
// up into its last row), with every block after it, before it changes a box, so that the drawing is the flat one
// at every moment; the next idle moment cuts the joined blocks again. A change of the column's width or font
// joins every block (the rows move), and cuts them again.
const LONG = 200, SOFT_ROWS = 12;
const idle = globalThis.requestIdleCallback ? (f) => requestIdleCallback(f, { timeout: 500 }) : (f) => setTimeout(f, 50);

// where the boxes at the end of a line go (its last soft block, or the line)
function endOf(line) {
  return line.soft ? line.soft[line.soft.length - 1].el : line.el;
}

// the nodes of rows [from, to) of a line moved into `into` (the focus, which a moved box would lose, kept)
function moveRows(line, from, to, into) {
  const a = document.activeElement, frag = document.createDocumentFragment();
  for (let i = from; i < to; i++) frag.append(line.rows[i].el, line.rows[i].after);
  into.append(frag);
  if (a && a !== document.activeElement && a.isConnected) a.focus({ preventScroll: true });
}

// the soft blocks of a line from the one before row i's (or row i's own when row i is not a block's first box)
// joined into one; a line left with one block is drawn in the line itself again
function joinFrom(line, i) {
  const soft = line.soft;
  let j = soft.length - 1;
  while (j > 0 && soft[j].from > i) j--;
  if (j > 0 && soft[j].from === i) j--;
  if (j === soft.length - 1) return;
  const tail = line.rows[line.rows.length - 1].after.nextSibling;  // the drawing's last wbr (draw's view.tail)
  if (j === 0) {
    moveRows(line, 0, line.rows.length, line.el);
    for (const b of soft) b.el.remove();
    line.soft = null;
  } else {
    moveRows(line, soft[j + 1].from, line.rows.length, soft[j].el);
    for (const b of soft.splice(j + 1)) b.el.remove();
  }
  if (tail) endOf(line).append(tail);
}

// every soft block of a drawing joined (its width or font changed)
function joinAll(view) {
  for (const line of view.lines) if (line.soft) joinFrom(line, 0);
}

// the long lines of a drawing cut into soft blocks where the browser wrapped them: a line from the first box of its
// last block on (the blocks before are cut already), when that block is long
function cutLines(view) {
  view.cutting = false;
  const div = view.div;
  if (!div.isConnected) return;
  const font = getComputedStyle(div).font, width = div.clientWidth;
  if (view.cutFor && view.cutFor !== width + " " + font) joinAll(view);
  view.cutFor = width + " " + font;
  for (const line of view.lines) {
    const start = line.soft ? line.soft[line.soft.length - 1].from : 0, n = line.rows.length;
    if (n - start <= LONG) continue;
    const cuts = [];  // the first box of every SOFT_ROWS-th row after `start`, a few rows short of the end
    let rows = 0, top = Infinity;
    for (let i = start; i < n; i++) {
      const rects = line.rows[i].el.getClientRects();
      if (!rects.length) return;  // not laid out (a hidden tab): cut when it is drawn again
      if (rects[0].top > top + 1 && ++rows % SOFT_ROWS === 0 && n - i > LONG / 4) cuts.push(i);
      top = rects[rects.length - 1].top;
    }
    if (!cuts.length) continue;
    const tail = line.rows[n - 1].after.nextSibling;  // the drawing's last wbr (draw's view.tail)
    const block = (from) => {
      const el = document.createElement("div");
      el.className = "tl-soft";
      el.setAttribute("role", "none");
      return { el, from };
    };
    const made = (line.soft ? [] : [block(0)]).concat(cuts.map(block));
    const firsts = made.map((b) => b.from), ends = firsts.slice(1).concat([n]);
    line.el.append(...made.map((b) => b.el));  // after the blocks already there (in the page: a box keeps the focus)
    for (let k = made.length - 1; k >= 0; k--) moveRows(line, firsts[k], ends[k], made[k].el);
    line.soft = (line.soft || []).concat(made);
    if (tail) endOf(line).append(tail);
  }
}

function scheduleCut(view) {
  if (view.cutting || !view.lines.some((l) => l.rows.length - (l.soft ? l.soft[l.soft.length - 1].from : 0) > LONG)) return;
  view.cutting = true;
  idle(() => cutLines(view));
}

const pinned = (cls) => /(?:^| )tl-pin(?: |$)/.test(cls);
let pinsSeen = [];  // the boxes this draw built or set pinned (draw's tab stop)

// [from, to) of each line of the model's segments
function lineRanges(segs) {
  const out = [];
  let a = 0;
  for (let k = 0; k < segs.length; k++) {
    if (endsLine(segs[k][5])) { out.push([a, k + 1]); a = k + 1; }
  }
  if (a < segs.length) out.push([a, segs.length]);
  return out;
}

// what a line is looked up by among the old ones (its boxes' ids; sameLine then compares the rest)
function lineKey(data, [from, to]) {
  let key = "";
  for (let k = from; k < to; k++) key += data.segs[k][2] + "|";
  return key;
}

function sameParts(a, b) {
  if (a === b) return true;  // a row the live model looked up (live_spans.js's memo)
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i][0] !== b[i][0] || a[i][1] !== b[i][1]) return false;
  return true;
}

// whether a drawn box (its row) holds segment k of the model (its class and position aside)
function sameRow(r, data, k) {
  const seg = data.segs[k];
  return r.ids === seg[2] && r.breaks === seg[5] && r.tip === data.tips[seg[1]]
    && r.label === ((data.labels || [])[(data.label_of || [])[k]] || "") && sameParts(r.parts, seg[4]);
}

// whether a drawn line holds the same boxes as segments [from, to) of the model (classes and positions aside)
function sameLine(line, data, [from, to]) {
  if (line.rows.length !== to - from) return false;
  for (let k = from; k < to; k++) if (!sameRow(line.rows[k - from], data, k)) return false;
  return true;
}

// a kept line's classes and positions, from the model (with `dom`, compared with the classes the DOM holds:
// token_clicks.js has set a pin's class itself since the last draw; else with those the last draw set)
function refresh(line, data, from, owned, dom) {
  let moved = false;
  for (let j = 0; j < line.rows.length; j++) {
    const r = line.rows[j], seg = data.segs[from + j], cls = seg[0], pos = seg[3];
    if ((dom ? r.el.className : r.cls) !== cls) {
      r.el.className = r.cls = cls;
      if (owned && pinned(cls)) {
        r.el.setAttribute("aria-selected", "true");
        pinsSeen.push(r.el);
      } else r.el.removeAttribute("aria-selected");
    }
    r.pos = pos;  // its data-pos later (writePositions)
    if (r.shown !== pos) moved = true;
  }
  return moved;
}

// The boxes' data-pos after an edit: every box after it moves (thousands of attribute writes, a few ms a column),
// and nothing shows them, so they are written after the frame that shows the edit, or at once when something
// is about to read them (token_clicks.js calls __tlLive.flush first)
const stale = new Set();  // views whose boxes' data-pos are behind their model

function writePositions() {
  for (const view of stale) {
    for (const line of view.lines) {
      for (const r of line.rows) {
        if (r.shown !== r.pos) {
          r.el.setAttribute("data-pos", String(r.pos));
          r.shown = r.pos;
        }
      }
    }
  }
  stale.clear();
}
LIVE.flush = writePositions;

function later(view) {
  if (!stale.size) requestAnimationFrame(() => setTimeout(writePositions));
  stale.add(view);
}

function draw(root, data) {
  const owned = !!data.owner;
  let view = root.tlView;
  if (!view || view.owned !== owned || view.div.parentNode !== root) {  // a fresh drawing
    lineCss(root.ownerDocument);
    const div = document.createElement("div");
    view = root.tlView = { div, owned, lines: [] };
    if (globalThis.ResizeObserver) {  // a new width moves the rows: the soft blocks are joined, and cut again
      const v = view;
      new ResizeObserver(() => {
        if (v.cutFor && !v.cutFor.startsWith(div.clientWidth + " ")) { joinAll(v); v.cutFor = null; scheduleCut(v); }
      }).observe(div);
    }
    div.setAttribute("role", owned ? "listbox" : "group");
    if (owned) div.setAttribute("aria-orientation", "horizontal");
    root.replaceChildren(div);
  }
  const div = view.div;
  div.className = "tl-spans" + (data.flip ? " tl-flip" : "");
  if (owned) div.dataset.owner = data.owner;
  if ((div.style.fontSize || "") !== (data.font || "") && view.cutFor) { joinAll(view); view.cutFor = null; }
  div.style.fontSize = data.font || "";
  if (!div.getAttribute("style")) div.removeAttribute("style");
  div.setAttribute("aria-label", data.label || "Tokens");
  delete div.dataset.live;  // what drew it (liveDraw says so again)
  delete div.dataset.ids;
  pinsSeen = [];
  const old = view.lines, ranges = lineRanges(data.segs);
  const dom = view.touched !== LIVE.touched;  // token_clicks.js has set classes itself since the last draw
  view.touched = LIVE.touched;
  // the lines kept: the same lines at the start and at the end (but for the last line or two on either side: a
  // page of a long text ends a character later or earlier after an edit before it), and between them each line
  // found among the old ones by its ids a few lines on from the last one kept, in order (a keystroke changes its
  // own line; a text that repeats itself has the same line far away, which is not taken: the lines skipped
  // would be built again)
  let p = 0;
  while (p < old.length && p < ranges.length && sameLine(old[p], data, ranges[p])) p++;
  const plan = new Int32Array(ranges.length).fill(-1);  // the old line kept for each new one, or -1
  for (let j = 0; j < p; j++) plan[j] = j;
  let s = 0, e0 = 0, e1 = 0;  // s lines the same, before the last e0 new lines and the last e1 old ones
  for (const [x, y] of ENDS) {
    let k = 0;
    while (k < old.length - p - y && k < ranges.length - p - x
           && sameLine(old[old.length - 1 - y - k], data, ranges[ranges.length - 1 - x - k])) k++;
    if (k > s) [s, e0, e1] = [k, x, y];
    if (s > (ranges.length - p) / 2) break;
  }
  for (let k = 0; k < s; k++) plan[ranges.length - 1 - e0 - k] = old.length - 1 - e1 - k;
  const byKey = new Map(), used = new Uint8Array(old.length);
  for (const i of plan) if (i >= 0) used[i] = 1;
  for (let i = p; i < old.length; i++) {
    if (used[i]) continue;
    const q = byKey.get(old[i].key);
    if (q) q.push(i);
    else byKey.set(old[i].key, [i]);
  }
  const before = new Int32Array(ranges.length);  // the first old line kept after each new line (kept in order)
  for (let j = ranges.length - 1, b = old.length; j >= 0; j--) { before[j] = b; if (plan[j] >= 0) b = plan[j]; }
  let after = -1;
  for (let j = 0; j < ranges.length; j++) {
    if (plan[j] >= 0) { after = plan[j]; continue; }
    const q = byKey.get(lineKey(data, ranges[j]));
    if (!q) continue;
    while (q.length && q[0] <= after) q.shift();
    if (q.length && q[0] - after <= SKIP && q[0] < before[j] && sameLine(old[q[0]], data, ranges[j])) {
      after = plan[j] = q.shift();
    }
  }
  // a run of new lines not kept, between two kept ones (or an end), where as many old lines are not kept: each
  // old line is patched into the new one at its place when they share boxes at the start or the end (patchLine)
  for (let j = 0, prev = -1; j < ranges.length;) {
    if (plan[j] >= 0) { prev = plan[j++]; continue; }
    let e = j;
    while (e < ranges.length && plan[e] < 0) e++;
    const nextOld = e < ranges.length ? plan[e] : old.length;
    if (nextOld - prev - 1 === e - j) {
      for (let k = j; k < e; k++) if (patchLine(old[prev + 1 + k - j], data, ranges[k], owned)) plan[k] = prev + 1 + k - j;
    }
    j = e;
  }
  const kept = new Uint8Array(old.length);
  for (const i of plan) if (i >= 0) kept[i] = 1;
  for (let i = 0; i < old.length; i++) if (!kept[i]) old[i].el.remove();
  const lines = new Array(ranges.length);
  let next = null;  // the element the lines built go before
  for (let j = ranges.length - 1; j >= 0;) {
    if (plan[j] >= 0) {
      const line = lines[j] = old[plan[j]];
      if (refresh(line, data, ranges[j][0], owned, dom)) later(view);
      next = line.el;
      j--;
      continue;
    }
    let i = j;
    while (i > 0 && plan[i - 1] < 0) i--;
    const built = buildLines(data, ranges[i][0], ranges[j][1], owned), frag = document.createDocumentFragment();
    for (let k = 0; k < built.length; k++) {
      lines[i + k] = built[k];
      frag.append(built[k].el);
    }
    div.insertBefore(frag, next);
    next = built[0].el;
    j = i - 1;
  }
  view.lines = lines;
  // the flat drawing's last wbr, after a text's final line break: the empty line it makes at the end
  if (view.tail) view.tail.remove();
  const last = view.lines[view.lines.length - 1];
  view.tail = last && endsLine(last.rows[last.rows.length - 1].breaks) ? document.createElement("wbr") : null;
  if (view.tail) endOf(last).append(view.tail);
  scheduleCut(view);
  if (owned) {  // one tab stop (the pinned token, else the first; a focused box keeps it); token_clicks.js moves it
    const a = document.activeElement;
    const focused = a && a.classList && a.classList.contains("tl-tok") && div.contains(a) ? a : null;
    if (dom || !view.tabs) {  // from the DOM: a fresh drawing, or token_clicks.js has pinned or moved the stop
      view.pin = div.querySelector(".tl-pin");
      view.stop = focused || view.pin || div.querySelector(".tl-tok");
      for (const t of div.querySelectorAll("[tabindex]")) if (t !== view.stop) t.removeAttribute("tabindex");
      view.tabs = true;
    } else {  // else only the last stop has a tabindex, and the pin is the one this draw set or the last one
      const seen = pinsSeen.filter(el => el.isConnected && el.classList.contains("tl-pin"));
      view.pin = seen.length ? seen[seen.length - 1]
        : view.pin && view.pin.isConnected && view.pin.classList.contains("tl-pin") ? view.pin : null;
      const stop = focused || view.pin || (view.lines.length ? view.lines[0].rows[0].el : null);
      if (view.stop && view.stop !== stop) view.stop.removeAttribute("tabindex");
      view.stop = stop;
    }
    if (view.stop) view.stop.tabIndex = 0;
  } else if (dom) {  // no tab stops in a group of images (one token_clicks.js set on a kept box goes)
    for (const t of div.querySelectorAll("[tabindex]")) t.removeAttribute("tabindex");
  }
  return div;
}

// the column's heading (ui.spans.render_header): its counts follow the browser's tokens
function updateHeader(head, count, chars, bytes) {
  const el = head && document.querySelector(`.tl-head[data-tokenizer="${CSS.escape(head)}"] .tl-count`);
  if (!el) return;
  const plural = (n, w) => `${n.toLocaleString("en")} ${n === 1 ? w : w + "s"}`;
  el.textContent = count.toLocaleString("en");
  if (el.nextSibling && el.nextSibling.nodeType === Node.TEXT_NODE) {
    el.nextSibling.data = ` ${count === 1 ? "token" : "tokens"} · ${plural(chars, "character")} · ${plural(bytes, "byte")}`;
  }
}

// the page of a long text that holds the character before the box's caret (live_text.js counts it in
// Python's characters), as compare.py's caret_page: typing on page 3 draws page 3 in every column, whichever
// page the server drew last
function caretWindow(L) {
  const caret = LIVE.caret && LIVE.caret.get(L.source);
  if (!L.win || caret === undefined) return L;
  return { ...L, win: [L.win[0], Math.floor(Math.max(caret - 1, 0) / L.win[0])] };
}

function liveDraw(st) {
  st.frame = 0;
  const L = st.data.live, text = LIVE.text.get(L.source);
  if (st.fromServer) {  // drawn by the server: of the text it was sent (live_text.js has run by now)
    st.drawn = LIVE.server.get(L.source);
    st.fromServer = false;
  }
  if (!st.v || text === undefined || text === st.drawn) return;
  // the server cuts a text above its limit; Apply shows where (the box counts the bytes once, on each edit)
  let bytes = LIVE.bytes && LIVE.bytes.get(L.source);
  if (bytes === undefined) bytes = new TextEncoder().encode(text).length;
  if (bytes > L.limit) return;
  const t0 = performance.now();
  const server = text === LIVE.server.get(L.source);  // the server's marks and pinned token are for its text
  const built = liveModel(st.v, text, caretWindow(L), server ? st.data : { ...st.data, marks: null, pinned: null });
  const t1 = performance.now();
  st.root.dataset.deferred = built.model ? "" : "width";
  if (st.entry) st.entry.deferred = !built.model;
  if (!built.model) {  // a box only the server can measure (live_spans.js isLong): its run draws it
    if (st.compact && server) askServer(L.source);
    return;
  }
  const div = draw(st.root, built.model);
  div.dataset.live = "browser";
  div.dataset.ids = built.ids.join(",");  // for the tests
  st.drawn = text;
  updateHeader(L.head, built.count, built.chars, built.bytes);
  st.root.dataset.drawMs = String(performance.now() - t0);  // for benchmarks/live_keystroke.py
  st.root.dataset.modelMs = String(t1 - t0);  // of which encoding and buildModel
  st.root.dataset.drawStart = String(t0);
  st.ended = performance.now();
}

// A keystroke is drawn at once (in the box's input event: the spans change in the frame that shows the key,
// without waiting for the next one) when the text is up to QUICK characters, or up to 100,000 after a pause
// (PAUSE ms since this column's last draw); keystrokes that follow quickly in a longer text are drawn in the
// next frame (those within a frame make one draw); above 100,000 characters one frame later, so that the box
// shows a big paste before the columns' work (a megabyte takes the browser a second or more to encode and lay out)
const QUICK = 20000, PAUSE = 100;

function schedule(st) {
  if (st.frame) return;
  const n = (LIVE.text.get(st.data.live.source) || "").length;
  if (n <= QUICK || (n <= 100000 && performance.now() - (st.ended || 0) > PAUSE)) {
    liveDraw(st);
    return;
  }
  st.frame = requestAnimationFrame(() => {
    if (n > 100000) st.frame = requestAnimationFrame(() => liveDraw(st));
    else liveDraw(st);
  });
}

function sayFallback(reason) {
  LIVE.failed = `Tokenizing in your browser is off (${reason}): every column updates from the server after a ` +
    "pause in typing.";
  for (const el of document.querySelectorAll(".tl-live-engine")) el.textContent = LIVE.failed;
}

export default function ({ data: raw, parentElement }) {
  const root = parentElement.querySelector(".tl-spans-root");
  // the model arrives as UTF-8 JSON bytes (one serialization on the server)
  const data = raw instanceof Uint8Array || raw instanceof ArrayBuffer
    ? JSON.parse(new TextDecoder().decode(raw)) : raw;
  const L = data.live;
  const st = root.tlLive || (root.tlLive = { root, frame: 0, drawn: null, v: null });
  if (st.off) st.off();
  if (!L || !L.assets || L.assets.vocab !== st.vocabUrl) st.v = null;
  // compact: no spans, the browser draws this column itself (app_pages/compare.py compact_spans)
  const compact = !!L && !data.segs;
  // the server's spans of the text it was sent, unless the box has moved on and the browser can draw it
  if (!compact && !(st.v && LIVE.text.get(L.source) !== LIVE.server.get(L.source))) draw(root, data);
  if (!L) return;
  st.data = data;
  st.vocabUrl = L.assets && L.assets.vocab;
  st.fromServer = !compact;
  st.compact = compact;
  if (compact) st.drawn = null;  // drawn next frame from the browser's own encode, with the marks and pin
  const entry = (st.entry = { source: L.source, head: L.head, ready: !!st.v && !!L.assets, deferred: false });
  LIVE.columns.set(root, entry);
  const onText = (e) => { if (e.detail.key === L.source) schedule(st); };
  window.addEventListener("tl-live-text", onText);
  st.off = () => { st.off = null; window.removeEventListener("tl-live-text", onText); LIVE.columns.delete(root); };
  if (L.assets) {
    const why = LIVE.failed ? "see above" : whyNot();
    if (why) {
      entry.ready = false;
      if (!LIVE.failed) sayFallback(why);
      if (compact) askServer(L.source);
    } else {
      loadVocab(L.assets).then((v) => {
        if (st.data !== data) return;
        st.v = v;
        entry.ready = true;
        schedule(st);  // the box may have moved on while the server ran or the vocabulary loaded
      }, (err) => {
        entry.ready = false;
        sayFallback(String(err && err.message || err));
        if (compact) askServer(L.source);
      });
    }
  }
  // a compact payload is drawn now, as the server's spans would be (live_text.js, earlier on the page,
  // has given LIVE the server's text by now)
  if (st.v) { if (compact) liveDraw(st); else schedule(st); }
  return st.off;
}

export { draw, writePositions, cutLines };  // for tests/e2e/test_span_patch_browser.py
