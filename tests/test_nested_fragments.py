"""app_pages/kit/nested_fragments.py: a fragment's run drops the queued deltas of the fragments nested in it,
as it drops its own, so a busy server does not send a nested fragment's deltas without its parent's (a
blank page: "Bad delta path index"). Streamlit's own clear is checked too: when it stops keeping them,
the patch can go."""

from types import SimpleNamespace

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.forward_msg_queue import ForwardMsgQueue
from streamlit.runtime.fragment import MemoryFragmentStorage

from app_pages.kit import nested_fragments
from app_pages.kit.nested_fragments import with_nested


def delta(path: list[int], fragment: str) -> ForwardMsg:
    m = ForwardMsg()
    m.metadata.delta_path[:] = path
    m.delta.fragment_id = fragment
    m.delta.new_element.markdown.body = f"{fragment} at {path}"
    return m


def session_with_queue():
    """A session whose page fragment holds the counts fragment (Compare's shape) beside an unrelated
    fragment, with the tail of a page run still queued: the page's last element, the counts, the other."""
    storage = MemoryFragmentStorage()
    storage.register("page", lambda: None)
    storage.register("counts", lambda: None, parent_fragment_id="page")
    storage.register("inner", lambda: None, parent_fragment_id="counts")
    storage.register("other", lambda: None)
    queue = ForwardMsgQueue()
    for path, frag in [([0, 4, 7], "page"), ([0, 4, 8], "counts"), ([0, 4, 8, 0], "counts"),
                       ([0, 4, 8, 1, 0], "inner"), ([0, 5], "other")]:
        queue.enqueue(delta(path, frag))
    finished = ForwardMsg()
    finished.script_finished = ForwardMsg.FINISHED_SUCCESSFULLY
    queue.enqueue(finished)
    return SimpleNamespace(_fragment_storage=storage, _browser_queue=queue)


def left(session) -> list[tuple[list[int], str]]:
    return [(list(m.metadata.delta_path), m.delta.fragment_id) for m in session._browser_queue._queue
            if m.WhichOneof("type") == "delta"]


def test_a_page_fragment_run_drops_the_queued_deltas_of_the_fragments_in_it():
    nested_fragments.install()
    nested_fragments.install()  # once per process, however often pages import it
    assert AppSession._clear_queue.original.__name__ == "_clear_queue"
    assert not getattr(AppSession._clear_queue.original, "nested_too", False)
    s = session_with_queue()
    AppSession._clear_queue(s, ["page"])
    assert left(s) == [([0, 5], "other")]
    assert [m.WhichOneof("type") for m in s._browser_queue._queue] == ["delta", "script_finished"]


def test_streamlits_own_clear_keeps_them_which_blanks_a_busy_page():
    nested_fragments.install()
    s = session_with_queue()
    AppSession._clear_queue.original(s, ["page"])
    assert left(s) == [([0, 4, 8], "counts"), ([0, 4, 8, 0], "counts"), ([0, 4, 8, 1, 0], "inner"),
                       ([0, 5], "other")]


def test_a_nested_run_and_a_full_run_clear_as_before():
    nested_fragments.install()
    s = session_with_queue()
    AppSession._clear_queue(s, ["counts"])  # the counts alone: their own deltas and the inner one's
    assert left(s) == [([0, 4, 7], "page"), ([0, 5], "other")]
    s = session_with_queue()
    AppSession._clear_queue(s, None)  # a full run: every delta
    assert left(s) == []


def test_with_nested_finds_every_depth_once():
    parents = {"a": None, "b": "a", "c": "b", "d": "c", "x": None, "y": "x", "loop1": "loop2", "loop2": "loop1"}
    assert with_nested(["a"], parents) == ["a", "b", "c", "d"]
    assert with_nested(["c", "x"], parents) == ["c", "x", "d", "y"]
    assert with_nested(["loop1"], parents) == ["loop1", "loop2"]
    assert with_nested(["a", "a"], {}) == ["a"]


def test_the_patch_is_for_the_streamlit_requirements_pins():
    from conftest import ROOT

    pins = dict(line.split("==") for line in (ROOT / "requirements.txt").read_text().split() if "==" in line)
    assert nested_fragments.STREAMLIT == pins["streamlit"]


def test_through_a_real_app_session():
    """The names the patch reads, on a real AppSession of the pinned Streamlit: its fragment storage
    records parents where the patch looks, and its queue is cleared with the nested fragments."""
    import asyncio
    import threading

    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    from streamlit.runtime.script_data import ScriptData
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache

    assert nested_fragments.install()

    async def run():
        session = AppSession(ScriptData("app.py", is_hello=False), MemoryUploadedFileManager("/upload"), ScriptCache(),
                             None, {"email": "test@example.com"})
        try:
            mock = session_with_queue()
            for fid in ("page", "counts", "inner", "other"):  # Compare's shape, in the session's own storage
                session._fragment_storage.register(fid, lambda: None,
                                                   parent_fragment_id={"counts": "page", "inner": "counts"}.get(fid))
            assert dict(session._fragment_storage._parent_by_id) == {"page": None, "counts": "page",
                                                                      "inner": "counts", "other": None}
            for m in mock._browser_queue._queue:
                session._browser_queue.enqueue(m)
            session._clear_queue(["page"])
            return left(session)
        finally:
            session.shutdown()

    out = []  # on a thread of its own: an earlier test may leave an event loop running on this one
    worker = threading.Thread(target=lambda: out.append(asyncio.run(run())))
    worker.start()
    worker.join(60)
    assert out == [[([0, 5], "other")]]


def test_another_streamlit_is_left_as_it_is(monkeypatch, caplog):
    from streamlit.runtime.app_session import AppSession

    nested_fragments.install()
    monkeypatch.setattr(AppSession, "_clear_queue", AppSession._clear_queue.original)
    with caplog.at_level("WARNING", logger="token_lens.nested_fragments"):
        assert not nested_fragments.install(version="1.68.0")
    assert not getattr(AppSession._clear_queue, "nested_too", False)
    assert "1.68.0 is not 1.67.0" in caplog.text and "not installed" in caplog.text


def test_app_py_installs_it_and_importing_a_page_does_not():
    """The patch is put in place by the entry point, not as a side effect of importing a page's kit."""
    import subprocess
    import sys

    from conftest import ROOT

    probe = ("import sys; from streamlit.runtime.app_session import AppSession as A; import app_pages.kit.widgets; "
             "before = getattr(A._clear_queue, 'nested_too', False); "
             "from streamlit.testing.v1 import AppTest; at = AppTest.from_file('app.py', default_timeout=120); at.run(); "
             "assert not at.exception, at.exception; print(before, getattr(A._clear_queue, 'nested_too', False))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-2:] == ["False", "True"]
