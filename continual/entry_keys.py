"""Entry keys: one stable key per mechanism (lens + title) in a repository."""

from __future__ import annotations

import hashlib
import re

KEY_PREFIX = "lesson/"
SLUG_MAX = 48
HASH_HEX = 10

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_SPACES = re.compile(r"\s+")


def normalise_title(title: str) -> str:
    """Lower-case the title and fold runs of white space, so cosmetic edits keep the key."""
    return _SPACES.sub(" ", title.strip().lower())


def mechanism_hash(lens: str, title: str) -> str:
    """First 10 hex digits of sha256(lens + "\\n" + normalised title)."""
    digest = hashlib.sha256(f"{lens.strip().lower()}\n{normalise_title(title)}".encode())
    return digest.hexdigest()[:HASH_HEX]


def slug(lens: str, title: str) -> str:
    """Lens and title lower-cased, every run of non-alphanumerics turned into one ``-``."""
    text = _NON_ALNUM.sub("-", f"{lens} {title}".lower()).strip("-")
    return text[:SLUG_MAX].rstrip("-")


def entry_key(lens: str, title: str) -> str:
    """``lesson/<slug>-<hash>`` for the mechanism a finding is about."""
    return f"{KEY_PREFIX}{slug(lens, title)}-{mechanism_hash(lens, title)}"
