"""The one runner for every child process the library starts: a time limit, a stop that really stops,
a memory cap, progress, and one bound on how many run at once.

Two ways in, one runner behind them:

* `run(fn, *args, timeout=..., report=...)`: a library function in a fresh Python process
  (`python -m tokenizers.jobs`, ~0.1 s to start: the library imports lazily). The labs' training
  (tokenizers/bpe/model.py train_bpe, tokenizers/classic/algorithms.py train_algorithms) runs this way.
* `run_program(argv, input=..., timeout=..., report=..., watch=...)`: a program of the library's own
  (started by this file run as a script, which sets the limits and then becomes the program),
  for work that must not even share an interpreter with the library: SentencePiece's trainer and its
  check of an uploaded model (tokenizers/sentencepiece/worker.py), whose native code aborts the
  process it runs in. It returns how the program ended, whatever its exit status.

Either way the work never runs in the web server itself, so:

* the web server's own threads (other visitors) are never held up by it, not even by the GIL;
* it is stopped, not abandoned, when it runs past `timeout`, and whenever `report` raises: Streamlit
  raises inside any st.* call when the visitor presses a Stop button, Streamlit's own Stop, starts
  another run or leaves, and the `finally` here kills the child and whatever it started (a thread
  could not be killed; it would run on, unseen, as often as the visitor clicked);
* its memory is capped (`memory_mb`, an address-space limit), so one visitor's job cannot push the
  server into swap; and it ends itself (SIGALRM) 30 s past its time limit should the server die;
* at most MAX_CONCURRENT children run per server process, whatever they are (Lab jobs, SentencePiece
  trainings, Algorithms jobs, upload checks); others wait, with `report` called as they do.

Fair use (issue 24: two tabs' Algorithms trainings, 45 s each, took both slots, and another visitor's
"Classic example" waited 60 s and failed):

* a job may name its `owner` (an opaque key: the pages pass their visitor, service.visits.visitor_key: the
  browser, whose tabs are one visitor, or else the session), and one owner
  holds at most one of the MAX_CONCURRENT slots: its second job waits in the owner's own queue until the
  first ends (`JobState.own_queue`), while other owners' jobs take the free slot. Waiting, not replacing
  or refusing: the second job is what the visitor just asked for, and stopping the first (which may be
  seconds from its end, in another tab) or refusing would lose work they chose; the wait is shown, with
  its Stop, and bounded by `wait` like any other.
* a job declared `small` (the BPE Lab's classic example: 11 characters, 3 merges; a time limit of at most
  SMALL_TIMEOUT seconds) never waits behind long ones: SMALL_LANE more slots are kept for small jobs
  alone (and a small job may also take a free ordinary slot). A tiny job is a third process for at most
  SMALL_TIMEOUT seconds, against a 60 s wait and a failure before.

A job's own children run in its slot: every child's environment carries TOKEN_LENS_JOB (its limits),
and a process that has it takes no slot for the children it starts (the Algorithms job trains its
unigram model through SentencePiece's trainer, a grandchild: one slot, never a second, so it cannot
wait on itself). Their memory cap is at most the job's, and they share its process group, so a stop
of the job ends them too.

`fn` must be importable by its module and name (a library function, not one defined in a page),
take its arguments and give its result as picklable values, and accept a `progress` keyword: it
calls `progress(*anything)` as it goes, and `report` receives the latest call's arguments in
`JobState.last`.
"""

from __future__ import annotations

import json
import math
import os
import pickle
import resource
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path

MAX_CONCURRENT = 2          # children running at once in one server process (a 2-core machine)
SMALL_LANE = 1              # more slots, for small jobs only: they never wait behind long ones
SMALL_TIMEOUT = 10.0        # a small job's time limit is at most this (so the small lane frees up quickly)
POLL = 0.1                  # seconds between calls to `report`: how soon a Stop is seen
PROGRESS_EVERY = 0.1        # seconds between progress messages from the child
TERM_GRACE = 1.0            # seconds between SIGTERM (the child cleans up its own children) and SIGKILL
DEADLINE_MARGIN = 30        # seconds past its time limit after which a child ends itself (SIGALRM)
ENV = "TOKEN_LENS_JOB"      # in every child's environment: its limits, as JSON
ROOT = Path(__file__).resolve().parent.parent

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
    pid: int = 0            # the child, once it runs
    running: float = 0.0    # seconds since the child started
    own_queue: bool = False  # waiting because the same owner's other job holds its one slot


