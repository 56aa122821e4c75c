// Clicks (and taps) on token spans drawn by ui.spans.render_spans with an `owner`, and the keyboard
// on them: the token's position goes to Python as a trigger. One listener of each kind on the
// document, removed on unmount.
//
// Keyboard (the listbox pattern, one tab stop per spans block: model_html and token_spans.js give
// tabindex 0 to the pinned token, else the first, and -1 to the others): arrows move to the previous
// or next token, Home and End to the first and last, Enter or Space pins the token as a click does,
// Escape unpins it (when the page asked for `unpin`). A pin or unpin reruns the page, which draws
// the spans again: the token that had the focus gets it back once it is drawn.
export default function ({ data, parentElement, setTriggerValue }) {
  const prefix = data.prefix;
  const mine = (list) => !!list && (list.dataset.owner || "").startsWith(prefix);
  // a list's boxes are its children (model_html) or its lines' children (token_spans.js draws div.tl-line)
  const tokensOf = (list) => list.querySelectorAll(".tl-tok[data-pos]");
  const setStop = (list, tok) => {  // the roving tab stop (token_spans.js then reads the stops from the DOM again)
    for (const t of list.querySelectorAll('.tl-tok[tabindex="0"]')) if (t !== tok) t.tabIndex = -1;
    tok.tabIndex = 0;
    touched();
  };
  const host = parentElement || document.body;
  // token_spans.js writes the boxes' positions (data-pos) after the frame that shows an edit: now, before one is read
  const flush = () => { const L = globalThis.__tlLive; if (L && L.flush) L.flush(); };
  // the classes set here (a pin) are not the ones token_spans.js last set: its next draw reads the DOM's
  const touched = () => { const L = globalThis.__tlLive; if (L) L.touched = (L.touched || 0) + 1; };

  // after a pin or unpin, give the focus back to the same token of the same spans once the rerun
  // has drawn them again (a new element: the old one, and the focus, went with the old drawing)
  const refocus = (owner, pos) => {
    if (host.tlRefocusOff) host.tlRefocusOff();
    const look = () => {
      flush();
      const a = document.activeElement;
      if (a && a !== document.body) {  // still on a token, or the visitor went elsewhere
        if (!a.classList || !a.classList.contains("tl-tok")) off();
        return;
      }
      const list = [...document.querySelectorAll(".tl-spans[data-owner]")].find((l) => l.dataset.owner === owner);
      const tok = list && list.querySelector(`.tl-tok[data-pos="${pos}"]`);
      if (tok) {
        setStop(list, tok);
        tok.focus({ preventScroll: true });
      }
    };
    const watch = new MutationObserver(look);
    watch.observe(document.body, { childList: true, subtree: true });
    const timer = setTimeout(() => off(), 15000);
    const off = () => {
      watch.disconnect();
      clearTimeout(timer);
      host.tlRefocusOff = null;
    };
    host.tlRefocusOff = off;
  };

  const pin = (list, tok) => {
    touched();
    list.ownerDocument.querySelectorAll(".tl-pin").forEach((p) => {
      p.classList.remove("tl-pin");
      p.removeAttribute("aria-selected");
    });
    tok.classList.add("tl-pin");  // at once; the rerun draws the details
    tok.setAttribute("aria-selected", "true");
    setStop(list, tok);
    const pos = Number(tok.dataset.pos);
    if (document.activeElement === tok) refocus(list.dataset.owner, pos);
    setTriggerValue("pick", { owner: list.dataset.owner || "", pos });
  };

  const unpin = (list, tok) => {
    touched();
    for (const p of list.querySelectorAll(".tl-pin")) {
      p.classList.remove("tl-pin");
      p.removeAttribute("aria-selected");
    }
    refocus(list.dataset.owner, Number(tok.dataset.pos));
    setTriggerValue("pick", { owner: list.dataset.owner || "", pos: null });
  };

  const onClick = (e) => {
    flush();
    let tok = null;
    for (const el of e.composedPath ? e.composedPath() : []) {
      if (!(el instanceof Element)) continue;
      if (!tok && el.classList.contains("tl-tok") && el.dataset.pos !== undefined) tok = el;
      else if (tok && el.classList.contains("tl-spans")) {
        if (mine(el)) pin(el, tok);
        return;
      }
    }
  };

  const onKey = (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || !(e.target instanceof Element)) return;
    flush();
    const tok = e.target.closest(".tl-tok[data-pos]");
    const list = tok && tok.closest(".tl-spans");
    if (!list || !list.classList.contains("tl-spans") || !mine(list)) return;
    const all = tokensOf(list);
    const k = Array.prototype.indexOf.call(all, tok);
    let to = null;
    switch (e.key) {
      case "ArrowRight": case "ArrowDown": to = all[Math.min(k + 1, all.length - 1)]; break;
      case "ArrowLeft": case "ArrowUp": to = all[Math.max(k - 1, 0)]; break;
      case "Home": to = all[0]; break;
      case "End": to = all[all.length - 1]; break;
      case "Enter": case " ": pin(list, tok); break;
      case "Escape":
        if (!data.unpin) return;
        unpin(list, tok);
        break;
      default: return;
    }
    e.preventDefault();
    if (to && to !== tok) {
      setStop(list, to);
      to.focus();
    }
  };

  // called again on every data change without the last cleanup (Streamlit runs it on unmount only):
  // one listener per mounted element, kept on the element
  if (host.tlOff) host.tlOff();
  document.addEventListener("click", onClick);
  document.addEventListener("keydown", onKey);
  host.tlOff = () => {
    document.removeEventListener("click", onClick);
    document.removeEventListener("keydown", onKey);
    if (host.tlRefocusOff) host.tlRefocusOff();
    host.tlOff = null;
  };
  return host.tlOff;
}
