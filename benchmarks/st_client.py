"""A minimal Streamlit visitor for load measurements: speaks the app's own websocket protocol
(BackMsg / ForwardMsg protobufs from the installed streamlit) to a LOCAL server only, the way the
browser does, without drawing anything. One `Visitor` is one browser tab: one websocket, one session.

    async with Visitor("http://127.0.0.1:8501", query={"text": "hello"}) as v:   # opens Compare
        await v.type_text("hello world")      # what the live text box sends, as a fragment rerun
        v.last.seconds, v.last.received       # server time to script_finished, bytes received

Used by benchmarks/visitors.py. Only loopback addresses are accepted.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import time
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
    status: str = ""                            # script_finished's status


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
                 headers: dict | None = None):
        base = _local(url).rstrip("/")
        self.ws_url = base.replace("http://", "ws://").replace("https://", "wss://") + "/_stcore/stream"
        self.query = urlencode(query or {})
        self.page = page                      # a url_path such as "bpe-lab"; "" is the default page
        self.timeout = timeout
        self.headers = headers or {}          # e.g. a load balancer's affinity cookie
        self.ws = None
        self.components: dict[str, tuple[str, str]] = {}   # component name -> (widget id, its data JSON)
        self.pages: dict[str, str] = {}                    # url path -> page_script_hash
        self.page_hash = ""
        self.fragment = ""
        self.seq = 0
        self.last = Run()
        self.runs: list[Run] = []

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
            if kind == "new_session":
                self.page_hash = f.new_session.page_script_hash
            elif kind == "navigation":
                self.pages = {p.url_pathname: p.page_script_hash for p in f.navigation.app_pages}
                self.page_hash = f.navigation.page_script_hash or self.page_hash
            elif kind == "page_info_changed":
                run.query_string = f.page_info_changed.query_string
            elif kind == "delta":
                if f.delta.fragment_id:
                    self.fragment = f.delta.fragment_id
                if f.delta.WhichOneof("type") == "new_element":
                    el = f.delta.new_element
                    what = el.WhichOneof("type")
                    if what == "bidi_component":
                        c = el.bidi_component
                        self.components[c.component_name] = (c.id, c.json)
                    elif what == "exception":
                        run.exceptions.append(el.exception.message)
            elif kind == "script_finished":
                run.status = ForwardMsg.ScriptFinishedStatus.Name(f.script_finished)
                run.seconds = time.perf_counter() - t0
                if run.status in ("FINISHED_SUCCESSFULLY", "FINISHED_FRAGMENT_RUN_SUCCESSFULLY",
                                  "FINISHED_EARLY_FOR_RERUN"):
                    break
                if run.status == "FINISHED_WITH_COMPILE_ERROR":
                    run.exceptions.append("compile error")
                    break
        self.last = run
        self.runs.append(run)
        return run

    async def type_text(self, text: str) -> Run:
        """What Compare's live text box sends after a keystroke: its text, as a rerun of the page's fragment."""
        wid, data = self.components["token_lens.live_text"]
        rev = json.loads(data)["rev"]
        self.seq += 1
        state = WidgetState(id=wid, json_value=json.dumps({"text": {"value": text, "rev": rev, "seq": self.seq}}))
        return await self.rerun(query="", widgets=[state], fragment=self.fragment)


def server_memory_mb(pid: int) -> float:
    """Resident memory of a local process (the server), in MB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")
