"""Workers killed with SIGKILL mid-review and mid-write-back: every job completes once, no review
is posted twice, and nothing is lost.

Each scenario is driven by a seed (printed; rerun a failure with that seed): it picks the kill
points, their order and the random delays. Worker processes are `hindsight worker` with a 1 s
lease, so a killed worker's job is taken over by the next one.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from continual.tables import Entry
from ghapp.db import reading
from ghapp.handlers.pulls import WRITEBACK_KINDS
from tests.support.reliability import (
    COMMENTS_OF_PULL,
    COMMENTS_OF_REVIEW,
    Stage,
    comment_ids_recorded,
    jobs_completed_once,
    kill,
    maintainer_says,
    one_review_per_pull,
    receipts,
    stage,
    suggestions_match_comments,
)
from tests.support.review import REVIEW_POSTS, bug_files, lenses_toml, seat_toml
from tests.support.simulator import REPO
from tests.support.web import wait_for

PULLS = 4
REVIEW_KILLS = ("delay", "seat-call", "review-post", "post-in-flight")
WRITEBACK_KILLS = ("delay", "comments-read", "read-in-flight")
IN_FLIGHT_S = 0.6
SEAT_DELAY_S = 0.4


@dataclass
class Scene:
    stage: Stage
    seat_logs: Path
    rng: random.Random
    kills: list[str] = field(default_factory=list)

    def calls_started(self) -> int:
        return len(list(self.seat_logs.iterdir()))

    def kill_when(self, what: str, fired: Callable[[], bool]) -> None:
        """Start a worker and SIGKILL it once `fired()` holds (or once nothing is left to do)."""
        victim = self.stage.worker(concurrency=1)
        try:
            wait_for(lambda: fired() or self.stage.all_settled(), timeout=30, what=what)
        finally:
            kill(victim)
        self.kills.append(what)


def after(seconds: float) -> Callable[[], bool]:
    deadline = time.monotonic() + seconds
    return lambda: time.monotonic() >= deadline


def review_round(scene: Scene, how: str) -> None:
    sim = scene.stage.sim
    posts = sim.count("POST", REVIEW_POSTS)
    if how == "delay":
        scene.kill_when("review: after a delay", after(scene.rng.uniform(0.5, 2.0)))
    elif how == "seat-call":
        calls = scene.calls_started()
        scene.kill_when("review: during a seat call", lambda: scene.calls_started() > calls)
    elif how == "review-post":
        scene.kill_when("review: POST answered", lambda: sim.count("POST", REVIEW_POSTS) > posts)
    elif how == "post-in-flight":
        # GitHub has the POST, the worker dies before the answer arrives, GitHub finishes it.
        fault = sim.inject("POST", REVIEW_POSTS, latency_s=IN_FLIGHT_S, times=1)
        scene.kill_when("review: POST in flight", lambda: fault.hits > 0)
        if fault.hits:
            wait_for(lambda: sim.count("POST", REVIEW_POSTS) > posts, what="the slow POST")
        sim.clear_faults()
    else:
        raise AssertionError(f"no kill point {how}")


def writeback_round(scene: Scene, how: str) -> None:
    sim = scene.stage.sim
    reads = sim.count("GET", COMMENTS_OF_PULL)
    if how == "delay":
        scene.kill_when("write-back: after a delay", after(scene.rng.uniform(0.8, 2.0)))
    elif how == "comments-read":

        def read() -> bool:
            return sim.count("GET", COMMENTS_OF_PULL) > reads

        scene.kill_when("write-back: threads read", read)
    elif how == "read-in-flight":
        fault = sim.inject("GET", COMMENTS_OF_PULL, latency_s=IN_FLIGHT_S, times=1)
        scene.kill_when("write-back: read in flight", lambda: fault.hits > 0)
        sim.clear_faults()
    else:
        raise AssertionError(f"no kill point {how}")


def interrupted(st: Stage, kind: str) -> int:
    return sum(1 for job in st.jobs() if job.kind == kind and job.attempts > 1)


def answer_suggestions(
    st: Stage, rng: random.Random, on_github: dict[str, tuple[int, int]]
) -> dict[str, str]:
    """Maintainers accept or dismiss some suggestions, a contributor's "accept" must not count;
    answers the decision each suggestion must end with."""
    expected: dict[str, str] = {}
    for sid, (number, comment) in sorted(on_github.items()):
        choice = rng.choice(["accept", "dismiss", "contributor", "silence"])
        if choice == "accept":
            maintainer_says(st.sim, number, comment, "accept")
            expected[sid] = "accepted"
        elif choice == "dismiss":
            maintainer_says(st.sim, number, comment, "dismiss false-positive")
            expected[sid] = "dismissed"
        elif choice == "contributor":
            st.sim.reply(
                REPO, number, comment, "accept", author="drive-by", author_association="CONTRIBUTOR"
            )
    return expected


def crash_scenario(
    engine: Engine,
    database_url: str,
    tmp_path: Path,
    seed: int,
    *,
    review_kills: list[str],
    writeback_kills: list[str],
) -> Scene:
    seat_logs = tmp_path / "seat-calls"
    seat_logs.mkdir()
    toml = seat_toml(tmp_path, "alpha", log_dir=str(seat_logs), delay_s=SEAT_DELAY_S)
    with stage(engine, database_url, tmp_path, toml + lenses_toml("correctness")) as st:
        rng = random.Random(seed)
        scene = Scene(st, seat_logs, rng)
        numbers = [
            int(st.sim.open_pull(REPO, files=bug_files(2, prefix=f"src/p{n}_"))["number"])
            for n in range(PULLS)
        ]
        for how in review_kills:
            review_round(scene, how)
        st.drain()
        jobs_completed_once(st)
        one_review_per_pull(st, numbers)
        on_github = suggestions_match_comments(st.sim, engine, numbers)

        expected = answer_suggestions(st, rng, on_github)
        for number in numbers:
            st.sim.close(REPO, number)
        for how in writeback_kills:
            writeback_round(scene, how)
        st.drain()
        print(f"seed={seed} kills={scene.kills}")

        jobs_completed_once(st)
        one_review_per_pull(st, numbers)
        assert suggestions_match_comments(st.sim, engine, numbers) == on_github
        found = receipts(engine)
        decided = sorted((r.suggestion_id, r.decision) for r in found)
        assert decided == sorted(expected.items()), "one receipt per decision, none lost"
        assert not any(r.superseded for r in found)
        with reading(engine) as conn:
            entries = conn.execute(select(Entry).where(Entry.deleted_ms.is_(None))).all()
        assert len(entries) == (1 if expected else 0), "one entry per mechanism per repository"
        assert {r.entry_id for r in found} == {e.id for e in entries}
    return scene


@pytest.mark.parametrize("seed", [20240601])
def test_workers_killed_at_every_kill_point(
    engine: Engine, database_url: str, tmp_path: Path, seed: int
) -> None:
    print(f"crash scenario seed={seed}")
    rng = random.Random(seed)
    scene = crash_scenario(
        engine,
        database_url,
        tmp_path,
        seed,
        # A kill that surely lands mid-job first (a seat call, a slow read), the rest in any order.
        review_kills=["seat-call", *rng.sample(["delay", "review-post", "post-in-flight"], 3)],
        writeback_kills=["read-in-flight", *rng.sample(["delay", "comments-read"], 2)],
    )
    # The scenario proves something only if kills really landed mid-job.
    assert interrupted(scene.stage, "pull_request.review") >= 1
    # Replies start write-backs of their own now; a kill in any of them proves the point.
    assert sum(interrupted(scene.stage, kind) for kind in WRITEBACK_KINDS) >= 1


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 9))
def test_workers_killed_at_random_points(
    engine: Engine, database_url: str, tmp_path: Path, seed: int
) -> None:
    print(f"crash scenario seed={seed}")
    rng = random.Random(seed)
    crash_scenario(
        engine,
        database_url,
        tmp_path,
        seed,
        review_kills=[rng.choice(REVIEW_KILLS) for _ in range(5)],
        writeback_kills=[rng.choice(WRITEBACK_KILLS) for _ in range(4)],
    )


def test_kill_while_the_posted_review_is_read_back_keeps_comment_ids(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    seat_logs = tmp_path / "seat-calls"
    seat_logs.mkdir()
    toml = seat_toml(tmp_path, "alpha") + lenses_toml("correctness")
    with stage(engine, database_url, tmp_path, toml) as st:
        number = int(st.sim.open_pull(REPO, files=bug_files(2))["number"])
        # The review is posted and marked posted; its comments are being read when it dies.
        fault = st.sim.inject("GET", COMMENTS_OF_REVIEW, latency_s=1, times=1)
        Scene(st, seat_logs, random.Random(0)).kill_when(
            "review: reading its posted comments", lambda: fault.hits > 0
        )
        assert fault.hits == 1
        st.drain()
        jobs_completed_once(st)
        one_review_per_pull(st, [number])
        comment_ids_recorded(engine, suggestions_match_comments(st.sim, engine, [number]))
