"""The review's own memory: recorded per call, handed to later calls, kept, recalled, hit."""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import insert, select

from continual.memory import (
    RECALLED_HEADER,
    ItemKind,
    MemoryItem,
    Reporter,
    Source,
    save_items,
    write_session_file,
)
from continual.tables import Account, MemoryItemRow, Repository
from continual.values import EntryState
from ghapp.db import make_engine, migrate
from review.contract import (
    CallResult,
    Fact,
    Finding,
    Hypothesis,
    HypothesisStatus,
    ToolReceipt,
    ToolStatus,
)
from review.memory import SESSION_HEADER, SessionMemory, cross_session_block, hits
from review.subjects import program_of

HEAD = "abc1234def5678900000000000000000000000ff"
NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
FACT_LINE = re.compile(
    r"^- Unverified claim(, not a maintainer's decision)?: (Tool path|Hypothesis|Finding|Fact)\b"
    r".* \(reported by seat \S+; session \S+, commit [0-9a-f]{7}\)$"
)


def receipt(rid: str, command: str, status: ToolStatus, corrects: str | None = None) -> ToolReceipt:
    return ToolReceipt(id=rid, command=command, status=status, corrects=corrects)


TOOL_PATH_RESULT = CallResult(
    tool_receipts=(
        receipt("t1", "pytest", ToolStatus.FAILED),
        receipt("t2", "PYTHONPATH=src pytest", ToolStatus.PASSED, corrects="t1"),
    )
)


def finding(path: str, title: str, line: int = 3) -> Finding:
    return Finding(path=path, line=line, title=title, body=f"{title} in {path}.")


def test_tool_path_from_shard_one_reaches_later_calls_of_shard_two_and_other_seats() -> None:
    memory = SessionMemory("r1", HEAD)
    before = memory.block_for(["src/b.py"], seat="beta", lens="security")
    assert before.text == "" and before.included == 0

    learned = memory.record("c1", "alpha", "correctness", ["src/a.py"], TOOL_PATH_RESULT)
    assert [item.kind for item in learned] == [ItemKind.TOOL_PATH]

    expected = (
        "- Unverified claim: Tool path: `PYTHONPATH=src pytest` passed where `pytest` failed. "
        "(reported by seat alpha; session r1, commit abc1234)"
    )
    same_seat_other_shard = memory.block_for(["src/b.py"], seat="alpha", lens="correctness")
    other_seat = memory.block_for(["src/b.py"], seat="beta", lens="security")
    for block in (same_seat_other_shard, other_seat):
        assert block.text.splitlines() == [SESSION_HEADER, expected]
        assert (block.included, block.omitted) == (1, 0)


def test_related_failures_by_correction_or_same_program_only() -> None:
    memory = SessionMemory("r1", HEAD)
    memory.record(
        "c1",
        "alpha",
        "tests",
        ["a.py"],
        CallResult(
            tool_receipts=(
                receipt("t1", "make lint", ToolStatus.FAILED),
                receipt("t2", "pytest -q", ToolStatus.PASSED),
                receipt("t3", "ruff check .", ToolStatus.PASSED),
            )
        ),
    )
    assert memory.items() == ()
    memory.record(
        "c2",
        "beta",
        "tests",
        ["b.py"],
        CallResult(tool_receipts=(receipt("t1", "tox -e py311", ToolStatus.TIMEOUT),)),
    )
    memory.record(
        "c3",
        "alpha",
        "tests",
        ["c.py"],
        CallResult(tool_receipts=(receipt("t1", "tox -e py311 -- -x", ToolStatus.PASSED),)),
    )
    memory.record(
        "c4",
        "alpha",
        "tests",
        ["c.py"],
        CallResult(
            tool_receipts=(
                receipt("t1", "python -m pytest", ToolStatus.ERROR),
                receipt("t2", "PYTHONPATH=. python -m pytest", ToolStatus.PASSED, corrects="t1"),
            )
        ),
    )
    texts = [item.text for item in memory.items()]
    assert texts == [
        "Tool path: `tox -e py311 -- -x` passed where `tox -e py311` timed out.",
        "Tool path: `PYTHONPATH=. python -m pytest` passed where `python -m pytest` errored.",
    ]
    assert program_of("PYTHONPATH=src FOO=1 /usr/bin/python3 -m pytest -q") == "pytest"
    assert program_of("env A=1 make test") == "make"


