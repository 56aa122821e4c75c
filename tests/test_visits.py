"""service/visits.py, the end of a visit (issue 24, 3a): a closed tab's uploads, session state and
the tokenizers in it are released once the visit has been disconnected for the grace period, through
Streamlit's own runtime, driven here in-process (a Runtime, its session manager and storage, its
uploaded-file manager: what `streamlit run` builds), with a clock the test moves."""

from __future__ import annotations

import asyncio
import gc
import weakref
from pathlib import Path

import pytest
from conftest import run_on
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.runtime import Runtime, RuntimeConfig
from streamlit.runtime.caching.storage.dummy_cache_storage import MemoryCacheStorageManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.runtime.memory_session_storage import MemorySessionStorage
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.uploaded_file_manager import UploadedFileRec

from service.cache import tokenized
from service.visits import Visits

ROOT = Path(__file__).resolve().parent.parent
MB = 1 << 20


class _Client:
    """A browser tab: it counts the runs the server finished."""

    def __init__(self):
        self.finished = 0

    def write_forward_msg(self, msg) -> None:
        if msg.WhichOneof("type") == "script_finished":
            self.finished += 1

    @property
    def client_context(self):
        return None


class _Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _upload(rt: Runtime, sid: str, n: int, size: int) -> None:
    for k in range(n):
        rt.uploaded_file_mgr.add_file(sid, UploadedFileRec(f"{sid}-{k}", f"part{k}.txt", "text/plain",
                                                           bytes([65 + k % 26]) * size))


def _held(rt: Runtime, sid: str) -> int:
    return sum(len(f.data) for f in rt.uploaded_file_mgr.file_storage.get(sid, {}).values())


@pytest.fixture
def runtime(tmp_path, request):
    """A started Runtime on its own event loop (what `streamlit run` makes), serving a one-line page,
    stopped after the test. Its parameter (indirect parametrization) is the storage's time to live in
    seconds (120 by default, Streamlit's)."""
    if Runtime.exists():
        pytest.skip("a Runtime exists in this process already")
    script = tmp_path / "page.py"
    script.write_text("import streamlit as st\nst.session_state['seen'] = True\nst.write('hello')\n")
    loop = asyncio.new_event_loop()
    rt = Runtime(RuntimeConfig(
        script_path=str(script), media_file_storage=MemoryMediaFileStorage("/media"),
        uploaded_file_manager=MemoryUploadedFileManager("/upload"),
        cache_storage_manager=MemoryCacheStorageManager(), is_hello=False,
        session_storage=MemorySessionStorage(ttl_seconds=getattr(request, "param", 120))))
    run_on(loop, rt.start())
    yield rt, loop
    rt.stop()
    run_on(loop, rt.stopped)
    loop.close()
    Runtime._instance = None  # noqa: SLF001 (the next test builds its own)


def _on_loop(loop, fn, *args, **kwargs):
    """fn(*args, **kwargs) on the runtime's event loop thread, as the server calls it."""
    async def call():
        return fn(*args, **kwargs)
    return run_on(loop, call())


def _connect(rt, loop, existing: str | None = None) -> str:
    """A tab opens and its page runs once (so the session is what a real one is: held in reference
    cycles by its script runner, freed only by the cycle collector)."""
    client = _Client()
    sid = _on_loop(loop, rt.connect_session, client=client, user_info={}, existing_session_id=existing)
    if existing is None:
        _run(rt, loop, sid)
        assert rt.get_app_session(sid).session_state["seen"]
    return sid


def _run(rt, loop, sid: str) -> None:
    """The page runs once for this session, as when its visitor interacts."""
    client = rt.get_client(sid)
    before = client.finished
    msg = BackMsg()
    msg.rerun_script.query_string = ""
    _on_loop(loop, rt.handle_backmsg, sid, msg)
    for _ in range(400):
        if client.finished > before:
            return
        _settle(loop, 0.025)
    raise AssertionError("the page did not finish its run")


def _settle(loop, seconds: float = 0.05) -> None:
    """Let the event loop run what was scheduled on it (a close is done there)."""
    run_on(loop, asyncio.sleep(seconds))


