"""Shards: bounded size, every file exactly once, oversized files split on hunks with labels."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from review.shards import PullFile, Shard, cut_shards


def hunk(start: int, lines: int, width: int = 30) -> str:
    body = "".join(f"+{'x' * (width - 2)}\n" for _ in range(lines))
    return f"@@ -{start},0 +{start},{lines} @@\n{body}"


def whole_files(shards: tuple[Shard, ...]) -> Counter[str]:
    return Counter(item.path for shard in shards for item in shard.files if item.parts == 1)


def test_small_files_share_shards_in_path_order_and_stay_whole() -> None:
    files = [PullFile(f"src/m{i:02}.py", "modified", hunk(1, 10)) for i in range(10)][::-1]
    shards = cut_shards(files, shard_chars=1000)
    assert all(shard.chars <= 1000 for shard in shards)
    assert len(shards) > 1
    order = [item.path for shard in shards for item in shard.files]
    assert order == sorted(order)
    assert whole_files(shards) == Counter({f.path: 1 for f in files})
    assert [(s.index, s.count) for s in shards] == [(i, len(shards)) for i in range(len(shards))]


def test_big_file_is_split_on_hunk_boundaries_and_labelled() -> None:
    patch = "".join(hunk(1 + 100 * i, 10) for i in range(6))
    shards = cut_shards(
        [PullFile("a.py", "added", hunk(1, 2)), PullFile("big.py", "modified", patch)],
        shard_chars=800,
    )
    parts = [item for shard in shards for item in shard.files if item.path == "big.py"]
    assert len(parts) > 1
    assert [(p.part, p.parts) for p in parts] == [(i + 1, len(parts)) for i in range(len(parts))]
    assert parts[0].label == f"big.py (part 1/{len(parts)})"
    assert "".join(p.patch for p in parts) == patch
    assert all(p.patch.startswith("@@ ") for p in parts)
    assert all(shard.chars <= 800 for shard in shards)
    assert whole_files(shards) == Counter({"a.py": 1})


def test_one_oversized_hunk_is_cut_on_lines_and_still_bounded() -> None:
    patch = hunk(1, 100, width=50) + "+" + "y" * 300 + "\n"
    shards = cut_shards([PullFile("huge.py", "added", patch)], shard_chars=200)
    assert all(shard.chars <= 200 for shard in shards)
    assert "".join(item.patch for shard in shards for item in shard.files) == patch


def test_files_without_a_patch_are_kept_and_order_is_deterministic() -> None:
    files = [
        PullFile("img/logo.png", "added", ""),
        PullFile("b.py", "modified", hunk(1, 3)),
        PullFile("a.py", "removed", hunk(1, 3)),
    ]
    first = cut_shards(files, 40_000)
    assert first == cut_shards(list(reversed(files)), 40_000)
    assert [item.path for item in first[0].files] == ["a.py", "b.py", "img/logo.png"]
    assert cut_shards([], 100) == ()
    with pytest.raises(ValueError):
        cut_shards(files, 0)


patches = st.lists(
    st.integers(min_value=1, max_value=40).map(lambda n: hunk(1, n)), min_size=0, max_size=4
).map("".join)


@given(
    st.lists(
        st.tuples(st.from_regex(r"[a-c]/[a-z]{1,6}\.py", fullmatch=True), patches), max_size=25
    ),
    st.integers(min_value=40, max_value=3000),
)
def test_property_bounded_and_every_file_exactly_once(
    raw: list[tuple[str, str]], limit: int
) -> None:
    files = {path: PullFile(path, "modified", patch) for path, patch in raw}
    shards = cut_shards(files.values(), limit)
    assert all(shard.chars <= limit for shard in shards)
    seen: dict[str, list[str]] = {}
    for shard in shards:
        for item in shard.files:
            seen.setdefault(item.path, []).append(item.patch)
            if item.parts > 1:
                assert len(files[item.path].patch) > limit
    assert set(seen) == set(files)
    for path, pieces in seen.items():
        assert "".join(pieces) == files[path].patch
        if len(files[path].patch) <= limit:
            assert len(pieces) == 1
