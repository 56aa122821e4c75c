// Token spans built with DOM calls from ui.spans.span_model's data (the same boxes, classes, tooltips
// and roles as model_html's HTML): no HTML parsing or sanitizing of a big string on every
// keystroke, and user text only ever set as text nodes and attribute values.
// For screen readers and keyboards (see model_html): clickable spans (an owner) are a listbox of
// options with one tab stop (the pinned token, else the first; token_clicks.js moves it with the
// arrows); other spans are a group of named images.
// With `live` in the data (Compare), the spans also follow the live text box as the person types: the
// box's text is encoded in the browser by the WebAssembly core and drawn from buildModel (live_spans.js,
// which this file follows in the component's script), until the server's next run draws them again.
// A live (browser) draw puts the first FIRST boxes on screen at once and the rest STEP at a time in the
// following frames, unless a newer draw comes first: while someone types, the browser lays out only the
// top of each column (what is in view under the box), and the whole page window once typing pauses.
const FIRST = 600, STEP = 1500;

function draw(root, data, progressive = false) {
  const gen = (root.tlGen = (root.tlGen || 0) + 1);  // a newer draw stops an older one's later frames
  const owned = !!data.owner;
  const div = document.createElement("div");
  div.className = "tl-spans" + (data.flip ? " tl-flip" : "");
  if (owned) div.dataset.owner = data.owner;
  if (data.font) div.style.fontSize = data.font;
  div.setAttribute("role", owned ? "listbox" : "group");
  if (owned) div.setAttribute("aria-orientation", "horizontal");
  div.setAttribute("aria-label", data.label || "Tokens");
  const tips = data.tips;
  const labels = data.labels || [], labelOf = data.label_of || [];
  let stop = null;
  const add = (from, to) => {
    for (let k = from; k < to; k++) {
      const [cls, tip, ids, pos, parts, breaks] = data.segs[k];
      const box = document.createElement("span");
      box.className = cls;
      box.dataset.tip = tips[tip];
      box.dataset.ids = ids;
      box.dataset.pos = String(pos);
      box.setAttribute("role", owned ? "option" : "img");
      box.setAttribute("aria-label", labels[labelOf[k]] || "");
      if (owned) {  // one tab stop (below); token_clicks.js moves it
        if (box.classList.contains("tl-pin")) {
          box.setAttribute("aria-selected", "true");
          stop = stop || box;
        }
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
      div.append(box);
      if (breaks) div.append(breaks);
      div.append(document.createElement("wbr"));  // lines break between boxes only (see CSS)
    }
  };
  const n = data.segs.length, first = progressive ? Math.min(n, FIRST) : n;
  add(0, first);
  stop = stop || div.querySelector(".tl-tok");
  if (owned && stop) stop.tabIndex = 0;
  root.replaceChildren(div);
  const more = (from) => {
    if (root.tlGen !== gen || from >= n) return;
    add(from, Math.min(n, from + STEP));
    requestAnimationFrame(() => more(from + STEP));
  };
  if (first < n) requestAnimationFrame(() => more(first));
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

// the page of a long text that holds the character before the box's caret (live_text.js), as compare.py's
// caret_page: typing on page 3 draws page 3 in every column, whichever page the server drew last
function caretWindow(L, text) {
  const caret = LIVE.caret && LIVE.caret.get(L.source);
  if (!L.win || caret === undefined) return L;
  let cp = 0;
  for (let i = 0; i < caret; i++, cp++) {  // code points before the caret (Python's characters)
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < caret && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  }
  return { ...L, win: [L.win[0], Math.floor(Math.max(cp - 1, 0) / L.win[0])] };
}

function liveDraw(st) {
  st.frame = 0;
  const L = st.data.live, text = LIVE.text.get(L.source);
  if (st.fromServer) {  // drawn by the server: of the text it was sent (live_text.js has run by now)
    st.drawn = LIVE.server.get(L.source);
    st.fromServer = false;
  }
  if (!st.v || text === undefined || text === st.drawn) return;
  if (new TextEncoder().encode(text).length > L.limit) return;  // the server cuts it; Apply shows where
  const t0 = performance.now();
  const built = liveModel(st.v, text, caretWindow(L, text), st.data);
  st.root.dataset.deferred = built.model ? "" : "width";
  if (!built.model) return;  // a box only the server can measure (live_spans.js isLong): its run draws it
  const div = draw(st.root, built.model, true);
  div.dataset.live = "browser";
  div.dataset.ids = built.ids.join(",");  // for the tests
  st.drawn = text;
  updateHeader(L.head, built.count, built.chars, built.bytes);
  st.root.dataset.drawMs = String(performance.now() - t0);  // for benchmarks/live_keystroke.py
  st.root.dataset.drawStart = String(t0);
}

// the next frame; a long text one frame later, so that the box shows a big paste before the columns'
// work (a megabyte takes the browser a second or more to encode and lay out)
function schedule(st) {
  if (st.frame) return;
  const big = (LIVE.text.get(st.data.live.source) || "").length > 100000;
  st.frame = requestAnimationFrame(() => {
    if (big) st.frame = requestAnimationFrame(() => liveDraw(st));
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
  // the server's spans of the text it was sent, unless the box has moved on and the browser can draw it
  if (!(st.v && LIVE.text.get(L.source) !== LIVE.server.get(L.source))) draw(root, data);
  if (!L) return;
  st.data = data;
  st.vocabUrl = L.assets && L.assets.vocab;
  st.fromServer = true;
  const entry = { source: L.source, ready: !!st.v && !!L.assets };
  LIVE.columns.set(root, entry);
  const onText = (e) => { if (e.detail.key === L.source) schedule(st); };
  window.addEventListener("tl-live-text", onText);
  st.off = () => { st.off = null; window.removeEventListener("tl-live-text", onText); LIVE.columns.delete(root); };
  if (L.assets) {
    const why = LIVE.failed ? "see above" : whyNot();
    if (why) {
      entry.ready = false;
      if (!LIVE.failed) sayFallback(why);
    } else {
      loadVocab(L.assets).then((v) => {
        if (st.data !== data) return;
        st.v = v;
        entry.ready = true;
        schedule(st);  // the box may have moved on while the server ran or the vocabulary loaded
      }, (err) => { entry.ready = false; sayFallback(String(err && err.message || err)); });
    }
  }
  if (st.v) schedule(st);
  return st.off;
}
