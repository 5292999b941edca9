"""Untrusted text benchmark: the slowest 65,536-character reply the reply rules and the judge's
question builder can be sent, against a plain prose reply and `len()` + `str.lower()` of it.

Two bars: the worst reply's time (SPEC §11: at most 50 ms), and the same as a ratio to the plain
prose reply of the same length in the same run (at most 2 ×): linear time, whatever the machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import bar, ratio_bar
from continual.judge.questions import undecided_replies
from continual.markers import neutralise, parse_suggestion_marker, with_suggestion_marker
from continual.replies import classify_reply, forget_readings, is_undo
from continual.secrets import find_secret
from continual.writeback.authors import Author, is_maintainer
from continual.writeback.pull import PullState
from continual.writeback.threads import ThreadComment
from tests.support.store import stored_suggestion

SLUG = "hindsight"
SIZE = 65_536  # the longest comment body GitHub accepts
TARGET_MS = 50.0
MAX_WORST_VS_PROSE = 2.0
T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
BOT = Author(f"{SLUG}[bot]", "Bot", "NONE", via_app=True)
OWNER = Author("octocat", "User", "OWNER")
PROSE = "The loader reads the configuration file once at start and caches it for the workers. "
# Prose the natural rules read whole: no more than MAX_NATURAL_CHARS of it, behind a long block.
WINDOW = 600


def _fill(unit: str, size: int = SIZE) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _behind_code(prose: str) -> str:
    """`prose` after a fenced block that fills the rest of the reply: the natural rules read it."""
    head = f"```\n{_fill('a ', SIZE - len(prose) - 9)}\n```\n"
    return head + prose


def shapes() -> dict[str, str]:
    """Adversarial replies of SIZE characters, by name."""
    runs = {
        "spaces": " ",
        "at-signs": "@",
        "bangs": "!",
        "commas": ",",
        "colons-spaces": ": ",
        "slashes-spaces": "/ ",
        "punctuation": ",:;!?.-()—",
        "fix": "fix ",
        "fixed": "fixed ",
        "fixed-commas": "fixed, ",
        "cjk": "修正しました",
        "cjk-already": "既に",
        "cjk-plain": "的",
        "backticks": "`",
        "fences": "```",
        "fence-lines": "```\n",
        "tildes": "~~~",
        "inline-code": "`a` ",
        "comment-openers": "<!--",
        "marker-prefixes": "<!-- hindsight:suggestion id=a",
        "i-have": "i have ",
        "is-now-a": "is now a ",
        "good-catch": "good catch, ",
        "thanks": "thanks, ",
        "dismiss": "dismiss ",
        "mentions": "@a ",
        "bot-mentions": "@a[bot], ",
        "urls": "http://",
        "quote-marks": ">",
        "quote-lines": "> a\n",
        "newlines": "\n",
        "x-dashes": "x-",
        "apostrophes": "a'",
        "plus-ones": "+1 ",
        "intentional": "intentional, ",
        "not-intentional": "not intentional. ",
        "aws-prefixes": "AKIA",
        "token-prefixes": "ghp_",
        "key-assignments": "aws_secret_access_key = ",
    }
    found = {name: _fill(unit) for name, unit in runs.items()}
    # The typed address: a mention, a run that no command word follows.
    found["address-spaces"] = "@a" + " " * (SIZE - 3) + "x"
    found["address-separators"] = "@hindsight" + _fill(", :", SIZE - 11) + "x"
    found["slash-spaces-undo"] = "/" + " " * (SIZE - 6) + "undox"
    found["accept-then-spaces"] = "accepted" + " " * (SIZE - 9) + "x"
    found["dismiss-then-colons"] = "dismiss" + _fill(": ", SIZE - 8) + "x"
    found["fixed-long-line"] = "fixed " + _fill("intentional by design ", SIZE - 6)
    found["unclosed-fence"] = "```" + _fill("a ", SIZE - 3)
    found["quoted-then-reply"] = _fill("> quoted words here\n", SIZE - 4) + "done"
    found["url-run"] = "https://" + _fill("a", SIZE - 8)
    # The natural rules' own worst cases, in the prose they read whole, behind a long code block.
    for name, unit in {
        "commas": ",",
        "clauses": "sure, ",
        "intros": "thanks, good catch, ",
        "cues": "intentional, ",
        "subjects": "i have now ",
        "now-state": "x-x is now a a a ",
        "cjk": "既に修正しました",
        "questions": "fixed? ",
    }.items():
        found[f"prose-{name}"] = _behind_code(_fill(unit, WINDOW))
    tail = "` x-x-x-x is now"
    found["prose-inline-code"] = "`" + _fill("a", SIZE - 1 - len(tail)) + tail
    return found


def _pull(body: str) -> PullState:
    """One suggestion comment and a maintainer's reply to it, as the write-back reads them."""
    suggestion = stored_suggestion("s1")
    marked = with_suggestion_marker("Check it.", "s1", suggestion.entry_key)
    comment = ThreadComment(100, marked, BOT, None, T0, path="src/app.py", line=2)
    reply = ThreadComment(101, body, OWNER, 100, T0 + timedelta(minutes=1))
    return PullState(SLUG, (comment, reply), (suggestion,), T0 + timedelta(days=1))


