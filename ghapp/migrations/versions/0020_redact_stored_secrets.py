"""Redact the secrets already stored in text that came from pull requests, seats and replies.

Each column redacted at write time is rewritten in batches (by primary key): suggestions, review
drafts, entries, receipts' spans, link names, the judge's kept answers, memory summaries and items,
proofs' tests. Suggested code holding a secret is cleared, as a new finding's is. The rules and
placeholders are those of ``continual.secrets`` when this migration was written, frozen below, so
that a later change to them never changes what this migration does. Delivery bodies are left as GitHub sent them
(kept for replays for the retention period, then pruned).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import sqlalchemy as sa
from alembic import op

revision = "0022_redact_stored_secrets"
down_revision = "0021_ledger_sessions"
branch_labels = None
depends_on = None

BATCH = 500


# The secret rules as continual.secrets held them when this migration was written.
GENERIC_MIN_LENGTH = 16
GENERIC_MAX_LENGTH = 256  # a longer assigned value is not taken for a secret (keeps it linear)
GENERIC_MIN_ENTROPY = 3.5  # Shannon bits per character of the assigned value


class _Rule(NamedTuple):  # not a dataclass: Alembic loads a migration outside sys.modules
    id: str
    keywords: tuple[str, ...]  # lower-case; the rule runs only if one occurs in the lowered text
    pattern: re.Pattern[str]
    group: int = 0  # the span reported
    name: str = ""  # the placeholder's name (``[redacted <name>]``); the id when empty

    @property
    def placeholder(self) -> str:
        return PLACEHOLDER.format(name=self.name or self.id)


_B64 = r"[A-Za-z0-9+/=]"
PLACEHOLDER = "[redacted {name}]"
_PLACEHOLDER = re.compile(r"\[redacted [a-z0-9-]{1,40}\]")

RULES: tuple[_Rule, ...] = (
    _Rule(
        "aws-access-key-id",
        ("akia", "asia", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "abia", "acca"),
        re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[0-9A-Z]{16}\b"),
        name="aws-access-key",
    ),
    _Rule(
        "aws-secret-access-key",
        ("aws",),
        re.compile(
            r"aws_?(?:secret)_?(?:access_?)?key[\"'`]?\s*(?:=>|:=|[:=])\s*[\"'`]?"
            r"(" + _B64 + r"{40})(?!" + _B64 + r")",
            re.IGNORECASE,
        ),
        1,
        "aws-secret-key",
    ),
    _Rule(
        "gcp-api-key",
        ("aiza",),
        re.compile(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"),
    ),
    _Rule(
        "gcp-service-account-key",
        ("service_account", "private_key_id"),
        re.compile(
            r"\"type\"\s*:\s*\"service_account\""
            r"|\"private_key_id\"\s*:\s*\"[0-9a-f]{40}\""
        ),
    ),
    _Rule(
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b"),
    ),
    _Rule(
        "github-fine-grained-token",
        ("github_pat_",),
        re.compile(r"\bgithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}\b"),
    ),
    _Rule(
        "gitlab-token",
        ("glpat-",),
        re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}(?![A-Za-z0-9_\-])"),
    ),
    _Rule(
        "slack-token",
        ("xoxa-", "xoxb-", "xoxp-", "xoxr-"),
        re.compile(r"\bxox[abpr]-[0-9]{6,}+-[0-9A-Za-z\-]{8,}+"),
    ),
    _Rule(
        "slack-webhook",
        ("hooks.slack.com",),
        re.compile(r"hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,}"),
    ),
    _Rule(
        "stripe-key",
        ("sk_live_", "rk_live_", "sk_test_", "rk_test_"),
        re.compile(r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{20,}\b"),
    ),
    _Rule(
        "private-key",
        ("private key",),
        re.compile(
            r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:\s|\\n){0,8}"
            r"(?:[A-Za-z-]{1,40}:[^\n\\]{0,200}(?:\n|\\n)(?:\s|\\n){0,8}){0,4}" + _B64 + r"{16,}+"
            r"(?:[A-Za-z0-9+/=\s]|\\[nr])*+(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----)?"
        ),
    ),
    _Rule(
        "jwt",
        ("eyj",),
        re.compile(
            r"(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]{8,}+\.eyJ[A-Za-z0-9_\-]{8,}+\.[A-Za-z0-9_\-]{8,}+"
        ),
    ),
    _Rule(
        "generic-assignment",
        ("key", "secret", "token", "passw", "pwd", "credential", "auth"),
        re.compile(
            r"(?:key|secret|token|passw(?:or)?d|pwd|credentials?|auth)[A-Za-z0-9_\-]{0,40}[\"'`]?"
            r"\s*(?:=>|:=|[:=])\s*[\"'`]?"
            r"([A-Za-z0-9+/=_\-.~]{"
            + str(GENERIC_MIN_LENGTH)
            + r","
            + str(GENERIC_MAX_LENGTH)
            + r"}+)"
            r"(?![A-Za-z0-9+/=_\-.~(])",
            re.IGNORECASE,
        ),
        1,
        "secret",
    ),
)

_NAME_SEGMENT = re.compile(r"[A-Za-z]+[0-9]{0,3}|[0-9]{1,3}")
_SEGMENT_SPLIT = re.compile(r"[._\-/~]+")


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value`` (0.0 for an empty string)."""
    if not value:
        return 0.0
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in Counter(value).values())