def test_hypotheses_findings_and_facts_are_recorded_as_cited_facts() -> None:
    memory = SessionMemory("r1", HEAD)
    memory.record(
        "c1",
        "alpha",
        "correctness",
        ["src/app.py"],
        CallResult(
            findings=(finding("src/app.py", "Unchecked parse_config result"),),
            hypotheses=(
                Hypothesis(
                    "h1", "src is not on sys.path", HypothesisStatus.CONFIRMED, ("t1", "t2")
                ),
                Hypothesis("h2", "the cache is stale", HypothesisStatus.REFUTED, ("t3",)),
                Hypothesis("h3", "maybe a race", HypothesisStatus.OPEN, ()),
            ),
            facts=(Fact("decision", "The loader stays synchronous."),),
        ),
    )
    block = memory.block_for(["src/app.py"], seat="beta", lens="security")
    lines = block.text.splitlines()
    assert lines[0] == SESSION_HEADER
    assert all(FACT_LINE.match(line) for line in lines[1:]), lines
    body = "\n".join(lines)
    assert "Hypothesis confirmed: src is not on sys.path (evidence: t1, t2)." in body
    assert "Hypothesis refuted: the cache is stale (evidence: t3)." in body
    assert "maybe a race" not in body
    assert "Finding (correctness) at src/app.py:3: Unchecked parse_config result" in body
    assert "Fact (decision): The loader stays synchronous." in body
    assert block.included == 4


def test_findings_go_to_other_seats_and_lenses_not_back_to_the_same_pair() -> None:
    memory = SessionMemory("r1", HEAD)
    memory.record(
        "c1", "alpha", "correctness", ["a.py"], CallResult(findings=(finding("a.py", "Bug"),))
    )
    assert memory.block_for(["a.py"], seat="alpha", lens="correctness").included == 0
    assert memory.block_for(["a.py"], seat="beta", lens="correctness").included == 1
    assert memory.block_for(["a.py"], seat="alpha", lens="security").included == 1


def test_order_is_relevance_then_tool_paths_then_recency() -> None:
    memory = SessionMemory("r1", HEAD)
    memory.record("c1", "a", "x", ["lib/far.py"], CallResult(facts=(Fact("k", "oldest far"),)))
    memory.record("c2", "a", "x", ["lib/far.py"], TOOL_PATH_RESULT)
    memory.record("c3", "a", "x", ["src/near.py"], CallResult(facts=(Fact("k", "same folder"),)))
    memory.record("c4", "a", "x", ["lib/far.py"], CallResult(facts=(Fact("k", "newest far"),)))
    memory.record("c5", "b", "y", ["src/target.py"], CallResult(facts=(Fact("k", "same file"),)))
    lines = memory.block_for(["src/target.py"], seat="z", lens="z").text.splitlines()[1:]
    order = [line.split(": ", 2)[2].split(" (reported")[0] for line in lines]
    assert order == [
        "same file",
        "same folder",
        "`PYTHONPATH=src pytest` passed where `pytest` failed.",
        "newest far",
        "oldest far",
    ]


def many_facts_memory(count: int) -> SessionMemory:
    memory = SessionMemory("r1", HEAD)
    for index in range(count):
        text = f"fact number {index} " + "x" * (index % 17) * 5
        memory.record(
            f"c{index}", "alpha", "tests", [f"f{index}.py"], CallResult(facts=(Fact("k", text),))
        )
    return memory


def test_budget_holds_with_the_omitted_count() -> None:
    memory = many_facts_memory(300)
    block = memory.block_for(["f1.py"], max_chars=12_000, seat="beta", lens="tests")
    assert len(block.text) <= 12_000
    assert block.omitted > 0 and block.included + block.omitted == 300
    assert block.text.endswith(f"\n{block.omitted} more omitted")
    assert "fact number 1 " in block.text.splitlines()[1]
    assert memory.block_for(["f1.py"], max_chars=10).text == ""