def test_a_closed_visits_uploads_state_and_tokenizers_are_released(runtime):
    from tests.test_results_store import _uploaded

    rt, loop = runtime
    clock = _Clock()
    visits = Visits(rt, grace=60, clock=clock)
    stays = _connect(rt, loop)
    leaves = _connect(rt, loop)
    for sid in (stays, leaves):
        visits.visit(sid, rt.get_app_session(sid))
        _upload(rt, sid, 5, 2 * MB)
    tok = _uploaded()  # the leaving visitor's own tokenizer, in its session state and in the results store
    rt.get_app_session(leaves).session_state["user_tokenizers"] = {"mine": tok}
    assert list(tokenized(tok, "hello visitors", parse_special=False).ids) == tok.encode("hello visitors")
    session, tok = weakref.ref(rt.get_app_session(leaves)), weakref.ref(tok)
    gc.freeze()  # as app_pages/kit/shared.load_tokenizer does after each vocabulary it loads

    _on_loop(loop, rt.disconnect_session, leaves)  # the tab closes: Streamlit keeps the session for a reconnect
    assert visits.sweep() == [] and _held(rt, leaves) == 10 * MB
    clock.now += 59
    assert visits.sweep() == [] and _held(rt, leaves) == 10 * MB  # within the grace: a reconnect keeps everything
    clock.now += 2
    assert visits.sweep() == [leaves]  # ended: closed on the event loop
    _settle(loop)
    clock.now += 10
    visits.sweep()  # collects; the runtime's loop still holds the last session it sent messages for,
    assert session() is not None and tok() is None  # but not its state: the tokenizer is freed already
    assert not session().session_state.filtered_state
    _run(rt, loop, stays)  # the loop lets go of it once another visitor's run goes through
    clock.now += 10
    visits.sweep()  # collects again
    assert not visits.closing
    assert _held(rt, leaves) == 0 and leaves not in rt.uploaded_file_mgr.file_storage
    assert session() is None and tok() is None  # the session, its state and its tokenizer are freed
    assert _held(rt, stays) == 10 * MB and rt.is_active_session(stays)  # the other visitor keeps all
    clock.now += 600
    assert visits.sweep() == [] and _held(rt, stays) == 10 * MB


def test_a_visitor_back_within_the_grace_keeps_the_visit(runtime):
    rt, loop = runtime
    clock = _Clock()
    visits = Visits(rt, grace=60, clock=clock)
    sid = _connect(rt, loop)
    visits.visit(sid)
    _upload(rt, sid, 2, MB)
    _on_loop(loop, rt.disconnect_session, sid)
    visits.sweep()
    clock.now += 30
    assert _connect(rt, loop, sid) == sid  # a network blip
    visits.sweep()
    clock.now += 120
    assert visits.sweep() == [] and _held(rt, sid) == 2 * MB


@pytest.mark.parametrize("runtime", [1], indirect=True)
@pytest.mark.parametrize("watcher, held", [("auto", 3 * MB), ("none", 0)])
def test_without_the_sweeper_streamlit_keeps_an_expired_visits_uploads(runtime, watcher, held):
    """The cause, as Streamlit 1.67 behaves (service/visits.py): a session that expires from its storage
    is dropped without AppSession.shutdown; only its __del__ would release its uploads. With the file
    watcher on (Streamlit's default, "auto"), the watcher's and the config's listeners keep the session in a
    reference cycle, which the cycle collector never sees once gc.freeze() ran while it was alive: its
    uploads stay. With the watcher off, as .streamlit/config.toml has it since issue 32, nothing holds the
    session, and Streamlit's own __del__ releases them (the sweeper stays for a server run with the
    watcher on). If the first case fails, Streamlit releases them itself now."""
    import time

    from streamlit import config

    rt, loop = runtime
    before = config.get_option("server.fileWatcherType")
    config.set_option("server.fileWatcherType", watcher)
    try:
        sid = _connect(rt, loop)
    finally:
        config.set_option("server.fileWatcherType", before)
    _upload(rt, sid, 3, MB)
    gc.freeze()  # as app_pages/kit/shared.load_tokenizer does after each vocabulary it loads
    try:
        _on_loop(loop, rt.disconnect_session, sid)
        time.sleep(1.1)  # the session's time to live is over
        other = _connect(rt, loop)
        _on_loop(loop, rt.disconnect_session, other)  # a write to the storage: the expired session is reaped
        _settle(loop)
        gc.collect()
        assert rt.get_app_session(sid) is None
        assert _held(rt, sid) == held  # dropped; its uploads still held with the watcher on, released without
    finally:
        gc.unfreeze()


