// Clicks (and taps) on token spans drawn by ui.spans.render_spans with an `owner`: the token's
// position goes to Python as a trigger. One listener on the document, removed on unmount.
export default function ({ data, parentElement, setTriggerValue }) {
  const prefix = data.prefix;
  const onClick = (e) => {
    let tok = null;
    for (const el of e.composedPath ? e.composedPath() : []) {
      if (!(el instanceof Element)) continue;
      if (!tok && el.classList.contains("tl-tok") && el.dataset.pos !== undefined) tok = el;
      else if (tok && el.classList.contains("tl-spans")) {
        const owner = el.dataset.owner || "";
        if (!owner.startsWith(prefix)) return;
        el.ownerDocument.querySelectorAll(".tl-pin").forEach((p) => p.classList.remove("tl-pin"));
        tok.classList.add("tl-pin");  // at once; the rerun draws the details
        setTriggerValue("pick", { owner, pos: Number(tok.dataset.pos) });
        return;
      }
    }
  };
  // called again on every data change without the last cleanup (Streamlit runs it on unmount only):
  // one listener per mounted element, kept on the element
  const host = parentElement || document.body;
  if (host.tlOff) host.tlOff();
  document.addEventListener("click", onClick);
  host.tlOff = () => {
    document.removeEventListener("click", onClick);
    host.tlOff = null;
  };
  return host.tlOff;
}