@given(st.integers(min_value=0, max_value=3000), st.integers(min_value=0, max_value=40))
def test_property_blocks_never_exceed_the_budget_and_hold_only_whole_items(
    max_chars: int, count: int
) -> None:
    memory = many_facts_memory(count)
    block = memory.block_for(["f3.py"], max_chars=max_chars)
    assert len(block.text) <= max_chars
    assert block.included + block.omitted == count
    full = {
        f"- Unverified claim: {item.text} (reported by seat alpha; session r1, commit abc1234)"
        for item in memory.items()
    }
    lines = block.text.splitlines()
    if not lines:
        assert block.included == 0
        return
    if lines == [f"{count} more omitted"]:  # not even the header fits beside the count
        assert block.included == 0
        return
    assert lines[0] == SESSION_HEADER
    item_lines = [line for line in lines[1:] if not line.endswith("more omitted")]
    assert len(item_lines) == block.included
    assert all(line in full for line in item_lines)
    assert (block.omitted > 0) == (lines[-1] == f"{block.omitted} more omitted")


def test_persistables_states_and_expiries() -> None:
    memory = SessionMemory("r9", HEAD)
    memory.record("c1", "alpha", "tests", ["a.py"], TOOL_PATH_RESULT)
    memory.record(
        "c2",
        "beta",
        "correctness",
        ["a.py"],
        CallResult(
            findings=(finding("a.py", "Bug"),),
            hypotheses=(Hypothesis("h1", "it is flaky", HypothesisStatus.REFUTED, ("t1",)),),
            facts=(Fact("mistake", "The fixture is shared."),),
        ),
    )
    # The same tool path found again by another call is one memory, not two.
    memory.record("c3", "beta", "tests", ["b.py"], TOOL_PATH_RESULT)
    items = memory.persistables(NOW)
    kinds = {item.kind: item for item in items}
    assert len(items) == 4
    tool = kinds[ItemKind.TOOL_PATH]
    # A seat's word alone (two seats of no known lab) is a claim: a candidate, never active.
    assert (tool.state, tool.expires_at) == (EntryState.CANDIDATE, NOW + timedelta(days=30))
    assert (tool.seat, tool.session, tool.commit) == ("alpha", "r9", HEAD)
    assert tool.source is Source.REPORTED
    assert tool.reporters == (Reporter("alpha", ""), Reporter("beta", ""))
    for kind in (ItemKind.FINDING, ItemKind.HYPOTHESIS, ItemKind.FACT):
        assert kinds[kind].state is EntryState.CANDIDATE
        assert kinds[kind].expires_at == NOW + timedelta(days=30)
        assert kinds[kind].seat == "beta"
    assert tool.subject == "tool:PYTHONPATH=src pytest"
    assert kinds[ItemKind.FINDING].subject.startswith("finding:lesson/correctness-bug-")


def recalled(memory: SessionMemory) -> list[MemoryItem]:
    return memory.persistables(NOW)


def test_recalled_memory_reads_like_session_memory() -> None:
    memory = SessionMemory("r1", HEAD)
    memory.record("c1", "alpha", "tests", ["a.py"], TOOL_PATH_RESULT)
    in_run = memory.block_for(["a.py"], seat="beta", lens="tests").text.splitlines()
    later = cross_session_block(recalled(memory)).text.splitlines()
    assert in_run[0] == SESSION_HEADER and later[0] == RECALLED_HEADER
    assert (
        in_run[1:]
        == later[1:]
        == [
            "- Unverified claim: Tool path: `PYTHONPATH=src pytest` passed where `pytest` failed. "
            "(reported by seat alpha; session r1, commit abc1234)",
        ]
    )
    assert cross_session_block([]).text == ""


def test_cross_session_block_is_bounded_and_counts_omitted() -> None:
    items = recalled(many_facts_memory(500))
    block = cross_session_block(items, 24_000)
    assert len(block.text) <= 24_000
    assert block.text.startswith(RECALLED_HEADER + "\n")
    assert block.omitted > 0 and block.included + block.omitted == 500
    assert block.text.endswith(f"\n{block.omitted} more omitted")
    small = cross_session_block(items[:3])
    assert (small.included, small.omitted) == (3, 0)
    focused = cross_session_block(items, 300, call_files=["f7.py"])
    assert "fact number 7 " in focused.text.splitlines()[1]


