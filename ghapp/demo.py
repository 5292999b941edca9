"""`hindsight demo`: the whole loop for real on loopback — review, replies, write-back, lessons."""

from __future__ import annotations

import json
import secrets
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from continual.markers import parse_suggestion_marker
from continual.memory import set_memory
from continual.persons import create_token
from continual.recall import load_lessons
from continual.summary import SUMMARY_MAX_CHARS, is_summary_id
from continual.suppression import suppressions
from continual.tables import (
    Injection,
    MemorySummaryRow,
    Receipt,
    Repository,
    ReviewRow,
    Suggestion,
    SuppressedFinding,
)
from continual.values import EntryState
from ghapp.app import build_deps, create_app
from ghapp.cli.ledger import ledgers, print_ledger
from ghapp.db import make_engine, reading
from ghapp.demo_fixes import SECOND_TEXT, run_fix_steps
from ghapp.demo_world import (
    APP_ID,
    CONFIG,
    DEMO_PERMISSIONS,
    FIRST_PATCH,
    MAINTAINER,
    ORG,
    PATH,
    REPO,
    SECOND_PATCH,
    Demo,
    DemoFailed,
    check,
    find,
    first_line,
    step,
)
from ghapp.jobs import now_ms
from ghapp.loopback import serve_in_thread
from ghapp.settings import Settings
from ghsim import GitHubSimulator, generate_app_key


def review_step(demo: Demo, number: int) -> list[dict[str, Any]]:
    """Wait for the review of PR `number`; answer its comments (checked on GitHub and the store)."""
    demo.settle()
    reviews = [r for r in demo.sim.reviews(REPO, number, include_implicit=False)]
    check(len(reviews) == 1, f"PR #{number} has {len(reviews)} reviews by the app, expected 1")
    comments = [
        c
        for c in demo.sim.review_comments(REPO, number)
        if c["user"]["login"] == demo.sim.bot_login
        and parse_suggestion_marker(c["body"]) is not None
    ]
    carrying = demo.scalar(
        select(func.count())
        .select_from(Suggestion)
        .where(Suggestion.pr == number, Suggestion.comment_of.is_(None))
    )
    check(comments != [], f"the review of PR #{number} posted no suggestion")
    check(carrying == len(comments), f"{carrying} suggestions stored for {len(comments)} comments")
    return comments


def shared_step(demo: Demo, number: int, comments: list[dict[str, Any]]) -> str:
    """The finding raised under two lenses: one comment, one stored suggestion per lens."""
    comment = find(comments, "context manager")
    with reading(demo.engine) as conn:
        lenses = sorted(
            conn.execute(
                select(Suggestion.lens).where(
                    Suggestion.pr == number, Suggestion.comment_id == comment["id"]
                )
            ).scalars()
        )
    check(
        lenses == ["correctness", "performance"],
        f"the context-manager comment carries the lenses {lenses}, expected correctness and "
        "performance",
    )
    return f"{first_line(comment)!r} is one comment for {len(lenses)} lenses ({', '.join(lenses)})"


def summary_step(demo: Demo, handed: set[str]) -> str:
    """The repository's memory summary was in the review's set, under its heuristic framing."""
    with reading(demo.engine) as conn:
        summary = conn.execute(select(MemorySummaryRow)).one()
    check(len(handed) == 1, f"the second review was handed {len(handed)} memory summaries")
    check(
        summary.text.startswith(f"Memory summary for {REPO}. Memory is a heuristic"),
        "the memory summary lacks its heuristic framing",
    )
    check(len(summary.text) <= SUMMARY_MAX_CHARS, "the memory summary is over its bound")
    return (
        f"its memory summary ({len(summary.text)} chars: {summary.lessons} lesson(s), "
        f"{summary.memories} memories), framed as a heuristic to check against the code"
    )


