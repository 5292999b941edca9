"""Reading GitHub's per-file unified diff: hunks, line numbers, and hostile text."""

from __future__ import annotations

import time

from continual.patches import (
    Hunk,
    Line,
    added_runs,
    added_texts,
    changed_new_lines,
    commentable_new_lines,
    head_texts,
    hunk_texts,
    hunks,
    is_header,
    removed_texts,
)
from ghsim.patches import parse_patch

PATCH = (
    "@@ -10,3 +10,4 @@ def load():\n"
    "     config = read()\n"
    "-    run(config)\n"
    "+    if config is None:\n"
    "+        raise ValueError\n"
    "+    run(config)\n"
    "     return config\n"
    "@@ -40 +41,2 @@\n"
    "+# first\n"
    " tail"
)


def test_hunks_number_each_line_on_both_sides() -> None:
    first, second = hunks(PATCH)
    assert (first.old_start, first.old_count, first.new_start, first.new_count) == (10, 3, 10, 4)
    assert first.section == " def load():"
    assert first.lines == (
        Line(" ", "    config = read()", 10, 10),
        Line("-", "    run(config)", 11, None),
        Line("+", "    if config is None:", None, 11),
        Line("+", "        raise ValueError", None, 12),
        Line("+", "    run(config)", None, 13),
        Line(" ", "    return config", 12, 14),
    )
    assert second == Hunk(
        40, 1, 41, 2, "", (Line("+", "# first", None, 41), Line(" ", "tail", 40, 42))
    )


def test_the_numbers_agree_with_the_simulator_that_places_comments() -> None:
    ours = [(line.kind, line.old, line.new) for hunk in hunks(PATCH + "\n") for line in hunk.lines]
    simulator = [(d.kind, d.old, d.new) for d in parse_patch(PATCH + "\n") if d.kind != "@"]
    assert ours == simulator and ours[-1] == (" ", 41, 43)


def test_derived_line_sets() -> None:
    assert changed_new_lines(PATCH) == {11, 12, 13, 41}
    assert changed_new_lines("@@ -5,2 +5,1 @@\n x\n-y") == {6}
    assert commentable_new_lines(PATCH) == {10, 11, 12, 13, 14, 41, 42}
    assert added_runs(PATCH) == (
        ("    if config is None:", "        raise ValueError", "    run(config)"),
        ("# first",),
    )
    assert head_texts("@@ -1,2 +1,2 @@\n a\n-b\n+c") == ("a", "c")
    assert added_texts("@@ -1,2 +1,3 @@\n a\n-b\n+c\n+++d") == ("c", "++d")
    assert removed_texts("@@ -1,2 +1,2 @@\n a\n-b\n+c") == ("b",)


def test_added_runs_end_at_a_hunk_boundary() -> None:
    patch = "@@ -1 +1,2 @@\n+a\n+b\n@@ -9 +10 @@\n+c"
    assert added_runs(patch) == (("a", "b"), ("c",))


def test_nothing_is_read_outside_a_hunk() -> None:
    for patch in ("", None, "+a\n-b\n c", "diff --git a/x b/x\n--- a/x\n+++ b/x"):
        assert hunks(patch) == ()
        assert changed_new_lines(patch) == frozenset() and added_runs(patch) == ()
    after_preamble = hunks("+stray\n@@ -1 +1 @@\n+a")
    assert [line.text for hunk in after_preamble for line in hunk.lines] == ["a"]


def test_malformed_headers_are_not_hunks_and_count_as_context_inside_one() -> None:
    for text in (
        "@@ -1,3 +1,3",
        "@@ -a,3 +1,3 @@",
        "@@ -1,3  +1,3 @@",
        "@@ -1,,3 +1 @@",
        "@@ -1,3,4 +1 @@",
        "@@ 1 +1 @@",
        "@@ -1 1 @@",
        "@ -1 +1 @@",
    ):
        assert not is_header(text), text
        assert hunks(text) == ()
    assert is_header("@@ -1 +1 @@") and is_header("@@ -0,0 +1,3 @@@ extra")
    (hunk,) = hunks("@@ -1 +1 @@\n@@ bogus\n+a")
    assert hunk.lines == (Line(" ", "@@ bogus", 1, 1), Line("+", "a", None, 2))


