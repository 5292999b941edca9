"""Recognising a suggestion applied with "Commit suggestion" from the diff of later commits."""

from __future__ import annotations

from continual.patches import added_runs
from continual.writeback.applied import Replacement, applied_suggestions, replacement_lines

PATCH = "@@ -10,3 +10,3 @@ def load():\n     config = read()\n-    run(config)\n+    if config is None:\n+        raise ValueError('no config')\n+    run(config)\n"
BLOCK = Replacement(
    "s1", "src/app.py", ("    if config is None:", "        raise ValueError('no config')")
)


def test_replacement_lines_and_added_runs() -> None:
    assert replacement_lines("a\nb\n") == ("a", "b")
    assert replacement_lines("  \n") == ()
    assert added_runs(PATCH) == (
        ("    if config is None:", "        raise ValueError('no config')", "    run(config)"),
    )


def test_block_added_by_a_maintainer_is_applied() -> None:
    found = applied_suggestions(
        [BLOCK], patches={"src/app.py": PATCH}, commit_authors=["octocat"], maintainers={"octocat"}
    )
    assert [(a.suggestion_id, a.actor) for a in found] == [("s1", "octocat")]


def test_nothing_without_a_maintainer_commit() -> None:
    assert (
        applied_suggestions(
            [BLOCK],
            patches={"src/app.py": PATCH},
            commit_authors=["drive-by"],
            maintainers={"octocat"},
        )
        == []
    )


def test_block_must_land_verbatim_at_its_path() -> None:
    changed = PATCH.replace("no config", "missing config")
    for patches in ({"src/app.py": changed}, {"src/other.py": PATCH}, {}):
        assert (
            applied_suggestions(
                [BLOCK], patches=patches, commit_authors=["octocat"], maintainers={"octocat"}
            )
            == []
        )


def test_block_split_by_other_lines_is_not_applied() -> None:
    split = (
        "@@ -1,1 +1,3 @@\n+    if config is None:\n x = 1\n+        raise ValueError('no config')\n"
    )
    assert (
        applied_suggestions(
            [BLOCK],
            patches={"src/app.py": split},
            commit_authors=["octocat"],
            maintainers={"octocat"},
        )
        == []
    )
