"""The end of a visit: what a visitor left on the server is released once they are gone (issue 24, 3a).
app.py calls `watch()` on every run; the rest happens in one background thread per server process.
No Streamlit calls: its runtime's public API, and one helper of its web server
(`decode_xsrf_token_string`, to tell two tabs of one browser from two visitors; a change there falls back
to one visit per session).

Why the app has to do this (Streamlit 1.67, .venv/lib/python3.11/site-packages/streamlit/runtime/):

* A closed tab is *disconnected*, not closed: WebsocketSessionManager.disconnect_session
  (websocket_session_manager.py:315) saves the session in its SessionStorage for a reconnect
  (:337, `self._session_storage.save`) and shuts it down only when it cannot be resumed (:352, :356).
* The storage is MemorySessionStorage (memory_session_storage.py:62), a TTLCache of 128 sessions and
  `server.disconnectedSessionTTL` (120 s) built without a removal callback. When a session expires or
  is pushed out by the 129th, the cache just drops it (caching/ttl_cache.py: `expire`, `_evict_lru`,
  `_remove`, :306-345): nothing calls AppSession.shutdown (app_session.py:497), the only caller of
  `uploaded_file_mgr.remove_session_files(self.id)` (app_session.py:507). So an expired visit's uploads
  stay in MemoryUploadedFileManager.file_storage (memory_uploaded_file_manager.py:40, removed only at
  :81) for the life of the server: 40 × 19 MB on the Languages uploader held 760 MB after the visit
  ended, and each further visit added its own. (With Streamlit's file watcher on, its listeners keep the
  dropped session alive past gc.freeze(); with it off, as .streamlit/config.toml has it, the session's own
  __del__ releases the uploads: tests/test_visits.py shows both. The sweeper below does not rely on either.)
* Worse, an expired entry is reaped only by a later write to the cache (ttl_cache.py:24-29: "only
  actually removed by a write, by expire(), or by a length query"), so when the last visitors leave, their
  sessions (session state, uploaded and trained tokenizers) stay in the cache too, until someone else
  disconnects.

So a visit that has been disconnected for GRACE_SECONDS is ended here, while it is still in the
storage, through the runtime's public, thread-safe `Runtime.clear_user_info_for_session`
(runtime.py:345: marks the id non-resumable, then `close_session` on the event loop, which deletes it
from the storage and calls AppSession.shutdown): its uploads, media files and session state are
released, and with the state every tokenizer the visitor uploaded or trained (the results store keeps
none of them alive: service/cache.py). Its files are also removed directly, for a session Streamlit
had already dropped without a shutdown (pushed out of the 128). GRACE_SECONDS (60 s, or half the
configured TTL if that is shorter) keeps a reconnect after a network blip working, and ends a visit
well within two minutes of the tab closing.

What stays after that is not held by anything (benchmarks/memory_after_visits.py, `where_mb`, from the
TOKEN_LENS_MEMORY_LOG this sweeper writes): two visits of six uploaded DeepSeek tokenizer.json left the
server at 355 MB after 264 idle, with exactly the idle state's live bytes in Python's small-object
allocator (80.7 MB) and in glibc's heap (78.5 vs 78.7 MB), but spread over 165 of the allocator's 1 MiB
arenas instead of 97. An arena goes back to the system only when every block in it is free, and the
objects that live on (caches refilled while the visitors were there, Streamlit's own) sit in arenas
opened at the peak. Nothing a visit made survives it (tests/test_visits.py, tracemalloc); the rest is
this fragmentation. Only the interpreter's allocator choice changes it, and not entirely: with
PYTHONMALLOC=malloc before `streamlit run` (glibc's malloc_trim then gives back free pages anywhere), 296
MB after 258 idle, again with the idle state's live bytes (164.0 vs 164.1 MB in glibc's heap).
"""

from __future__ import annotations

import gc
import json
import os
import threading
import time
import weakref

from service.cache import limit_malloc_arenas, memory_report, release_free_memory

GRACE_SECONDS = 60.0     # a visit disconnected this long is over
SWEEP_EVERY = 10.0       # seconds between looks at the visits
WATCH_SWEEPS = 30        # sweeps an ended session is collected for until it is freed (5 minutes)
MEMORY_LOG = "TOKEN_LENS_MEMORY_LOG"  # a file: each sweep appends where the memory is (service.cache.memory_report)


