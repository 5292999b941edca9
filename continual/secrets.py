"""A curated in-process secret detector and redactor for untrusted text: keyword-prefiltered
rules, each linear in the length of the text, no I/O."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

GENERIC_MIN_LENGTH = 16
GENERIC_MAX_LENGTH = 256  # a longer assigned value is not taken for a secret (keeps it linear)
GENERIC_MIN_ENTROPY = 3.5  # Shannon bits per character of the assigned value


@dataclass(frozen=True, slots=True)
class SecretHit:
    """Which rule matched and where; deliberately carries no text."""

    rule: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _Rule:
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
PLACEHOLDER_RULE = "redacted"  # what find_secret reports for a placeholder already written
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

RULE_IDS: tuple[str, ...] = tuple(rule.id for rule in RULES)

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


def _first_hit(rule: _Rule, text: str) -> SecretHit | None:
    for match in rule.pattern.finditer(text):
        if rule.id == "generic-assignment" and not _generic_value_is_secret(match.group(1)):
            continue
        start, end = match.span(rule.group)
        return SecretHit(rule.id, start, end)
    return None


def find_secret(text: str) -> SecretHit | None:
    """The earliest secret in ``text`` (rule id and span), or None; never logs or keeps the text.

    A rule's regular expression runs only when one of its keywords occurs in the lower-cased text,
    so a clean text costs a few substring checks.
    """
    if not text:
        return None
    lowered = text.lower()
    best: SecretHit | None = None
    if "[redacted " in lowered:  # a secret redacted earlier is still one (a lesson stays flagged)
        found = _PLACEHOLDER.search(text)
        if found is not None:
            best = SecretHit(PLACEHOLDER_RULE, found.start(), found.end())
    for rule in RULES:
        if not any(keyword in lowered for keyword in rule.keywords):
            continue
        hit = _first_hit(rule, text)
        if hit is not None and (best is None or hit.start < best.start):
            best = hit
    return best


def first_secret(*texts: str) -> SecretHit | None:
    """The earliest secret in the first of ``texts`` that holds one, or None."""
    for text in texts:
        hit = find_secret(text)
        if hit is not None:
            return hit
    return None


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