def run_steps(demo: Demo) -> None:
    echo = demo.echo
    step(echo, 3, f"Opening PR #1 on {REPO} (a signed pull_request webhook)…")
    first = demo.sim.open_pull(
        REPO, title="Charge requests", files={PATH: FIRST_PATCH}, author="sam"
    )
    comments = review_step(demo, first["number"])
    stored = demo.scalar(
        select(func.count()).select_from(Suggestion).where(Suggestion.pr == first["number"])
    )
    echo(f"      one review posted with {len(comments)} comments for {stored} suggestions:")
    for comment in comments:
        echo(f"        - line {comment['line']}: {first_line(comment)}")
    echo(f"      {shared_step(demo, first['number'], comments)}")

    step(echo, 4, "Maintainers and others reply in the threads…")
    replies = [
        (find(comments, "bare except"), "accept", MAINTAINER, "OWNER", "User"),
        (find(comments, "eval"), "dismiss false-positive", MAINTAINER, "OWNER", "User"),
        (find(comments, "TODO"), "accept", "drive-by", "CONTRIBUTOR", "User"),
        (find(comments, "performance"), "accept", "helper[bot]", "NONE", "Bot"),
    ]
    for comment, body, who, association, kind in replies:
        demo.sim.reply(
            REPO,
            first["number"],
            comment["id"],
            body,
            author=who,
            author_association=association,
            user_type=kind,
        )
        counts = "counts" if association == "OWNER" else "must not count"
        echo(f"      {who} ({association.lower()}): {body!r} on {first_line(comment)!r} — {counts}")
    demo.settle()

    step(echo, 5, "PR #1 is merged; the write-back reads the threads…")
    demo.sim.close(REPO, first["number"], merged=True)
    demo.settle()
    with reading(demo.engine) as conn:
        receipts = conn.execute(select(Receipt).order_by(Receipt.id)).all()
    decided = sorted((r.decision, r.actor or "") for r in receipts)
    check(
        decided == [("accepted", MAINTAINER), ("dismissed", MAINTAINER)],
        f"expected one acceptance and one dismissal by {MAINTAINER}, the store has {decided}",
    )
    for receipt in receipts:
        why = f"rule {receipt.rule}" + (f", reason {receipt.reason}" if receipt.reason else "")
        echo(f"      receipt: {receipt.decision} by {receipt.actor} ({why})")

    step(echo, 6, "Lessons become active; the dismissed mechanism is remembered…")
    with reading(demo.engine) as conn:
        account_id, repository_id = conn.execute(
            select(Repository.account_id, Repository.id).where(Repository.full_name == REPO)
        ).one()
        lessons = load_lessons(conn, account_id, now=now_ms())
        refused = suppressions(conn, repository_id, now_ms=now_ms())
    active = [lesson for lesson in lessons if lesson.state is EntryState.ACTIVE]
    check(len(active) == 1, f"expected 1 active lesson, the store has {len(active)}")
    check(len(refused) == 1, f"expected 1 dismissed mechanism, the store has {len(refused)}")
    dismissed = refused[0]
    for lesson in lessons:
        if lesson.id == dismissed.entry_id:
            echo(
                f"      [dismissed] {dismissed.title} — not raised again at {dismissed.path} "
                f"({dismissed.reason}, {dismissed.actor})"
            )
        else:
            echo(f"      [{lesson.state.value}] {lesson.text or lesson.title}")

    step(echo, 7, "Opening PR #2, touching the same file and re-raising the dismissed finding…")
    second = demo.sim.open_pull(
        REPO,
        title="Refund on failure",
        files={PATH: SECOND_PATCH},
        contents={PATH: SECOND_TEXT},
        author="sam",
    )
    posted = review_step(demo, second["number"])
    with reading(demo.engine) as conn:
        review = conn.execute(select(ReviewRow).where(ReviewRow.pr == second["number"])).one()
        withheld = conn.execute(
            select(SuppressedFinding).where(SuppressedFinding.review_id == review.id)
        ).all()
        handed = conn.execute(
            select(Injection).where(
                Injection.session_id == review.id, Injection.surface == "review"
            )
        ).all()
        sets = set(
            conn.execute(
                select(Suggestion.set_sha256).where(Suggestion.pr == second["number"])
            ).scalars()
        )
    handed_ids = {entry[0] for row in handed for entry in json.loads(row.entries)}
    check(active[0].id in handed_ids, "the second review was not handed the active lesson")
    check(dismissed.entry_id in handed_ids, "the second review was not told what was dismissed")
    check(sets == {review.set_sha256}, "the new suggestions do not carry the handed set")
    summaries = {i for i in handed_ids if is_summary_id(i)}
    lesson_ids = handed_ids - {dismissed.entry_id} - summaries
    echo(f"      the review was handed {len(lesson_ids)} lesson(s), set {review.set_sha256[:12]}:")
    echo(f"        {active[0].text}")
    echo(f"      and told: do not raise {dismissed.title!r} at {dismissed.path} again")
    echo(f"      and {summary_step(demo, summaries)}")
    check(
        not any(dismissed.title in str(c["body"]) for c in posted),
        "the dismissed finding was posted again",
    )
    check(
        [(w.title, w.receipt_id) for w in withheld] == [(dismissed.title, dismissed.receipt_id)],
        f"expected {dismissed.title!r} recorded as suppressed, the store has {len(withheld)} rows",
    )
    for item in withheld:
        echo(
            f"      not posted: {item.title!r} at line {item.line} (suppressed by receipt "
            f"#{item.receipt_id}: {item.reason} by {item.actor})"
        )

    run_fix_steps(demo, second, posted)

    step(echo, 10, "The ledger:")
    for record in ledgers(demo.engine, now=now_ms()):
        print_ledger(record)


