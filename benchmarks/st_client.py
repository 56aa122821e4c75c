"""A minimal Streamlit visitor for load measurements: speaks the app's own websocket protocol
(BackMsg / ForwardMsg protobufs from the installed streamlit) to a LOCAL server only, the way the
browser does, without drawing anything. One `Visitor` is one browser tab: one websocket, one session.

    async with Visitor("http://127.0.0.1:8501", query={"text": "hello"}) as v:   # opens Compare
        await v.type_text("hello world")      # what the live text box sends, as a fragment rerun
        v.last.seconds, v.last.received       # server time to script_finished, bytes received

A visitor can also use the page's widgets by their keys, as the browser sends them, and upload files
the way the browser does (a PUT to /_stcore/upload_file/<session>/<file>, with the XSRF cookie and
header, then the uploader's state):

    await v.goto("bpe-lab")                               # another page, same session
    await v.set(compare_decoder=True)                     # toggles, and expanders and popovers that keep state
    await v.set(compare_decode_ids="279, 279")            # text inputs, selectboxes (by label)...
    await v.click("compare_upload_load")                  # a button
    await v.upload("compare_upload_file", [("tokenizer.json", data)])

Used by benchmarks/visitors.py and benchmarks/hostile_inputs.py. Only loopback addresses are accepted.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlparse

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect


@dataclass
class Run:
    seconds: float = 0.0                        # from sending the request to script_finished
    received: int = 0                           # bytes of ForwardMsgs received
    messages: int = 0
    exceptions: list[str] = field(default_factory=list)
    query_string: str = ""                      # what the page wrote into its link
    messages_shown: list[str] = field(default_factory=list)  # "error: …", "warning: …", "success: …", "exception: …"
    status: str = ""                            # script_finished's status
    by_kind: dict[str, int] = field(default_factory=dict)   # bytes of new elements by kind (a component: its name)
    refs: int = 0                               # elements the browser already held: a reference came instead
    reruns: int = 0                             # runs the script asked for (st.rerun), which this one includes


CACHE_AGE = 2  # Streamlit's global.maxCachedMessageAge: runs a cached message is kept after it was last used


def _local(url: str) -> str:
    host = urlparse(url).hostname or ""
    try:
        ok = ipaddress.ip_address(host).is_loopback
    except ValueError:
        ok = host == "localhost"
    if not ok:
        raise ValueError(f"benchmarks talk to a local server only, not {host!r}")
    return url


class Visitor:
    def __init__(self, url: str, *, query: dict | None = None, page: str = "", timeout: float = 120.0,
                 headers: dict | None = None, wasm: bool = True):
        base = _local(url).rstrip("/")
        self.base = base
        self.ws_url = base.replace("http://", "ws://").replace("https://", "wss://") + "/_stcore/stream"
        self.query = urlencode(query or {})
        self.page = page                      # a url_path such as "bpe-lab"; "" is the default page
        self.timeout = timeout
        self.headers = headers or {}          # e.g. a load balancer's affinity cookie
        self.ws = None
        self.components: dict[str, tuple[str, str]] = {}   # component name -> (widget id, its data JSON)
        self.fragments: dict[str, str] = {}                # component name -> the fragment it was drawn in
        self.pages: dict[str, str] = {}                    # url path -> page_script_hash
        self.page_hash = ""
        self.fragment = ""
        self.seq = 0
        self.last = Run()
        self.runs: list[Run] = []
        self.session_id = ""
        self.widgets: dict[str, tuple[str, str, object]] = {}   # user key -> (widget id, element kind, its proto)
        # a browser with WebAssembly draws every spans column the server gives browser assets, and its live
        # box says so with each text (ui/web/live_text.js): head -> its box's key, as the last run drew them
        self.wasm = wasm
        self.in_browser: dict[str, str] = {}
        self.columns: dict[str, str] = {}  # every spans column's head -> its box's key, as drawn last
        # the browser's message cache: the hash of each cacheable message seen (an element of 10 KB or more)
        # -> the run it was last seen in; each rerun names them, and the server sends a reference instead
        # of a message the browser already holds (expired after global.maxCachedMessageAge runs, 2)
        self.cached: dict[str, int] = {}
        self.run_count = 0

    async def __aenter__(self) -> "Visitor":
        self.ws = await connect(self.ws_url, subprotocols=["streamlit"], max_size=None, open_timeout=self.timeout,
                                additional_headers=self.headers)
        await self.rerun(query=self.query)
        return self

    async def __aexit__(self, *exc) -> None:
        await self.ws.close()

    async def rerun(self, *, query: str | None = None, widgets: list[WidgetState] = (), fragment: str = "") -> Run:
        msg = BackMsg()
        r = msg.rerun_script
        r.query_string = self.query if query is None else query
        r.page_script_hash = self.page_hash
        if not self.page_hash and self.page:
            r.page_name = self.page
        if fragment:
            r.fragment_id = fragment
        r.widget_states.widgets.extend(widgets)
        r.cached_message_hashes.extend(self.cached)
        run = Run()
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        while True:
            data = await asyncio.wait_for(self.ws.recv(), self.timeout)
            run.received += len(data)
            run.messages += 1
            f = ForwardMsg()
            f.ParseFromString(data)
            kind = f.WhichOneof("type")
            if kind == "ref_hash":
                self.cached[f.ref_hash] = self.run_count
                run.refs += 1
            elif f.metadata.cacheable and f.hash:
                self.cached[f.hash] = self.run_count
            if kind == "new_session":
                self.page_hash = f.new_session.page_script_hash
                self.session_id = f.new_session.initialize.session_id or self.session_id
            elif kind == "navigation":
                self.pages = {p.url_pathname: p.page_script_hash for p in f.navigation.app_pages}
                self.page_hash = f.navigation.page_script_hash or self.page_hash
            elif kind == "page_info_changed":
                run.query_string = f.page_info_changed.query_string
            elif kind == "delta":
                if f.delta.fragment_id:
                    self.fragment = f.delta.fragment_id
                if f.delta.WhichOneof("type") == "add_block":  # an expander or popover that keeps its state
                    block = f.delta.add_block
                    what = block.WhichOneof("type")
                    bid = getattr(block, what).id if what in ("expandable", "popover") else ""
                    if bid.startswith("$$ID-"):
                        self.widgets[bid.split("-", 2)[2]] = (bid, what, getattr(block, what))
                if f.delta.WhichOneof("type") == "new_element":
                    el = f.delta.new_element
                    what = el.WhichOneof("type")
                    kind_name = el.bidi_component.component_name if what == "bidi_component" else what or ""
                    run.by_kind[kind_name] = run.by_kind.get(kind_name, 0) + len(data)
                    if what == "bidi_component":
                        c = el.bidi_component
                        self.components[c.component_name] = (c.id, c.json)
                        self.fragments[c.component_name] = f.delta.fragment_id
                        if c.component_name == "token_lens.token_spans":
                            self._spans_seen(c)
                    elif what == "exception":
                        run.exceptions.append(el.exception.message)
                    if what == "alert":
                        run.messages_shown.append(f"{el.alert.Format.Name(el.alert.format).lower()}: {el.alert.body}")
                    elif what == "exception":
                        run.messages_shown.append(f"exception: {el.exception.type}: {el.exception.message}")
                    wid = getattr(getattr(el, what), "id", "") if what else ""
                    if isinstance(wid, str) and wid.startswith("$$ID-"):
                        self.widgets[wid.split("-", 2)[2]] = (wid, what, getattr(el, what))
            elif kind == "script_finished":
                self.run_count += 1
                self.cached = {h: n for h, n in self.cached.items() if self.run_count - n <= CACHE_AGE}
                run.status = ForwardMsg.ScriptFinishedStatus.Name(f.script_finished)
                run.seconds = time.perf_counter() - t0
                if run.status == "FINISHED_EARLY_FOR_RERUN":  # the script asked for a run (st.rerun): it follows
                    run.reruns += 1
                    continue
                if run.status in ("FINISHED_SUCCESSFULLY", "FINISHED_FRAGMENT_RUN_SUCCESSFULLY"):
                    break
                if run.status == "FINISHED_WITH_COMPILE_ERROR":
                    run.exceptions.append("compile error")
                    break
        self.last = run
        self.runs.append(run)
        return run

    def _spans_seen(self, c) -> None:
        """Note a spans component's column as the browser would: drawn there when it has browser assets
        (once its vocabulary is loaded: a client that draws nothing has it at once)."""
        raw = c.bytes or c.json.encode() or c.mixed.json.encode()
        live = json.loads(raw).get("live") if raw else None
        if isinstance(live, dict) and live.get("head"):
            self.columns[live["head"]] = live.get("source")
            if live.get("assets") and self.wasm:
                self.in_browser[live["head"]] = live["source"]
            else:
                self.in_browser.pop(live["head"], None)

    async def goto(self, url_path: str, query: dict | None = None) -> Run:
        """Another page of the app in the same session (as the sidebar's links do)."""
        self.page_hash = self.pages[url_path]
        self.fragment = ""
        return await self.rerun(query=urlencode(query or {}))

    def _state(self, key: str, value) -> WidgetState:
        wid, what, el = self.widgets[key]
        state = WidgetState(id=wid)
        if what in ("button", "download_button"):
            state.trigger_value = True
        elif what in ("checkbox", "toggle", "expandable", "popover"):  # a stateful block: open or not
            state.bool_value = bool(value)
        elif what == "multiselect" or (isinstance(value, (list, tuple)) and all(isinstance(x, str) for x in value)):
            state.string_array_value.data.extend(value)  # a multiselect's or select_slider's labels
        elif isinstance(value, (list, tuple)):
            state.double_array_value.data.extend(map(float, value))  # a slider's value(s)
        elif what == "number_input":
            if el.data_type == el.INT:
                state.int_value = int(value)
            else:
                state.double_value = float(value)
        elif what == "file_uploader":
            state.file_uploader_state_value.CopyFrom(value)
        else:  # text_input, text_area, selectbox and radio (by the option's label)
            state.string_value = str(value)
        return state

    async def set(self, **values) -> Run:
        """Give widgets (by their keys) new values and rerun, as the browser does after an edit."""
        return await self.rerun(query="", widgets=[self._state(k, v) for k, v in values.items()])

    async def click(self, key: str) -> Run:
        return await self.set(**{key: True})

    async def upload(self, key: str, files: list[tuple[str, bytes]]) -> Run:
        """Upload files into the file uploader `key` as the browser does, then rerun with its new state."""
        from streamlit.proto.Common_pb2 import FileUploaderState
        from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string

        token = generate_xsrf_token_string()
        state = FileUploaderState()
        for name, data in files:
            file_id = uuid.uuid4().hex
            url = f"{self.base}/_stcore/upload_file/{self.session_id}/{file_id}"
            boundary = uuid.uuid4().hex
            body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
                    f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
            req = urllib.request.Request(url, data=body, method="PUT", headers={
                "Content-Type": f"multipart/form-data; boundary={boundary}", "X-Xsrftoken": token,
                "Cookie": f"_streamlit_xsrf={token}"})
            status = await asyncio.to_thread(lambda: urllib.request.urlopen(req, timeout=self.timeout).status)
            if status != 204:
                raise RuntimeError(f"upload of {name} answered {status}")
            info = state.uploaded_file_info.add()
            info.name, info.size, info.file_id = name, len(data), file_id
            info.file_urls.file_id, info.file_urls.upload_url, info.file_urls.delete_url = file_id, url, url
        return await self.set(**{key: state})

    async def type_text(self, text: str, *, pause: bool = True) -> Run:
        """What Compare's live text box sends after a keystroke: its text, as a rerun of the page's fragment,
        with the heads of the columns this browser draws (none without WebAssembly: `wasm=False`). A
        `pause` send (the box's send after a quiet moment) goes, as live_text.js's does, to the text sink
        for the box when the server made it light and this browser draws every column that follows the box:
        a rerun of the sink's fragment alone (app_pages/kit/widgets.text_sink)."""
        wid, data = self.components["token_lens.live_text"]
        box = json.loads(data)
        self.seq += 1
        heads = [h for h, source in self.in_browser.items() if source == box.get("key")]
        sent = {"value": text, "rev": box["rev"], "seq": self.seq, "browser": heads}
        sink = self.components.get("token_lens.text_sink")
        if pause and sink and self.wasm and json.loads(sink[1]).get("light") and self._all_here(box.get("key")):
            state = WidgetState(id=sink[0], json_value=json.dumps({"text": sent}))
            return await self.rerun(query="", widgets=[state], fragment=self.fragments["token_lens.text_sink"])
        state = WidgetState(id=wid, json_value=json.dumps({"text": sent}))
        return await self.rerun(query="", widgets=[state], fragment=self.fragments["token_lens.live_text"])

    def _all_here(self, source) -> bool:
        """Whether this browser draws every spans column that follows the box `source` (as drawn last)."""
        return bool(self.columns) and all(self.in_browser.get(h) == source for h, s in self.columns.items()
                                          if s == source)

def server_memory_mb(pid: int) -> float:
    """Resident memory of a local process (the server), in MB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")
