"""A fragment inside a fragment (Compare's counts inside its page, app_pages/compare.py `counts_view`) with
Streamlit 1.67, on a busy server.

When a fragment's run starts, Streamlit drops from the session's outgoing queue the deltas of that fragment
not yet sent (the run draws them again), and keeps every other delta. It keeps those of a fragment nested in
it, though the run draws them again too, at the same places. So when a run's last deltas are still queued as
the next run of its fragment starts (a server too busy to send them at once), the browser gets the nested
fragment's deltas without the parent's deltas before them, at a place its page does not have yet: "Bad delta
path index 8 (should be between [0, 4])", and the whole page goes blank. Ten visitors on a loaded machine
met it (tests/e2e/test_many_visitors_browser.py).

`install()` makes the drop take the nested fragments along: the fragments a run starts with, and every
fragment nested in one of them, as the session's fragment storage records their parents. app.py calls it,
once per process, before any page runs. It patches private names of Streamlit's, so only for the version it
was written against (STREAMLIT, the one requirements.txt pins: tests/test_nested_fragments.py holds them
equal and runs the patch through a real AppSession); on another version it logs why and leaves Streamlit
as it is."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping

STREAMLIT = "1.67.0"  # whose AppSession._clear_queue and MemoryFragmentStorage._parent_by_id this was written for
log = logging.getLogger("token_lens.nested_fragments")


def with_nested(ids: Iterable[str], parents: Mapping[str, str | None]) -> list[str]:
    """`ids` and every fragment nested in one of them, at any depth, given each fragment's parent."""
    family = list(dict.fromkeys(ids))
    seen = set(family)
    for fid in family:  # grows while it runs: children of the added ones are found in turn
        for child, parent in parents.items():
            if parent == fid and child not in seen:
                seen.add(child)
                family.append(child)
    return family


def install(version: str | None = None) -> bool:
    """Once per process: a fragment run clears the queued deltas of its nested fragments too. Whether the
    patch is in place; on a Streamlit other than STREAMLIT (or `version`, for the tests) it is not, and
    the log says so."""
    import streamlit
    from streamlit.runtime.app_session import AppSession

    original = AppSession._clear_queue
    if getattr(original, "nested_too", False):
        return True
    running = version or streamlit.__version__
    if running != STREAMLIT:
        log.warning("Streamlit %s is not %s, the version app_pages/kit/nested_fragments.py was written for: its "
                    "patch is not installed (on a busy server, a page with a nested fragment may go blank; "
                    "tests/test_nested_fragments.py says whether this version still needs it)", running, STREAMLIT)
        return False

    def _clear_queue(self, fragment_ids_this_run: list[str] | None = None) -> None:
        parents = getattr(self._fragment_storage, "_parent_by_id", None)
        if fragment_ids_this_run and isinstance(parents, Mapping):
            fragment_ids_this_run = with_nested(fragment_ids_this_run, dict(parents))
        original(self, fragment_ids_this_run)

    _clear_queue.nested_too = True
    _clear_queue.original = original  # Streamlit's own, for the tests
    AppSession._clear_queue = _clear_queue
    return True
