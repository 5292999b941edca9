"""What the rules read in each reply of a pull request, read once per write-back and only when
a rule first asks for it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Generic, TypeVar

from continual.replies import Binding, Deferral, Verdict, classify_reply, read_deferral
from continual.stored import StoredSuggestion
from continual.writeback.authors import is_bot, is_maintainer
from continual.writeback.threads import (
    Reading,
    Thread,
    ThreadComment,
    binding_of,
    decide_replies,
    latest_reading,
)

T = TypeVar("T")


class _Lazy(Mapping[int, T], Generic[T]):
    """`read(body)` of each reply, by reply id, computed when first asked for."""

    def __init__(self, bodies: Mapping[int, str], read: Callable[[str], T]) -> None:
        self._bodies = bodies
        self._readfn = read
        self._read: dict[int, T] = {}

    def __getitem__(self, reply_id: int) -> T:
        if reply_id not in self._read:
            self._read[reply_id] = self._readfn(self._bodies[reply_id])
        return self._read[reply_id]

    def __iter__(self) -> Iterator[int]:
        return iter(self._bodies)

    def __len__(self) -> int:
        return len(self._bodies)


class Readings(_Lazy[Verdict | None]):
    """What the rules read in each reply a person wrote, by reply id: each reply is classified
    once, when a rule first asks for it (a reply no rule reads is never classified).
    `deferrals` is the same for `read_deferral`."""

    def __init__(self, replies: Iterable[ThreadComment], *, app_slug: str) -> None:
        bodies = {reply.id: reply.body for reply in replies if not is_bot(reply.author)}
        super().__init__(bodies, lambda body: classify_reply(body, app_slug=app_slug))
        self.deferrals: Mapping[int, Deferral | None] = _Lazy(bodies, read_deferral)


@dataclass(frozen=True)
class Analysis:
    """A pull request's threads, read once for a whole write-back: every plan of the door's
    reads, the judge's questions and the decision share it.

    `undos` is each thread's latest maintainer `undo` by suggestion id; `verdicts` what the rules
    read in each reply a person (never a bot) wrote, by reply id.
    """

    threads: tuple[Thread, ...]
    undos: Mapping[str, ThreadComment | None]
    verdicts: Readings

    @cached_property
    def replied(self) -> frozenset[str]:
        """The suggestions whose thread a reply decides at once, by the rules alone (a reading
        that waits for evidence does not: the reads it needs are still worth making)."""
        return frozenset(
            t.suggestion_id
            for t in self.threads
            if decide_replies(
                t,
                undo=self.undos[t.suggestion_id],
                verdicts=self.verdicts,
                deferrals=self.verdicts.deferrals,
            )
            is not None
        )

    def reading(
        self, thread: Thread, judged: Mapping[int, Verdict | Deferral] | None = None
    ) -> Reading | None:
        """The thread's latest reply that says something, with what it says (`latest_reading`)."""
        return latest_reading(
            thread,
            undo=self.undos[thread.suggestion_id],
            verdicts=self.verdicts,
            judged=judged,
            deferrals=self.verdicts.deferrals,
        )

    def waiting(
        self, known: Iterable[StoredSuggestion], *, head_sha: str | None, judging: bool = False
    ) -> list[StoredSuggestion]:
        """Suggestions posted on an earlier head than `head_sha` whose thread's latest reply waits
        for evidence (an acceptance, an argued dismissal): whether their lines changed is worth
        the comparison. The judge's verdicts are not known when the reads are planned: with a
        judge (`judging`), a maintainer's reply later than any the rules read may be one."""
        earlier = {s.id: s for s in known if s.head_sha != head_sha}
        found = []
        for thread in self.threads:
            suggestion = earlier.get(thread.suggestion_id)
            if suggestion is None:
                continue
            reading = self.reading(thread)
            verdict = reading[1] if reading is not None else None
            if (isinstance(verdict, Verdict) and binding_of(verdict) is not Binding.AT_ONCE) or (
                judging and self._unread_after(thread, reading[0] if reading else None)
            ):
                found.append(suggestion)
        return found

    def _unread_after(self, thread: Thread, read: ThreadComment | None) -> bool:
        undo = self.undos[thread.suggestion_id]
        marks = [c for c in (read, undo) if c is not None]
        after = max(((c.created_at, c.id) for c in marks), default=None)
        return any(
            is_maintainer(reply.author) and (after is None or (reply.created_at, reply.id) > after)
            for reply in thread.replies
        )
