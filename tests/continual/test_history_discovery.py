"""Lessons discovered from the history (the checks every seat proposal passes, recurrence as
the proof) and other bots' refused suggestions (who may refuse, in which words, with which
evidence), with no database and no seat."""

from __future__ import annotations

from datetime import timedelta

from continual.history.discovery import (
    Proposal,
    Rejected,
    check,
    checked,
    lesson_key,
    mechanisms,
)
from continual.history.evidence import Receipt
from continual.history.refusals import refusals
from continual.values import EntryState
from continual.writeback.authors import Author
from tests.continual.test_history import FIXED, MAINTAINER, PULL, T0, comment

BOT = Author("lint-bot[bot]", "Bot", "NONE")
OWN_BOT = Author("hindsight[bot]", "Bot", "NONE")
AUTHOR = Author("dev", "User", "COLLABORATOR")  # the pull request's author, a maintainer too
OUTSIDER = Author("passer-by", "User", "CONTRIBUTOR")
BODY = "Please use `pool.acquire` here instead of `connect`."


def receipt(cid: int, pr: int, path: str = "src/db.py", body: str = BODY) -> Receipt:
    return Receipt(cid, pr, "octocat", path, body, "b" * 40, "mona", T0 + timedelta(minutes=cid))


GIVEN = {1: receipt(1, 10), 2: receipt(2, 11), 3: receipt(3, 11, "src/api.py")}
TEXT = "Use `pool.acquire` instead of `connect` in `src/db.py`."


def proposal(quotes: dict[int, str], text: str = TEXT) -> Proposal:
    return Proposal("Pool connections", text, quotes)


def test_a_lesson_from_two_pull_requests_is_active_from_one_a_candidate() -> None:
    both = check(
        proposal({1: "use `pool.acquire`", 2: "instead of `connect`"}),
        GIVEN,
        held=(),
        known_keys=(),
    )
    one = check(proposal({2: "use `pool.acquire`", 3: "Please use"}), GIVEN, held=(), known_keys=())
    assert not isinstance(both, Rejected) and both.state is EntryState.ACTIVE
    assert both.prs == (10, 11) and both.comment_ids == (1, 2)
    assert not isinstance(one, Rejected) and one.state is EntryState.CANDIDATE


def test_a_proposal_is_refused_for_what_the_seat_cannot_show() -> None:
    cases = {
        Rejected.UNKNOWN_COMMENT: proposal({1: "use", 99: "use"}),
        Rejected.UNQUOTED: proposal({1: "use `pool.get`"}),  # forged: not in the comment
        Rejected.ADMISSION: proposal({1: "use"}, text="Pools are nice in `src/db.py`."),
    }
    for why, bad in cases.items():
        assert check(bad, GIVEN, held=(), known_keys=()) is why
    assert check(proposal({}), GIVEN, held=(), known_keys=()) is Rejected.UNQUOTED
    assert check(proposal({1: "  ...  "}), GIVEN, held=(), known_keys=()) is Rejected.UNQUOTED
    # Resting on a comment whose lesson a person deleted; the same comments as a kept lesson.
    assert check(proposal({1: "use"}), GIVEN, held={1}, known_keys=()) is Rejected.DELETED
    key = lesson_key([1])
    assert check(proposal({1: "use"}), GIVEN, held=(), known_keys={key}) is Rejected.DUPLICATE


def test_the_same_comments_twice_in_one_answer_make_one_lesson() -> None:
    kept, why = checked(
        [proposal({1: "use", 2: "use"}), proposal({2: "Please", 1: "Please"})],
        GIVEN,
        held=(),
        known_keys=(),
    )
    assert len(kept) == 1 and why == {"duplicate": 1}


def test_only_mechanisms_with_new_comments_are_put_to_the_seat() -> None:
    found = mechanisms(GIVEN.values(), fresh={3})
    assert [m.key for m in found] == ["src/api.py"]
    both = mechanisms(GIVEN.values(), fresh={1, 3})
    assert [m.key for m in both] == ["src/api.py", "src/db.py"]
    assert [r.comment_id for r in both[1].receipts] == [2, 1]  # old ones too, newest first


def _thread(reply_author: Author, body: str, opener: Author = BOT) -> list:  # type: ignore[type-arg]
    return [
        comment(1, opener, body="Consider renaming this variable."),
        comment(2, reply_author, reply_to=1, body=body),
    ]


def test_a_maintainers_typed_refusal_of_another_bot_seeds_a_candidate() -> None:
    found = refusals(
        PULL,
        _thread(MAINTAINER, "Won't fix: it matches the API."),
        app_slug="hindsight",
        patches=None,
    )
    assert len(found) == 1
    assert (found[0].reason, found[0].evidence, found[0].quote) == (
        "wont-fix",
        "at-once",
        "Won't fix",
    )
    assert found[0].reply.author.login == "octocat"


def test_bots_the_author_outsiders_and_the_apps_own_bot_seed_nothing() -> None:
    refusal = "wontfix"
    for who in (AUTHOR, OUTSIDER, Author("other[bot]", "Bot", "MEMBER")):
        assert refusals(PULL, _thread(who, refusal), app_slug="hindsight", patches=None) == []
    own = _thread(MAINTAINER, refusal, opener=OWN_BOT)
    assert refusals(PULL, own, app_slug="hindsight", patches=None) == []
    human = _thread(MAINTAINER, refusal, opener=OUTSIDER)  # a person's suggestion, not a bot's
    assert refusals(PULL, human, app_slug="hindsight", patches=None) == []
    thanks = _thread(MAINTAINER, "Good catch, thanks!")
    assert refusals(PULL, thanks, app_slug="hindsight", patches=None) == []


def test_an_argued_refusal_needs_the_lines_kept_until_the_merge() -> None:
    argued = _thread(MAINTAINER, "No, this name matches the API; we keep it.")
    assert refusals(PULL, argued, app_slug="hindsight", patches=None) == []  # no evidence
    assert refusals(PULL, argued, app_slug="hindsight", patches=FIXED) == []  # it did change
    kept = refusals(PULL, argued, app_slug="hindsight", patches={})
    assert [r.evidence for r in kept] == ["lines-kept"]