def _looks_like_name(value: str) -> bool:
    """True for dotted or snake names such as ``settings.webhook_secret`` or ``sha256_digest``."""
    segments = [s for s in _SEGMENT_SPLIT.split(value) if s]
    return bool(segments) and all(_NAME_SEGMENT.fullmatch(s) for s in segments)


def _generic_value_is_secret(value: str) -> bool:
    if not any(c.isdigit() for c in value) or not any(c.isalpha() for c in value):
        return False
    if _looks_like_name(value):
        return False
    return shannon_entropy(value) >= GENERIC_MIN_ENTROPY


def _spans(text: str) -> list[tuple[int, int, str]]:
    """Every secret in ``text`` as (start, end, placeholder), in order, overlaps merged."""
    lowered = text.lower()
    found: list[tuple[int, int, str]] = []
    for rule in RULES:
        if not any(keyword in lowered for keyword in rule.keywords):
            continue
        for match in rule.pattern.finditer(text):
            if rule.id == "generic-assignment" and not _generic_value_is_secret(match.group(1)):
                continue
            start, end = match.span(rule.group)
            found.append((start, end, rule.placeholder))
    found.sort()
    merged: list[tuple[int, int, str]] = []
    for start, end, placeholder in found:
        if merged and start < merged[-1][1]:
            first = merged[-1]
            merged[-1] = (first[0], max(first[1], end), first[2])
        else:
            merged.append((start, end, placeholder))
    return merged


def redact(text: str) -> str:
    """``text`` with each secret replaced by its rule's placeholder (``[redacted github-token]``).

    Idempotent; a text with no secret comes back as the same object."""
    if not text:
        return text
    spans = _spans(text)
    if not spans:
        return text
    parts: list[str] = []
    at = 0
    for start, end, placeholder in spans:
        parts += [text[at:start], placeholder]
        at = end
    parts.append(text[at:])
    return "".join(parts)


def redact_optional(text: str | None) -> str | None:
    """``redact`` for a column that may be NULL."""
    return None if text is None else redact(text)


def redact_values(value: Any) -> Any:
    """A JSON-like value (dicts, lists, strings) with every string in it redacted; keys kept."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {key: redact_values(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_values(item) for item in value]
    return value


def redact_json(text: str | None) -> str | None:
    """A stored JSON text with every string in it redacted (a text that is not JSON is redacted
    as text); None stays None."""
    if text is None or not text:
        return text
    try:
        parsed = json.loads(text)
    except ValueError:
        return redact(text)
    cleaned = redact_values(parsed)
    return text if cleaned == parsed else json.dumps(cleaned, sort_keys=True)


def _replacement(code: str | None) -> str | None:
    """Suggested code holding a secret (or a placeholder written earlier) is cleared."""
    if code is None or not code:
        return code
    return None if _PLACEHOLDER.search(code) is not None or _spans(code) else code


TEXT = redact_optional
JSON = redact_json
# table: (primary key columns, {column: how it is cleaned})
COLUMNS: dict[str, tuple[tuple[str, ...], dict[str, Callable[[str | None], str | None]]]] = {
    "suggestions": (
        ("id",),
        {
            "path": TEXT,
            "title": TEXT,
            "body": TEXT,
            "lesson": TEXT,
            "replacement": _replacement,
            "anchors": JSON,
        },
    ),
    "reviews": (("id",), {"draft": JSON}),
    "entries": (("id",), {"title": TEXT, "text": TEXT, "associations": JSON}),
    "receipts": (("id",), {"span": TEXT}),
    "link_names": (("account_id", "number"), {"name": TEXT}),
    "judge_verdicts": (("id",), {"quote": TEXT, "detail": TEXT}),
    "memory_summaries": (("repository_id",), {"text": TEXT}),
    "memory_items": (("id",), {"subject": TEXT, "text": TEXT, "files": JSON}),
    "memory_hits": (("id",), {"subject": TEXT}),
    "proofs": (("suggestion_id",), {"test": TEXT, "reason": TEXT}),
    "review_calls": (("id",), {"message": TEXT}),
    "jobs": (("id",), {"last_error": TEXT}),
    "suppressed_findings": (("id",), {"title": TEXT, "path": TEXT}),
    "lesson_events": (("id",), {"before_text": TEXT, "after_text": TEXT}),
}


def _redact_table(
    conn: sa.Connection,
    name: str,
    keys: tuple[str, ...],
    columns: dict[str, Callable[[str | None], str | None]],
) -> None:
    table = sa.table(name, *(sa.column(c) for c in (*keys, *columns)))
    order = [table.c[k] for k in keys]
    after: tuple[object, ...] | None = None
    while True:
        query = sa.select(*order, *(table.c[c] for c in columns)).order_by(*order).limit(BATCH)
        if after is not None:
            query = query.where(sa.tuple_(*order) > sa.tuple_(*after))
        rows = conn.execute(query).all()
        if not rows:
            return
        for row in rows:
            changed = {}
            for column, clean in columns.items():
                value = getattr(row, column)
                cleaned = clean(value)
                if cleaned != value:
                    changed[column] = cleaned
            if changed:
                where = sa.and_(*(table.c[k] == getattr(row, k) for k in keys))
                conn.execute(sa.update(table).where(where).values(**changed))
        after = tuple(getattr(rows[-1], k) for k in keys)


def upgrade() -> None:
    conn = op.get_bind()
    for name, (keys, columns) in COLUMNS.items():
        _redact_table(conn, name, keys, columns)


def downgrade() -> None:
    """A redacted secret cannot come back."""
