// Play / Pause for the BPE Lab's step view: while playing, one "tick" trigger per step, each sent
// `speed` seconds after Python drew the previous step (so a slow step never piles ticks up).
export default function ({ data, parentElement, setTriggerValue }) {
  const root = parentElement.querySelector(".tl-player");
  const btn = root.querySelector("button");
  const speed = root.querySelector("select");
  const s = root.tlState || (root.tlState = { playing: false, timer: 0 });
  clearTimeout(s.timer);
  const atEnd = data.step >= data.n;
  if (atEnd) s.playing = false;
  const draw = () => {
    btn.textContent = s.playing ? "⏸ Pause" : atEnd ? "↺ Play again" : "▶ Play";
    root.dataset.playing = s.playing ? "1" : "0";
  };
  const schedule = () => {
    s.timer = setTimeout(() => setTriggerValue("tick", Date.now()), Number(speed.value) * 1000);
  };
  if (s.playing) schedule();
  btn.onclick = () => {
    s.playing = !s.playing;
    clearTimeout(s.timer);
    if (s.playing) setTriggerValue(atEnd ? "restart" : "tick", Date.now());
    draw();
  };
  draw();
  return () => clearTimeout(s.timer);
}
