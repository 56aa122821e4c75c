"""The biggest message each page sends to the browser (issue 16): every ForwardMsg a page run enqueues is
what Streamlit writes to the websocket, one message each, and Streamlit refuses any over 200 MB
(server.maxMessageSize). Pages run in-process through AppTest with inputs of 1 MB and 5 MB (pasted
text, uploads, a conversation, ids to decode, a minbpe model of a million merges) and every view opened.

    .venv/bin/python benchmarks/ws_messages.py [--sizes 1,5] [--pages compare,bpe-lab,...]

Prints a table (page, input, view, biggest message, what it held) and ends with one JSON line.
Downloads are not in it: Streamlit serves a download button's file over HTTP, not the websocket.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

MB = 1_000_000
PAGES = ["compare", "chat", "bpe-lab", "inside", "quirks", "languages", "sentencepiece", "algorithms"]


def corpus(n_bytes: int) -> str:
    from ui.examples import EXAMPLES

    unit = "\n".join(EXAMPLES.values()) + "\n"
    data = (unit * (n_bytes // len(unit.encode()) + 1)).encode()[:n_bytes]
    return data.decode("utf-8", errors="ignore")


def million_merges_model() -> bytes:
    """A minbpe .model of 1,000,000 merges (11 MB, under the 20 MB upload limit): every pair of bytes,
    then two-byte tokens followed by a byte."""
    lines = ["minbpe v1", "", "0"]
    lines += [f"{a} {b}" for a in range(256) for b in range(256)]
    k = 0
    while len(lines) - 3 < 1_000_000:
        lines.append(f"{256 + k // 256} {k % 256}")
        k += 1
    return ("\n".join(lines) + "\n").encode()


class Recorder:
    def __init__(self):
        self.biggest = (0, "")

    def __call__(self, msg):
        size = msg.ByteSize()
        if size > self.biggest[0]:
            what = msg.WhichOneof("type") or ""
            if what == "delta" and msg.delta.WhichOneof("type") == "new_element":
                el = msg.delta.new_element
                what = el.WhichOneof("type")
                if what == "bidi_component":
                    what += ":" + el.bidi_component.component_name
            self.biggest = (size, what)


@contextmanager
def recording():
    from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

    rec = Recorder()
    real = ForwardMsgQueue.enqueue

    def enqueue(self, msg):
        rec(msg)
        return real(self, msg)

    ForwardMsgQueue.enqueue = enqueue
    try:
        yield rec
    finally:
        ForwardMsgQueue.enqueue = real


RESULTS: list[dict] = []


def measure(page: str, label: str, view: str, at, action=None) -> None:
    """Run `action(at)` (or a plain rerun) and record the biggest message of that run."""
    with recording() as rec:
        t0 = time.perf_counter()
        if action is not None:
            action(at)
        at.run()
        secs = time.perf_counter() - t0
    if at.exception:
        print(f"!! {page} {label} {view}: {at.exception[0].message[:200]}", file=sys.stderr)
    size, what = rec.biggest
    RESULTS.append({"page": page, "input": label, "view": view, "bytes": size, "element": what,
                    "seconds": round(secs, 2), "exception": bool(at.exception)})
    print(f"{page:14} {label:28} {view:26} {size / MB:8.2f} MB  {what:34} {secs:6.1f} s", flush=True)


def app(page: str | None = None):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.run()
    if page:
        at.switch_page(f"app_pages/{page}.py")
        at.run()
    return at


def set_state(**kv):
    def act(at):
        for k, v in kv.items():
            at.session_state[k] = v
    return act


def upload(key: str, name: str, data: bytes, mime="application/octet-stream", click: str | None = None):
    def act(at):
        at.file_uploader(key=key).set_value((name, data, mime) if not isinstance(data, list) else data)
        if click:
            at.run()
            at.button(key=click).click()
    return act


def run_compare(n: int, label: str) -> None:
    text = corpus(n)
    at = app()
    measure("compare", label, "spans (4 tokenizers)", at, set_state(compare_text=text))
    for view in ("IDs", "Table", "Text with boundaries"):
        measure("compare", label, view, at, set_state(compare_view=view))
    measure("compare", label, "A and B", at, set_state(compare_view="Spans", compare_ab=True, compare_text_b=text))
    ids = ", ".join(["15339"] * (n // 7))[:n]
    measure("compare", label, "decoder", at, set_state(compare_ab=False, compare_decoder=True, compare_decode_ids=ids))


def run_chat(n: int, label: str) -> None:
    from app_pages.kit.compare_chat import MAX_CHARS, MAX_TURNS

    at = app()
    at.session_state["compare_mode"] = "Chat"
    at.run()
    turns = min(MAX_TURNS, max(1, n // MAX_CHARS))
    text = corpus(min(n, MAX_CHARS) - 1000)[:MAX_CHARS]

    def act(at):
        at.session_state["compare_chat_turns"] = list(range(turns))
        at.session_state["compare_chat_next"] = turns
        for i in range(turns):
            at.session_state[f"compare_chat_role_{i}"] = "user"
            at.session_state[f"compare_chat_text_{i}"] = text
    measure("chat", f"{label} ({turns} × {len(text) // 1000} KB)", "4 chat formats", at, act)


def run_lab(n: int, label: str) -> None:
    at = app("bpe_lab")
    measure("bpe-lab", label, "paste", at, set_state(lab_text=corpus(n), lab_vocab=8192))
    at.button(key="lab_train").click()
    measure("bpe-lab", label, "train (vocab 8,192)", at)
    for view in ("Merges", "Compression", "Step by step", "Vocabulary trade-off", "Tokens", "Save"):
        measure("bpe-lab", label, view, at, set_state(lab_view=view))
    if n == MB:
        model = million_merges_model()
        measure("bpe-lab", "model of 1,000,000 merges", "load", at, upload("lab_load", "big.model", model))
        for view in ("Merges", "Tokens", "Save"):
            measure("bpe-lab", "model of 1,000,000 merges", view, at, set_state(lab_view=view))
        at.switch_page("app_pages/inside.py")
        measure("inside", "model of 1,000,000 merges", "all tabs", at,
                set_state(inside_tok="lab_bpe", inside_text=corpus(10_000)))


def run_inside(n: int, label: str) -> None:
    at = app("inside")
    for name in ("gpt2", "o200k_base", "mistral_sp"):
        measure("inside", label, f"all tabs, {name}", at, set_state(inside_tok=name, inside_text=corpus(n)))
    measure("inside", label, "decode", at, set_state(inside_decode=", ".join(["995"] * (n // 5))[:n]))


def run_quirks(n: int, label: str) -> None:
    from ui.quirks import CARDS

    at = app("quirks")
    measure("quirks", label, "gallery, card A and B", at,
            set_state(**{f"quirks_{CARDS[0].key}_a": corpus(n), f"quirks_{CARDS[0].key}_two": True,
                         f"quirks_{CARDS[0].key}_b": corpus(n)}))
    for tab in ("Numbers", "Vocabulary audit", "Rare long tokens"):
        measure("quirks", label, tab, at, set_state(quirks_tab=tab))


def run_languages(n: int, label: str) -> None:
    at = app("languages")
    measure("languages", label, "parallel text", at)
    at.session_state["languages_tab"] = "Your corpus"
    at.run()
    half = corpus(n // 2)
    files = [("eng.txt", half.encode(), "text/plain"), ("fra.txt", half.encode(), "text/plain")]
    measure("languages", label, "your corpus", at, upload("languages_upload", "", files))


def run_sentencepiece(n: int, label: str) -> None:
    at = app("sentencepiece_lab")
    at.session_state["sp_source"] = "Paste"
    at.run()
    measure("sentencepiece", label, "paste", at, set_state(sp_text=corpus(n), sp_opt_vocab_size=1000))
    at.button(key="sp_train").click()
    measure("sentencepiece", label, "train", at)
    for tab in ("Vocabulary", "Encode", "Byte fallback", "Merge tree", "Lattice", "Sampling", "Model & downloads"):
        measure("sentencepiece", label, tab, at, set_state(sp_tab=tab, sp_etext=corpus(n)))


def run_algorithms(n: int, label: str) -> None:
    at = app("algorithms")
    at.session_state["alg_source"] = "Paste"
    at.run()
    measure("algorithms", label, "paste", at, set_state(alg_text=corpus(n), alg_vocab=8192))
    at.button(key="alg_train").click()
    measure("algorithms", label, "train all five", at)
    measure("algorithms", label, "segment", at, set_state(alg_segment=corpus(n)))
    for tab in ("Vocabularies", "Training steps", "Length vs vocab size"):
        measure("algorithms", label, tab, at, set_state(alg_tab=tab))


RUNNERS = {"compare": run_compare, "chat": run_chat, "bpe-lab": run_lab, "inside": run_inside,
           "quirks": run_quirks, "languages": run_languages, "sentencepiece": run_sentencepiece,
           "algorithms": run_algorithms}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1,5", help="input sizes in MB")
    ap.add_argument("--pages", default=",".join(PAGES))
    args = ap.parse_args()
    for mb in [float(s) for s in args.sizes.split(",")]:
        for page in args.pages.split(","):
            RUNNERS[page](int(mb * MB), f"{mb:g} MB")
    worst = {}
    for r in RESULTS:
        if r["bytes"] > worst.get(r["page"], {}).get("bytes", -1):
            worst[r["page"]] = r
    print("\nbiggest message per page:")
    for page, r in worst.items():
        print(f"  {page:14} {r['bytes'] / MB:8.2f} MB  ({r['input']}, {r['view']}, {r['element']})")
    print(json.dumps({"results": RESULTS, "worst": worst}))


if __name__ == "__main__":
    main()
