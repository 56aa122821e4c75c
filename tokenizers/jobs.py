"""Long work in a child process: a time limit, a stop that really stops, progress, and a bound on
how many run at once.

A page that trains a model calls `run(fn, *args, timeout=..., report=...)`. The work runs in a fresh
Python process (`python -m tokenizers.jobs`, ~0.1 s to start: the library imports lazily), never in
the web server itself, so:

* the web server's own threads (other visitors) are never held up by it, not even by the GIL;
* it is stopped, not abandoned, when it runs past `timeout`, and whenever `report` raises: Streamlit
  raises inside any st.* call when the visitor presses a Stop button, Streamlit's own Stop, starts
  another run or leaves, and the `finally` here kills the child (a thread could not be killed; it
  would run on, unseen, as often as the visitor clicked);
* its memory is capped (`memory_mb`, an address-space limit), so one visitor's job cannot push the
  server into swap;
* at most MAX_CONCURRENT jobs run per server process; others wait, with `report` called as they do.

`fn` must be importable by its module and name (a library function, not one defined in a page),
take its arguments and give its result as picklable values, and accept a `progress` keyword: it
calls `progress(*anything)` as it goes, and `report` receives the latest call's arguments in
`JobState.last`.
"""

from __future__ import annotations

import os
import pickle
import queue
import resource
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MAX_CONCURRENT = 2          # jobs running at once in one server process (a 2-core machine)
POLL = 0.1                  # seconds between calls to `report`: how soon a Stop is seen
PROGRESS_EVERY = 0.1        # seconds between progress messages from the child
TERM_GRACE = 1.0            # seconds between SIGTERM (the child cleans up its own children) and SIGKILL
ROOT = Path(__file__).resolve().parent.parent

_slots = threading.BoundedSemaphore(MAX_CONCURRENT)
_HEADER = struct.Struct("<Q")


class JobError(RuntimeError):
    """A job that did not finish: `reason` is "timeout", "busy", "memory" or "crashed"; the message
    says what happened and what to do."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason

    def __reduce__(self):
        return (JobError, (self.reason, str(self)))


@dataclass(frozen=True)
class JobState:
    elapsed: float          # seconds since the job was asked for (waiting included)
    waiting: bool           # True while it waits for a free slot
    last: tuple | None      # the arguments of the child's latest progress(...) call, if any


def run(fn: Callable, *args, timeout: float, report: Callable[[JobState], None] | None = None,
        memory_mb: int | None = 2048, wait: float | None = None, **kwargs):
    """fn(*args, progress=..., **kwargs) in a child process; its result, or its exception raised
    here. JobError("timeout") after `timeout` seconds of running; JobError("busy") when no slot
    frees up within `wait` seconds (default: `timeout`). `report(JobState)` is called about every
    POLL seconds from the calling thread; whatever it raises stops the child and propagates."""
    start = time.monotonic()
    wait = timeout if wait is None else wait
    while not _slots.acquire(timeout=POLL):
        waited = time.monotonic() - start
        if waited > wait:
            raise JobError("busy", f"{MAX_CONCURRENT} other jobs kept this server busy for {wait:g} s. "
                                   "Try again in a moment.")
        if report is not None:
            report(JobState(waited, True, None))
    try:
        return _run(fn, args, kwargs, timeout, report, memory_mb, start)
    finally:
        _slots.release()


def _read_frames(stream, out: queue.Queue) -> None:
    """The child's messages, one pickle each after its length, into `out`; None at the end."""
    try:
        while True:
            head = stream.read(_HEADER.size)
            if len(head) < _HEADER.size:
                break
            data = stream.read(_HEADER.unpack(head)[0])
            try:
                out.put(pickle.loads(data))
            except Exception as e:  # a result this process cannot read back
                out.put(("error", JobError("crashed", f"The result could not be read: {type(e).__name__}: {e}")))
    except OSError:
        pass
    finally:
        out.put(None)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(TERM_GRACE)
        except subprocess.TimeoutExpired:
            pass
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def _run(fn, args, kwargs, timeout, report, memory_mb, start):
    job = pickle.dumps((fn.__module__, fn.__qualname__, args, kwargs, memory_mb), protocol=pickle.HIGHEST_PROTOCOL)
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-s", "-m", "tokenizers.jobs"], cwd=ROOT, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=err, start_new_session=True,
                                env={**os.environ, "MALLOC_ARENA_MAX": "2"})
        began = time.monotonic()
        frames: queue.Queue = queue.Queue()
        reader = threading.Thread(target=_read_frames, args=(proc.stdout, frames), daemon=True)
        reader.start()
        last, outcome = None, None
        try:
            try:
                proc.stdin.write(job)
                proc.stdin.close()
            except BrokenPipeError:
                pass
            while outcome is None:
                try:
                    frame = frames.get(timeout=POLL)
                except queue.Empty:
                    frame = ()
                if frame is None:  # the child ended without a result: killed, or crashed in native code
                    proc.wait(TERM_GRACE)
                    code = proc.poll()
                    err.seek(0)
                    said = err.read()[-2000:].decode("utf-8", "replace").strip().splitlines()
                    why = (f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}")
                    raise JobError("crashed", f"The work process ended without a result ({why}"
                                              + (f": {said[-1]}" if said else "") + "). If it happens again, use "
                                              "a shorter text or a smaller size.")
                if frame and frame[0] == "progress":
                    last = frame[1]
                elif frame:
                    outcome = frame
                if outcome is None and time.monotonic() - began > timeout:
                    raise JobError("timeout", f"The work took longer than {timeout:g} s and was stopped. Use a "
                                              "shorter text or a smaller size.")
                if outcome is None and report is not None:
                    report(JobState(time.monotonic() - start, False, last))
        finally:
            _stop(proc)
            reader.join(1.0)
            proc.stdout.close()
    kind, value = outcome
    if kind == "error":
        raise value
    return value


