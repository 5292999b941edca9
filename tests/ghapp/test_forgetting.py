"""Deleting and forgetting over `/v1`: sessions, retired lessons, merged paraphrases, restores."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, select

from continual.consolidation.plan import MergePlan, ParaphraseGroup
from continual.consolidation.store import apply_plan, lessons_of
from continual.maintenance import Action, Ruling, publish
from continual.tables import Entry, LessonEvent, Receipt
from tests.ghapp.test_api import Api
from tests.support.recall import NOW, Clock, Tenant, accept, api, entry_of, seed, token

COMMIT = "c0ffee" + "0" * 34


@dataclass
class World:
    engine: Engine
    org: Tenant
    api: Api


@pytest.fixture
def world(engine: Engine, tmp_path: Path) -> Iterator[World]:
    org = seed(engine, 1, "octo", "app", "lib")
    accept(engine, org, "octo/app", review_id="rev-1")
    accept(engine, org, "octo/app", name="load_rows", review_id="rev-2")
    secret = token(engine, "octo", "mona")
    with api(engine, tmp_path, Clock(NOW + 1000)) as url:
        document = httpx.get(f"{url}/v1/openapi.json").json()
        headers = {"authorization": f"Bearer {secret}"}
        with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
            yield World(engine, org, Api(client, document))


def retire(world: World, name: str = "parse_config") -> str:
    entry = entry_of(world.engine, world.org.repos["octo/app"], name)
    verdict = Ruling(entry.id, entry.revision, Action.RETIRE, "src/app.py was deleted", COMMIT)
    assert publish(world.engine, lambda conn: ([verdict], {}), now=NOW + 500).retired == 1
    return entry.id


def test_deleting_a_session_whose_only_lesson_was_retired(world: World) -> None:
    entry_id = retire(world)
    template = "/v1/sessions/{session_id}"
    body = world.api.call("DELETE", "/v1/sessions/rev-1", template)
    assert world.api.status == 200, body
    assert body["deleted"]["entries"] == 1
    with world.engine.connect() as conn:
        row = conn.execute(select(Entry).where(Entry.id == entry_id)).one()
        receipts = conn.execute(select(Receipt).where(Receipt.entry_id == entry_id)).all()
        texts = conn.execute(
            select(LessonEvent.before_text, LessonEvent.after_text).where(
                LessonEvent.entry_id == entry_id
            )
        ).all()
    assert row.text == "" and row.title == "" and receipts == []
    assert all(before in (None, "") and after in (None, "") for before, after in texts)
    listed = world.api.call("GET", "/v1/recall", params={"include": "retired"})["retired"]
    assert all("parse_config" not in (c["before_text"] or "") for c in listed)
    again = world.api.call("DELETE", "/v1/sessions/rev-1", template)
    assert world.api.status == 200 and again["deleted"]["entries"] == 0


def test_a_retired_lesson_is_deleted_with_its_text(world: World) -> None:
    entry_id = retire(world)
    template = "/v1/recall/{entry_id}"
    world.api.call("DELETE", f"/v1/recall/{entry_id}", template)
    assert world.api.status == 204
    with world.engine.connect() as conn:
        row = conn.execute(select(Entry).where(Entry.id == entry_id)).one()
        events = conn.execute(select(LessonEvent).where(LessonEvent.entry_id == entry_id)).all()
    assert (row.text, row.title, row.associations) == ("", "", "{}") and events == []
    listed = world.api.call("GET", "/v1/recall", params={"include": "retired"})["retired"]
    assert entry_id not in {c["id"] for c in listed}
    world.api.call("DELETE", f"/v1/recall/{entry_id}", template)
    assert world.api.status == 404  # erased already
    path, restore = f"/v1/recall/{entry_id}/restore", "/v1/recall/{entry_id}/restore"
    world.api.call("POST", path, restore, json={"expected_revision": row.revision})
    assert world.api.status == 409  # its content is gone: nothing to restore


def test_a_retired_lesson_is_deleted_under_its_revision(world: World) -> None:
    entry_id = retire(world)
    template = "/v1/recall/{entry_id}"
    world.api.call("DELETE", f"/v1/recall/{entry_id}?expected_revision=1", template)
    assert world.api.status == 409
    assert entry_id in {
        c["id"]
        for c in world.api.call("GET", "/v1/recall", params={"include": "retired"})["retired"]
    }


def merge_paraphrase(
    world: World, into: str = "parse_config", name: str = "load_rows"
) -> tuple[str, str]:
    """Consolidation merges lesson ``name`` into ``into`` (as if they said the same)."""
    repository = world.org.repos["octo/app"]
    first = entry_of(world.engine, repository, into).key
    second = entry_of(world.engine, repository, name).key
    with world.engine.begin() as conn:
        found = {c.key: c for c in lessons_of(conn, repository)}
        keep, gone = found[first], found[second]
        assert apply_plan(conn, MergePlan((ParaphraseGroup(keep, (gone,)),)), now=NOW + 600)
    return keep.id, gone.id


def test_a_merged_paraphrase_is_listed_and_deletable(world: World) -> None:
    keep, gone = merge_paraphrase(world)
    listed = world.api.call("GET", "/v1/recall", params={"include": "retired"})["retired"]
    [merged] = [c for c in listed if c["id"] == gone]
    assert merged["action"] == "merged" and keep in merged["reason"] and merged["retired"]
    assert "load_rows" in merged["before_text"] and "load_rows" in merged["text"]
    world.api.call("DELETE", f"/v1/recall/{gone}", "/v1/recall/{entry_id}")
    assert world.api.status == 204
    with world.engine.connect() as conn:
        row = conn.execute(select(Entry).where(Entry.id == gone)).one()
    assert (row.text, row.title) == ("", "")
    listed = world.api.call("GET", "/v1/recall", params={"include": "retired"})["retired"]
    assert gone not in {c["id"] for c in listed}
    assert keep in {x["id"] for x in world.api.call("GET", "/v1/recall")["lessons"]}


def test_deleting_a_session_deletes_what_was_merged_into_its_lesson(world: World) -> None:
    accept(world.engine, world.org, "octo/app", name="read_file", review_id="rev-1")
    keep, gone = merge_paraphrase(world, name="read_file")
    body = world.api.call("DELETE", "/v1/sessions/rev-1", "/v1/sessions/{session_id}")
    assert world.api.status == 200 and body["deleted"]["entries"] == 2
    with world.engine.connect() as conn:
        rows = conn.execute(select(Entry.text).where(Entry.id.in_([keep, gone]))).scalars()
        assert set(rows) == {""}
