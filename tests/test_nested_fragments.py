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
