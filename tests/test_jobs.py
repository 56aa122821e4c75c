"""tokenizers.jobs: long work in a child process that a time limit, a Stop or a failed `report`
really ends, with its memory capped and at most MAX_CONCURRENT at once."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from tokenizers import jobs
from tokenizers.bpe.model import bpe_is_small, train_bpe
from tokenizers.classic.algorithms import train_algorithms
from tokenizers.jobs import JobError, JobState, _self_test


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # a zombie is gone for our purpose only if reaped; the parent waits on its child, so check state
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().split()[2] == "Z"
    except FileNotFoundError:
        return True


def child_pids() -> set[int]:
    """This process's live job children (the runner marks each child's environment, so other children,
    such as a browser test's server, are not counted)."""
    return job_tree()[0]


def test_the_work_runs_in_another_process_and_reports_progress():
    seen: list[JobState] = []
    pid = jobs.run(_self_test, seconds=0.5, timeout=30, report=seen.append)
    assert pid != os.getpid()
    assert gone(pid)
    assert any(s.last and s.last[0] > 1 for s in seen)  # the child's progress(k) reached the parent
    assert all(not s.waiting for s in seen)


def test_its_exception_comes_back_with_its_type():
    with pytest.raises(ValueError, match="no such corpus"):
        jobs.run(_self_test, fail="no such corpus", timeout=30)


def test_a_time_limit_stops_the_child():
    before = child_pids()
    t0 = time.monotonic()
    with pytest.raises(JobError) as e:
        jobs.run(_self_test, seconds=60, timeout=1.0)
    assert e.value.reason == "timeout" and "longer than 1 s" in str(e.value)
    assert time.monotonic() - t0 < 10
    assert child_pids() <= before  # nothing left running


def test_a_stop_raised_by_report_kills_the_child_at_once():
    class Stopped(BaseException):  # as Streamlit's StopException reaches the waiting script
        pass

    pids = []

    def report(state: JobState) -> None:
        if state.elapsed > 0.5:
            pids.extend(child_pids())
            raise Stopped

    t0 = time.monotonic()
    with pytest.raises(Stopped):
        jobs.run(_self_test, seconds=60, timeout=60, report=report)
    assert time.monotonic() - t0 < 5
    assert pids and all(gone(p) for p in pids)


def test_memory_is_capped():
    with pytest.raises(JobError) as e:
        jobs.run(_self_test, big=600, timeout=60, memory_mb=400)
    assert e.value.reason == "memory"
    assert jobs.run(_self_test, big=50, timeout=60, memory_mb=400) == 50 << 20


def test_at_most_max_concurrent_run_and_the_others_wait_or_give_up():
    started = []

    def long_one():
        started.append(jobs.run(_self_test, seconds=3, timeout=30))

    threads = [threading.Thread(target=long_one) for _ in range(jobs.MAX_CONCURRENT)]
    for t in threads:
        t.start()
    time.sleep(1.0)  # both slots taken
    waited: list[JobState] = []
    with pytest.raises(JobError) as e:
        jobs.run(_self_test, timeout=30, wait=0.5, report=waited.append)
    assert e.value.reason == "busy"
    assert waited and all(s.waiting for s in waited)
    for t in threads:
        t.join()
    assert len(started) == jobs.MAX_CONCURRENT
    assert isinstance(jobs.run(_self_test, timeout=30), int)  # the slots are free again


@pytest.fixture
def long_jobs():
    """Starts long jobs (_Long) and stops every one of them after the test, whatever happened in it."""
    started = []

    def start(owner, stop: threading.Event):
        started.append(_Long(owner, stop))
        return started[-1]

    yield start
    for job in started:
        job.stop.set()
    for job in started:
        job.thread.join()


class _Long:
    """A long job of `owner` in a thread: runs until `stop` is set (its report then raises, as a Stop
    does), recording every JobState it reports."""

    class Stopped(Exception):
        pass

    def __init__(self, owner, stop: threading.Event):
        self.owner, self.stop, self.states, self.error = owner, stop, [], None
        self.running = threading.Event()
        self.thread = threading.Thread(target=self._go)
        self.thread.start()

    def report(self, state):
        self.states.append(state)
        if not state.waiting:
            self.running.set()
        if self.stop.is_set():
            raise self.Stopped()

    def _go(self):
        try:
            jobs.run(_self_test, seconds=120, timeout=150, report=self.report, owner=self.owner)
        except self.Stopped:
            pass
        except Exception as e:
            self.error = e

    @property
    def pid(self) -> int:
        return next(s.pid for s in self.states if not s.waiting)


