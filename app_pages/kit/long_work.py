"""Long work on a page: a library function run in a child process (tokenizers.jobs) with a progress
bar, a Stop button and a time limit.

How stopping works in Streamlit 1.67: a click on any widget while the script runs asks for a new run,
and with `runner.fastReruns` (the default) Streamlit stops the running script at its next st.* call
(StopException) and starts the new run at once. Work inside the script thread (a C call, a regex)
has no st.* calls, so it would run on unseen until it returned, once per click. Here the script only
waits: it updates the progress bar every 0.1 s, so a Stop (this button, Streamlit's own Stop in the
corner, a page change, a closed tab) ends the wait within 0.1 s, and tokenizers.jobs kills the child
on the way out."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import streamlit as st

from service.visits import visitor_key
from tokenizers import jobs


def _pressed(key: str) -> None:
    st.session_state[f"{key}_pressed"] = True


def was_stopped(key: str) -> bool:
    """True once, on the run after the Stop button `key` was pressed."""
    return bool(st.session_state.pop(f"{key}_pressed", False))


def stop_button(key: str, label: str = "Stop", *, timeout: float | None = None):
    """A Stop button in a slot of its own (empty the slot when the work is done): pressing it while
    the script waits on work makes Streamlit stop the script at its next st.* call."""
    slot = st.empty()
    slot.button(label, key=key, on_click=_pressed, args=(key,), icon="⏹️",
                help="Stops the work at once." + (f" It is also stopped after {timeout:g} s." if timeout else ""))
    return slot


@contextmanager
def progress_and_stop(key: str, stop_label: str = "Stop", *, timeout: float | None, text: str = "Starting…",
                      keep_bar: bool = False) -> Iterator:
    """A progress bar and a Stop button (`key`) around long work, which moves the bar (yielded) as it goes.
    When the work is done the button goes, and the bar too unless `keep_bar` (a "Done in 2.1 s" the work
    wrote last); when it fails both go and the error passes on; a Stop passes by (Streamlit ends the run)."""
    bar = st.progress(0.0, text=text)
    slot = stop_button(key, stop_label, timeout=timeout)
    try:
        yield bar
    except Exception:
        bar.empty()
        slot.empty()
        raise
    if not keep_bar:
        bar.empty()
    slot.empty()


def run_with_stop(fn: Callable, *args, key: str, timeout: float, describe: Callable[[jobs.JobState], tuple],
                  memory_mb: int = 2048, stop_label: str = "Stop", small: bool = False, **kwargs):
    """fn(*args, **kwargs) in a child process, with a progress bar and a Stop button (`key`).
    `describe(JobState) -> (fraction, text)` words the bar. Returns fn's result or raises its error
    (or jobs.JobError: timeout, busy, memory, crashed). The job is this visitor's (service.visits.visitor_key:
    one slot at a time per visitor); `small` puts a job the page knows is tiny in the small jobs' lane."""
    wait = timeout  # for a slot: a small job waits as long as any job of the page would (10 visitors at once)
    if small:
        timeout = min(timeout, jobs.SMALL_TIMEOUT)

    def report(state: jobs.JobState) -> None:
        if state.waiting and state.own_queue:
            bar.progress(0.0, text="Waiting for your training in another tab to finish: one runs at a time per "
                                   f"visitor · {state.elapsed:.1f} s")
            return
        if state.waiting:
            bar.progress(0.0, text=f"Waiting for a free slot ({jobs.MAX_CONCURRENT} trainings or checks run at once "
                                   f"on this server) · {state.elapsed:.1f} s")
            return
        fraction, text = describe(state)
        bar.progress(max(0.0, min(1.0, fraction)), text=text)

    with progress_and_stop(key, stop_label, timeout=timeout) as bar:
        return jobs.run(fn, *args, timeout=timeout, report=report, memory_mb=memory_mb, owner=visitor_key(),
                        small=small, wait=wait, **kwargs)