# -- the child -----------------------------------------------------------------------------------------
def _terminated(signum, frame):
    raise SystemExit(128 + signum)


def _child_main() -> int:
    from tokenizers.jobs import JobError  # the importable class, not this __main__ module's copy

    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever the work prints goes to stderr, not into the frames
    signal.signal(signal.SIGTERM, _terminated)  # through Python, so that `finally` blocks run

    def send(obj) -> None:
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        out.write(_HEADER.pack(len(data)) + data)
        out.flush()

    module, name, args, kwargs, memory_mb = pickle.loads(sys.stdin.buffer.read())
    if memory_mb:
        cap = int(memory_mb) << 20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    last = 0.0

    def progress(*info) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= PROGRESS_EVERY:
            last = now
            send(("progress", info))

    import importlib

    try:
        fn = importlib.import_module(module)
        for part in name.split("."):
            fn = getattr(fn, part)
        payload = ("done", fn(*args, progress=progress, **kwargs))
    except MemoryError:
        payload = ("error", JobError("memory", f"The work needed more than {memory_mb:,} MB and was stopped. "
                                               "Use a shorter text or a smaller size."))
    except BaseException as e:  # every failure goes back to the parent, whatever its type
        try:
            pickle.loads(pickle.dumps(e))
            payload = ("error", e)
        except Exception:
            payload = ("error", JobError("crashed", f"{type(e).__name__}: {e}"))
    try:
        send(payload)
    except MemoryError:
        send(("error", JobError("memory", "The result was too big to send back.")))
    out.close()
    return 0


def _self_test(progress, seconds: float = 0.0, fail: str = "", big: int = 0):
    """For the tests: sleep, report, fail or allocate on demand."""
    t0 = time.monotonic()
    k = 0
    while time.monotonic() - t0 < seconds:
        k += 1
        progress(k)
        time.sleep(0.01)
    if fail:
        raise ValueError(fail)
    if big:
        return len(bytearray(big << 20))
    return os.getpid()


if __name__ == "__main__":
    sys.exit(_child_main())