def test_one_owner_holds_at_most_one_slot(monkeypatch, long_jobs):
    """Issue 24 (8): one visitor's two long jobs (two tabs' trainings) took both slots. Its second job
    now waits in its own queue until its first ends, while another visitor's job starts at once."""
    monkeypatch.setattr(jobs, "_slots", jobs._Slots(2, 1))
    stop_first, stop_rest = threading.Event(), threading.Event()
    first = long_jobs("tab-owner", stop_first)
    assert first.running.wait(60)
    second = long_jobs("tab-owner", stop_rest)
    while not any(s.own_queue for s in second.states):  # it waits, and says it waits on its own job
        time.sleep(0.05)
    other = long_jobs("someone else", stop_rest)
    assert other.running.wait(60)  # the free slot goes to another owner
    assert not any(s.waiting for s in other.states)
    assert not second.running.is_set() and all(s.waiting and s.own_queue for s in second.states)
    stop_first.set()
    first.thread.join()
    assert second.running.wait(60)  # its turn once its own first job ended
    assert gone(first.pid)
    stop_rest.set()
    for job in (second, other):
        job.thread.join()
    assert not any(j.error for j in (first, second, other))


def test_a_small_job_starts_while_two_long_jobs_of_two_owners_run(monkeypatch, long_jobs):
    """Issue 24 (8): the classic example waited 60 s behind two long trainings and failed. A small job
    has its own lane: it starts and ends while both long jobs still hold both ordinary slots."""
    monkeypatch.setattr(jobs, "_slots", jobs._Slots(2, 1))
    stop = threading.Event()
    running = [long_jobs("visitor a", stop), long_jobs("visitor b", stop)]
    for job in running:
        assert job.running.wait(60)
    states = []
    tok, _ = jobs.run(train_bpe, "aaabdaaabac", 259, None, [], timeout=jobs.SMALL_TIMEOUT, small=True,
                      owner="visitor c", report=states.append)
    assert [m.pair for m in tok.history] == [(97, 97), (97, 98), (256, 257)]  # aa, ab, aaab: the classic example
    assert not any(s.waiting for s in states)
    assert not any(gone(job.pid) for job in running)  # both long jobs were running all along
    stop.set()
    for job in running:
        job.thread.join()
    assert not any(j.error for j in running)


def test_small_jobs_beyond_their_lane_borrow_a_general_slot_and_give_it_back():
    """Two small jobs of visitors who hold no slot: the second borrows a free general slot, and giving
    it back leaves the owners' count alone (it raised KeyError and crashed the page when ten visitors
    pressed Train on the Lab's default text at once)."""
    slots = jobs._Slots(2, 1)
    a, b = jobs._Ticket("visitor a"), jobs._Ticket("visitor b")
    assert slots.try_take(a, "visitor a", small=True) == "small"
    lent = slots.try_take(b, "visitor b", small=True)
    assert lent is not None and slots.used_general == 1 and not slots.owners
    slots.release(lent, "visitor b")
    slots.release("small", "visitor a")
    assert slots.used_general == slots.used_small == 0 and not slots.owners
    # a visitor's long job still holds its one slot while its small job borrows another
    c = jobs._Ticket("visitor a")
    assert slots.try_take(c, "visitor a", small=False) == "general" and slots.owners == {"visitor a": 1}
    assert slots.try_take(jobs._Ticket("visitor a"), "visitor a", small=True) == "small"
    slots.release("small", "visitor a")
    slots.release("general", "visitor a")
    assert not slots.owners and slots.used_general == 0


def test_a_small_job_has_a_short_time_limit():
    with pytest.raises(ValueError, match="small job"):
        jobs.run(_self_test, timeout=jobs.SMALL_TIMEOUT + 1, small=True)
    assert bpe_is_small("aaabdaaabac", 259) and not bpe_is_small("a" * 50_000, 259)
    assert not bpe_is_small("aaabdaaabac", 5_000)


def test_the_labs_training_in_a_child_equals_training_here():
    from tokenizers.bpe import BPETokenizer

    text = "low lower newest widest " * 50
    tok, report = jobs.run(train_bpe, text, 300, r"\w+|\s+", ["<|end|>"], timeout=60)
    here = BPETokenizer(None, name="x")
    here.train(text, 300, pattern=r"\w+|\s+")
    assert tok.merges == here.merges and report.merges == len(here.merges)
    assert tok.special_tokens == {"<|end|>": max(here.vocab) + 1}
    assert tok.encode("newest lowest") == here.encode("newest lowest")


# -- one runner, one bound -----------------------------------------------------------------------------
def job_tree() -> tuple[set[int], dict[int, int]]:
    """(this process's live children that the runner started, {their own runner-started child: its
    parent}). The runner marks every child's environment (jobs.ENV), whatever program it runs."""
    me = os.getpid()
    parent_of = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat", encoding="ascii") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{d}/environ", "rb") as f:
                    marked = f"{jobs.ENV}=".encode() in f.read()
                if marked and fields[0] != "Z":
                    parent_of[int(d)] = int(fields[1])
            except (FileNotFoundError, ProcessLookupError, PermissionError, IndexError, ValueError):
                pass
    mine = {p for p, pp in parent_of.items() if pp == me}
    return mine, {p: pp for p, pp in parent_of.items() if pp in mine}