def test_two_tabs_of_one_browser_are_one_visitor(monkeypatch):
    """The job runner's owner (service.visits.visitor_key): every tab of a browser sends Streamlit's XSRF
    cookie, the same token masked anew on each page load; another browser has another token. Without a
    cookie (AppTest, XSRF protection off) the visitor is the session."""
    import os

    import streamlit as st
    from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string

    from service import visits

    cookie = {}
    monkeypatch.setattr(type(st.context), "cookies", property(lambda self: cookie))
    monkeypatch.setattr(visits, "current_session_id", lambda: "tab-session")
    token, other = os.urandom(16), os.urandom(16)
    keys = []
    for t in (token, token, other):
        cookie["_streamlit_xsrf"] = generate_xsrf_token_string(t, 1_700_000_000)
        keys.append(visits.visitor_key())
    assert keys[0] == keys[1] != keys[2] and keys[0].startswith("browser:")
    assert token.hex() not in keys[0] and cookie["_streamlit_xsrf"] not in keys[2]
    cookie.clear()
    assert visits.visitor_key() == "session:tab-session"
    monkeypatch.setattr(visits, "current_session_id", lambda: None)
    assert visits.visitor_key() is None


def test_nothing_made_for_an_uploaded_tokenizer_outlives_its_visit(runtime):
    """Issue 24 (3): after a visit that uploaded tokenizers ends, none of the memory allocated for them
    (loading, encoding with and without specials, the results store, the process-wide caches an encode
    goes through: the special-token finder, byte/char maps, search indexes) is still allocated by the
    library or the service. Measured with tracemalloc on what tokenizers/ and service/ allocated since
    the visit began, not on RSS (what is left of the server's memory after such a visit is Python's
    small-object arenas kept by other objects: benchmarks/memory_after_visits.py, `where_mb`)."""
    import tracemalloc

    from tests.upload_samples import tokenizer_json_file
    from tokenizers import load_user_file
    from tokenizers.analysis.vocab_search import prefix_index

    rt, loop = runtime
    clock = _Clock()
    visits = Visits(rt, grace=60, clock=clock)
    stays = _connect(rt, loop)
    visits.visit(stays, rt.get_app_session(stays))
    texts = ["hello visitors, " * 20, "<|endoftext|>hi 한국어 👋🏽 <script>", "ünïcode " * 50]

    def use(names):  # what Compare does with a visitor's uploads; the same, once, before: for good
        own = {}
        for name in names:
            tok = own[name] = load_user_file(name, tokenizer_json_file())
            for t in texts:
                for special in (True, False):
                    toks = tokenized(tok, t, parse_special=special)
                    list(toks), toks.boundaries, toks.odd_count
            prefix_index(tok)
        return own

    use(["warm0.json", "warm1.json", "warm2.json"])
    gc.collect()
    # made by the library or the store on this test's calls (not, say, by another test's sweeper thread)
    mine, here = (str(ROOT / "tokenizers"), str(ROOT / "service" / "cache.py")), str(Path(__file__).resolve())
    tracemalloc.start(60)
    try:
        before = tracemalloc.take_snapshot()
        leaves = _connect(rt, loop)
        visits.visit(leaves, rt.get_app_session(leaves))
        own = use(["mine0.json", "mine1.json", "mine2.json"])
        rt.get_app_session(leaves).session_state["user_tokenizers"] = own
        gone = [weakref.ref(t) for t in own.values()]
        del own
        gc.freeze()  # as app_pages/kit/shared.load_tokenizer does
        _on_loop(loop, rt.disconnect_session, leaves)
        visits.sweep()
        clock.now += 61
        assert visits.sweep() == [leaves]
        _settle(loop)
        _run(rt, loop, stays)
        clock.now += 10
        visits.sweep()
        assert not visits.closing and all(r() is None for r in gone)
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
        gc.unfreeze()
    kept = [s for s in after.compare_to(before, "traceback") if s.size_diff > 0
            and any(f.filename.startswith(mine) for f in s.traceback) and any(f.filename == here for f in s.traceback)]
    assert sum(s.size_diff for s in kept) < 4096, "\n".join(
        f"{s.size_diff} B in {s.count_diff} blocks: " + " <- ".join(str(f) for f in s.traceback[::-1][:6])
        for s in sorted(kept, key=lambda s: -s.size_diff)[:8])