@contextmanager
def started(workdir: Path, echo: Callable[[str], None], port: int = 0) -> Iterator[Demo]:
    """The simulator and the app (web + worker) on loopback, the app installed on the demo repo."""
    key = generate_app_key()
    command = json.dumps([sys.executable, "-m", "review.demo_seat"])
    config_path = workdir / "hindsight.toml"
    config_path.write_text(CONFIG.format(command=command))
    database_url = f"sqlite:///{workdir / 'hindsight.db'}"
    with ExitStack() as stack:
        step(echo, 1, "Starting the GitHub simulator and the app on loopback…")
        sim = stack.enter_context(
            GitHubSimulator(app_id=APP_ID, public_key_pem=key.public_pem, app_slug="hindsight")
        )
        settings = Settings(
            database_url=database_url,
            github_app_id=APP_ID,
            github_private_key=key.private_pem,
            webhook_secret=secrets.token_hex(16),
            github_api_url=sim.base_url,
            store_dir=workdir / "store",
            config=config_path,
        )
        engine = make_engine(database_url)
        stack.callback(engine.dispose)
        app = create_app(settings, deps=build_deps(settings, engine=engine))
        url = stack.enter_context(serve_in_thread(app, port=port))
        echo(f"      simulator {sim.base_url}, app {url}, database {database_url}")
        step(echo, 2, f"Installing the app on {REPO}…")
        sim.configure_webhooks(f"{url}/webhooks", settings.secret_bytes())
        # `contents: write` and `[fixes] enabled`: a maintainer's /fix opens a fix PR (step 8).
        installation_id = sim.add_installation(
            ORG, repositories=[REPO], permissions={**DEMO_PERMISSIONS, "contents": "write"}
        )
        demo = Demo(sim=sim, engine=engine, settings=settings, url=url, echo=echo)
        demo.installation_id = installation_id
        demo.settle()
        check(demo.scalar(select(func.count()).select_from(Repository)) == 1, "not installed")
        with engine.begin() as conn:  # memory is off by default; the demo shows it at work
            row = conn.execute(select(Repository.account_id, Repository.id)).one()
            set_memory(
                conn,
                account_id=row.account_id,
                repository_id=row.id,
                enabled=True,
                actor="demo",
                now=now_ms(),
            )
        echo(f"      memory turned on for {REPO} (it is off by default: hindsight memory on)")
        yield demo


def run_demo(
    workdir: Path, *, keep: bool, echo: Callable[[str], None] = print, port: int = 0
) -> int:
    """Run the loop; 0 only when every step really happened (checked in the store)."""
    started_at = time.monotonic()
    try:
        with started(workdir, echo, port) as demo:
            run_steps(demo)
            step(echo, 11, f"Done in {time.monotonic() - started_at:.1f} s: every step checked.")
            if keep:
                keep_running(demo)
    except DemoFailed as failure:
        echo(f"demo failed: {failure}")
        return 1
    return 0


def keep_running(demo: Demo) -> None:
    """Leave everything up and say how to explore `/v1` with curl and the ledger in a browser."""
    with demo.engine.begin() as conn:
        token = create_token(conn, ORG, MAINTAINER, now=now_ms())
    auth = '-H "authorization: Bearer $HINDSIGHT_TOKEN"'
    demo.echo(
        f"\nThe app is at {demo.url} and the simulator at {demo.sim.base_url}.\n"
        f"A token for {MAINTAINER} of {ORG} (shown once): {token.secret}\n\n"
        f"The ledger: open {demo.url}/ledger and sign in with that token.\n\n"
        f"  export HINDSIGHT_URL={demo.url} HINDSIGHT_TOKEN={token.secret}\n"
        f'  curl -s {auth} "$HINDSIGHT_URL/v1/recall"\n'
        f'  curl -s {auth} "$HINDSIGHT_URL/v1/recall/active?repo={REPO}"\n'
        f'  curl -s {auth} "$HINDSIGHT_URL/v1/brief?repo={REPO}&session=try-1"\n'
        f'  curl -s {auth} "$HINDSIGHT_URL/v1/review-ledger?brain=true"\n\n'
        "docs/api.md has every request; its examples run as written against this demo.\n"
        "Press Ctrl-C to stop."
    )
    sys.stdout.flush()  # a reader on a pipe sees it now, not when the buffer fills
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        demo.echo("stopped")
