"""The phrase tables of the eight languages the classifier reads, one module per language."""

from __future__ import annotations

from continual.replies.phrases import de, en, es, fr, ja, ko, pt, zh
from continual.replies.phrases.shared import Language

# The order in which rules of different languages are tried.
LANGUAGES: tuple[Language, ...] = (
    en.LANGUAGE,
    de.LANGUAGE,
    fr.LANGUAGE,
    es.LANGUAGE,
    pt.LANGUAGE,
    zh.LANGUAGE,
    ja.LANGUAGE,
    ko.LANGUAGE,
)

__all__ = ["LANGUAGES", "Language"]
