"""The memory switch over `/v1/memory` and `hindsight memory`: off by default, on, off, clear."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from pydantic import ValidationError
from sqlalchemy import Engine, func, select

from continual.memory import session_dir
from continual.tables import MemoryHitRow, MemoryItemRow, MemorySummaryRow
from ghapp.cli import main as cli
from ghapp.settings import Settings
from tests.ghapp.test_api import World, _remember
from tests.ghapp.test_api import world as world  # the fixture, by its name
from tests.support.recall import NOW, Clock, accept, api, seed, token

MEMORY = "/v1/memory"
APP = {"repo": "octo/app"}
TEXT = "PYTHONPATH=src pytest -q passed where pytest -q failed"


def turn(world: World, enabled: object) -> dict[str, object]:
    body: dict[str, object] = world.api.call("PUT", MEMORY, params=APP, json={"enabled": enabled})
    return body


def test_memory_is_off_by_default_and_nothing_of_it_is_handed(world: World) -> None:
    _remember(world, TEXT, "pytest")
    view = world.api.call("GET", MEMORY, params=APP)
    assert world.api.status == 200
    assert (view["enabled"], view["changed_by"], view["summary"]) == (False, None, None)
    assert view["items"] == {"active": 1}
    brief = world.api.call("GET", "/v1/brief", params={**APP, "session": "agent-1"})
    assert "Memory summary" not in brief["text"] and "PYTHONPATH" not in brief["text"]
    assert "Check the result of `load_rows`" in brief["text"], "lessons are handed all the same"


def test_turned_on_memory_is_handed_and_off_again_it_is_not(world: World) -> None:
    _remember(world, TEXT, "pytest")
    switched = turn(world, True)
    assert world.api.status == 200 and switched["enabled"] and switched["changed_by"] == "mona"
    view = world.api.call("GET", MEMORY, params=APP)
    assert view["enabled"] and view["summary"]["memories"] == 1
    brief = world.api.call("GET", "/v1/brief", params={**APP, "session": "agent-1"})
    assert "Memory summary for octo/app" in brief["text"]
    assert not turn(world, False)["enabled"]
    brief = world.api.call("GET", "/v1/brief", params={**APP, "session": "agent-2"})
    assert "Memory summary" not in brief["text"] and "PYTHONPATH" not in brief["text"]
    assert world.api.call("GET", MEMORY, params=APP)["items"] == {"active": 1}, "off keeps it"


def test_clear_deletes_all_memory_data_of_the_repository(world: World) -> None:
    _remember(world, TEXT, "pytest")
    turn(world, True)
    world.api.call("GET", "/v1/memory/summary", params=APP)  # stored
    folder = session_dir(world.store_dir, "octo/app", "rev-9")
    folder.mkdir(parents=True)
    (folder / "session-memory.jsonl").write_text('{"type": "session"}\n')
    body = world.api.call("DELETE", MEMORY, params=APP)
    assert world.api.status == 200
    assert body["deleted"] == {
        "memory_items": 1,
        "memory_hits": 0,
        "summaries": 1,
        "memory_files": 1,
    }
    assert not folder.exists()
    with world.engine.connect() as conn:
        for table in (MemoryItemRow, MemoryHitRow, MemorySummaryRow):
            assert conn.execute(select(func.count()).select_from(table)).scalar() == 0
    assert world.api.call("GET", MEMORY, params=APP)["enabled"], "the switch stays"


@pytest.mark.parametrize(
    "body", [{}, {"enabled": "yes"}, {"enabled": 1}, {"enabled": True, "x": 1}, [True]]
)
def test_the_switch_refuses_bad_bodies(world: World, body: object) -> None:
    answer = world.api.call("PUT", MEMORY, params=APP, json=body)
    assert world.api.status == 422 and answer["error"]["field"] == "enabled"
    world.api.call("PUT", MEMORY, params={"repo": "other/app"}, json={"enabled": True})
    assert world.api.status == 404


def test_the_command_line_switch(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _remember(world, TEXT, "pytest")
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", world.engine.url.render_as_string(False))
    monkeypatch.setenv("HINDSIGHT_STORE_DIR", str(world.store_dir))
    monkeypatch.setattr("ghapp.cli.commands.configure_logging", lambda *args: None)
    assert cli(["memory", "view", "--repo", "octo/app"]) == 0
    assert capsys.readouterr().out == "octo/app: memory is off\n"
    assert cli(["memory", "rebuild", "--repo", "octo/app"]) == 1
    assert "memory is off for octo/app" in capsys.readouterr().err
    assert cli(["memory", "on", "--repo", "octo/app"]) == 0
    assert capsys.readouterr().out.startswith("octo/app: memory is on\n")
    assert cli(["memory", "rebuild", "--repo", "octo/app"]) == 0
    assert capsys.readouterr().out.startswith("octo/app: memory is on\n")
    assert world.api.call("GET", MEMORY, params=APP)["changed_by"] == "cli"
    assert cli(["memory", "clear", "--repo", "octo/app"]) == 0
    assert "deleted all memory: 1 items, 0 hits, 1 summary, 0 files" in capsys.readouterr().out
    assert cli(["memory", "clear", "r_1", "--repo", "octo/app"]) == 2
    assert cli(["memory", "clear"]) == 2
    assert cli(["memory", "view", "--repo", "octo/nope"]) == 1


@pytest.mark.parametrize("name", ["call_injection_tokens", "hook_injection_tokens"])
@pytest.mark.parametrize("value", [0, 64_001, "many"])
def test_an_injection_budget_setting_is_1_to_64000(name: str, value: object) -> None:
    with pytest.raises(ValidationError, match=name):
        Settings(**{name: value})


def test_the_api_hands_within_the_configured_budgets(engine: Engine, tmp_path: Path) -> None:
    org = seed(engine, 1, "octo", "app")
    accept(engine, org, "octo/app")
    accept(engine, org, "octo/app", name="load_rows")
    secret = token(engine, "octo", "mona")
    headers = {"authorization": f"Bearer {secret}"}
    options = {"call_injection_tokens": 60, "hook_injection_tokens": 1}
    with api(engine, tmp_path, Clock(NOW + 1000), **options) as url:
        brief = httpx.get(
            f"{url}/v1/brief", params={**APP, "session": "a1"}, headers=headers
        ).json()
        push = httpx.get(
            f"{url}/v1/context",
            params={**APP, "session": "a2", "path": "src/app.py"},
            headers=headers,
        ).json()
    assert len(brief["lessons"]) == 1 and brief["omitted"] == 1
    assert len(brief["text"].encode()) <= 240
    assert push["text"] == "" and push["lessons"] == []