class Visits:
    """The sessions this server has seen, and when each was last seen disconnected. `runtime` is
    Streamlit's Runtime (or anything with its is_active_session, clear_user_info_for_session and
    uploaded_file_mgr)."""

    def __init__(self, runtime, *, grace: float = GRACE_SECONDS, clock=time.monotonic):
        self.runtime, self.grace, self.clock = runtime, grace, clock
        self.seen: dict[str, weakref.ref | None] = {}   # session id -> its AppSession, weakly
        self.away: dict[str, float] = {}    # session id -> when it was first seen disconnected
        self.closing: list[tuple[str, weakref.ref, int]] = []  # ended sessions not freed yet, sweeps left
        self.ended = 0                      # visits ended so far
        self.lock = threading.Lock()

    def visit(self, session_id: str, session=None) -> None:
        """Note a visit seen running (`session`: its AppSession, to know when it is freed)."""
        with self.lock:
            if self.seen.get(session_id) is None:
                self.seen[session_id] = weakref.ref(session) if session is not None else None
            self.away.pop(session_id, None)

    def with_files(self) -> list[str]:
        storage = getattr(self.runtime.uploaded_file_mgr, "file_storage", None)  # MemoryUploadedFileManager's
        return list(storage) if storage is not None else []

    def sweep(self) -> list[str]:
        """End the visits disconnected for `grace` seconds or more; their ids."""
        # The sessions ended before are closed now (on the event loop): free them. One may stay referenced
        # a while longer: Runtime._loop_coroutine keeps the last session it sent messages for in a local
        # variable until its next round (runtime.py:802), which only another visitor's activity starts.
        # So the state of a closed session still alive is cleared (its uploaded files' bytes, tokenizers,
        # results), and since a collection that comes first freezes it again with everything alive, the
        # collection is repeated at each sweep until every ended session is gone (for 5 minutes at most).
        if self.closing:
            collect_everything()
            still = []
            for sid, ref, sweeps in self.closing:
                session = ref()
                if session is not None and not self.runtime.is_active_session(sid):  # (reconnected just before
                    session.session_state.clear()  # its end: left alone) idempotent; no script runs in it
                    if sweeps > 1:
                        still.append((sid, ref, sweeps - 1))
                del session
            if still:
                collect_everything()
            self.closing = [(sid, r, n) for sid, r, n in still if r() is not None]
        now = self.clock()
        with self.lock:
            known = set(self.seen) | set(self.with_files())
        over = []
        for sid in known:
            if self.runtime.is_active_session(sid):
                with self.lock:
                    self.away.pop(sid, None)
                continue
            with self.lock:
                since = self.away.setdefault(sid, now)
            if now - since >= self.grace:
                over.append(sid)
        for sid in over:
            self.end(sid)
        return over

    def end(self, session_id: str) -> None:
        """Close a disconnected session and release what it holds."""
        with self.lock:
            session = self.seen.pop(session_id, None)
            self.away.pop(session_id, None)
            self.ended += 1
        # freed at the next sweeps (a session never seen running, only its files, has nothing to free)
        self.closing.append((session_id, session if session is not None else weakref.ref(_Nothing()), WATCH_SWEEPS))
        # closes a stored session on the event loop; a visitor who reconnected in the instant since
        # is_active_session said no keeps the session, which only can no longer be resumed later
        try:
            self.runtime.clear_user_info_for_session(session_id)
        except RuntimeError:  # the runtime is stopping
            pass
        self.runtime.uploaded_file_mgr.remove_session_files(session_id)


class _Nothing:
    """Stands for an ended session this sweeper never held (dead at once: one collection, then no more)."""


def collect_everything() -> None:
    """Free the ended sessions now. A session is held in reference cycles (its script runner, callbacks),
    so only Python's cycle collector frees it, and a quiet server (everyone gone) may not run a full
    collection for a long time. And app_pages/kit/shared.load_tokenizer calls gc.freeze() after each
    vocabulary it loads, which moves every object alive at that moment, a visitor's session included, out
    of the collector's reach for good: unfreeze, collect, freeze what is left again (0.04 s with eight
    vocabularies loaded: their tokens are bytes and ints, which the collector does not track)."""
    frozen = gc.get_freeze_count()
    if frozen:
        gc.unfreeze()
    gc.collect()
    if frozen:
        gc.freeze()
    release_free_memory()


_visits: Visits | None = None
_start = threading.Lock()


def _sweeper(visits: Visits) -> None:
    log = os.environ.get(MEMORY_LOG)
    while True:
        time.sleep(SWEEP_EVERY)
        try:
            visits.sweep()
            if log:
                with open(log, "a") as f:
                    f.write(json.dumps({"time": time.time(), "ended": visits.ended, "unfreed": len(visits.closing),
                                        **memory_report()}) + "\n")
        except Exception:  # never let the sweeper die: it is what frees departed visits
            pass


def _grace() -> float:
    try:
        from streamlit import config

        ttl = float(config.get_option("server.disconnectedSessionTTL"))
    except Exception:
        ttl = 120.0
    return max(1.0, min(GRACE_SECONDS, ttl / 2))


def current_session_id() -> str | None:
    """The id of the session whose script is running in this thread, or None outside a run."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx is not None else None


def visitor_key() -> str | None:
    """Who is asking, for the job runner's one-slot-per-visitor rule (tokenizers.jobs, `owner`): the
    browser, when its XSRF cookie is there (Streamlit sets one per browser and every tab sends it; its
    token is the same in every tab, masked differently), so that two tabs are one visitor; else this
    session. An opaque hash: the token itself is never kept. None outside a run."""
    sid = current_session_id()
    if sid is None:
        return None
    try:
        import hashlib

        from streamlit import context
        from streamlit.web.server.starlette.starlette_app_utils import decode_xsrf_token_string

        token, _ = decode_xsrf_token_string(context.cookies.get("_streamlit_xsrf") or "")
        if token:
            return "browser:" + hashlib.sha256(b"token-lens visitor|" + token).hexdigest()[:32]
    except Exception:  # no cookie, no client context (AppTest), or Streamlit changed its token format
        pass
    return "session:" + sid


def watch() -> None:
    """Called by app.py on every run: notes this visit, and starts the sweeper once per server process
    (not under AppTest or bare mode, which have no Runtime)."""
    global _visits
    from streamlit.runtime import Runtime

    sid = current_session_id()
    if sid is None or not Runtime.exists():
        return
    if _visits is None:
        with _start:
            if _visits is None:
                limit_malloc_arenas()
                visits = Visits(Runtime.instance(), grace=_grace())
                threading.Thread(target=_sweeper, args=(visits,), name="token-lens-visits", daemon=True).start()
                _visits = visits
    _visits.visit(sid, Runtime.instance().get_app_session(sid))