class Sampler(threading.Thread):
    """Counts the runner's children of this process every 10 ms while the test runs."""

    def __init__(self):
        super().__init__(daemon=True)
        self.done = threading.Event()
        self.most = 0
        self.grandchildren: dict[int, int] = {}

    def run(self):
        while not self.done.is_set():
            mine, below = job_tree()
            self.most = max(self.most, len(mine))
            self.grandchildren.update(below)
            time.sleep(0.01)

    def stop(self):
        self.done.set()
        self.join()


def test_lab_trainings_and_sentencepiece_trainings_share_one_bound(monkeypatch):
    """Two Lab jobs and two SentencePiece trainings at once, with the bound at 2: never more than two
    children (before, each kind had its own two slots, so four ran)."""
    from tokenizers.core.corpus import stdlib_docstrings
    from tokenizers.sentencepiece.train import train as sp_train

    monkeypatch.setattr(jobs, "_slots", jobs._Slots(2))
    monkeypatch.setattr(jobs, "MAX_CONCURRENT", 2)
    text = stdlib_docstrings(250_000)
    results, waited, errors = [], [], []

    def lab():
        def report(state):
            if state.waiting:
                waited.append("lab")
        try:
            tok, _ = jobs.run(train_bpe, text, 1200, r"\w+|\s+|[^\w\s]+", [], timeout=120, report=report)
            results.append(("lab", tok.vocab_size))
        except Exception as e:
            errors.append(e)

    def sp():
        def progress(p):
            if p.phase == "Waiting for another training to finish":
                waited.append("sp")
        try:
            results.append(("sp", sp_train(text, model_type="unigram", vocab_size=2000, progress=progress).vocab_size))
        except Exception as e:
            errors.append(e)

    sampler = Sampler()
    sampler.start()
    threads = [threading.Thread(target=f) for f in (lab, sp, lab, sp)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sampler.stop()
    assert not errors
    assert sorted(results) == [("lab", 1200), ("lab", 1200), ("sp", 2000), ("sp", 2000)]
    assert sampler.most == 2  # two at once, never more
    assert waited  # so the others waited their turn


def test_an_algorithms_job_and_its_sentencepiece_step_hold_one_slot(monkeypatch):
    """With the bound at 1, the Algorithms job trains its unigram model through SentencePiece's trainer,
    a child of the job's child: it takes no second slot (and so cannot wait on itself), and a job
    asked for meanwhile waits for the one slot."""
    from tokenizers.core.corpus import stdlib_docstrings

    monkeypatch.setattr(jobs, "_slots", jobs._Slots(1))
    monkeypatch.setattr(jobs, "MAX_CONCURRENT", 1)
    text = stdlib_docstrings(20_000)
    out, waited = {}, []

    def algorithms():
        out["algorithms"] = jobs.run(train_algorithms, text, text[-2000:], 300, timeout=120, wait=120)

    def other(state):
        if state.waiting:
            waited.append(state)

    sampler = Sampler()
    sampler.start()
    t = threading.Thread(target=algorithms)
    t.start()
    while not sampler.most:  # the Algorithms job holds the slot
        time.sleep(0.01)
    out["other"] = jobs.run(_self_test, timeout=120, wait=120, report=other)
    t.join()
    sampler.stop()
    done = out["algorithms"]
    assert "unigram" in done["models"] and not done["errors"]
    assert sampler.most == 1
    assert sampler.grandchildren, "the SentencePiece trainer never ran as the job's own child"
    assert waited and isinstance(out["other"], int)


def test_a_job_inside_a_job_takes_no_slot_and_ends_with_it():
    """A job's own child runs in its slot (in_job), in its process group: a stop of the job ends both."""
    assert not jobs.in_job()
    mine, grand = jobs.run(_self_test, nested=0.2, timeout=60)
    assert mine != grand and gone(grand)

    class Stopped(BaseException):
        pass

    seen = []

    def report(state):
        _, below = job_tree()
        seen.extend(below)
        if below:
            raise Stopped

    with pytest.raises(Stopped):
        jobs.run(_self_test, nested=60, timeout=60, report=report)
    assert seen and all(gone(p) for p in seen)


def _in_job(_):
    return jobs.in_job(), os.getpid()


def test_the_reports_worker_pool_is_the_runners_and_marks_its_workers():
    """One place starts children (the house rule): the report's process pool comes from
    jobs.worker_pool, and each worker carries TOKEN_LENS_JOB, so what it starts runs in its slot."""
    from tokenizers import report

    with jobs.worker_pool(2) as pool:
        seen = list(pool.map(_in_job, range(8)))
    assert all(marked for marked, _ in seen) and os.getpid() not in {pid for _, pid in seen}
    assert not jobs.in_job()  # the parent is not marked
    src = (Path(report.__file__)).read_text(encoding="utf-8")
    assert "ProcessPoolExecutor" not in src and "jobs.worker_pool(" in src
