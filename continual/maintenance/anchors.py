"""A lesson's anchors: the paths and identifiers it names that its code really holds, and renames."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from continual.associations import find_identifiers, find_paths, normalise_path
from continual.patches import head_texts

MIN_IDENTIFIER_CHARS = 3


@dataclass(frozen=True, slots=True)
class Anchors:
    """``paths``: the lesson's own file first, then the files it names that the context holds;
    ``identifiers``: (name, the file holding it) for each name it uses that the context holds."""

    paths: tuple[str, ...]
    identifiers: tuple[tuple[str, str], ...] = ()

    def names(self) -> list[str]:
        return [name for name, _ in self.identifiers]

    def to_json(self) -> str:
        return json.dumps(
            {"paths": list(self.paths), "identifiers": [list(i) for i in self.identifiers]},
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str | None) -> Anchors | None:
        """The stored value; None when nothing (or nothing readable) was recorded."""
        if not text:
            return None
        try:
            data = json.loads(text)
            paths = tuple(str(p) for p in data["paths"])
            identifiers = tuple((str(n), str(h)) for n, h in data.get("identifiers", ()))
        except (ValueError, KeyError, TypeError):
            return None
        return cls(paths, identifiers) if paths else None

    def renamed(self, renames: Mapping[str, str]) -> Anchors:
        return Anchors(
            tuple(dict.fromkeys(renames.get(p, p) for p in self.paths)),
            tuple((name, renames.get(home, home)) for name, home in self.identifiers),
        )


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(item for item in items if item))


def contains_name(text: str, name: str) -> bool:
    """``name`` occurs in ``text`` as a whole name (no name character touching either end)."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text) is not None


def head_side(patch: str) -> str:
    """The lines of a unified diff that exist at its head: context and additions."""
    return "\n".join(head_texts(patch))


def verify_anchors(*, path: str, title: str, lesson: str, files: Mapping[str, str]) -> Anchors:
    """The anchors of a lesson checked against its real context, never against its own words.

    ``files`` maps each path of the change to what the head holds of it (the diff's head side,
    or the whole file when it was read). A named path counts when the change has it; a named
    identifier counts when one of those files holds it as a whole name; its file becomes an
    anchor too, so a later change of that file is noticed.
    """
    own = normalise_path(path)
    named = _unique(find_paths(title) + find_paths(lesson))
    paths = [own, *(p for p in named if p in files)]
    identifiers: list[tuple[str, str]] = []
    order = _unique([own, *paths, *files])
    for name in _unique(find_identifiers(title) + find_identifiers(lesson)):
        if len(name) < MIN_IDENTIFIER_CHARS:
            continue
        home = next((p for p in order if contains_name(files.get(p, ""), name)), None)
        if home is not None:
            identifiers.append((name, home))
            paths.append(home)
    return Anchors(tuple(_unique(paths)), tuple(identifiers))


def context_of(anchors: Anchors | None, path: str) -> tuple[list[str], list[str]]:
    """What admission may anchor a lesson to: its recorded anchors, or (recorded before anchors
    were) the file it was posted on, which the pull request's diff held."""
    if anchors is None:
        return [path], []
    return list(anchors.paths), anchors.names()


def _replace_path(text: str, old: str, new: str) -> str:
    return re.sub(rf"(?<![\w/.\-]){re.escape(old)}(?![\w\-]|\.\w)", new, text)


def rewrite(text: str, renames: Mapping[str, str]) -> str:
    """``text`` naming each renamed path by its new name (and a changed basename by the new one)."""
    for old, new in renames.items():
        text = _replace_path(text, old, new)
        old_base, new_base = old.rsplit("/", 1)[-1], new.rsplit("/", 1)[-1]
        if old_base != new_base:
            text = _replace_path(text, old_base, new_base)
    return text
