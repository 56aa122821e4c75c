// A text box that sends its value to Python while the person types, for texts up to `limit` UTF-8
// bytes (above that only on Apply or Ctrl+Enter, with the reason shown). A keystroke after a quiet
// moment, when no earlier text is still being tokenized, goes at once; keystrokes that follow it
// quickly are sent together `debounce` ms after the last of them, so a burst of typing costs one
// rerun, not one per key, and at most one rerun is under way at a time.
// Every edit is also announced on the page at once (a "tl-live-text" event, the text in
// globalThis.__tlLive.text), for spans that tokenize in the browser (token_spans.js with `live`). When
// every column following this box draws in the browser, the server waits for `idle` ms of quiet instead
// (no run per keystroke); its run then brings the counts, chart and decoder up to date (or only the counts:
// a text sink's part of the page, when the server says nothing else would change).
// With the text goes the caret (in characters, as Python counts them; in globalThis.__tlLive.caret too), so
// that a long text's page of spans follows the typing (issue 22), and which of those columns this browser
// draws itself, so that the server sends them no spans.
// The user's text only ever goes into the textarea's `value` and status lines' `textContent`.
export default function ({ data, parentElement, setStateValue }) {
  const root = parentElement.querySelector(".tl-live");
  const box = root.querySelector("textarea");
  const label = root.querySelector(".tl-live-label");
  const status = root.querySelector(".tl-live-status");
  const apply = root.querySelector(".tl-live-apply");
  const engine = root.querySelector(".tl-live-engine");
  const LIVE = (globalThis.__tlLive = globalThis.__tlLive || { text: new Map(), server: new Map(), columns: new Map(),
    vocabs: new Map(), core: null, names: null, failed: "" });
  LIVE.caret = LIVE.caret || new Map();
  LIVE.bytes = LIVE.bytes || new Map();  // live box key -> its newest text's UTF-8 bytes
  const s = root.tlState || (root.tlState = { rev: null, seq: 0, timer: 0, sent: null, busy: 0, last: 0 });
  s.set = setStateValue;  // the newest one: a pending send uses it even after a rerun
  s.limit = data.limit;
  s.debounce = data.debounce;
  s.idle = data.idle || data.debounce;
  s.key = data.key;
  if (engine) engine.textContent = LIVE.failed;

  label.textContent = data.label;
  box.setAttribute("aria-label", data.label);
  box.placeholder = data.placeholder || "";
  box.style.fontSize = data.font_size || "";
  if (!s.sized) {
    box.style.height = data.height + "px";
    s.sized = true;
  }
  if (s.rev !== data.rev) {  // Python changed the text (an example, a link): show it
    s.rev = data.rev;
    box.value = data.value;
    s.sent = data.value;
  }
  if (data.value === s.sent) s.busy = 0;  // Python has drawn what was sent last
  LIVE.server.set(s.key, data.value);
  LIVE.text.set(s.key, box.value);
  // the columns that follow this box all draw in the browser: the server need not run per keystroke
  const inBrowser = () => {
    let n = 0;
    for (const c of LIVE.columns.values()) {
      if (c.source !== s.key) continue;
      if (!c.ready) return false;
      n++;
    }
    return n > 0;
  };

  // One pass over the text: its UTF-8 bytes (a lone surrogate as U+FFFD's 3, as TextEncoder and the server's
  // clean_text count it), and the characters before UTF-16 offsets `a` and `b` as Python counts them (a surrogate
  // pair is one; an offset inside a pair counts its first half as one)
  const measure = (v, a = 0, b = 0) => {
    let n = 0, pairs = 0, pa = -1, pb = -1;  // pairs: surrogate pairs before the offset
    for (let i = 0; i < v.length; i++) {
      if (i === a) pa = pairs;
      if (i === b) pb = pairs;
      const c = v.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c <= 0xdbff && (v.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        n += 4;
        if (i + 1 === a) pa = pairs;
        if (i + 1 === b) pb = pairs;
        pairs++;
        i++;
      } else n += 3;
    }
    return { bytes: n, a: a - (pa < 0 ? pairs : pa), b: b - (pb < 0 ? pairs : pb) };
  };
  const bytes0 = measure(box.value).bytes;
  LIVE.bytes.set(s.key, bytes0);
  // the heads of the columns following this box that this browser draws (every one it can, but one whose box
  // widths only the server can measure just now): each send reports them, and the server then sends those
  // columns no spans, only what it alone knows (app_pages/compare.py compact_spans)
  const drawnHere = () => {
    const out = [];
    for (const c of LIVE.columns.values()) if (c.source === s.key && c.ready && !c.deferred && c.head) out.push(c.head);
    return out;
  };
  // the caret the page of spans follows: after the first character an edit put in, or where it deleted
  // (typing: the caret; a paste: its first character, so a pasted text opens on its first page); and the text's
  // bytes, from the same pass
  const editCaret = () => {
    const v = box.value, at = s.editAt, m = measure(v, box.selectionStart, at == null ? 0 : Math.min(at, v.length));
    s.editAt = null;
    return [at == null ? m.a : Math.min(m.a, m.b + 1), m.bytes];
  };
  const kb = (n) => (n / 1000).toLocaleString("en", { maximumFractionDigits: n < 10000 ? 1 : 0 }) + " KB";
  // `pause`: the send after a quiet moment while every column draws here; a text sink (text_sink.js) may take
  // it, and then only the sink's part of the page runs on the server (Compare's counts), not this box's
  const send = (again = false, pause = false) => {
    clearTimeout(s.timer);
    s.timer = 0;
    if (box.value === s.sent && again !== true) return;
    s.sent = box.value;
    s.seq += 1;
    root.dataset.sent = String(s.seq);
    root.dataset.sentAt = String(performance.now());  // for benchmarks/app_speed.py
    status.textContent = "";
    const sent = { value: box.value, rev: s.rev, seq: s.seq, caret: s.caret ?? measure(box.value, box.selectionStart).a,
                   browser: drawnHere() };
    const ask = { key: s.key, sent, taken: false };
    if (pause) window.dispatchEvent(new CustomEvent("tl-live-pause", { detail: ask }));
    root.dataset.sink = ask.taken ? "1" : "";  // for the tests
    if (ask.taken) return;
    s.busy = performance.now();
    s.set("text", sent);
  };
  // a column the server left to the browser that the browser cannot draw after all (a box only Python
  // measures, a vocabulary that failed to load) asks for a new report: the box sends again (its text as
  // it is), and the server's run draws that column itself
  const onReport = (e) => {
    if (e.detail.key !== s.key || s.asked) return;
    s.asked = setTimeout(() => { s.asked = 0; send(true); }, 0);  // once for every column that asks now
  };
  const refresh = (n = measure(box.value).bytes) => {
    const big = n > s.limit;
    apply.hidden = !big;
    root.dataset.mode = big ? "apply" : "live";
    status.textContent = !big ? ""
      : inBrowser() ? `This text is ${kb(n)}: the spans follow your typing in the browser; the counts and chart ` +
        `wait above ${kb(s.limit)}. Press Apply (or Ctrl+Enter) to update them.`
      : `Live updates pause above ${kb(s.limit)} so typing stays quick: this text is ${kb(n)}. ` +
        "Press Apply (or Ctrl+Enter) to tokenize it.";
    return big;
  };
  const onInput = () => {
    clearTimeout(s.timer);
    LIVE.text.set(s.key, box.value);
    const [caret, bytes] = editCaret();
    s.caret = caret;
    LIVE.caret.set(s.key, caret);
    LIVE.bytes.set(s.key, bytes);  // the columns compare it with the server's limit (token_spans.js)
    window.dispatchEvent(new CustomEvent("tl-live-text", { detail: { key: s.key } }));
    const now = performance.now();
    const quiet = now - s.last > s.debounce;
    s.last = now;
    if (refresh(bytes)) return;
    if (s.busy && now - s.busy > 3000) s.busy = 0;  // never wait on a reply that did not come
    if (inBrowser()) s.timer = setTimeout(() => send(false, true), s.idle);
    else if (quiet && !s.busy) send();
    else s.timer = setTimeout(send, s.debounce);
  };
  const onKey = (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
      e.preventDefault();
      send();
    } else if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && (e.key === "a" || e.key === "A")) {
      // Chromium's own select-all command takes seconds on a page like this one when the box holds
      // a megabyte (22 s for 1 MB); select() is the same selection at once
      e.preventDefault();
      box.select();
    }
  };
  // Replacing or deleting a big selection through the editing commands is just as slow, so edits
  // over more than BIG characters are done with setRangeText (same result, not on the undo stack).
  const BIG = 5000;
  const onBeforeInput = (e) => {
    s.editAt = box.selectionStart;  // where this edit starts (editCaret)
    if (box.selectionEnd - box.selectionStart <= BIG) return;
    let text = null;
    if (e.inputType === "insertText" || e.inputType === "insertReplacementText") text = e.data || "";
    else if (e.inputType === "insertLineBreak") text = "\n";
    else if (e.inputType.startsWith("delete")) text = "";
    if (text === null) return;
    e.preventDefault();
    box.setRangeText(text, box.selectionStart, box.selectionEnd, "end");
    onInput();
  };
  // Chromium inserts a big paste into a textarea through its editing commands, which takes seconds
  // for 200 KB of many lines (the box froze). A big paste is put in with setRangeText instead (one
  // step, same result; the paste is then not on the box's undo stack).
  const onPaste = (e) => {
    const v = e.clipboardData ? e.clipboardData.getData("text/plain") : "";
    if (v.length <= BIG && box.selectionEnd - box.selectionStart <= BIG) return;
    e.preventDefault();
    s.editAt = box.selectionStart;
    box.setRangeText(v, box.selectionStart, box.selectionEnd, "end");
    onInput();
  };
  // leaving the box (a click on a token, a toggle) sends what waits at once, so that the run the click
  // asks for already has the text the browser drew (a pinned token's position is in that text)
  const onBlur = () => { if (s.timer) send(); };
  // Streamlit calls this function again whenever the data changes, without the cleanup returned
  // last time (that runs only on unmount): take the previous listeners off first
  if (s.off) s.off();
  box.addEventListener("input", onInput);
  box.addEventListener("keydown", onKey);
  box.addEventListener("paste", onPaste);
  box.addEventListener("beforeinput", onBeforeInput);
  box.addEventListener("blur", onBlur);
  apply.addEventListener("click", send);
  window.addEventListener("tl-live-report", onReport);
  refresh(bytes0);
  return (s.off = () => {
    s.off = null;
    box.removeEventListener("input", onInput);
    box.removeEventListener("keydown", onKey);
    box.removeEventListener("paste", onPaste);
    box.removeEventListener("beforeinput", onBeforeInput);
    box.removeEventListener("blur", onBlur);
    apply.removeEventListener("click", send);
    window.removeEventListener("tl-live-report", onReport);
  });
}