def test_counts_default_to_one_and_the_section_is_kept_whole() -> None:
    (hunk,) = hunks("@@ -7 +8 @@ class A:  @@ x\n-a\n+b")
    assert (hunk.old_start, hunk.old_count, hunk.new_start, hunk.new_count) == (7, 1, 8, 1)
    assert hunk.section == " class A:  @@ x"


def test_no_newline_marker_is_no_line_of_either_file() -> None:
    patch = (
        "@@ -1,3 +1,4 @@\n a\n b\n-c\n\\ No newline at end of file\n+c\n+d\n"
        "\\ No newline at end of file"
    )
    (hunk,) = hunks(patch)
    assert [(line.kind, line.new) for line in hunk.lines] == [
        (" ", 1),
        (" ", 2),
        ("-", None),
        ("+", 3),
        ("+", 4),
    ]
    assert changed_new_lines(patch) == {3, 4}
    assert added_runs(patch) == (("c", "d"),)


def test_triple_signs_are_lines_of_the_file_not_file_headers() -> None:
    """GitHub's per-file patch has no `---`/`+++` file headers: such lines are content."""
    (hunk,) = hunks("@@ -1,2 +1,2 @@\n---\n+++x\n same")
    assert hunk.lines == (
        Line("-", "--", 1, None),
        Line("+", "++x", None, 1),
        Line(" ", "same", 2, 2),
    )


def test_crlf_stays_in_the_text_and_the_numbers_hold() -> None:
    patch = "@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n"
    (hunk,) = hunks(patch)
    assert hunk.section == "\r"
    assert hunk.lines[:3] == (
        Line(" ", "a\r", 1, 1),
        Line("-", "b\r", 2, None),
        Line("+", "c\r", None, 2),
    )
    assert changed_new_lines(patch) == {2}


def test_hunk_texts_keep_every_character() -> None:
    patch = "junk\n@@ -1 +1 @@\n-a\n+b\n@@ not a header\n@@ -5 +5 @@\r\n x\n"
    pieces = hunk_texts(patch)
    assert pieces == ("junk\n", "@@ -1 +1 @@\n-a\n+b\n@@ not a header\n", "@@ -5 +5 @@\r\n x\n")
    assert "".join(pieces) == patch
    assert hunk_texts("@@ -1 +1 @@\n+a") == ("@@ -1 +1 @@\n+a",)
    assert hunk_texts("") == ()


def test_huge_and_hostile_patches_are_read_in_linear_time() -> None:
    lines = 200_000
    big = f"@@ -1,1 +1,{lines} @@\n" + "\n".join(f"+line {n}" for n in range(lines))
    digits = "@@ -" + "1" * 500_000 + "x"
    signs = "@@ -1 +1 @@\n" + "@@ -" * 100_000 + "\n" + "+" * 1_000_000
    started = time.perf_counter()
    (hunk,) = hunks(big)
    assert len(hunk.lines) == lines and hunk.lines[-1].new == lines
    assert hunks(digits) == () and not is_header(digits)
    (hostile,) = hunks(signs)
    assert [line.kind for line in hostile.lines] == [" ", "+"]
    assert len(hunk_texts(big)) == 1
    assert time.perf_counter() - started < 10


def test_a_number_too_long_to_be_a_line_number_is_no_header() -> None:
    assert not is_header("@@ -1 +" + "1" * 5_000 + " @@")
    assert hunks("@@ -1 +1 @@\n@@ -1 +" + "9" * 19 + " @@\n+a")[0].lines[1] == Line(
        "+", "a", None, 2
    )
    assert hunks("@@ -1 +" + "9" * 18 + " @@")[0].new_start == 10**18 - 1
