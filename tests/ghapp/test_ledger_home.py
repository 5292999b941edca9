"""`/` points to the ledger, evidence links go to GitHub's web side of the API in use, and
suppressions are shown and lifted on the page."""

from __future__ import annotations

import re

import httpx
import pytest
from sqlalchemy import Engine, select, update

from continual import store
from continual.entry_keys import entry_key
from continual.ledger import review_ledger
from continual.tables import Entry, Receipt
from continual.values import Decision
from ghapp.web.render import github_web_url
from tests.support.ledger_page import SeededLedger, sign_in, stored
from tests.support.recall import NOW, decide, lesson_for


def test_the_root_points_to_the_ledger(ledger_url: str) -> None:
    answer = httpx.get(f"{ledger_url}/", follow_redirects=False)
    assert answer.status_code == 302 and answer.headers["location"] == "/ledger"
    assert httpx.get(f"{ledger_url}/nothing-here").status_code == 404


@pytest.mark.parametrize(
    ("api", "web"),
    [
        ("https://api.github.com", "https://github.com"),
        ("https://api.github.com/", "https://github.com"),
        ("https://ghe.example.com/api/v3", "https://ghe.example.com"),
        ("http://127.0.0.1:8123", "http://127.0.0.1:8123"),
    ],
)
def test_the_web_side_of_an_api(api: str, web: str) -> None:
    assert github_web_url(api) == web


def test_suppressions_are_shown_and_a_person_lifts_one(
    ledger_url: str, seeded_ledger: SeededLedger, engine: Engine
) -> None:
    tenant, repo = seeded_ledger.tenant, seeded_ledger.repo
    title, lesson = lesson_for("close_file", "src/other.py")
    refused = "sg_refused"
    with engine.begin() as conn:
        store.record_suggestion(
            conn,
            store.NewSuggestion(
                id=refused,
                account_id=tenant.account_id,
                repository_id=tenant.repos[repo],
                pr=70,
                head_sha="a" * 40,
                path="src/other.py",
                line=3,
                seat="alpha",
                lab="acme-labs",
                lens="correctness",
                title=title,
                entry_key=entry_key("correctness", title),
                lesson=lesson,
                set_sha256="f" * 64,
            ),
            now=NOW - 2000,
        )
    decide(engine, refused, at=NOW - 1000, kind=Decision.DISMISSED)  # a false positive there
    with engine.connect() as conn:
        [entry_id] = conn.execute(
            select(Receipt.entry_id).where(Receipt.suggestion_id == refused)
        ).scalars()
    revision = stored(engine, entry_id).revision
    with httpx.Client(base_url=ledger_url) as client:
        csrf = sign_in(client, seeded_ledger.token)
        page = client.get("/ledger", params={"repo": repo}).text
        section = page[page.index('<section id="suppressions">') :]
        section = section[: section.index("</section>")]
        assert "Unchecked close_file result" in section and "<code>src/other.py</code>" in section
        assert "false-positive" in section and 'data-action="lift"' in section
        form = {"csrf": csrf, "repo": repo, "action": "lift", "expected_revision": str(revision)}
        answer = client.post(f"/ledger/lessons/{entry_id}", data=form, follow_redirects=True)
        assert answer.status_code == 200 and "suppression of lesson" in answer.text
        section = answer.text[answer.text.index('<section id="suppressions">') :]
        assert "Unchecked close_file result" not in section[: section.index("</section>")]
    assert stored(engine, entry_id).suppression_lifted_by == "mona"


def test_a_lessons_markdown_is_rendered_and_nothing_untrusted_runs(
    ledger_url: str, seeded_ledger: SeededLedger, engine: Engine
) -> None:
    repo = seeded_ledger.repo
    with engine.connect() as conn:
        entry_id = (
            conn.execute(
                select(Entry.id).where(
                    Entry.repository_id == seeded_ledger.tenant.repos[repo],
                    Entry.deleted_ms.is_(None),
                )
            )
            .scalars()
            .first()
        )
    assert entry_id is not None
    text = (
        "Check **the result** of `parse()`.\n\n<script>alert(1)</script>"
        ' [see](javascript:alert(2)) <img src=x onerror="alert(3)">'
    )
    with engine.begin() as conn:
        conn.execute(update(Entry).where(Entry.id == entry_id).values(text=text))
    with httpx.Client(base_url=ledger_url) as client:
        sign_in(client, seeded_ledger.token)
        page = client.get("/ledger", params={"repo": repo}).text
    row = page[page.index(f'id="lesson-{entry_id}"') :]
    row = row[: row.index("</tr>")]
    assert "<strong>the result</strong>" in row and "<code>parse()</code>" in row
    assert "<script" not in row and "javascript:" not in row and "onerror" not in row


def lesson_rows(html: str) -> set[str]:
    return set(re.findall(r'<tr id="lesson-([^"]+)"', html))


def test_lessons_are_searched_by_words_person_and_path(
    ledger_url: str, seeded_ledger: SeededLedger, engine: Engine
) -> None:
    repo = seeded_ledger.repo
    with engine.connect() as conn:
        [ledger] = [
            x
            for x in review_ledger(conn, seeded_ledger.tenant.account_id, now=NOW, brain=True)
            if x.repository == repo
        ]
    lessons = list(ledger.lessons or ())
    assert len(lessons) > 1
    one = lessons[0]
    word = one.title.split()[-1]
    actor = next(r.actor for r in one.sources if r.actor)
    folder = one.card.peek_links().files[0].rpartition("/")[0] + "/"
    with httpx.Client(base_url=ledger_url) as client:
        sign_in(client, seeded_ledger.token)

        def found(**query: str) -> set[str]:
            page = client.get("/ledger", params={"repo": repo, **query})
            assert page.status_code == 200
            return lesson_rows(page.text)

        everything = found()
        assert everything == {x.id for x in lessons}
        assert one.id in found(q=word.upper())
        assert found(q="nothing-says-this") == set()
        assert one.id in found(person=actor) and found(person="nobody-at-all") == set()
        assert one.id in found(path=folder) and found(path="nowhere/") == set()
        assert found(q=word, person="nobody-at-all") == set(), "every part must match"
        page = client.get("/ledger", params={"repo": repo, "q": "nothing-says-this"}).text
        assert f"Lessons (0 of {len(lessons)})" in page
        assert (
            "<script"
            not in client.get(
                "/ledger", params={"repo": repo, "q": "<script>x</script>"}
            ).text.split('id="search"')[1][:2000]
        )