class _Slots:
    """The server's slots: `general` for any job, one at most per owner, taken in the order asked
    for; `small` more for small jobs only. A small job takes a small slot, or else a free general one."""

    def __init__(self, general: int = MAX_CONCURRENT, small: int = SMALL_LANE):
        self.general, self.small = general, small
        self.used_general = self.used_small = 0
        self.owners: dict[Hashable, int] = {}   # owner -> general slots it holds (0 or 1)
        self.queue: list[object] = []           # tickets of the ordinary jobs waiting, oldest first
        self.cond = threading.Condition()

    def _eligible(self, owner) -> bool:
        return self.used_general < self.general and (owner is None or not self.owners.get(owner))

    def try_take(self, ticket, owner, small: bool) -> str | None:
        """The lane taken ("small", "general", or "lent": a general slot a small job took), or None (call
        again after `cond` is notified)."""
        with self.cond:
            if small:
                if self.used_small < self.small:
                    self.used_small += 1
                    return "small"
                if self.used_general < self.general:  # a free general slot, lent: not counted as the owner's
                    self.used_general += 1
                    return "lent"
                return None
            if ticket not in self.queue:
                self.queue.append(ticket)
            # first come, first served among the jobs that may start: an earlier job waiting on its own
            # owner's slot does not hold up a later one of another owner
            first = next((t for t in self.queue if self._eligible(t.owner)), None)
            if first is not ticket:
                return None
            self.queue.remove(ticket)
            self.used_general += 1
            if owner is not None:
                self.owners[owner] = self.owners.get(owner, 0) + 1
            return "general"

    def behind_own(self, owner) -> bool:
        with self.cond:
            return owner is not None and bool(self.owners.get(owner))

    def give_up(self, ticket) -> None:
        with self.cond:
            if ticket in self.queue:
                self.queue.remove(ticket)
            self.cond.notify_all()

    def release(self, lane: str, owner) -> None:
        with self.cond:
            if lane == "small":
                self.used_small -= 1
            else:
                self.used_general -= 1
                if lane == "general" and owner is not None:
                    self.owners[owner] -= 1
                    if not self.owners[owner]:
                        del self.owners[owner]
            self.cond.notify_all()


class _Ticket:
    __slots__ = ("owner",)

    def __init__(self, owner):
        self.owner = owner


_slots = _Slots()


@dataclass(frozen=True)
class Finished:
    """How a program run by run_program ended."""

    returncode: int         # negative: killed by that signal
    stderr: bytes           # all it wrote there
    seconds: float          # from its start to its end


def in_job() -> bool:
    """True in a child this runner started: the children it starts run in its slot."""
    return ENV in os.environ


