"""Decision benchmark: precision and recall on the reply corpus and its held-out batches, and speed.

Speed is a ratio measured in the same run: the rules reading each reply of the corpus, against a
naive reader that folds the reply and searches it with every phrase, veto and deferral pattern of
the eight languages (what the rules cost with no trigger-word index and no early exit).
`decide_pull` over 50,000 threads is printed for reference; its bar, against classifying the same
replies alone, is `writeback-threads-vs-pure` in bench/writeback.py.
"""

from __future__ import annotations

import json
import re
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import bar, ratio_bar
from continual.entry_keys import entry_key
from continual.markers import with_suggestion_marker
from continual.replies import classify_reply, read_deferral, rules
from continual.replies.phrases import LANGUAGES
from continual.replies.verdict import fold
from continual.stored import StoredSuggestion
from continual.writeback.authors import Author
from continual.writeback.pull import PullState, decide_pull
from continual.writeback.threads import ThreadComment

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "replies.jsonl"
# Written from measured facts about how real maintainers answer, before the rules were changed for
# them, and never used to change a rule: the figure that says how the rules generalise.
HELD_OUT_CORPUS = CORPUS.with_name("replies_heldout.jsonl")
# The same, written later, with agreement alone ("Good catch!") labelled an acceptance.
HELD_OUT_CORPUS_2 = CORPUS.with_name("replies_heldout_2.jsonl")
# Written before the rules read deferrals, agreement without a change and argued refusals, and
# scored once: each reply also says its category (accepted, dismissed, deferred,
# agreed-without-change, question, other) and, when it decides, when it binds.
HELD_OUT_CORPUS_3 = CORPUS.with_name("replies_heldout_3.jsonl")
HELD_OUT_DEFERRAL_PRECISION = 0.95
HELD_OUT_DEFERRAL_RECALL = 0.7
HELD_OUT_PRECISION = 0.95
HELD_OUT_ACCEPT_RECALL = 0.7
HELD_OUT_MAINTAINER_DISMISS_RECALL = 0.5
SLUG = "hindsight"
BOT_LOGIN = f"{SLUG}[bot]"
MIN_PRECISION = 0.98
MIN_RECALL = 0.75
# Batches labelled after the rules were written, scored on their own against the same targets, so
# that a classifier fitted to the rows it was written against shows it.
HELD_OUT = ("batch 2", "batch 3", "batch 4", "batch 5", "batch 6", "batch 7", "batch 8")
# The rules must read a reply in at most this share of the naive reader's time.
MAX_RULES_VS_SCAN = 0.25
CLASSIFICATIONS = 100_000
THREADS = 50_000
REPLIES_PER_THREAD = 4


def scores(rows: list[dict[str, object]], label: str) -> tuple[float, float]:
    """Precision and recall for one label; a dismissal with the wrong reason is a wrong verdict."""
    true_positive = false_positive = false_negative = 0
    for row in rows:
        verdict = classify_reply(str(row["text"]), app_slug=SLUG)
        decision = verdict.decision.value if verdict else "none"
        reason = verdict.reason.value if verdict and verdict.reason else None
        expected = row["label"] == label
        correct = decision == label and expected
        correct = correct and (label != "dismissed" or reason == row["reason"])
        if correct:
            true_positive += 1
        elif decision == label:
            false_positive += 1
        if expected and not correct:
            false_negative += 1
    return (
        true_positive / max(1, true_positive + false_positive),
        true_positive / max(1, true_positive + false_negative),
    )


def held_out(rows: list[dict[str, object]], name: str) -> list[dict[str, object]]:
    """The rows of one held-out batch: their note starts with its name ("batch 2, hard negatives")."""
    return [row for row in rows if str(row.get("note") or "").startswith(name)]


def label_bars(rows: list[dict[str, object]], scope: str, prefix: str) -> list[str]:
    """Precision and recall bars for accepted and dismissed over some rows, with a summary line."""
    lines = []
    for label in ("accepted", "dismissed"):
        precision, recall = scores(rows, label)
        decided = sum(row["label"] == label for row in rows)
        print(
            f"{scope} {label}: precision {precision:.4f}, recall {recall:.4f} "
            f"({decided} {label} of {len(rows)} replies)"
        )
        lines.append(bar(f"{prefix}{label}-precision", precision, "ratio", ">=", MIN_PRECISION))
        lines.append(bar(f"{prefix}{label}-recall", recall, "ratio", ">=", MIN_RECALL))
    return lines


def decision_scores(rows: list[dict[str, object]], label: str) -> tuple[float, float, int]:
    """Precision and recall of one decision (the reason aside), and how many rows carry it."""
    true_positive = false_positive = false_negative = 0
    for row in rows:
        verdict = classify_reply(str(row["text"]), app_slug=SLUG)
        said = verdict.decision.value if verdict else "none"
        if said == label and row["label"] == label:
            true_positive += 1
        elif said == label:
            false_positive += 1
        elif row["label"] == label:
            false_negative += 1
    decided = true_positive + false_negative
    return (
        true_positive / max(1, true_positive + false_positive),
        true_positive / max(1, decided),
        decided,
    )


