"""The labelled reply corpus: precision and recall of the classifier must stay above the bars."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from continual.replies import classify_reply
from continual.values import Reason

CORPUS = Path(__file__).resolve().parent / "data" / "replies.jsonl"
LABELS = {"accepted", "dismissed", "none"}
LANGUAGES = {"en", "de", "fr", "es", "pt", "zh", "ja", "ko"}
MIN_PRECISION = 0.98
MIN_RECALL = 0.75


def load() -> list[dict[str, object]]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]


def predicted(row: dict[str, object]) -> tuple[str, str | None]:
    verdict = classify_reply(str(row["text"]), app_slug="hindsight")
    if verdict is None:
        return "none", None
    return verdict.decision.value, verdict.reason.value if verdict.reason else None


def test_corpus_is_well_formed() -> None:
    rows = load()
    assert len(rows) >= 300
    reasons = {reason.value for reason in Reason}
    for row in rows:
        assert set(row) <= {"text", "label", "reason", "lang", "note"}, row
        assert row["label"] in LABELS, row
        assert row["lang"] in LANGUAGES, row
        if row["label"] == "dismissed":
            assert row["reason"] in reasons, row
        else:
            assert row["reason"] is None, row
    assert len({row["text"] for row in rows}) == len(rows), "duplicate texts"
    counts = Counter(row["lang"] for row in rows)
    assert all(counts[language] >= 10 for language in LANGUAGES), counts
    assert Counter(row["label"] for row in rows)["none"] >= 100, "too few hard negatives"


@pytest.mark.parametrize("label", ["accepted", "dismissed"])
def test_precision_and_recall(label: str) -> None:
    rows = load()
    true_positive = false_positive = false_negative = 0
    wrong: list[str] = []
    for row in rows:
        decision, reason = predicted(row)
        expected = row["label"] == label
        got = decision == label
        # a dismissal with the wrong reason is a wrong verdict: it counts against precision
        correct = got and expected and (label != "dismissed" or reason == row["reason"])
        if correct:
            true_positive += 1
        elif got:
            false_positive += 1
            wrong.append(f"{row['text']!r}: {decision}/{reason}")
        if expected and not correct:
            false_negative += 1
    precision = true_positive / max(1, true_positive + false_positive)
    recall = true_positive / max(1, true_positive + false_negative)
    assert precision >= MIN_PRECISION, (precision, wrong)
    assert recall >= MIN_RECALL, recall
