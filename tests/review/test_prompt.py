"""Prompt layout: one byte-identical header per review, then lens + shard, memory, cross-session."""

from __future__ import annotations

from review.contract import LessonRef, PullRequestInfo
from review.lenses import DEFAULT_LENSES
from review.prompt import render_call_prompt, render_header
from review.shards import PullFile, Shard, cut_shards

PULL = PullRequestInfo(7, "Add a parser", "It parses\nconfig files.", "a" * 40, "b" * 40)
LESSONS = [
    LessonRef(
        "e1", "lesson/correctness-x-0123456789", "Check the result of `parse_config`\n in app."
    ),
    LessonRef("e2", "lesson/security-y-9876543210", "Escape shell arguments in `run_tool`."),
]


def shards() -> tuple[Shard, ...]:
    files = [
        PullFile(f"src/m{i}.py", "modified", f"@@ -1 +1 @@\n+value_{i} = {i}\n") for i in range(6)
    ]
    return cut_shards(files, shard_chars=60)


def test_header_is_a_byte_identical_prefix_of_every_call_of_a_review() -> None:
    all_shards = shards()
    assert len(all_shards) > 2
    prompts = []
    for lens in DEFAULT_LENSES:
        for shard in all_shards:
            header = render_header(repository="octo/repo", pull=PULL, lessons=LESSONS)
            memory = f"Session memory:\n- fact {shard.index}\n" if shard.index else ""
            prompts.append(render_call_prompt(header, lens, shard, memory, "Recalled:\n- x\n"))
    header = render_header(repository="octo/repo", pull=PULL, lessons=LESSONS)
    encoded = header.encode()
    assert all(p.encode().startswith(encoded) for p in prompts)
    assert len(set(prompts)) == len(prompts)
    assert "shard" not in header.lower().replace("shared", "")


def test_header_carries_repository_pr_contract_and_lessons_as_imperative_lines() -> None:
    header = render_header(repository="octo/repo", pull=PULL, lessons=LESSONS)
    assert "Repository: octo/repo" in header
    assert "Pull request #7: Add a parser" in header
    assert "It parses\nconfig files." in header
    assert f"Head commit: {'a' * 40}" in header
    assert '"tool_receipts"' in header and '"hypotheses"' in header
    lines = header.splitlines()
    assert "- Check the result of `parse_config` in app." in lines
    assert "- Escape shell arguments in `run_tool`." in lines


def test_header_differs_between_reviews() -> None:
    base = render_header(repository="octo/repo", pull=PULL, lessons=LESSONS)
    other_head = PullRequestInfo(7, PULL.title, PULL.body, "c" * 40, PULL.base_sha)
    assert render_header(repository="octo/repo", pull=other_head, lessons=LESSONS) != base
    assert render_header(repository="octo/other", pull=PULL, lessons=LESSONS) != base
    assert render_header(repository="octo/repo", pull=PULL, lessons=LESSONS[:1]) != base
    assert "(none yet)" in render_header(repository="octo/repo", pull=PULL, lessons=[])


def test_call_parts_come_in_order_after_the_header() -> None:
    shard = shards()[1]
    header = render_header(repository="octo/repo", pull=PULL, lessons=[])
    prompt = render_call_prompt(
        header, DEFAULT_LENSES[1], shard, "SESSION-MEMORY-BLOCK", "CROSS-SESSION-BLOCK"
    )
    rest = prompt[len(header) :]
    positions = [
        rest.index("Lens: security"),
        rest.index(DEFAULT_LENSES[1].instructions),
        rest.index(f"Shard 2 of {shard.count}"),
        rest.index(shard.files[0].patch.strip()),
        rest.index("SESSION-MEMORY-BLOCK"),
        rest.index("CROSS-SESSION-BLOCK"),
    ]
    assert positions == sorted(positions)
    bare = render_call_prompt(header, DEFAULT_LENSES[1], shard, "", "")
    assert "SESSION" not in bare[len(header) :]
