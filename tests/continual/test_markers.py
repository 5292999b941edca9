"""The hidden markers (suggestion, fix PR, review, status): rendered exactly, parsed strictly, the
last exact one counting."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from continual.entry_keys import entry_key
from continual.markers import (
    FIX_MARKER,
    REVIEW_MARKER,
    STATUS_MARKER,
    SUGGESTION_MARKER,
    SuggestionMarker,
    neutralise,
    parse_fix_marker,
    parse_review_marker,
    parse_suggestion_marker,
    render_fix_marker,
    render_review_marker,
    render_suggestion_marker,
    split_status,
    with_suggestion_marker,
)

KEY = entry_key("correctness", "Unchecked parse_config result")


def test_templates() -> None:
    assert SUGGESTION_MARKER == "<!-- hindsight:suggestion id={sid} entry={entry} -->"
    assert FIX_MARKER == "<!-- hindsight:fix suggestion={sid} -->"
    assert REVIEW_MARKER == "<!-- hindsight:review id={review} -->"
    assert STATUS_MARKER == "<!-- hindsight:status -->"


def test_render_and_parse_a_suggestion_marker() -> None:
    marker = render_suggestion_marker("sug_01-AB", KEY)
    assert marker == f"<!-- hindsight:suggestion id=sug_01-AB entry={KEY} -->"
    assert parse_suggestion_marker(marker) == SuggestionMarker("sug_01-AB", KEY)


def test_a_comment_body_ends_with_its_marker() -> None:
    body = with_suggestion_marker("Check the result.\n\n```suggestion\nx = 1\n```\n", "s1", KEY)
    assert body.endswith(f"<!-- hindsight:suggestion id=s1 entry={KEY} -->")
    assert parse_suggestion_marker(body) == SuggestionMarker("s1", KEY)


def test_the_last_marker_counts() -> None:
    first = render_suggestion_marker("a", KEY)
    second = render_suggestion_marker("b", KEY)
    parsed = parse_suggestion_marker(f"{first}\ntext\n{second}")
    assert parsed is not None and parsed.suggestion_id == "b"
    # only exact markers count: a malformed one after a good one does not spoil it
    parsed = parse_suggestion_marker(f"{first}\n<!-- hindsight:suggestion id=b -->")
    assert parsed is not None and parsed.suggestion_id == "a"


def test_an_unclosed_marker_before_the_real_one_does_not_unlink_it() -> None:
    quoted = "The seat wrote <!-- hindsight:suggestion and never closed it."
    for body in (quoted, neutralise(quoted)):
        parsed = parse_suggestion_marker(with_suggestion_marker(body, "real", KEY))
        assert parsed == SuggestionMarker("real", KEY)


@given(st.text(alphabet="<!->-\u200b hindsight:suggestion=x", max_size=80))
def test_neutralised_text_opens_and_closes_no_comment(text: str) -> None:
    safe = neutralise(text)
    assert "<!--" not in safe and "-->" not in safe and "--!>" not in safe
    assert safe.replace("\u200b", "") == text.replace("\u200b", "")
    assert parse_suggestion_marker(with_suggestion_marker(safe, "s1", KEY)) == SuggestionMarker(
        "s1", KEY
    )


@pytest.mark.parametrize(
    "body",
    [
        None,
        "",
        "no marker here",
        f"<!--hindsight:suggestion id=s1 entry={KEY} -->",
        f"<!-- hindsight:suggestion id=s1 entry={KEY}-->",
        f"<!-- hindsight:suggestion  id=s1 entry={KEY} -->",
        f"<!-- hindsight:suggestion entry={KEY} id=s1 -->",
        f"<!-- hindsight:suggestion id=s 1 entry={KEY} -->",
        f"<!-- hindsight:suggestion id=s1; entry={KEY} -->",
        "<!-- hindsight:suggestion id=s1 entry=lesson/x -->",
        "<!-- hindsight:suggestion id=s1 entry=lesson/correctness-abc-XYZ0123456 -->",
        "<!-- hindsight:suggestion id=s1 entry=other/correctness-0123456789 -->",
        f"<!-- hindsight:suggestion id= entry={KEY} -->",
        f"<!-- HINDSIGHT:SUGGESTION id=s1 entry={KEY} -->",
        f"<!-- hindsight:suggestion id=s1 entry={KEY} extra=1 -->",
    ],
)
def test_anything_but_the_exact_form_is_none(body: str | None) -> None:
    assert parse_suggestion_marker(body) is None


def test_render_and_parse_a_fix_marker() -> None:
    marker = render_fix_marker("s1")
    assert marker == "<!-- hindsight:fix suggestion=s1 -->"
    assert parse_fix_marker(f"Fixes the unchecked result.\n\n{marker}\n") == "s1"
    assert parse_fix_marker(f"{render_fix_marker('a')} {render_fix_marker('b')}") == "b"


@pytest.mark.parametrize(
    "body",
    [
        None,
        "",
        "<!-- hindsight:fix suggestion= -->",
        "<!-- hindsight:fix suggestion=s1-->",
        "<!-- hindsight:fix suggestion=s/1 -->",
        "<!-- hindsight:fix id=s1 -->",
        "<!-- hindsight:fix suggestion=s1 entry=x -->",
    ],
)
def test_a_malformed_fix_marker_is_none(body: str | None) -> None:
    assert parse_fix_marker(body) is None


@pytest.mark.parametrize("sid", ["", "a b", "a/b", "<x>", "a" * 129, "é"])
def test_rendering_rejects_ids_outside_the_alphabet(sid: str) -> None:
    with pytest.raises(ValueError, match="suggestion id"):
        render_fix_marker(sid)
    with pytest.raises(ValueError, match="suggestion id"):
        render_suggestion_marker(sid, KEY)


def test_rendering_rejects_a_malformed_entry_key() -> None:
    with pytest.raises(ValueError, match="entry key"):
        render_suggestion_marker("s1", "lesson/Not A Key")


@given(
    st.text(
        alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", min_size=1
    ),
    st.text(max_size=30),
    st.text(max_size=200),
)
def test_round_trip(sid: str, title: str, body: str) -> None:
    sid = sid[:128]
    key = entry_key("security", title)
    assert parse_suggestion_marker(with_suggestion_marker(body, sid, key)) == SuggestionMarker(
        sid, key
    )
    assert parse_fix_marker(f"{body}\n{render_fix_marker(sid)}") == sid


@given(st.text(max_size=300))
def test_parsing_never_raises(body: str) -> None:
    parse_suggestion_marker(body)
    parse_fix_marker(body)


def test_render_and_parse_a_review_marker() -> None:
    marker = render_review_marker("r_0123abcd")
    assert marker == "<!-- hindsight:review id=r_0123abcd -->"
    assert parse_review_marker(f"Hindsight reviewed 2 files.\n\n{marker}") == "r_0123abcd"
    assert parse_review_marker(render_review_marker("a" * 64)) == "a" * 64


def test_a_quoted_review_marker_before_the_apps_own_does_not_win() -> None:
    quoted = "See <!-- hindsight:review id=forged --> for the earlier run."
    body = f"{quoted}\n- {neutralise(quoted)}\n\n{render_review_marker('r_real')}"
    assert parse_review_marker(body) == "r_real"
    assert parse_review_marker(neutralise(quoted)) is None, "a neutralised copy is no marker"


@pytest.mark.parametrize(
    "body",
    [
        None,
        "",
        "<!-- hindsight:review id= -->",
        "<!-- hindsight:review id=r_1-->",
        "<!--hindsight:review id=r_1 -->",
        "<!-- hindsight:review id=r.1 -->",
        "<!-- hindsight:review  id=r_1 -->",
        "<!-- hindsight:review id=r_1 extra=1 -->",
        f"<!-- hindsight:review id={'a' * 65} -->",
        "<!-- HINDSIGHT:REVIEW id=r_1 -->",
    ],
)
def test_a_malformed_review_marker_is_none(body: str | None) -> None:
    assert parse_review_marker(body) is None


@pytest.mark.parametrize("review_id", ["", "r 1", "r/1", "<x>", "a" * 65, "é"])
def test_rendering_rejects_review_ids_outside_the_alphabet(review_id: str) -> None:
    with pytest.raises(ValueError, match="review id"):
        render_review_marker(review_id)


def test_split_status_round_trip() -> None:
    text = with_suggestion_marker("**Unchecked value**", "s1", KEY)
    block = "\n**Hindsight recorded:** accepted — by @octocat, from a reply (`grammar.accept`)."
    assert split_status(f"{text}\n\n{STATUS_MARKER}{block}") == (f"{text}\n\n", block)
    assert split_status(text) == (text, None)
    assert split_status(STATUS_MARKER) == ("", "")


def test_the_last_status_marker_is_the_cut_a_copy_before_it_stays_text() -> None:
    """A status marker planted or quoted inside the comment (someone with write access edited it)
    is not where the app's block starts: cutting there would drop the suggestion marker after it."""
    planted = f"Note {STATUS_MARKER} accepted.\n\n{render_suggestion_marker('s1', KEY)}"
    head, block = split_status(f"{planted}\n\n{STATUS_MARKER}\nthe app's block")
    assert head == f"{planted}\n\n" and block == "\nthe app's block"
    assert parse_suggestion_marker(head) == SuggestionMarker("s1", KEY)


@given(st.text(max_size=200), st.text(alphabet="abc \n<!->", max_size=40))
def test_split_status_keeps_every_character(text: str, block: str) -> None:
    body = f"{text}{STATUS_MARKER}{block}"
    head, found = split_status(body)
    assert found is not None and f"{head}{STATUS_MARKER}{found}" == body
    assert STATUS_MARKER not in found


@given(
    st.text(
        alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-",
        min_size=1,
        max_size=64,
    ),
    st.text(max_size=200),
)
def test_review_marker_round_trip(review_id: str, body: str) -> None:
    assert (
        parse_review_marker(f"{neutralise(body)}\n\n{render_review_marker(review_id)}") == review_id
    )
    parse_review_marker(body)
