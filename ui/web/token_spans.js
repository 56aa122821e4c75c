// Token spans built with DOM calls from ui.spans.span_model's data (the same boxes, classes, tooltips
// and roles as model_html's HTML): no HTML parsing or sanitizing of a big string on every
// keystroke, and user text only ever set as text nodes and attribute values.
// For screen readers and keyboards (see model_html): clickable spans (an owner) are a listbox of
// options with one tab stop (the pinned token, else the first; token_clicks.js moves it with the
// arrows); other spans are a group of named images.
export default function ({ data: raw, parentElement }) {
  const root = parentElement.querySelector(".tl-spans-root");
  // the model arrives as UTF-8 JSON bytes (one serialization on the server)
  const data = raw instanceof Uint8Array || raw instanceof ArrayBuffer
    ? JSON.parse(new TextDecoder().decode(raw)) : raw;
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
  data.segs.forEach(([cls, tip, ids, pos, parts, breaks], k) => {
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
  });
  stop = stop || div.querySelector(".tl-tok");
  if (owned && stop) stop.tabIndex = 0;
  root.replaceChildren(div);
}
