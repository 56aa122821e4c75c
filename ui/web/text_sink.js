// Where a live box (live_text.js) sends the text of a pause in typing when the server said `light`: this
// component's fragment then runs alone (Compare's counts), not the box's (the whole page). The box asks
// with a "tl-live-pause" event; a sink for its key that is light takes the send (detail.taken), else the
// box sends to itself. Draws nothing.
export default function ({ data, parentElement, setStateValue }) {
  const s = parentElement.tlSink || (parentElement.tlSink = {});
  if (s.off) s.off();  // called again on new data without the last cleanup: one listener at a time
  const onPause = (e) => {
    if (e.detail.key !== data.source || !data.light || e.detail.taken) return;
    e.detail.taken = true;
    setStateValue("text", e.detail.sent);
  };
  window.addEventListener("tl-live-pause", onPause);
  return (s.off = () => {
    s.off = null;
    window.removeEventListener("tl-live-pause", onPause);
  });
}
