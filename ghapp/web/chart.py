"""The acceptance chart's geometry: weekly acceptance rates, with and without lessons, as points."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from continual.ledger import Counts, WeekAcceptance
from continual.times import from_ms

WIDTH, HEIGHT = 900, 240
LEFT, RIGHT, TOP, BOTTOM = 44, 16, 14, 34
Y_TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)
MAX_X_LABELS = 8


@dataclass(frozen=True, slots=True)
class Point:
    x: float
    y: float
    label: str  # what the point's tooltip says


@dataclass(frozen=True, slots=True)
class Series:
    name: str
    css: str
    points: tuple[Point, ...]

    @property
    def path(self) -> str:
        """The polyline's points attribute."""
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)


@dataclass(frozen=True, slots=True)
class Tick:
    at: float
    label: str


@dataclass(frozen=True, slots=True)
class Chart:
    width: int
    height: int
    left: int
    right: float
    top: int
    bottom: float
    series: tuple[Series, ...]
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]


def _day(ms: int) -> str:
    return from_ms(ms).strftime("%Y-%m-%d")


def _y(rate: float) -> float:
    return TOP + (HEIGHT - TOP - BOTTOM) * (1 - rate)


def _series(
    name: str, css: str, weeks: Sequence[WeekAcceptance], xs: Sequence[float], guided: bool
) -> Series:
    points = []
    for week, x in zip(weeks, xs, strict=True):
        counts: Counts = week.with_lessons if guided else week.without_lessons
        if counts.acceptance_rate is None:
            continue  # nothing decided that week: a gap, not a zero
        decided = counts.accepted + counts.dismissed
        label = (
            f"week of {_day(week.week_ms)}, {name}: {counts.accepted} of {decided} accepted "
            f"({counts.acceptance_rate:.0%})"
        )
        points.append(Point(x, _y(counts.acceptance_rate), label))
    return Series(name, css, tuple(points))


def acceptance_chart(weeks: Sequence[WeekAcceptance]) -> Chart | None:
    """The chart of ``weeks`` (oldest first); None when no week has a decided suggestion."""
    if not any(
        w.with_lessons.acceptance_rate is not None or w.without_lessons.acceptance_rate is not None
        for w in weeks
    ):
        return None
    span = WIDTH - LEFT - RIGHT
    if len(weeks) == 1:
        xs = [LEFT + span / 2]
    else:
        xs = [LEFT + span * i / (len(weeks) - 1) for i in range(len(weeks))]
    step = max(1, -(-len(weeks) // MAX_X_LABELS))
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=WIDTH - RIGHT,
        top=TOP,
        bottom=HEIGHT - BOTTOM,
        series=(
            _series("with lessons", "with", weeks, xs, guided=True),
            _series("without lessons", "without", weeks, xs, guided=False),
        ),
        y_ticks=tuple(Tick(_y(rate), f"{rate:.0%}") for rate in Y_TICKS),
        x_ticks=tuple(Tick(xs[i], _day(weeks[i].week_ms)[5:]) for i in range(0, len(weeks), step)),
    )
