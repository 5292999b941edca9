"""The pure rules of suppression: which dismissed mechanisms a repository still refuses, and where."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from continual.lifecycle import DAY_MS
from continual.memory.items import MemoryItem, finding_of_subject
from continual.values import Decision

DEFAULT_SUPPRESS_DAYS = 180
# A false positive or a rule that does not apply here is about one place; the other reasons
# (wont-fix, style, out-of-scope, duplicate, unspecified, none given) refuse the mechanism itself.
PATH_REASONS = frozenset({"false-positive", "not-applicable"})
DEMOTED_REASON = "demoted"


@dataclass(frozen=True, slots=True)
class PathReceipt:
    """One receipt of a mechanism, with the path of the suggestion it decided."""

    receipt_id: int
    decision: str
    reason: str | None
    path: str
    actor: str | None
    at_ms: int
    superseded: bool = False


@dataclass(frozen=True, slots=True)
class Mechanism:
    """One live entry as the rules need it: its receipts, demotion and the last person's lift."""

    entry_id: str
    key: str
    lens: str
    title: str
    verdicts: tuple[PathReceipt, ...]
    demoted_by: str | None = None
    demoted: bool = False
    lifted_ms: int | None = None
    revision: int = 1
    aliases: tuple[str, ...] = ()  # keys of entries consolidated into this one


@dataclass(frozen=True, slots=True)
class Suppression:
    """A mechanism refused in a repository: at one path, or everywhere when `repository_wide`.

    `receipt_id` is the dismissal that suppresses (None only for an entry a person demoted without
    any dismissal); `until_ms` is None when it lasts until a person restores the entry."""

    entry_id: str
    key: str
    lens: str
    title: str
    path: str
    reason: str
    actor: str | None
    receipt_id: int | None
    dismissed_ms: int | None
    until_ms: int | None
    repository_wide: bool
    revision: int = 1
    aliases: tuple[str, ...] = ()  # keys of entries consolidated into this one

    def covers(self, key: str, path: str) -> bool:
        same = self.key == key or key in self.aliases
        return same and (self.repository_wide or self.path == path)


def is_repository_wide(reason: str | None) -> bool:
    """Reasons other than false-positive and not-applicable refuse the mechanism everywhere."""
    return reason not in PATH_REASONS


def _standing(mechanism: Mechanism) -> list[PathReceipt]:
    """The current dismissals that no later acceptance and no later lift has ended."""
    current = [v for v in mechanism.verdicts if not v.superseded]
    floor = mechanism.lifted_ms
    for verdict in current:
        if verdict.decision == Decision.ACCEPTED.value:
            floor = verdict.at_ms if floor is None else max(floor, verdict.at_ms)
    return [
        v
        for v in current
        if v.decision == Decision.DISMISSED.value and (floor is None or v.at_ms > floor)
    ]


def _latest(verdicts: Iterable[PathReceipt]) -> PathReceipt:
    return max(verdicts, key=lambda v: (v.at_ms, v.receipt_id))


def suppressions_of(
    mechanism: Mechanism, *, now_ms: int, suppress_days: int = DEFAULT_SUPPRESS_DAYS
) -> tuple[Suppression, ...]:
    """What `mechanism` suppresses now: a demoted entry everywhere until a person restores it;
    otherwise its standing dismissals, for `suppress_days` from the latest of them."""
    standing = _standing(mechanism)
    if mechanism.demoted:
        latest = _latest(standing) if standing else None
        return (
            Suppression(
                entry_id=mechanism.entry_id,
                key=mechanism.key,
                lens=mechanism.lens,
                title=mechanism.title,
                path=latest.path if latest else "",
                reason=DEMOTED_REASON,
                actor=latest.actor if latest else mechanism.demoted_by,
                receipt_id=latest.receipt_id if latest else None,
                dismissed_ms=latest.at_ms if latest else None,
                until_ms=None,
                repository_wide=True,
                revision=mechanism.revision,
                aliases=mechanism.aliases,
            ),
        )
    if not standing:
        return ()
    until = _latest(standing).at_ms + suppress_days * DAY_MS
    if now_ms >= until:
        return ()
    wide = [v for v in standing if is_repository_wide(v.reason)]
    chosen = [_latest(wide)] if wide else []
    if not wide:
        by_path: dict[str, list[PathReceipt]] = {}
        for verdict in standing:
            by_path.setdefault(verdict.path, []).append(verdict)
        chosen = [_latest(group) for _path, group in sorted(by_path.items())]
    return tuple(
        Suppression(
            entry_id=mechanism.entry_id,
            key=mechanism.key,
            lens=mechanism.lens,
            title=mechanism.title,
            path=verdict.path,
            reason=verdict.reason or "unspecified",
            actor=verdict.actor,
            receipt_id=verdict.receipt_id,
            dismissed_ms=verdict.at_ms,
            until_ms=until,
            repository_wide=bool(wide),
            revision=mechanism.revision,
            aliases=mechanism.aliases,
        )
        for verdict in chosen
    )


def suppressing(suppressions: Sequence[Suppression], key: str, path: str) -> Suppression | None:
    """The suppression that refuses a finding of mechanism `key` at `path`, if any."""
    return next((s for s in suppressions if s.covers(key, path)), None)


def unrefused(items: Sequence[MemoryItem], found: Sequence[Suppression]) -> list[MemoryItem]:
    """Memory items without the findings of refused mechanisms: a dismissed mechanism's finding,
    remembered from an earlier review, is not handed again."""
    return [
        item
        for item in items
        if (finding := finding_of_subject(item.subject)) is None
        or suppressing(found, *finding) is None
    ]


def refused_cards(found: Iterable[Suppression], paths: Iterable[str] = ()) -> set[tuple[str, int]]:
    """The (entry, revision) of lessons no surface hands: mechanisms refused repository-wide, and
    for a hand about ``paths``, those refused at every one of them (a lesson refused at one path
    still holds elsewhere, so a hand that also touches another path keeps it)."""
    about = set(paths)
    refused: set[tuple[str, int]] = set()
    at: dict[tuple[str, int], set[str]] = {}
    for suppression in found:
        card = (suppression.entry_id, suppression.revision)
        if suppression.repository_wide:
            refused.add(card)
        else:
            at.setdefault(card, set()).add(suppression.path)
    if about:
        refused |= {card for card, where in at.items() if about <= where}
    return refused
