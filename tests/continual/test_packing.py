"""Budget packing: complete cards only, never over the limit, omitted counted, per-session dedupe."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from continual.packing import OMITTED_LINE, Budget, Measure, approx_tokens, pack, pack_lines
from continual.recall import Card, Scored
from continual.recall.index import RecallIndex


def card(id: str, text: str = "Check `parse_config` in src/app.py.", revision: int = 1) -> Card:
    return Card(
        id=id,
        key=f"lesson/{id}",
        revision=revision,
        repository="acme/api",
        scope="repository",
        lens="correctness",
        title=f"title {id}",
        text=text,
    )


def render(c: Card) -> str:
    return f"- [{c.id}] {c.text}"


CARDS = [card(f"e{n}") for n in range(10)]


def test_cap_stops_and_counts_the_rest_as_omitted() -> None:
    packed = pack(CARDS, cap=3, render=render, header="Lessons:")
    assert [c.id for c in packed.cards] == ["e0", "e1", "e2"]
    assert packed.omitted == 7
    assert packed.text == "\n".join(
        ["Lessons:", *(render(c) for c in CARDS[:3]), OMITTED_LINE.format(n=7)]
    )
    assert packed.text.endswith("7 more omitted")
    assert packed.entries == (("e0", 1), ("e1", 1), ("e2", 1))
    assert packed.chars == len(packed.text)


def test_nothing_omitted_means_no_omitted_line() -> None:
    packed = pack(CARDS[:2], cap=5, render=render, header="Lessons:")
    assert packed.omitted == 0
    assert "omitted" not in packed.text
    assert packed.text == "Lessons:\n" + render(CARDS[0]) + "\n" + render(CARDS[1])


def test_nothing_to_hand_is_an_empty_text() -> None:
    packed = pack([], cap=5, render=render, header="Lessons:")
    assert (packed.text, packed.omitted, packed.cards) == ("", 0, ())
    assert packed.set_sha256 == hashlib.sha256(b"").hexdigest()


def test_hits_are_accepted_like_cards() -> None:
    hits = [Scored(c, 800, "folder src") for c in CARDS[:2]]
    assert pack(hits, cap=5, render=render).text == pack(CARDS[:2], cap=5, render=render).text


def test_char_budget_hands_complete_cards_only() -> None:
    one = len(render(CARDS[0]))
    budget = len("H") + 1 + one + 1 + one + 1 + len(OMITTED_LINE.format(n=8)) + 5
    packed = pack(CARDS, cap=20, budgets=[Budget.chars(budget)], render=render, header="H")
    assert [c.id for c in packed.cards] == ["e0", "e1"]
    assert packed.omitted == 8
    assert len(packed.text) <= budget
    for line in packed.text.splitlines()[1:-1]:
        assert line in {render(c) for c in CARDS}


def test_a_card_that_does_not_fit_is_not_skipped_over() -> None:
    big = card("a-big", text="Check `parse_config` " + "x" * 500 + ".")
    small = card("b-small")
    packed = pack([big, small], cap=5, budgets=[Budget.chars(200)], render=render)
    assert packed.cards == ()
    assert packed.omitted == 2
    assert packed.text == "2 more omitted"


def test_token_budget_counts_utf8_bytes_and_framing() -> None:
    wide = [card(f"w{n}", text="Vérifiez `parse_config` — ünïcödé " * 3) for n in range(6)]
    for max_tokens in range(1, 200, 7):
        packed = pack(
            wide, cap=20, budgets=[Budget.tokens(max_tokens)], render=render, header="Leçons :"
        )
        assert approx_tokens(packed.text) <= max_tokens
        assert len(packed.text.encode()) <= 4 * max_tokens
        assert packed.omitted == len(wide) - len(packed.cards)


def test_header_and_omitted_line_are_dropped_before_the_budget_is_broken() -> None:
    packed = pack(
        CARDS, cap=5, budgets=[Budget.chars(16)], render=render, header="A very long header text"
    )
    assert packed.text == "10 more omitted"
    packed = pack(
        CARDS, cap=5, budgets=[Budget.chars(3)], render=render, header="A very long header text"
    )
    assert packed.text == ""
    assert packed.omitted == 10


def test_dedupe_per_session_and_rehand_a_new_revision() -> None:
    first = pack(CARDS[:3], cap=10, render=render)
    seen = set(first.entries)
    again = pack(CARDS[:3], cap=10, render=render, seen=seen)
    assert again.cards == ()
    assert again.omitted == 0  # already handed is not omitted
    assert again.text == ""
    revised = [card("e1", text="Check `parse_config` twice in src/app.py.", revision=2)]
    third = pack([*CARDS[:3], *revised], cap=10, render=render, seen=seen)
    assert third.entries == (("e1", 2),)


def test_duplicates_in_the_input_count_once() -> None:
    packed = pack([CARDS[0], CARDS[0], CARDS[1]], cap=1, render=render)
    assert packed.entries == (("e0", 1),)
    assert packed.omitted == 1


def test_set_sha256_is_the_hash_of_the_exact_text() -> None:
    packed = pack(CARDS, cap=4, budgets=[Budget.tokens(60)], render=render, header="Lessons:")
    assert packed.set_sha256 == hashlib.sha256(packed.text.encode("utf-8")).hexdigest()
    other = pack(CARDS, cap=3, budgets=[Budget.tokens(60)], render=render, header="Lessons:")
    assert other.set_sha256 != packed.set_sha256


def test_a_ranking_head_counts_the_rest_of_the_ranking_as_omitted() -> None:
    index = RecallIndex.build([c.replaced(folders=("src",)) for c in CARDS])
    head = index.search(paths=["src/app.py"], limit=3)
    assert head.total == 10
    packed = pack(head.hits, cap=2, render=render, total=head.total)
    assert [c.id for c in packed.cards] == ["e0", "e1"]
    assert packed.omitted == 8
    assert packed.text.endswith("8 more omitted")
    # the session already had e0: the search leaves it out and counts it nowhere
    later = index.search(paths=["src/app.py"], limit=3, seen={("e0", 1)})
    assert later.total == 9
    packed = pack(later.hits, cap=2, render=render, total=later.total, seen={("e0", 1)})
    assert [c.id for c in packed.cards] == ["e1", "e2"]
    assert packed.omitted == 7


def test_a_budget_says_its_unit() -> None:
    assert Budget.chars(10) == Budget(10, Measure.CHARS)
    assert Budget.tokens(10) == Budget(40, Measure.UTF8_BYTES)
    assert (Budget.chars(10).size("é—"), Budget.tokens(10).size("é—")) == (2, 5)
    assert Budget.tokens(10).after("ab", "\n\n") == Budget(36, Measure.UTF8_BYTES)
    assert Budget.chars(10).after("", "\n\n") == Budget.chars(10)
    assert Budget.chars(3).after("abcdef").limit == 0


def test_lines_pack_the_same_way_in_either_unit() -> None:
    lines = [f"- line {n} é" for n in range(5)]
    assert pack_lines(lines, header="H:").text == "\n".join(["H:", *lines])
    in_chars = pack_lines(lines, budgets=[Budget.chars(40)], header="H:")
    assert in_chars.text == "\n".join(["H:", *lines[:2], "3 more omitted"])
    assert (in_chars.included, in_chars.omitted) == (2, 3)
    in_bytes = pack_lines(lines, budgets=[Budget(40, Measure.UTF8_BYTES)], header="H:")
    assert in_bytes.text == "\n".join(["H:", *lines[:1], "4 more omitted"])
    head = pack_lines(lines[:2], header="H:", total=9)
    assert (head.included, head.omitted) == (2, 7) and head.text.endswith("\n7 more omitted")
    assert pack_lines([], header="H:") == pack_lines([], budgets=[Budget.chars(0)])


def test_negative_cap_is_refused() -> None:
    with pytest.raises(ValueError, match="cap"):
        pack(CARDS, cap=-1, render=render)


texts = st.text(alphabet=st.characters(codec="utf-8"), min_size=0, max_size=120).map(
    lambda t: t or "x"
)


@settings(max_examples=400, deadline=None)
@given(
    bodies=st.lists(texts, max_size=30),
    cap=st.integers(min_value=0, max_value=25),
    max_chars=st.one_of(st.none(), st.integers(min_value=0, max_value=2000)),
    max_tokens=st.one_of(st.none(), st.integers(min_value=0, max_value=500)),
    header=st.sampled_from(["", "Lessons:", "Leçons apprises — à lire :"]),
    seen_count=st.integers(min_value=0, max_value=5),
)
def test_packing_never_exceeds_the_budget(
    bodies: list[str],
    cap: int,
    max_chars: int | None,
    max_tokens: int | None,
    header: str,
    seen_count: int,
) -> None:
    cards = [card(f"e{n:02d}", text=body) for n, body in enumerate(bodies)]
    seen = {(c.id, c.revision) for c in cards[:seen_count]}
    packed = pack(
        cards,
        cap=cap,
        budgets=[
            *([] if max_chars is None else [Budget.chars(max_chars)]),
            *([] if max_tokens is None else [Budget.tokens(max_tokens)]),
        ],
        render=render,
        header=header,
        seen=seen,
    )
    eligible = [c for c in cards if (c.id, c.revision) not in seen]
    if max_chars is not None:
        assert len(packed.text) <= max_chars
    if max_tokens is not None:
        assert len(packed.text.encode("utf-8")) <= 4 * max_tokens
    assert len(packed.cards) <= cap
    assert list(packed.cards) == eligible[: len(packed.cards)]
    assert packed.omitted == len(eligible) - len(packed.cards)
    for handed in packed.cards:
        assert render(handed) in packed.text
    if packed.omitted and packed.text:
        assert packed.text.endswith(OMITTED_LINE.format(n=packed.omitted))
    assert packed.chars == len(packed.text)
    assert packed.set_sha256 == hashlib.sha256(packed.text.encode("utf-8")).hexdigest()
    if len(packed.cards) < min(cap, len(eligible)):
        # greedy and maximal: one more complete card would have broken a budget
        more = eligible[: len(packed.cards) + 1]
        rest = len(eligible) - len(more)
        parts = [header] if header else []
        parts += [render(c) for c in more]
        parts += [OMITTED_LINE.format(n=rest)] if rest else []
        bigger = "\n".join(parts)
        assert (max_chars is not None and len(bigger) > max_chars) or (
            max_tokens is not None and len(bigger.encode("utf-8")) > 4 * max_tokens
        )