def held_out_bars(rows: list[dict[str, object]], name: str) -> list[str]:
    """The held-out replies: precision of both decisions, recall of acceptances, and recall of
    maintainers' dismissals (the replies that stop re-raised findings)."""
    accepted_p, accepted_r, accepted_n = decision_scores(rows, "accepted")
    dismissed_p, _, _ = decision_scores(rows, "dismissed")
    maintainers = [row for row in rows if row.get("who") == "maintainer"]
    _, maintainer_r, maintainer_n = decision_scores(maintainers, "dismissed")
    print(
        f"{name} ({len(rows)} replies): accepted precision {accepted_p:.3f}, recall "
        f"{accepted_r:.3f} (of {accepted_n}); dismissed precision {dismissed_p:.3f}; maintainers' "
        f"dismissals recall {maintainer_r:.3f} (of {maintainer_n})"
    )
    return [
        bar(f"{name}-accepted-precision", accepted_p, "ratio", ">=", HELD_OUT_PRECISION),
        bar(f"{name}-accepted-recall", accepted_r, "ratio", ">=", HELD_OUT_ACCEPT_RECALL),
        bar(f"{name}-dismissed-precision", dismissed_p, "ratio", ">=", HELD_OUT_PRECISION),
        bar(
            f"{name}-maintainer-dismissed-recall",
            maintainer_r,
            "ratio",
            ">=",
            HELD_OUT_MAINTAINER_DISMISS_RECALL,
        ),
    ]


def category_lines(rows: list[dict[str, object]], name: str) -> list[str]:
    """Per category, what the rules decided; the binding of the right decisions; the wrong rows."""
    lines = []
    decided: dict[str, dict[str, int]] = {}
    bound_right = bound = 0
    for row in rows:
        verdict = classify_reply(str(row["text"]), app_slug=SLUG)
        said = verdict.decision.value if verdict else "none"
        counts = decided.setdefault(str(row["category"]), {})
        counts[said] = counts.get(said, 0) + 1
        if verdict is not None and said == row["label"]:
            bound += 1
            bound_right += verdict.binding.value == row["binding"]
        if said != row["label"]:
            lines.append(f"  {name} wrong: {row['label']} read as {said}: {row['text']!r}")
    for category, counts in sorted(decided.items()):
        shown = ", ".join(f"{label} {count}" for label, count in sorted(counts.items()))
        print(f"{name} {category}: {shown}")
    print(f"{name} binding right on {bound_right} of {bound} right decisions")
    return lines


def deferral_bars(rows: list[dict[str, object]], name: str) -> list[str]:
    """How well read_deferral finds the replies labelled deferred, and that none of them decides."""
    found = [read_deferral(str(row["text"])) is not None for row in rows]
    deferred = [row["category"] == "deferred" for row in rows]
    true_positive = sum(f and d for f, d in zip(found, deferred, strict=True))
    precision = true_positive / max(1, sum(found))
    recall = true_positive / max(1, sum(deferred))
    decided = sum(
        classify_reply(str(row["text"]), app_slug=SLUG) is not None
        for row, is_deferred in zip(rows, deferred, strict=True)
        if is_deferred
    )
    print(
        f"{name} deferrals: precision {precision:.3f}, recall {recall:.3f} (of {sum(deferred)});"
        f" {decided} deferrals read as a decision"
    )
    return [
        bar(f"{name}-deferral-precision", precision, "ratio", ">=", HELD_OUT_DEFERRAL_PRECISION),
        bar(f"{name}-deferral-recall", recall, "ratio", ">=", HELD_OUT_DEFERRAL_RECALL),
        bar(f"{name}-deferrals-decided", decided, "replies", "<=", 0),
    ]


def replies_per_second(texts: list[str]) -> float:
    done = 0
    start = time.perf_counter()
    while done < CLASSIFICATIONS:
        for text in texts:
            classify_reply(text, app_slug=SLUG)
        done += len(texts)
    return done / (time.perf_counter() - start)


def naive_patterns() -> list[re.Pattern[str]]:
    """Every pattern the rules may search a reply with, each searched by the naive reader."""
    phrases = [rule.regex for rule in rules.ACCEPT_START_RULES + rules.ACCEPT_ANY_RULES]
    phrases += [rule.regex for rule in rules.DISMISS_RULES]
    vetoes = [rule.veto for rule in rules.ACCEPT_START_RULES + rules.ACCEPT_ANY_RULES if rule.veto]
    vetoes += [
        rules.VETO_ANYWHERE,
        rules.VETO_CJK,
        rules.VETO_TODO_RE,
        rules.VETO_DISMISS_BEFORE,
        rules.VETO_REFUSAL,
        rules.AGREEMENT,
        rules.MOVED_ON,
        rules.QUESTION,
        *rules.VETO_ACCEPT.values(),
    ]
    deferrals = [re.compile(lang.deferral) for lang in LANGUAGES if lang.deferral]
    return phrases + vetoes + deferrals


