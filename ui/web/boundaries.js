// "Text with boundaries": the text is one text node, shaped by the browser as it would be anywhere
// (Arabic joins, Devanagari conjuncts and emoji ZWJ sequences stay whole); each token boundary is a pair
// of thin ticks at the position the browser reports for that offset, one above the letters and one
// below them, in the line's leading: never over a letter (a bar through the line read as a stroke
// through Hangul and Greek letters, which have no space between them). A boundary inside a grapheme
// cluster (a token that ends mid-emoji) is a dotted line under that cluster instead.
export default function ({ data, parentElement }) {
  const root = parentElement.querySelector(".tl-bview");
  const textEl = root.querySelector(".tl-btext");
  const marks = root.querySelector(".tl-bmarks");
  textEl.textContent = data.text;
  textEl.style.fontSize = data.font_size || "";
  const starts = new Set();
  if (typeof Intl !== "undefined" && Intl.Segmenter) {
    for (const g of new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(data.text)) starts.add(g.index);
  }
  const clusterAt = (i) => {  // [start, end) of the grapheme cluster holding UTF-16 offset i
    let a = i, b = i;
    while (a > 0 && !starts.has(a)) a--;
    while (b < data.text.length && !starts.has(b)) b++;
    return [a, b];
  };
  const draw = () => {
    marks.replaceChildren();
    const node = textEl.firstChild;
    if (!node) return;
    const base = root.getBoundingClientRect();
    const range = document.createRange();
    const lineHeight = parseFloat(getComputedStyle(textEl).lineHeight) || 0;
    const tick = (cls, left, top, height) => {
      const m = document.createElement("div");
      m.className = cls;
      m.style.left = `${left}px`;
      m.style.top = `${top}px`;
      m.style.height = `${Math.max(2, height)}px`;
      marks.appendChild(m);
    };
    const inner = new Set();
    let drawn = 0;
    for (const cut of data.cuts) {
      if (cut <= 0 || cut >= data.text.length) continue;
      if (starts.size && !starts.has(cut)) {
        const [a, b] = clusterAt(cut);
        if (inner.has(a)) continue;
        inner.add(a);
        range.setStart(node, a);
        range.setEnd(node, b);
        for (const r of range.getClientRects()) {
          const u = document.createElement("div");
          u.className = "tl-bsplit";
          u.style.left = `${r.left - base.left}px`;
          u.style.top = `${r.bottom - base.top + 1}px`;  // under the letters' box, not on it
          u.style.width = `${r.width}px`;
          marks.appendChild(u);
        }
        continue;
      }
      range.setStart(node, cut);
      range.setEnd(node, cut);
      const r = range.getClientRects()[0] || range.getBoundingClientRect();
      if (!r || (!r.height && !r.left)) continue;
      // the leading above and below the letters' box (line-height minus the box, halved), less a 1px gap
      const lead = Math.max(3, (lineHeight - r.height) / 2) - 1;
      const x = r.left - base.left - 1;
      tick("tl-bmark tl-bmark-top", x, r.top - base.top - 1 - lead, lead);
      tick("tl-bmark tl-bmark-bottom", x, r.bottom - base.top + 1, lead);
      drawn++;
    }
    root.dataset.marks = String(drawn);
    root.dataset.splits = String(inner.size);
  };
  draw();
  // called again on every data change without the last cleanup (run on unmount only): one observer
  if (root.tlOff) root.tlOff();
  const ro = new ResizeObserver(() => draw());
  ro.observe(root);
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(draw);
  root.tlOff = () => {
    ro.disconnect();
    root.tlOff = null;
  };
  return root.tlOff;
}
