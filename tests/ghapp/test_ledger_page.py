"""`/ledger` in headless Chromium: sign in, read the tables and the chart, demote and restore a
lesson, meet a stale revision, and keep a screenshot of the page."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import Engine

from continual.ledger import RepositoryLedger, review_ledger
from ghapp.web.render import _rate as shown_rate
from tests.support.browser import click_and_load
from tests.support.ledger_page import WEEKS, SeededLedger, stored
from tests.support.recall import NOW

# Set to a folder (docs/) to keep the page's screenshot there as well.
SCREENSHOT_DIR = os.environ.get("HINDSIGHT_SCREENSHOT_DIR")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _ledger(engine: Engine, seeded_ledger: SeededLedger) -> RepositoryLedger:
    with engine.connect() as conn:
        ledgers = review_ledger(conn, seeded_ledger.tenant.account_id, now=NOW, brain=True)
    return next(x for x in ledgers if x.repository == seeded_ledger.repo)


def _sign_in(browser: Any, ledger_url: str, secret: str) -> None:
    from selenium.webdriver.common.by import By

    browser.get(f"{ledger_url}/ledger")
    assert browser.current_url == f"{ledger_url}/ledger/sign-in"  # the ledger asked for a sign-in
    browser.find_element(By.ID, "token").send_keys(secret)
    click_and_load(browser, browser.find_element(By.ID, "sign-in"))
    assert browser.current_url == f"{ledger_url}/ledger"


def _row(browser: Any, entry_id: str) -> Any:
    from selenium.webdriver.common.by import By

    return browser.find_element(By.ID, f"lesson-{entry_id}")


def _click(browser: Any, entry_id: str, action: str) -> None:
    from selenium.webdriver.common.by import By

    button = _row(browser, entry_id).find_element(By.CSS_SELECTOR, f"button[data-action={action}]")
    click_and_load(browser, button)


def test_sign_in_and_read_the_ledger(
    browser: Any, ledger_url: str, seeded_ledger: SeededLedger, engine: Engine
) -> None:
    from selenium.webdriver.common.by import By

    _sign_in(browser, ledger_url, seeded_ledger.token)
    ledger = _ledger(engine, seeded_ledger)
    assert "signed in as mona" in browser.find_element(By.TAG_NAME, "header").text
    summary = browser.find_element(By.ID, "summary").text
    assert f"{ledger.suggestions.total}\nsuggestions" in summary
    assert f"{seeded_ledger.accepted}\naccepted" in summary
    assert f"{seeded_ledger.dismissed}\ndismissed" in summary
    rows = browser.find_elements(By.CSS_SELECTOR, "#by-seat tbody tr")
    shown = [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")] for row in rows]
    assert shown == [
        [
            x.seat,
            x.lens,
            str(x.counts.total),
            str(x.counts.accepted),
            str(x.counts.dismissed),
            str(x.counts.pending),
            shown_rate(x.counts.acceptance_rate),
            str(x.proven),
            str(x.agreements),
        ]
        for x in ledger.by_seat_and_lens
    ]
    signals = {
        row.find_elements(By.TAG_NAME, "td")[0].text: row.text
        for row in browser.find_elements(By.CSS_SELECTOR, "#by-signal tbody tr")
    }
    reaction = next(x for x in ledger.decisions_by_signal if x.signal == "reaction")
    assert signals["reaction"] == (
        f"reaction {reaction.accepted} {reaction.dismissed} {reaction.bound} {reaction.claimed} "
        f"{reaction.argued} {reaction.deferred} {reaction.dropped}"
    )
    assert reaction.dismissed > 0
    with_lessons = browser.find_element(By.ID, "rate-with").text
    assert with_lessons == shown_rate(ledger.acceptance.with_lessons.acceptance_rate)
    assert browser.find_element(By.ID, "rate-without").text == shown_rate(
        ledger.acceptance.without_lessons.acceptance_rate
    )
    chart = browser.find_element(By.ID, "chart")
    guided = chart.find_elements(By.CSS_SELECTOR, "g.with circle")
    unguided = chart.find_elements(By.CSS_SELECTOR, "g.without circle")
    assert len(guided) == sum(1 for *_, g in WEEKS if g)
    assert len(unguided) == sum(1 for *_, g in WEEKS if not g)
    lessons = browser.find_elements(By.CSS_SELECTOR, "#lessons tbody tr[data-revision]")
    assert len(lessons) == len(ledger.lessons or ())
    first = (ledger.lessons or ())[0]
    row = _row(browser, first.id).text
    # The text is rendered Markdown: `code` shows as code, without its backticks.
    assert first.text.replace("`", "") in row and first.state.value in row
    assert f"PR #{first.sources[0].pr}" in row

    browser.set_window_size(1280, 1900)
    picture = browser.get_screenshot_as_png()
    assert picture.startswith(PNG_MAGIC) and len(picture) > 20_000
    if SCREENSHOT_DIR:
        (Path(SCREENSHOT_DIR) / "ledger.png").write_bytes(picture)


def test_demote_and_restore_round_trip_and_a_stale_revision(
    browser: Any, ledger_url: str, seeded_ledger: SeededLedger, engine: Engine
) -> None:
    from selenium.webdriver.common.by import By

    _sign_in(browser, ledger_url, seeded_ledger.token)
    lesson = (_ledger(engine, seeded_ledger).lessons or ())[0]
    _click(browser, lesson.id, "demote")
    assert f"Lesson {lesson.id} demoted" in browser.find_element(By.CSS_SELECTOR, ".notice").text
    row = _row(browser, lesson.id)
    assert "demoted" in row.find_element(By.CSS_SELECTOR, ".state").text
    assert row.get_attribute("data-revision") == str(lesson.revision + 1)
    found = stored(engine, lesson.id)
    assert found.demoted_ms is not None and found.demoted_by == "mona"

    _click(browser, lesson.id, "restore")
    assert f"Lesson {lesson.id} restored" in browser.find_element(By.CSS_SELECTOR, ".notice").text
    assert _row(browser, lesson.id).get_attribute("data-revision") == str(lesson.revision + 2)
    found = stored(engine, lesson.id)
    assert found.demoted_ms is None

    # Someone else demotes it through the API while this page still shows the old revision.
    answer = httpx.patch(
        f"{ledger_url}/v1/recall/{lesson.id}",
        json={"demote": True, "expected_revision": lesson.revision + 2},
        headers={"authorization": f"Bearer {seeded_ledger.token}"},
    )
    assert answer.status_code == 200
    _click(browser, lesson.id, "demote")
    problem = browser.find_element(By.ID, "problem").text
    assert f"no longer at revision {lesson.revision + 2}" in problem
    assert "read it again" in problem
    # The page shows the lesson as it is now, so the next click carries the right revision.
    assert _row(browser, lesson.id).get_attribute("data-revision") == str(lesson.revision + 3)
    _click(browser, lesson.id, "restore")
    assert f"Lesson {lesson.id} restored" in browser.find_element(By.CSS_SELECTOR, ".notice").text


def test_delete_removes_the_lesson_from_the_page(
    browser: Any, ledger_url: str, seeded_ledger: SeededLedger, engine: Engine
) -> None:
    from selenium.webdriver.common.by import By

    _sign_in(browser, ledger_url, seeded_ledger.token)
    lesson = (_ledger(engine, seeded_ledger).lessons or ())[0]
    _click(browser, lesson.id, "delete")
    # Delete asks first, and Cancel keeps the lesson.
    asked = browser.find_element(By.ID, "confirm")
    assert lesson.title in asked.text and "cannot be restored" in asked.text
    assert stored(engine, lesson.id).deleted_ms is None
    click_and_load(browser, browser.find_element(By.ID, "cancel-delete"))
    assert not browser.find_elements(By.ID, "confirm")
    assert stored(engine, lesson.id).deleted_ms is None
    _click(browser, lesson.id, "delete")
    click_and_load(browser, browser.find_element(By.ID, "confirm-delete"))
    assert f"Lesson {lesson.id} deleted" in browser.find_element(By.CSS_SELECTOR, ".notice").text
    assert not browser.find_elements(By.ID, f"lesson-{lesson.id}")
    found = stored(engine, lesson.id)
    assert found.deleted_ms is not None and found.text == ""


def test_evidence_links_to_its_pull_request(
    browser: Any, ledger_url: str, seeded_ledger: SeededLedger, engine: Engine
) -> None:
    from selenium.webdriver.common.by import By

    _sign_in(browser, ledger_url, seeded_ledger.token)
    lesson = (_ledger(engine, seeded_ledger).lessons or ())[0]
    links = _row(browser, lesson.id).find_elements(By.CSS_SELECTOR, "ul.evidence a.pr")
    assert links, "each receipt names its pull request as a link"
    pr = lesson.sources[0].pr
    assert links[0].text == f"PR #{pr}"
    assert links[0].get_attribute("href") == f"https://github.com/{lesson.repository}/pull/{pr}"


def test_no_sideways_scroll_at_mobile_width(
    browser: Any, ledger_url: str, seeded_ledger: SeededLedger
) -> None:
    _sign_in(browser, ledger_url, seeded_ledger.token)
    browser.set_window_size(375, 800)
    browser.get(f"{ledger_url}/ledger?repo={seeded_ledger.repo}")
    inner = browser.execute_script("return window.innerWidth")
    assert inner <= 400, f"the window is {inner} px wide"
    wide = browser.execute_script("return document.documentElement.scrollWidth")
    assert wide <= inner, f"the page is {wide} px wide in a {inner} px window"
