"""A proven fix's patch as a fix PR applies it: the suggestion's one file, read strictly, applied
exactly or not at all; every untrusted shape of it refused with a reason."""

from __future__ import annotations

import pytest

from continual.fix_patches import MAX_PATCH_CHARS, apply_patch, read_patch, shown_patch
from continual.fixes import FixChange, NotApplicable

PATH = "src/app.py"
SOURCE = "import os\n\nconfig = parse_config()\nprint(config)\n"
PATCH = (
    f"diff --git a/{PATH} b/{PATH}\nindex 0123456..789abcd 100644\n--- a/{PATH}\n+++ b/{PATH}\n"
    "@@ -2,3 +2,4 @@\n \n-config = parse_config()\n+config = parse_config()\n+require(config)\n"
    " print(config)\n"
)
FIXED = "import os\n\nconfig = parse_config()\nrequire(config)\nprint(config)\n"


def header(path: str, new: str | None = None) -> str:
    return f"--- a/{path}\n+++ b/{new or path}\n"


def refusal(patch: str, target: str | None = SOURCE, path: str = PATH) -> str:
    found = apply_patch(patch, path, target)
    assert isinstance(found, NotApplicable), found
    return found.reason


def test_the_patch_applies_exactly() -> None:
    change = apply_patch(PATCH, PATH, SOURCE)
    assert isinstance(change, FixChange)
    assert (change.after, change.line, change.moved, change.patched) == (FIXED, 2, False, True)
    assert shown_patch(PATH, PATCH) == PATCH


def test_moved_code_is_found_by_its_lines_and_crlf_is_kept() -> None:
    moved = "import os\nimport sys\n\nconfig = parse_config()\nprint(config)\n"
    change = apply_patch(PATCH, PATH, moved)
    assert isinstance(change, FixChange) and change.moved
    assert change.after == moved.replace("print", "require(config)\nprint")
    crlf = apply_patch(PATCH, PATH, SOURCE.replace("\n", "\r\n"))
    assert isinstance(crlf, FixChange) and crlf.after == FIXED.replace("\n", "\r\n")


def test_a_patch_that_no_longer_matches_or_is_already_there() -> None:
    assert "no longer matches the code" in refusal(PATCH, "config = load()\n")
    assert "already there" in refusal(PATCH.replace("+require(config)\n", "").replace(",4", ",3"))
    twice = "x = 1\nconfig = parse_config()\nprint(config)\n" * 2
    assert "no longer matches" in refusal(PATCH.replace("@@ -2,3", "@@ -9,3"), twice)
    assert "cannot be read as text" in refusal(PATCH, None)


@pytest.mark.parametrize(
    ("patch", "why"),
    [
        (header("../etc/passwd") + "@@ -1 +1 @@\n-a\n+b\n", "not a plain path"),
        (header(".github/workflows/ci.yml") + "@@ -1 +1 @@\n-a\n+b\n", "`.github/`"),
        (header("src/other.py") + "@@ -1 +1 @@\n-a\n+b\n", "other than the suggestion's"),
        (header(PATH, "src/other.py") + "@@ -1 +1 @@\n-a\n+b\n", "other than"),
        (PATCH + header("src/other.py") + "@@ -1 +1 @@\n-a\n+b\n", "more than one file"),
        ("--- /dev/null\n+++ b/src/app.py\n@@ -0,0 +1 @@\n+x\n", "adds or deletes"),
        (f"rename from {PATH}\nrename to x.py\n{header(PATH)}@@ -1 +1 @@\n-a\n+b\n", "renames"),
        (f"new file mode 100755\n{header(PATH)}@@ -1 +1 @@\n-a\n+b\n", "renames, re-modes"),
        (header(PATH) + "GIT binary patch\nliteral 4\n", "binary"),
        (f"Binary files a/{PATH} and b/{PATH} differ\n", "binary"),
        (header(PATH) + "@@ -1 +1 @@\n-a\x00\n+b\n", "binary"),
        (header(PATH) + "@@ -1,5 +1 @@\n-a\n+b\n", "malformed"),
        (header(PATH) + "@@ -1 +1 @@\n-a\n+b\nstray text\n", "no hunk may hold"),
        (header(PATH) + "@@ -3 +3 @@\n-a\n+b\n@@ -1 +1 @@\n-c\n+d\n", "out of order"),
        (header(PATH), "no hunk"),
        ("", "nothing to apply"),
        ("Subject: hi\n" + header(PATH) + "@@ -1 +1 @@\n-a\n+b\n", "text before its hunks"),
        (header(PATH) + "@@ -1 +1 @@\n-a\n+" + "x" * MAX_PATCH_CHARS + "\n", "over 8,000"),
        (
            header(PATH) + '@@ -1 +1 @@\n-a\n+TOKEN = "ghp_' + "A1b2C3d4E5" * 4 + '"\n',
            "secret",
        ),
        (header(PATH) + "".join(f"@@ -{i} +{i} @@\n-a\n+b\n" for i in range(1, 23)), "hunks"),
    ],
    ids=[
        "traversal",
        "github-dir",
        "other-file",
        "renamed-side",
        "two-files",
        "new-file",
        "rename",
        "mode",
        "git-binary",
        "binary-differ",
        "nul",
        "bad-counts",
        "stray-line",
        "disorder",
        "no-hunk",
        "empty",
        "mail-text",
        "huge",
        "secret",
        "too-many-hunks",
    ],
)
def test_untrusted_patches_are_refused_with_a_reason(patch: str, why: str) -> None:
    assert why in refusal(patch)
    assert isinstance(read_patch(patch, PATH), NotApplicable)
    assert shown_patch(PATH, patch) is None, "never shown with the finding, never stored"


def test_a_removed_sql_comment_is_a_line_of_the_hunk_not_a_second_file() -> None:
    source = "SELECT 1;\n-- old note\n++ counter\nSELECT 2;\n"
    patch = (
        header(PATH)
        + "@@ -1,4 +1,3 @@\n SELECT 1;\n--- old note\n-++ counter\n+++ kept\n SELECT 2;\n"
    )
    change = apply_patch(patch, PATH, source)
    assert isinstance(change, FixChange), change
    assert change.after == "SELECT 1;\n++ kept\nSELECT 2;\n"
    after_the_hunk = patch + header("src/other.py") + "@@ -1 +1 @@\n-a\n+b\n"
    assert "more than one file" in refusal(after_the_hunk, source)
