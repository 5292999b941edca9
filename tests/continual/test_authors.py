"""The one bot and maintainer rule: type Bot, a `[bot]` login in any case, or acting via an app."""

from __future__ import annotations

import pytest

from continual.writeback.authors import (
    Author,
    bot_login,
    is_app_bot,
    is_bot,
    is_bot_account,
    is_maintainer,
)


@pytest.mark.parametrize(
    ("login", "kind", "via_app"),
    [
        ("helper", "Bot", False),  # type Bot
        ("renovate[bot]", "User", False),  # a `[bot]` login
        ("Renovate[BOT]", "User", False),  # in any case
        ("octocat", "User", True),  # acting via an app
    ],
    ids=["type", "suffix", "suffix-case", "via-app"],
)
def test_each_of_the_three_signals_makes_a_bot(login: str, kind: str, via_app: bool) -> None:
    assert is_bot_account(login, kind, via_app=via_app)
    author = Author(login, kind, "OWNER", via_app=via_app)
    assert is_bot(author)
    assert not is_maintainer(author), "a bot never counts, whatever its association"


def test_a_person_is_no_bot_and_counts_by_association() -> None:
    assert not is_bot_account("octocat", "User")
    assert not is_bot_account("bot-fan", None)
    assert is_maintainer(Author("octocat", "User", "member"))
    assert not is_maintainer(Author("octocat", "User", "CONTRIBUTOR"))


def test_the_apps_own_bot_is_its_slug_with_the_suffix() -> None:
    assert bot_login("hindsight") == "hindsight[bot]"
    assert is_app_bot(Author("Hindsight[bot]", "Bot", "NONE"), bot_login=bot_login("hindsight"))
    assert not is_app_bot(Author("hindsight[bot]", "User", "NONE"), bot_login="hindsight[bot]")
    assert not is_app_bot(Author("other[bot]", "Bot", "NONE"), bot_login="hindsight[bot]")