def run(fn: Callable, *args, timeout: float, report: Callable[[JobState], None] | None = None,
        memory_mb: int | None = 2048, wait: float | None = None, owner: Hashable | None = None,
        small: bool = False, **kwargs):
    """fn(*args, progress=..., **kwargs) in a child process; its result, or its exception raised
    here. JobError("timeout") after `timeout` seconds of running; JobError("busy") when no slot
    frees up within `wait` seconds (default: `timeout`). `report(JobState)` is called about every
    POLL seconds from the calling thread; whatever it raises stops the child and propagates.
    `owner`: who asks (one slot at most per owner; None: no one in particular); `small`: a small job
    (its own lane; `timeout` at most SMALL_TIMEOUT)."""
    job = pickle.dumps((fn.__module__, fn.__qualname__, args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
    frames = _Frames()
    code, err, _ = _run_child([sys.executable, "-s", "-m", "tokenizers.jobs"], job, timeout=timeout, report=report,
                              memory_mb=memory_mb, wait=wait, watch=frames.feed, owner=owner, small=small)
    if frames.outcome is None:  # the child ended without a result: killed, or crashed in native code
        said = err[-2000:].decode("utf-8", "replace").strip().splitlines()
        why = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
        raise JobError("crashed", f"The work process ended without a result ({why}"
                                  + (f": {said[-1]}" if said else "") + "). If it happens again, use "
                                  "a shorter text or a smaller size.")
    kind, value = frames.outcome
    if kind == "error":
        raise value
    return value


def run_program(argv: Sequence[str], *, input: bytes = b"", timeout: float,
                report: Callable[[JobState], None] | None = None, memory_mb: int | None = 2048,
                wait: float | None = None, watch: Callable[[bytes, bytes, float], tuple | None] | None = None,
                owner: Hashable | None = None, small: bool = False) -> Finished:
    """The program `argv` in a child process with `input` on its stdin, under the same slot, limits
    and stop as `run` (and its `owner` and `small`); how it ended (its exit status is the caller's to
    read). `watch(out, err, running)` receives, about every POLL seconds, what the program wrote to
    stdout and stderr since the last call (for progress read off a log) and may return a tuple for
    `JobState.last`."""
    # this file as a script (-I: it imports nothing of the library), which sets the limits and becomes `argv`
    code, err, seconds = _run_child([sys.executable, "-I", str(Path(__file__).resolve()), "--exec", *map(str, argv)],
                                    bytes(input), timeout=timeout, report=report, memory_mb=memory_mb, wait=wait,
                                    watch=watch, owner=owner, small=small)
    return Finished(code, err, seconds)


# -- the parent ----------------------------------------------------------------------------------------
class _Frames:
    """The child's messages, one pickle each after its length, read as its stdout grows."""

    def __init__(self):
        self.pending = b""
        self.outcome: tuple | None = None

    def feed(self, out: bytes, err: bytes, running: float) -> tuple | None:
        self.pending += out
        last = None
        while len(self.pending) >= _HEADER.size:
            size = _HEADER.unpack_from(self.pending)[0]
            if len(self.pending) < _HEADER.size + size:
                break
            data = self.pending[_HEADER.size:_HEADER.size + size]
            self.pending = self.pending[_HEADER.size + size:]
            try:
                frame = pickle.loads(data)
            except Exception as e:  # a result this process cannot read back
                frame = ("error", JobError("crashed", f"The result could not be read: {type(e).__name__}: {e}"))
            if frame[0] == "progress":
                last = frame[1]
            else:
                self.outcome = frame
        return last


def worker_pool(workers: int, *, initializer: Callable | None = None, initargs: tuple = ()):
    """Worker processes for work that runs outside the web server (`python -m tokenizers.report` on a
    corpus), started here with every other child: at most `workers` at once, the caller's bound (the
    report's --workers, every core by default; the server's jobs keep their MAX_CONCURRENT slots). A
    concurrent.futures executor. Each worker carries TOKEN_LENS_JOB, so what it starts runs in its slot
    (in_job) and takes no other."""
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(workers, initializer=_pool_worker, initargs=(initializer, initargs))


def _pool_worker(initializer: Callable | None, initargs: tuple) -> None:
    os.environ[ENV] = json.dumps({"memory_mb": 0, "pool": True})
    if initializer is not None:
        initializer(*initargs)


def _child_limits(memory_mb: int | None, timeout: float) -> dict:
    memory = int(memory_mb or 0)
    if in_job():  # a job's own child: never more memory than the job has
        own = json.loads(os.environ[ENV]).get("memory_mb") or 0
        memory = min(memory, own) if memory and own else (memory or own)
    return {"memory_mb": memory, "deadline": math.ceil(timeout) + DEADLINE_MARGIN}


def _read_new(f, pos: int) -> bytes:
    size = os.fstat(f.fileno()).st_size
    return os.pread(f.fileno(), size - pos, pos) if size > pos else b""


def _stop(proc: subprocess.Popen, group: bool) -> None:
    """SIGTERM (a job's `finally` blocks stop its own children), then SIGKILL. For a child in a process
    group of its own, the signals go to the whole group: whatever it started ends with it."""

    def send(sig) -> None:
        try:
            if group:
                os.killpg(proc.pid, sig)
            elif proc.poll() is None:
                proc.send_signal(sig)
        except (ProcessLookupError, PermissionError):
            pass

    if proc.poll() is None:
        send(signal.SIGTERM)
        try:
            proc.wait(TERM_GRACE)
        except subprocess.TimeoutExpired:
            pass
    send(signal.SIGKILL)  # the child if it is still there, and any of its children left behind
    proc.wait()


def _take_slot(start: float, wait: float, report, owner, small: bool) -> str | None:
    """Wait for a slot (see _Slots); its lane, or None inside a job (its children run in its slot)."""
    if in_job():
        return None
    ticket = _Ticket(owner)
    try:
        while True:
            lane = _slots.try_take(ticket, owner, small)
            if lane is not None:
                return lane
            waited = time.monotonic() - start
            own = _slots.behind_own(owner)
            if waited > wait:
                if own:
                    raise JobError("busy", f"Your other job on this server (in another tab, or asked for just "
                                           f"before) kept running for {wait:g} s, and one visitor runs one job at "
                                           "a time. Stop it there, or try again when it ends.")
                raise JobError("busy", f"{MAX_CONCURRENT} other jobs kept this server busy for {wait:g} s. "
                                       "Try again in a moment.")
            if report is not None:
                report(JobState(waited, True, None, own_queue=own))
            with _slots.cond:
                _slots.cond.wait(POLL)
    finally:
        _slots.give_up(ticket)  # out of the queue, whether it got a slot, gave up or was stopped


def _run_child(argv: list[str], data: bytes, *, timeout: float, report, memory_mb, wait, watch, owner=None,
               small: bool = False) -> tuple[int, bytes, float]:
    """Start `argv` in a slot with `data` on its stdin; wait for its end, calling `watch` and
    `report` as it runs; stop it (and its children) on a timeout or whatever `report` raises.
    (returncode, stderr, seconds)."""
    if small and timeout > SMALL_TIMEOUT:
        raise ValueError(f"a small job runs at most {SMALL_TIMEOUT:g} s (its lane must free up quickly), "
                         f"not {timeout:g} s")
    start = time.monotonic()
    held = _take_slot(start, timeout if wait is None else wait, report, owner, small)
    nested = held is None and in_job()
    try:
        env = {**os.environ, "MALLOC_ARENA_MAX": "2", ENV: json.dumps(_child_limits(memory_mb, timeout))}
        with tempfile.TemporaryFile() as fin, tempfile.TemporaryFile() as fout, tempfile.TemporaryFile() as ferr:
            fin.write(data)
            fin.seek(0)
            proc = subprocess.Popen(argv, cwd=ROOT, stdin=fin, stdout=fout, stderr=ferr, env=env,
                                    start_new_session=not nested)
            began = time.monotonic()
            at_out = at_err = 0
            err = bytearray()
            last = None
            try:
                if report is not None:  # once as it starts: a child done within one POLL is still seen
                    report(JobState(time.monotonic() - start, False, last, proc.pid, 0.0))
                while True:
                    try:  # wake at the deadline too, so a short time limit is kept to the letter
                        proc.wait(max(0.001, min(POLL, timeout - (time.monotonic() - began))))
                        ended = True
                    except subprocess.TimeoutExpired:
                        ended = False
                    out_new, err_new = _read_new(fout, at_out), _read_new(ferr, at_err)
                    at_out, at_err = at_out + len(out_new), at_err + len(err_new)
                    err += err_new
                    running = time.monotonic() - began
                    if watch is not None and (seen := watch(out_new, bytes(err_new), running)) is not None:
                        last = seen
                    if ended:
                        break
                    if running > timeout:
                        raise JobError("timeout", f"The work took longer than {timeout:g} s and was stopped. "
                                                  "Use a shorter text or a smaller size.")
                    if report is not None:
                        report(JobState(time.monotonic() - start, False, last, proc.pid, running))
            finally:
                _stop(proc, group=not nested)
            return proc.returncode, bytes(err), time.monotonic() - began
    finally:
        if held is not None:
            _slots.release(held, owner)


# -- the child -----------------------------------------------------------------------------------------
def _terminated(signum, frame):
    raise SystemExit(128 + signum)


def _apply_limits() -> dict:
    """The limits the parent put in TOKEN_LENS_JOB, on this process (and, through exec, on a program)."""
    limits = json.loads(os.environ.get(ENV) or "{}")
    if limits.get("memory_mb"):
        cap = int(limits["memory_mb"]) << 20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    if limits.get("deadline"):  # should the parent die and never stop us, SIGALRM (default action) will
        signal.alarm(int(limits["deadline"]))
    return limits


def _child_main() -> int:
    limits = _apply_limits()
    if sys.argv[1:2] == ["--exec"]:  # a program: it inherits the limits (rlimits and alarms survive exec)
        os.execv(sys.argv[2], sys.argv[2:])
    from tokenizers.jobs import JobError  # the importable class, not this __main__ module's copy

    memory_mb = limits.get("memory_mb") or 0
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever the work prints goes to stderr, not into the frames
    signal.signal(signal.SIGTERM, _terminated)  # through Python, so that `finally` blocks run

    def send(obj) -> None:
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        out.write(_HEADER.pack(len(data)) + data)
        out.flush()

    module, name, args, kwargs = pickle.loads(sys.stdin.buffer.read())
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
    sys.stderr.flush()
    os._exit(0)  # at once: the result is sent, and nothing the work left running (a thread) may hold the exit


def _self_test(progress, seconds: float = 0.0, fail: str = "", big: int = 0, nested: float = 0.0):
    """For the tests: sleep, report, fail or allocate on demand; `nested` runs a job of `nested`
    seconds inside this one and returns both pids."""
    if nested:
        return os.getpid(), run(_self_test, seconds=nested, timeout=60, wait=0.0)
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
