"""Budgets: pack whole lines into one block of text, count what was left out, hash the set.

Every block the project hands (lessons, session memory, recalled memory) goes through
``pack_lines``; a ``Budget`` says in which unit its limit is counted.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from continual.recall import Card, Scored

BYTES_PER_TOKEN = 4
OMITTED_LINE = "{n} more omitted"
SEPARATOR = "\n"


class Measure(StrEnum):
    """What a budget counts."""

    CHARS = "characters"
    UTF8_BYTES = "UTF-8 bytes"


@dataclass(frozen=True, slots=True)
class Budget:
    """An upper bound on a block's text, framing included, in an explicit unit.

    Review memory is bounded in characters (``Budget.chars``); briefs and context pushes in
    approximate tokens of 4 UTF-8 bytes each (``Budget.tokens``), held here as bytes.
    """

    limit: int
    measure: Measure

    @classmethod
    def chars(cls, limit: int) -> Budget:
        return cls(limit, Measure.CHARS)

    @classmethod
    def tokens(cls, limit: int) -> Budget:
        return cls(limit * BYTES_PER_TOKEN, Measure.UTF8_BYTES)

    def size(self, text: str) -> int:
        """``text`` measured in this budget's unit."""
        return len(text) if self.measure is Measure.CHARS else len(text.encode("utf-8"))

    def fits(self, text: str) -> bool:
        return self.size(text) <= self.limit

    def after(self, text: str, separator: str = "") -> Budget:
        """What is left once ``text`` (and ``separator``, when there is text) is spent."""
        used = self.size(text) + self.size(separator) if text else 0
        return Budget(max(0, self.limit - used), self.measure)


@dataclass(frozen=True, slots=True)
class Block:
    """A packed block of lines: its text, how many lines it holds and how many did not fit."""

    text: str
    included: int
    omitted: int


@dataclass(frozen=True, slots=True)
class Packed:
    """Exactly what was handed: the cards, the text (framing included), and its receipt."""

    cards: tuple[Card, ...]
    text: str
    omitted: int
    chars: int
    set_sha256: str
    entries: tuple[tuple[str, int], ...]

    @property
    def tokens(self) -> int:
        """Approximate tokens of the text: one per started group of 4 UTF-8 bytes."""
        return approx_tokens(self.text)


def same_text(text: str) -> str:
    """A lesson's text as compared for sameness: words separated by single spaces, casefolded."""
    return " ".join(text.split()).casefold()


def approx_tokens(text: str) -> int:
    """Approximate token count: 1 token = 4 UTF-8 bytes, rounded up."""
    return -(-len(text.encode("utf-8")) // BYTES_PER_TOKEN)


def _assemble(header: str, bodies: Iterable[str], omitted: int) -> str:
    parts = [header] if header else []
    parts.extend(bodies)
    if omitted:
        parts.append(OMITTED_LINE.format(n=omitted))
    return SEPARATOR.join(parts)


def pack_lines(
    lines: Iterable[str],
    *,
    budgets: Sequence[Budget] = (),
    header: str = "",
    total: int | None = None,
) -> Block:
    """Whole ``lines``, in the order given, under ``header``, within every budget.

    - Lines are taken in order while the next one fits; the taken lines are always a prefix (a
      line that does not fit is never truncated, and no later, shorter line jumps ahead of it).
    - ``omitted`` counts every line not taken, and the text then ends with ``N more omitted``.
    - The text is ``header``, the lines and that count, joined by newlines; with no line and
      nothing omitted it is empty. Each budget bounds the whole text, header and count included;
      if even the header and the count do not fit, the header is dropped, then the count.
    - ``total``: when ``lines`` are only the head of a longer list, the length of the whole
      list; the lines past the head count as omitted.
    """
    candidates = list(lines)
    overall = len(candidates) if total is None else max(total, len(candidates))

    def fits(text: str) -> bool:
        return all(budget.fits(text) for budget in budgets)

    taken: list[str] = []
    sizes = [budget.size(header) for budget in budgets]
    for line in candidates:
        sep = SEPARATOR if (taken or header) else ""
        remaining = overall - len(taken) - 1
        tail = SEPARATOR + OMITTED_LINE.format(n=remaining) if remaining else ""
        grown = [
            size + budget.size(sep) + budget.size(line)
            for size, budget in zip(sizes, budgets, strict=True)
        ]
        if any(
            size + budget.size(tail) > budget.limit
            for size, budget in zip(grown, budgets, strict=True)
        ):
            break
        taken.append(line)
        sizes = grown

    omitted = overall - len(taken)
    text = _assemble(header, taken, omitted) if (taken or omitted) else ""
    if not fits(text):
        text = _assemble("", (), omitted)
        if not fits(text):
            text = ""
    return Block(text=text, included=len(taken), omitted=omitted)


def pack(
    hits_or_cards: Iterable[Scored | Card],
    *,
    cap: int,
    budgets: Sequence[Budget] = (),
    render: Callable[[Card], str],
    header: str = "",
    seen: Container[tuple[str, int]] = (),
    total: int | None = None,
    distinct_text: bool = False,
    said: Iterable[tuple[str, str]] = (),
) -> Packed:
    """Hand complete cards, in the order given, within ``cap`` and every budget.

    - Cards whose ``(id, revision)`` is in ``seen`` (already handed in this session) are skipped
      and not counted as omitted; a new revision of a seen entry is eligible again. A repeated
      ``(id, revision)`` in the input counts once. With ``distinct_text`` a card whose text
      (``same_text``) an earlier card already says is skipped too, uncounted: the same advice
      under two lenses is handed once, the first in the order given; ``said`` are the
      ``(entry id, text)`` the session was already handed: another entry saying one of those
      texts is skipped as well (a new revision of the same entry is not).
    - At most ``cap`` eligible cards are handed; they are rendered and packed by ``pack_lines``
      (a prefix, whole cards, ``N more omitted`` for every eligible card not handed).
    - ``set_sha256`` is the sha256 hex digest of the exact text.
    - ``total``: when ``hits_or_cards`` is only the head of a longer ranking (a
      ``RecallIndex.search`` with a limit, given the same ``seen``), the number of eligible entries
      in the whole ranking; entries past the head count as omitted.
    """
    if cap < 0:
        raise ValueError(f"cap must be at least 0, got {cap}; pass 0 to hand nothing.")
    eligible: list[Card] = []
    chosen: set[tuple[str, int]] = set()
    spoken: dict[str, set[str]] = {}
    for entry_id, said_text in said if distinct_text else ():
        spoken.setdefault(same_text(said_text), set()).add(entry_id)
    for item in hits_or_cards:
        card = item.card if isinstance(item, Scored) else item
        entry = (card.id, card.revision)
        text = same_text(card.text) if distinct_text else ""
        owners = spoken.get(text, ())
        if entry in seen or entry in chosen or (distinct_text and owners and card.id not in owners):
            continue
        chosen.add(entry)
        spoken.setdefault(text, set()).add(card.id)
        eligible.append(card)

    overall = len(eligible) if total is None else max(total, len(eligible))
    block = pack_lines(
        (render(card) for card in eligible[:cap]),
        budgets=budgets,
        header=header,
        total=overall,
    )
    handed = tuple(eligible[: block.included])
    return Packed(
        cards=handed,
        text=block.text,
        omitted=block.omitted,
        chars=len(block.text),
        set_sha256=hashlib.sha256(block.text.encode("utf-8")).hexdigest(),
        entries=tuple((c.id, c.revision) for c in handed),
    )
