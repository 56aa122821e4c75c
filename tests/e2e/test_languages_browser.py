"""The Languages page's corpus metrics in a real browser, light and dark at 1280x720: the view from its
link, the panels and the table drawn, the view kept across pages, and hostile uploads (an empty file, a
binary one, one that is not UTF-8) named in messages while the good file is measured."""

import pytest

from tests.e2e.conftest import (SHOTS, new_context, rerun, settle, wait_drawn, wait_for_app, wait_plotted,
                                watched_page)


def shot(page, locator, name: str) -> None:
    """The viewport with `locator` scrolled into it (the app scrolls inside Streamlit's own container)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    locator.scroll_into_view_if_needed()
    settle(page)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_corpus_metrics_view(browser, app_url, scheme):
    ctx, page = watched_page(browser, 1280, 720, color_scheme=scheme)
    errors = page.errors
    page.goto(f"{app_url}/languages?languages_view=Corpus+metrics")
    wait_for_app(page)
    wait_plotted(page, 2)
    wait_drawn(page)
    assert page.get_by_text("All 26 texts together").count() == 1
    assert page.locator(".js-plotly-plot").first.locator(".subplot").count() >= 7  # a panel per metric
    shot(page, page.get_by_text("All 26 texts together"), f"languages-metrics-{scheme}")
    shot(page, page.locator("[data-testid='stDataFrame']").first, f"languages-metrics-table-{scheme}")
    shot(page, page.get_by_text("What the metrics mean"), f"languages-metrics-notes-{scheme}")
    assert page.get_by_text("Zouhar et al. 2023", exact=False).count() >= 1

    # another page and back: the view is kept
    page.get_by_role("link", name="Algorithms").click()
    settle(page)
    page.get_by_role("link", name="Languages").click()
    wait_for_app(page)
    wait_plotted(page, 2)
    assert page.get_by_text("All 26 texts together").count() == 1
    assert not errors
    ctx.close()


def test_corpus_metrics_of_hostile_uploads(browser, app_url, tmp_path):
    ctx = new_context(browser, viewport={"width": 1280, "height": 720})
    page = ctx.new_page()
    page.goto(f"{app_url}/languages?languages_view=Corpus+metrics&languages_tab=Your+corpus")
    wait_for_app(page)
    page.get_by_text("No files yet.").wait_for(timeout=60_000)
    files = {"eng.txt": b"", "deu.txt": bytes(range(256)) * 8, "fra.txt": "Le café est chaud.\n".encode("latin-1"),
             "kor.txt": "해는 아침에 뜹니다.\n👨‍👩‍👧‍👦 가족\n".encode()}
    paths = []
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        paths.append(str(tmp_path / name))
    with rerun(page):
        page.locator("input[type=file]").set_input_files(paths)
    page.get_by_text("Done: 2 languages").wait_for(timeout=60_000)
    wait_plotted(page, 2)
    text = page.locator("[data-testid='stMain']").inner_text()
    assert "eng.txt is empty" in text and "looks like a binary file" in text and "not all valid UTF-8" in text
    assert page.get_by_text("All 2 texts together").count() == 1
    shot(page, page.get_by_text("looks like a binary file"), "languages-metrics-hostile-upload")
    ctx.close()
