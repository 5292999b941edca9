"""One write-back reads each thread once: a pull request's threads are built once and each reply
is classified once, however many plans, questions and decisions read them."""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from continual.replies import classify_reply
from continual.writeback.threads import build_threads
from ghapp.app import build_deps
from ghapp.writeback.pipeline import write_back
from tests.support.app_harness import INSTALLATION_ID, Harness, running_app
from tests.support.simulator import REPO, make_client

REPLIES = {
    0: [("octocat", "OWNER", "accept")],
    1: [("newcomer", "CONTRIBUTOR", "Why is this needed?"), ("octocat", "OWNER", "Not sure yet.")],
    2: [("octocat", "OWNER", "dismiss wont-fix"), ("octocat", "OWNER", "undo")],
}


@pytest.fixture
def app(engine: Engine, database_url: str, tmp_path: Path) -> Iterator[Harness]:
    with running_app(engine, database_url, tmp_path) as harness:
        yield harness


def counting(
    monkeypatch: pytest.MonkeyPatch, function: Callable[..., Any], key: Callable[..., object]
) -> Counter[object]:
    """Count the calls of `function` by `key(*args)`, in every loaded module that holds it."""
    calls: Counter[object] = Counter()

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[key(*args)] += 1
        return function(*args, **kwargs)

    for module in list(sys.modules.values()):
        if module is not None and vars(module).get(function.__name__) is function:
            monkeypatch.setattr(module, function.__name__, counted)
    return calls


def test_threads_are_built_once_and_each_reply_classified_once(
    app: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"src/app.py": "@@ -1,2 +1,3 @@\n import os\n+config = parse_config()\n print(config)"}
    number = int(app.sim.open_pull(REPO, files=files)["number"])
    app.settle()
    for thread, replies in REPLIES.items():
        _, comment = app.plant_suggestion(number, title=f"Finding {thread}")
        for author, association, body in replies:
            app.sim.reply(
                REPO, number, comment, body, author=author, author_association=association
            )
    app.settle()
    built = counting(monkeypatch, build_threads, lambda comments: "threads")
    classified = counting(monkeypatch, classify_reply, lambda text: text)
    deps = build_deps(app.settings, engine=app.engine, github=make_client(app.sim))
    result = asyncio.run(
        write_back(deps, installation_id=INSTALLATION_ID, repo=REPO, number=number)
    )
    assert result is not None and len(result.decided.threads) == 3
    assert result.decisions == 1, "the accept decides; discussion and an undone refusal do not"
    assert built == {"threads": 1}
    assert set(classified.values()) == {1}, f"each reply classified once: {classified}"
    assert {"accept", "Not sure yet."} <= set(classified), "the replies that can decide are read"