def naive_replies_per_second(texts: list[str], patterns: list[re.Pattern[str]]) -> float:
    done = 0
    start = time.perf_counter()
    while done < CLASSIFICATIONS // 10:
        for text in texts:
            low = fold(text)
            for pattern in patterns:
                pattern.search(low)
        done += len(texts)
    return done / (time.perf_counter() - start)


def synthetic_pull(texts: list[str]) -> PullState:
    """A PR with THREADS suggestion comments of the bot, each with REPLIES_PER_THREAD replies."""
    bot = Author(BOT_LOGIN, "Bot", "NONE", via_app=True)
    people = [
        Author("olivia", "User", "OWNER"),
        Author("max", "User", "MEMBER"),
        Author("chris", "User", "CONTRIBUTOR"),
        Author("renovate[bot]", "Bot", "NONE"),
    ]
    key = entry_key("correctness", "Unchecked parse_config result")
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    comments: list[ThreadComment] = []
    known: list[StoredSuggestion] = []
    next_id = 1
    for thread in range(THREADS):
        sid = f"s{thread}"
        known.append(_stored(sid, key))
        head = next_id
        body = with_suggestion_marker("Check the result of `parse_config`.", sid, key)
        comments.append(ThreadComment(head, body, bot, None, t0, path="src/app.py", line=12))
        next_id += 1
        for offset in range(REPLIES_PER_THREAD):
            text = texts[(thread * REPLIES_PER_THREAD + offset) % len(texts)]
            author = people[(thread + offset) % len(people)]
            created = t0 + timedelta(minutes=offset + 1)
            comments.append(ThreadComment(next_id, text, author, head, created))
            next_id += 1
    return PullState(SLUG, tuple(comments), tuple(known), read_at=t0)


def _stored(sid: str, key: str) -> StoredSuggestion:
    return StoredSuggestion(
        id=sid,
        account_id=1,
        repository_id=1,
        pr=1,
        head_sha="a" * 40,
        path="src/app.py",
        line=12,
        seat="alpha",
        lab="acme-labs",
        lens="correctness",
        title="Unchecked parse_config result",
        entry_key=key,
        created_ms=0,
    )


def main() -> int:
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]
    texts = [str(row["text"]) for row in rows]
    lines = label_bars(rows, "whole corpus", "")
    for name in HELD_OUT:
        lines += label_bars(held_out(rows, name), name, f"{name.replace(' ', '-')}-")
    for name, path in (("held-out", HELD_OUT_CORPUS), ("held-out-2", HELD_OUT_CORPUS_2)):
        unseen = path.read_text(encoding="utf-8").splitlines()
        lines += held_out_bars([json.loads(line) for line in unseen if line], name)
    unseen = HELD_OUT_CORPUS_3.read_text(encoding="utf-8").splitlines()
    third = [json.loads(line) for line in unseen if line]
    lines += held_out_bars(third, "held-out-3")
    for label in ("accepted", "dismissed"):
        precision, recall, count = decision_scores(third, label)
        print(f"held-out-3 {label}: precision {precision:.3f}, recall {recall:.3f} (of {count})")
    lines += deferral_bars(third, "held-out-3")
    wrong = category_lines(third, "held-out-3")
    rate = replies_per_second(texts)
    patterns = naive_patterns()
    naive = naive_replies_per_second(texts, patterns)
    print(
        f"classify_reply: {rate:,.0f} replies/s over {CLASSIFICATIONS:,} classifications; "
        f"naive reader ({len(patterns)} patterns a reply): {naive:,.0f} replies/s"
    )
    lines.append(
        ratio_bar(
            "reply-rules-vs-scan", 1e6 / rate, 1e6 / naive, "µs a reply", "<=", MAX_RULES_VS_SCAN
        )
    )
    pull = synthetic_pull(texts)
    start = time.perf_counter()
    decisions = decide_pull(pull).decisions
    seconds = time.perf_counter() - start
    print(
        f"decide_pull: {THREADS:,} threads ({len(pull.comments):,} comments) in {seconds:.2f}s, "
        f"{THREADS / seconds:,.0f} threads/s, {len(decisions):,} decisions (its bar: "
        "writeback-threads-vs-pure in bench/writeback.py)"
    )
    print("\n".join(wrong))
    print("\n".join(lines))
    return 0 if all(line.endswith("PASS") for line in lines) else 1


if __name__ == "__main__":
    raise SystemExit(main())