def reply_rules(body: str) -> None:
    """What the write-back does with one maintainer's reply."""
    if is_maintainer(OWNER) and is_undo(body, app_slug=SLUG):
        return
    classify_reply(body, app_slug=SLUG)
    parse_suggestion_marker(body)
    neutralise(body)


def ms(work: Callable[[], object], repeat: int) -> float:
    """The median wall time of `work`, in milliseconds, each run as the first reading of its
    text (what the reply rules keep of a text they read is dropped first)."""
    times = []
    for _ in range(repeat):
        forget_readings()
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    cases = shapes()
    prose = _fill(PROSE)
    baseline = ms(lambda: (len(prose), prose.lower()), args.repeat * 4)
    plain = max(ms(lambda: reply_rules(prose), args.repeat), baseline)
    rows = []
    for name, body in cases.items():
        assert len(body) == SIZE, name
        pull = _pull(body)
        rows.append(
            (
                name,
                ms(lambda body=body: reply_rules(body), args.repeat),  # type: ignore[misc]
                ms(lambda pull=pull: undecided_replies(pull), args.repeat),  # type: ignore[misc]
                ms(lambda body=body: find_secret(body), args.repeat),  # type: ignore[misc]
            )
        )
    rows.sort(key=lambda row: max(row[1], row[2]), reverse=True)
    print(f"{len(cases)} adversarial replies of {SIZE:,} characters, median of {args.repeat} runs")
    print(f"{'reply':<24} {'rules ms':>9} {'questions ms':>13} {'secret scan ms':>15}")
    for name, rules_ms, questions_ms, secret_ms in rows:
        print(f"{name:<24} {rules_ms:>9.2f} {questions_ms:>13.2f} {secret_ms:>15.2f}")
    worst = max(max(row[1], row[2]) for row in rows)
    worst_secret = max(rows, key=lambda row: row[3])
    print(f"plain prose reply: {plain:.2f} ms; len() + str.lower() of it: {baseline:.3f} ms")
    print(f"worst / plain prose reply: {worst / plain:.1f}x")
    print(f"worst / len() + str.lower(): {worst / baseline:.0f}x")
    print(f"secret scan, worst: {worst_secret[3]:.2f} ms ({worst_secret[0]}), informative")
    lines = [
        bar("reply-worst-case-ms", round(worst, 2), "ms", "<=", TARGET_MS),
        ratio_bar("reply-worst-vs-prose", worst, plain, "ms", "<=", MAX_WORST_VS_PROSE),
    ]
    print("\n".join(lines))
    return 0 if all(line.endswith("PASS") for line in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
