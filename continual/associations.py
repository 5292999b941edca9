"""What an entry is about, for recall: files, folders, identifiers and keyword groups."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise


def _word_set(words: str) -> frozenset[str]:
    """A constant table written as white-space separated words."""
    return frozenset(words.split())


MIN_GROUP_TERMS = 2
MAX_GROUP_TERMS = 4
MAX_GROUPS = 10
MIN_TERM_CHARS = 2

STOP_WORDS: frozenset[str] = _word_set(
    """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing don down during each either else
    ever every few for from further had has have having he her here hers him his how i if in into
    is it its itself just least less may me might more most must my no nor not now of off on once
    one only or other our ours out over own same shall she should so some such than that the their
    them then there these they this those through to too under until up upon us very via was we
    were what when where which while who whom why will with within without would yet you your
    """
)

# Words too common in review lessons to retrieve anything on their own.
BROAD_WORDS: frozenset[str] = _word_set(
    """
    add always app arg args argument arguments attr avoid bad bug bugs call calls case check
    checks class code const correct data def default do dont ensure err error errors fail failure
    false file files fix fixed fn func function functions get go good handle handler helper
    helpers impl index info init input int item items js json key keys lib line lines list main
    make md method methods missing mod module modules name names never new none null obj object
    old output param params pass prefer py rb result results return returns rs run self set src
    str string test tests text this thing time todo true ts txt type types use used uses using
    util utils val value values var variable when yaml yml
    """
)

_BACKTICKED = re.compile(r"`([^`\n]+)`")
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?")
_PATH_TOKEN = re.compile(r"(?<![\w/.\-])(?:[\w.\-]+/)+[\w\-]+\.[A-Za-z][A-Za-z0-9]{0,7}(?![\w/])")
_CAMEL_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_NON_ALNUM = re.compile(r"[^A-Za-z0-9]+")
_INNER_UPPER = re.compile(r"[a-z0-9][A-Z]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
FILE_EXTENSIONS: frozenset[str] = _word_set(
    """
    c cc cfg cpp cs css go h hpp html ini java js json jsx kt lock md mjs php proto py pyi rb rs
    scala sh sql swift toml ts tsx txt xml yaml yml
    """
)


@dataclass(frozen=True, slots=True)
class Associations:
    """The literal signals that retrieve an entry."""

    files: tuple[str, ...]
    folders: tuple[str, ...]
    identifiers: tuple[str, ...]
    keyword_groups: tuple[tuple[str, ...], ...]


def normalise_path(path: str) -> str:
    """Root-relative form: forward slashes, no leading ``./`` or ``/``, no doubled slashes."""
    path = path.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return "/".join(part for part in path.split("/") if part and part != ".")


def parent_folder(path: str) -> str:
    """The folder holding ``path`` (``""`` at the root)."""
    return path.rpartition("/")[0]


def folders_of(path: str) -> list[str]:
    """Every folder containing ``path``, deepest first: ``src/a/b.py`` → ``src/a``, ``src``."""
    parts = path.split("/")[:-1]
    return ["/".join(parts[:i]) for i in range(len(parts), 0, -1)]


def split_terms(name: str) -> list[str]:
    """Lower-case terms of a name or phrase: snake, kebab, dotted and camel names are split."""
    terms: list[str] = []
    for chunk in _NON_ALNUM.split(name):
        if chunk.isalpha() and (chunk.islower() or chunk.isupper()):
            if len(chunk) >= MIN_TERM_CHARS:
                terms.append(chunk.lower())
            continue
        for part in _CAMEL_PARTS.findall(chunk):
            if len(part) >= MIN_TERM_CHARS:
                terms.append(part.lower())
    return terms


def is_specific(term: str) -> bool:
    """A term that may take part in a keyword group: not a stop word, broad word or number."""
    return term not in STOP_WORDS and term not in BROAD_WORDS and not term.isdigit()


def _is_file_name(token: str) -> bool:
    stem, dot, extension = token.rpartition(".")
    return bool(dot) and bool(stem) and extension.lower() in FILE_EXTENSIONS


def is_code_like(token: str) -> bool:
    """snake_case, camelCase, UPPER_CASE or dotted names (not file names)."""
    if _is_file_name(token):
        return False
    if "_" in token.strip("_"):
        return True
    if "." in token:
        return True
    return bool(_INNER_UPPER.search(token))


def find_identifiers(text: str) -> list[str]:
    """Backticked names and code-like tokens (snake, camel, dotted, ``call()``) in prose."""
    found: list[str] = []
    for span in _BACKTICKED.findall(text):
        name = span.strip().removesuffix("()")
        if _NAME.fullmatch(name) and not _is_file_name(name):
            found.append(name)
    prose = _BACKTICKED.sub(" ", text)
    for match in _TOKEN.finditer(prose):
        token = match.group(0)
        call = token.endswith("()")
        name = token.removesuffix("()")
        if name.lower() in {"e.g", "i.e"}:
            continue
        if call or is_code_like(name):
            found.append(name)
    expanded: list[str] = []
    for name in found:
        expanded.append(name)
        if "." in name:
            expanded.append(name.rsplit(".", 1)[-1])
    return _unique(expanded)


def find_paths(text: str) -> list[str]:
    """Root-relative file paths (with a folder and an extension) named in prose."""
    return _unique(normalise_path(m.group(0)) for m in _PATH_TOKEN.finditer(text))


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(item for item in items if item))


def _group(terms: Iterable[str]) -> tuple[str, ...] | None:
    specific = _unique(t for t in terms if is_specific(t))[:MAX_GROUP_TERMS]
    return tuple(sorted(specific)) if len(specific) >= MIN_GROUP_TERMS else None


def associate(
    *,
    path: str,
    title: str,
    lesson: str,
    body: str = "",
    identifiers: Iterable[str] = (),
) -> Associations:
    """Derive an entry's associations from its suggestion's plain values.

    - files: the suggestion's path and root-relative paths named in the title or lesson;
    - folders: the folder directly holding each file (recall also matches deeper changed paths);
    - identifiers: the given ones, then backticked and code-like names in the title and lesson
      (a dotted name also yields its last component);
    - keyword groups: one per identifier and file stem with at least two specific terms, one from
      the title's specific terms; each group is 2–4 sorted terms, so broad words never retrieve.

    ``body`` (the finding's prose) contributes identifiers only when it names them in backticks.
    """
    files = _unique([normalise_path(path), *find_paths(title), *find_paths(lesson)])
    folders = _unique(parent_folder(f) for f in files)
    body_names = [n.removesuffix("()") for n in _BACKTICKED.findall(body)]
    names = _unique(
        [
            *(i.strip().strip("`").removesuffix("()") for i in identifiers),
            *find_identifiers(title),
            *find_identifiers(lesson),
            *(n for n in body_names if _NAME.fullmatch(n) and not _is_file_name(n)),
        ]
    )
    candidates: list[tuple[str, ...] | None] = [_group(split_terms(n)) for n in names]
    for file in files:
        stem = file.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        candidates.append(_group(split_terms(stem)))
    title_terms = _unique(t for t in split_terms(title) if is_specific(t))
    candidates.extend(_group(pair) for pair in pairwise(title_terms))
    groups = list(dict.fromkeys(g for g in candidates if g is not None))[:MAX_GROUPS]
    return Associations(
        files=tuple(files),
        folders=tuple(folders),
        identifiers=tuple(names),
        keyword_groups=tuple(groups),
    )