def test_a_recalled_subject_that_comes_up_again_is_a_hit() -> None:
    first = SessionMemory("r1", HEAD)
    first.record("c1", "alpha", "tests", ["a.py"], TOOL_PATH_RESULT)
    first.record(
        "c2",
        "alpha",
        "correctness",
        ["src/app.py"],
        CallResult(
            findings=(finding("src/app.py", "Unchecked parse_config result", line=12),),
            hypotheses=(Hypothesis("h1", "src is not on sys.path", HypothesisStatus.CONFIRMED),),
            facts=(Fact("decision", "Nobody calls the legacy loader."),),
        ),
    )
    memory_of_first = recalled(first)

    second = SessionMemory("r2", "f" * 40)
    second.record(
        "d1",
        "beta",
        "tests",
        ["b.py"],
        CallResult(tool_receipts=(receipt("t1", "PYTHONPATH=src  pytest", ToolStatus.PASSED),)),
    )
    second.record(
        "d2",
        "gamma",
        "correctness",
        ["src/app.py"],
        CallResult(
            findings=(finding("src/app.py", "unchecked  PARSE_CONFIG result", line=40),),
            hypotheses=(Hypothesis("h9", "SRC is not on sys.path.", HypothesisStatus.OPEN),),
        ),
    )
    found = second.hits(memory_of_first)
    assert {(hit.kind, hit.call_id, hit.seat, hit.recalled_session) for hit in found} == {
        (ItemKind.TOOL_PATH, "d1", "beta", "r1"),
        (ItemKind.FINDING, "d2", "gamma", "r1"),
        (ItemKind.HYPOTHESIS, "d2", "gamma", "r1"),
    }
    assert hits(memory_of_first, []) == []
    unrelated = SessionMemory("r3", HEAD)
    unrelated.record(
        "e1",
        "beta",
        "security",
        ["src/app.py"],
        CallResult(findings=(finding("src/app.py", "Unchecked parse_config result"),)),
    )
    assert unrelated.hits(memory_of_first) == []


def test_recording_from_many_threads_loses_nothing() -> None:
    memory = SessionMemory("r1", HEAD)

    def work(worker: int) -> None:
        for index in range(50):
            memory.record(
                f"c{worker}-{index}",
                "alpha",
                "tests",
                ["a.py"],
                CallResult(facts=(Fact("k", f"worker {worker} fact {index}"),)),
            )

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    items = memory.items()
    assert len(items) == 400 and len(memory.records()) == 400
    assert sorted(item.seq for item in items) == list(range(1, 401))


SECRET_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def test_items_holding_a_secret_are_never_handed_on_stored_or_written(tmp_path: Path) -> None:
    memory = SessionMemory("r1", HEAD)
    leaky = CallResult(
        tool_receipts=(
            receipt("t1", "pytest -q", ToolStatus.FAILED),
            receipt("t2", f"API_TOKEN={SECRET_TOKEN} pytest -q", ToolStatus.PASSED, corrects="t1"),
        ),
        facts=(
            Fact("config", f"The deploy token is {SECRET_TOKEN}."),
            Fact("decision", "The loader stays synchronous."),
        ),
        findings=(
            Finding(path="src/app.py", line=3, title="Token in code", body=f"{SECRET_TOKEN}."),
        ),
    )
    learned = memory.record("c1", "alpha", "correctness", ["src/app.py"], leaky)
    assert [item.text for item in learned] == ["Fact (decision): The loader stays synchronous."]
    handed = memory.block_for(["src/app.py"], seat="beta", lens="security")
    assert SECRET_TOKEN not in handed.text and "synchronous" in handed.text

    # The core refuses them too, whoever hands them over.
    planted = [*memory.persistables(NOW), *(_item(f"Fact (config): {SECRET_TOKEN}"),)]
    path = write_session_file(
        tmp_path, "octo/app", "r1", learned=planted, recalled=[], hits=[], now_ms=0
    )
    assert SECRET_TOKEN not in path.read_text() and "synchronous" in path.read_text()
    engine = make_engine(f"sqlite:///{tmp_path / 'h.db'}")
    migrate(engine)
    with engine.begin() as conn:
        conn.execute(insert(Account).values(id=1, login="octo", created_ms=0))
        conn.execute(insert(Repository).values(id=11, account_id=1, full_name="octo/app"))
        saved = save_items(conn, account_id=1, repository_id=11, items=planted, now_ms=0)
        texts = conn.execute(select(MemoryItemRow.text)).scalars().all()
    engine.dispose()
    assert len(saved) == 1 and texts == ["Fact (decision): The loader stays synchronous."]


def _item(text: str) -> MemoryItem:
    return MemoryItem(
        kind=ItemKind.FACT,
        subject="fact:config",
        text=text,
        seat="alpha",
        session="r1",
        commit=HEAD,
        state=EntryState.CANDIDATE,
        expires_at=NOW + timedelta(days=30),
        recorded_at=NOW,
    )
