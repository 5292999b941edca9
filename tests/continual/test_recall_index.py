"""Recall scoring and ranking, the associations that feed it, and index/scan agreement."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from continual.associations import associate, split_terms
from continual.recall.building import IndexBuilder
from continual.recall.cards import Card
from continual.recall.index import RecallIndex
from continual.recall.scan import scan

REPO = "acme/api"
OTHER = "acme/web"


def card(
    id: str,
    *,
    key: str | None = None,
    repository: str = REPO,
    scope: str = "repository",
    files: tuple[str, ...] = (),
    folders: tuple[str, ...] = (),
    identifiers: tuple[str, ...] = (),
    groups: tuple[tuple[str, ...], ...] = (),
    revision: int = 1,
) -> Card:
    return Card(
        id=id,
        key=key or f"lesson/{id}",
        revision=revision,
        repository=repository,
        scope=scope,
        lens="correctness",
        title=f"title {id}",
        text=f"Check {id}.",
        files=files,
        identifiers=identifiers,
        keyword_groups=groups,
        folders=folders,
    )


CARDS = (
    card("e-file", files=("src/a/x.py",)),
    card("e-folder", folders=("src/a",)),
    card("e-deep-folder", folders=("src/a/b",)),
    card("e-ident", identifiers=("parse_config",)),
    card("e-group", groups=(("webhook", "signature"),)),
    card("e-group3", groups=(("retry", "backoff", "jitter"),)),
)
INDEX = RecallIndex.build(CARDS)


def ranking(**query: object) -> list[tuple[str, int]]:
    return [(h.card.id, h.score) for h in INDEX.query(**query)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # exact file beats its folder; the folder entry matches too
        ({"paths": ["src/a/x.py"]}, [("e-file", 1000), ("e-folder", 800)]),
        # root-relative normal form
        ({"paths": ["./src/a/x.py"]}, [("e-file", 1000), ("e-folder", 800)]),
        # component-aware: src/a contains src/a/y.py, not src/ab.py
        # (e-file is associated with its own folder, src/a)
        ({"paths": ["src/a/y.py"]}, [("e-file", 800), ("e-folder", 800)]),
        ({"paths": ["src/ab.py"]}, []),
        ({"paths": ["src/abc/z.py"]}, []),
        ({"paths": ["src/b/a/x.py"]}, []),
        # a deep path matches every containing folder
        (
            {"paths": ["src/a/b/c.py"]},
            [("e-deep-folder", 800), ("e-file", 800), ("e-folder", 800)],
        ),
        # the folder itself
        ({"paths": ["src/a"]}, [("e-file", 800), ("e-folder", 800)]),
        # identifiers: exact whole names only
        ({"identifiers": ["parse_config"]}, [("e-ident", 700)]),
        ({"identifiers": ["parse"]}, []),
        ({"identifiers": ["parse_config_v2"]}, []),
        # a keyword group needs all of its terms
        ({"words": ["webhook", "signature"]}, [("e-group", 500)]),
        ({"words": ["webhook"]}, []),
        ({"identifiers": ["verifyWebhookSignature"]}, [("e-group", 500)]),
        ({"paths": ["lib/webhook_signature.py"]}, [("e-group", 500)]),
        ({"words": ["retry", "backoff"]}, []),
        ({"words": ["retry with backoff and jitter"]}, [("e-group3", 500)]),
        # broad single words retrieve nothing
        ({"words": ["error"]}, []),
        ({"words": ["code"]}, []),
        ({"words": ["check"]}, []),
        ({}, []),
    ],
)
def test_scoring_table(query: dict[str, object], expected: list[tuple[str, int]]) -> None:
    assert ranking(**query) == expected


def test_strongest_match_only_and_repeats_do_not_add() -> None:
    everything = card(
        "e-all",
        files=("src/a/x.py",),
        identifiers=("parse_config",),
        groups=(("parse", "config"),),
    )
    index = RecallIndex.build([everything])
    hits = index.query(
        paths=["src/a/x.py", "src/a/x.py"],
        identifiers=["parse_config", "parse_config"],
        words=["parse config parse config"],
    )
    assert [(h.card.id, h.score, h.why) for h in hits] == [("e-all", 1000, "file src/a/x.py")]


def test_ties_are_broken_by_id_as_a_string() -> None:
    cards = [card(i, folders=("src",)) for i in ("b", "a10", "a9", "C", "a")]
    hits = RecallIndex.build(cards).query(paths=["src/m.py"])
    assert [h.card.id for h in hits] == ["C", "a", "a10", "a9", "b"]
    assert {h.score for h in hits} == {800}


def test_why_names_the_match() -> None:
    hits = INDEX.query(paths=["src/a/b/c.py"], words=["webhook signature"])
    assert [h.why for h in hits] == [
        "folder src/a/b",
        "folder src/a",
        "folder src/a",
        "keywords signature+webhook",
    ]


def test_repository_own_entry_beats_the_account_scoped_one() -> None:
    shared = "lesson/correctness-unchecked-parse-123"
    own = card("z-own", key=shared, identifiers=("parse_config",))
    widened = card(
        "a-account",
        key=shared,
        repository=OTHER,
        scope="account",
        files=("src/a/x.py",),
        identifiers=("parse_config",),
    )
    index = RecallIndex.build([widened, own])
    # the account entry would rank first (file 1000 and a smaller id), yet the own one is handed
    hits = index.query(paths=["src/a/x.py"], identifiers=["parse_config"], repository=REPO)
    assert [(h.card.id, h.score) for h in hits] == [("z-own", 700)]
    # another repository of the account sees the widened entry
    hits = index.query(paths=["src/a/x.py"], identifiers=["parse_config"], repository=OTHER)
    assert [(h.card.id, h.score) for h in hits] == [("a-account", 1000)]
    # a third repository sees the account-scoped entry and never the other's own
    hits = index.query(identifiers=["parse_config"], repository="acme/cli")
    assert [h.card.id for h in hits] == ["a-account"]


def test_another_repositorys_own_entries_are_invisible() -> None:
    foreign = card("f", repository=OTHER, identifiers=("parse_config",))
    index = RecallIndex.build([foreign])
    assert index.query(identifiers=["parse_config"], repository=REPO) == []
    assert [h.card.id for h in index.query(identifiers=["parse_config"])] == ["f"]


def test_one_key_yields_one_card_among_account_entries() -> None:
    key = "lesson/k"
    first = card("b", key=key, repository="acme/one", scope="account", folders=("src",))
    second = card("a", key=key, repository="acme/two", scope="account", folders=("src",))
    hits = RecallIndex.build([first, second]).query(paths=["src/x.py"], repository=REPO)
    assert [h.card.id for h in hits] == ["a"]


def test_limit_keeps_the_head_of_the_ranking() -> None:
    full = INDEX.query(paths=["src/a/b/c.py", "src/a/x.py"], identifiers=["parse_config"])
    assert [h.card.id for h in INDEX.query(paths=["src/a/b/c.py", "src/a/x.py"], limit=2)] == [
        h.card.id for h in full[:2]
    ]


def test_the_index_changes_only_through_apply() -> None:
    cards = [card("x", identifiers=("parse_config",))]
    index = RecallIndex.build(cards)
    cards.append(card("y", identifiers=("parse_config",)))
    assert [h.card.id for h in index.query(identifiers=["parse_config"])] == ["x"]
    index.apply(upserts=[cards[1]])
    assert [h.card.id for h in index.query(identifiers=["parse_config"])] == ["x", "y"]
    index.apply(removals=["x", "absent"])
    assert [h.card.id for h in index.query(identifiers=["parse_config"])] == ["y"]
    assert len(index) == 1


# -- associations -------------------------------------------------------------------------------


def test_split_terms() -> None:
    assert split_terms("parse_config") == ["parse", "config"]
    assert split_terms("verifyWebhookSignature") == ["verify", "webhook", "signature"]
    assert split_terms("HTTPServerError") == ["http", "server", "error"]
    assert split_terms("CLAUDE_CODE_USE_BEDROCK") == ["claude", "code", "use", "bedrock"]
    assert split_terms("src/app/config_loader.py") == ["src", "app", "config", "loader", "py"]


def test_associate_from_a_suggestion() -> None:
    found = associate(
        path="./src/app/config_loader.py",
        title="Unchecked parse_config result",
        lesson="Check the result of `parse_config` in src/app.py; call loader.readAll() first.",
        body="The `LoaderError` escapes.",
        identifiers=["load_settings"],
    )
    assert found.files == ("src/app/config_loader.py", "src/app.py")
    assert found.folders == ("src/app", "src")
    assert found.identifiers == (
        "load_settings",
        "parse_config",
        "loader.readAll",
        "readAll",
        "LoaderError",
    )
    assert ("config", "parse") in found.keyword_groups
    assert ("load", "settings") in found.keyword_groups
    for group in found.keyword_groups:
        assert 2 <= len(group) <= 4


def test_broad_words_never_form_a_group() -> None:
    found = associate(
        path="main.py",
        title="Check the error code",
        lesson="Use the function value; check the error code in `main.py`.",
        identifiers=["get_value", "check_error"],
    )
    assert found.keyword_groups == ()
    assert found.folders == ()
    assert "main.py" not in found.identifiers


def test_associations_retrieve_their_card() -> None:
    found = associate(
        path="src/hooks/verify.py",
        title="Constant-time webhook signature comparison",
        lesson="Compare the webhook signature with `hmac.compare_digest` in src/hooks/verify.py.",
    )
    entry = Card(
        id="e1",
        key="lesson/e1",
        revision=1,
        repository=REPO,
        scope="repository",
        lens="security",
        title="t",
        text="x",
        files=found.files,
        identifiers=found.identifiers,
        keyword_groups=found.keyword_groups,
        folders=found.folders,
    )
    index = RecallIndex.build([entry])
    assert [h.score for h in index.query(paths=["src/hooks/verify.py"])] == [1000]
    assert [h.score for h in index.query(paths=["src/hooks/other.py"])] == [800]
    assert [h.score for h in index.query(identifiers=["compare_digest"])] == [700]
    assert [h.score for h in index.query(words=["webhook", "signature"])] == [500]
    assert index.query(words=["signature"]) == []


# -- the index agrees with a plain scan -----------------------------------------------------------

TERMS = ("alpha", "beta", "gamma", "delta", "omega", "sigma")
FOLDERS = ("src", "src/a", "src/a/b", "src/ab", "lib")
FILES = tuple(f"{d}/{n}.py" for d in FOLDERS for n in ("x", "alpha_beta", "gamma"))
NAMES = ("parse_config", "alphaBeta", "load", "GAMMA_DELTA")


@st.composite
def cards_strategy(draw: st.DrawFn) -> list[Card]:
    count = draw(st.integers(min_value=0, max_value=25))
    result = []
    for n in range(count):
        result.append(
            Card(
                id=draw(st.sampled_from(["e", "E", "e1", "e10", "e2", "f"])) + str(n),
                key=draw(st.sampled_from(["k1", "k2", "k3"])) if n % 2 else f"k-{n}",
                revision=1,
                repository=draw(st.sampled_from([REPO, OTHER])),
                scope=draw(st.sampled_from(["repository", "account"])),
                lens="correctness",
                title="t",
                text="x",
                files=tuple(draw(st.lists(st.sampled_from(FILES), max_size=2))),
                identifiers=tuple(draw(st.lists(st.sampled_from(NAMES), max_size=2))),
                keyword_groups=tuple(
                    tuple(g)
                    for g in draw(
                        st.lists(
                            st.lists(st.sampled_from(TERMS), min_size=2, max_size=4, unique=True),
                            max_size=2,
                        )
                    )
                ),
                folders=tuple(draw(st.lists(st.sampled_from(FOLDERS), max_size=1))),
            )
        )
    return result


@settings(max_examples=250, deadline=None)
@given(
    cards=cards_strategy(),
    paths=st.lists(st.sampled_from((*FILES, "src/a/b/c/d.py", "lib/zeta.py")), max_size=3),
    identifiers=st.lists(st.sampled_from((*NAMES, "alpha_omega")), max_size=2),
    words=st.lists(st.sampled_from((*TERMS, "error")), max_size=4),
    repository=st.sampled_from([None, REPO, OTHER]),
    limit=st.integers(min_value=0, max_value=6),
)
def test_index_ranking_equals_a_plain_scan(
    cards: list[Card],
    paths: list[str],
    identifiers: list[str],
    words: list[str],
    repository: str | None,
    limit: int,
) -> None:
    query = {"paths": paths, "identifiers": identifiers, "words": words, "repository": repository}
    index = RecallIndex.build(cards)
    expected = scan(cards, **query)  # type: ignore[arg-type]
    indexed = index.query(**query)  # type: ignore[arg-type]
    assert [(h.card.id, h.score) for h in indexed] == expected
    assert len({h.card.key for h in indexed}) == len(indexed)
    head = index.search(**query, limit=limit)  # type: ignore[arg-type]
    assert [(h.card.id, h.score) for h in head.hits] == expected[:limit]
    assert head.total == len(expected)
    seen = {(h.card.id, h.card.revision) for h in indexed[:2]}
    later = index.search(**query, seen=seen)  # type: ignore[arg-type]
    assert [h.card.id for h in later.hits] == [i for i, _ in expected[2:]]
    assert later.total == max(0, len(expected) - 2)


def test_scan_detects_a_wrong_score() -> None:
    # guards the agreement test: the reference is not trivially equal to the index
    base = card("x", files=("src/a/x.py",))
    assert scan([base], paths=["src/a/x.py"]) == [("x", 1000)]
    assert scan([base.replaced(files=("src/a/y.py",))], paths=["src/a/x.py"]) == [("x", 800)]


@settings(max_examples=150, deadline=None)
@given(
    first=cards_strategy(),
    second=cards_strategy(),
    dropped=st.sets(st.integers(min_value=0, max_value=12)),
    repository=st.sampled_from([None, REPO, OTHER, "acme/new"]),
)
def test_deltas_answer_as_a_fresh_build(
    first: list[Card], second: list[Card], dropped: set[int], repository: str | None
) -> None:
    # the second draw reuses ids of the first: those are replaced, the rest are added
    index = RecallIndex.build(first)
    query = {
        "paths": ["src/a/b/c.py", "lib/zeta.py", *FILES[:2]],
        "identifiers": list(NAMES[:2]),
        "words": list(TERMS[:3]),
        "repository": repository,
    }
    index.search(**query)  # type: ignore[arg-type]  # visibility masks exist before the delta
    removed = [c.id for n, c in enumerate(first) if n in dropped]
    index.apply(upserts=second, removals=removed)
    final: dict[str, Card] = {}
    for c in first:  # a build keeps the first card of an id, a delta the last
        final.setdefault(c.id, c)
    for c in removed:
        final.pop(c, None)
    final.update({c.id: c for c in second})
    expected = scan(list(final.values()), **query)  # type: ignore[arg-type]
    found = index.search(**query)  # type: ignore[arg-type]
    assert [(h.card.id, h.score) for h in found.hits] == expected
    assert found.total == len(expected) and len(index) == len(final)


def test_a_stored_card_is_the_card_its_links_describe() -> None:
    """A card read from the store keeps its links as JSON until asked; it indexes, compares
    and answers as the card built from the same values."""
    links = (
        '{"files": ["src/a/x.py"], "identifiers": ["load"], "keyword_groups": [["beta", "alpha"]]}'
    )
    stored = Card.stored(
        "x", "lesson/x", 1, REPO, "repository", "correctness", "title x", "Check x.", links
    )
    built = card("x", files=("src/a/x.py",), identifiers=("load",), groups=(("beta", "alpha"),))
    built = built.replaced(lens="correctness")
    assert stored == built and hash(stored) == hash(built)
    assert stored.replaced(revision=2) != built
    index = RecallIndex.build([stored])
    assert [(h.card.id, h.score) for h in index.query(paths=["src/a/x.py"])] == [("x", 1000)]
    assert [h.why for h in index.query(words=["alpha", "beta"])] == ["keywords alpha+beta"]
    assert stored.keyword_groups == (("beta", "alpha"),) and stored.folders == ()
    empty = Card.stored("y", "lesson/y", 1, REPO, "repository", "correctness", "t", "x", None)
    assert empty.files == () and RecallIndex.build([empty]).query(paths=["src/a/x.py"]) == []


def test_a_builder_takes_each_card_once_in_any_order_and_answers_as_a_build() -> None:
    cards = [card("c", files=("src/a/x.py",)), card("a", files=("src/a/x.py",)), card("b")]
    builder = IndexBuilder()
    for each in cards:
        builder.add(each)
    with pytest.raises(ValueError, match="already in the index"):
        builder.add(card("a"))
    built, whole = builder.finish(), RecallIndex.build(reversed(cards))
    for query in ({"paths": ["src/a/x.py"]}, {"paths": ["src/a/y.py"]}):
        assert built.query(**query) == whole.query(**query)  # type: ignore[arg-type]
    assert [h.card.id for h in built.query(paths=["src/a/x.py"])] == ["a", "c"], "ties by id"
    assert built.links("a") == whole.links("a") and built.links("z") is None
