// Token spans built with DOM calls from ui.spans.span_model's data (the same boxes, classes and
// tooltips as render_spans' HTML): no HTML parsing or sanitizing of a big string on every
// keystroke, and user text only ever set as text nodes and attribute values.
export default function ({ data: raw, parentElement }) {
  const root = parentElement.querySelector(".tl-spans-root");
  // the model arrives as UTF-8 JSON bytes (one serialization on the server)
  const data = raw instanceof Uint8Array || raw instanceof ArrayBuffer
    ? JSON.parse(new TextDecoder().decode(raw)) : raw;
  const div = document.createElement("div");
  div.className = "tl-spans" + (data.flip ? " tl-flip" : "");
  if (data.owner) div.dataset.owner = data.owner;
  if (data.font) div.style.fontSize = data.font;
  const tips = data.tips;
  for (const [cls, tip, ids, pos, parts, breaks] of data.segs) {
    const box = document.createElement("span");
    box.className = cls;
    box.dataset.tip = tips[tip];
    box.dataset.ids = ids;
    box.dataset.pos = String(pos);
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
  root.replaceChildren(div);
}
