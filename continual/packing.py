"""Budgets: pack complete cards into one block of text, count what was left out, hash the set."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass

from continual.recall.index import Card, Scored

BYTES_PER_TOKEN = 4
OMITTED_LINE = "{n} more omitted"
SEPARATOR = "\n"


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


def approx_tokens(text: str) -> int:
    """Approximate token count: 1 token = 4 UTF-8 bytes, rounded up."""
    return -(-len(text.encode("utf-8")) // BYTES_PER_TOKEN)


def _assemble(header: str, bodies: Iterable[str], omitted: int) -> str:
    parts = [header] if header else []
    parts.extend(bodies)
    if omitted:
        parts.append(OMITTED_LINE.format(n=omitted))
    return SEPARATOR.join(parts)


def pack(
    hits_or_cards: Iterable[Scored | Card],
    *,
    cap: int,
    max_chars: int | None = None,
    max_tokens: int | None = None,
    render: Callable[[Card], str],
    header: str = "",
    seen: Container[tuple[str, int]] = (),
    total: int | None = None,
) -> Packed:
    """Hand complete cards, in the order given, within every budget.

    - Cards whose ``(id, revision)`` is in ``seen`` (already handed in this session) are skipped
      and not counted as omitted; a new revision of a seen entry is eligible again. A repeated
      ``(id, revision)`` in the input counts once.
    - Eligible cards are handed in order until ``cap`` cards are handed or the next card does not
      fit; the handed cards are always a prefix of the eligible ones (a card that does not fit is
      never truncated, and no later, smaller card jumps ahead of it).
    - ``omitted`` counts every eligible card not handed, and the text then ends with the line
      ``N more omitted``.
    - The text is ``header``, the rendered cards and that line, joined by newlines; with nothing
      to hand and nothing omitted it is empty. ``max_chars`` bounds ``len(text)`` and
      ``max_tokens`` bounds ``approx_tokens(text)``, the omitted line and header included. If even
      the header and the omitted line do not fit, the header is dropped, then the line.
    - ``set_sha256`` is the sha256 hex digest of the exact text.
    - ``total``: when ``hits_or_cards`` is only the head of a longer ranking (a
      ``RecallIndex.search`` with a limit, given the same ``seen``), the number of eligible entries
      in the whole ranking; entries past the head count as omitted.
    """
    if cap < 0:
        raise ValueError(f"cap must be at least 0, got {cap}; pass 0 to hand nothing.")
    eligible: list[Card] = []
    chosen: set[tuple[str, int]] = set()
    for item in hits_or_cards:
        card = item.card if isinstance(item, Scored) else item
        entry = (card.id, card.revision)
        if entry in seen or entry in chosen:
            continue
        chosen.add(entry)
        eligible.append(card)

    overall = len(eligible) if total is None else max(total, len(eligible))
    char_limit = max_chars
    byte_limit = None if max_tokens is None else max_tokens * BYTES_PER_TOKEN

    def fits(text: str) -> bool:
        if char_limit is not None and len(text) > char_limit:
            return False
        return byte_limit is None or len(text.encode("utf-8")) <= byte_limit

    bodies: list[str] = []
    chars = len(header)
    size = len(header.encode("utf-8"))
    for card in eligible[:cap]:
        body = render(card)
        sep = 1 if (bodies or header) else 0
        new_chars = chars + sep + len(body)
        new_size = size + sep + len(body.encode("utf-8"))
        remaining = overall - len(bodies) - 1
        tail = len(OMITTED_LINE.format(n=remaining)) + 1 if remaining else 0
        if (char_limit is not None and new_chars + tail > char_limit) or (
            byte_limit is not None and new_size + tail > byte_limit
        ):
            break
        bodies.append(body)
        chars, size = new_chars, new_size

    omitted = overall - len(bodies)
    text = _assemble(header, bodies, omitted) if (bodies or omitted) else ""
    if not fits(text):
        text = _assemble("", (), omitted)
        if not fits(text):
            text = ""
    handed = tuple(eligible[: len(bodies)])
    return Packed(
        cards=handed,
        text=text,
        omitted=omitted,
        chars=len(text),
        set_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        entries=tuple((c.id, c.revision) for c in handed),
    )
