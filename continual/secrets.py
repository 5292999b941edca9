"""A curated in-process secret detector for lesson text: keyword-prefiltered rules, no I/O."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

GENERIC_MIN_LENGTH = 16
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


_B64 = r"[A-Za-z0-9+/=]"

RULES: tuple[_Rule, ...] = (
    _Rule(
        "aws-access-key-id",
        ("akia", "asia", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "abia", "acca"),
        re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[0-9A-Z]{16}\b"),
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
        re.compile(r"\bxox[abpr]-[0-9]{6,}-[0-9A-Za-z\-]{8,}"),
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
            r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:\s|\\n)*(?:[A-Za-z-]+:[^\n]*(?:\n|\\n)(?:\s|\\n)*)*" + _B64 + r"{16,}"
        ),
    ),
    _Rule(
        "jwt",
        ("eyj",),
        re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    ),
    _Rule(
        "generic-assignment",
        ("key", "secret", "token", "passw", "pwd", "credential", "auth"),
        re.compile(
            r"(?:key|secret|token|passw(?:or)?d|pwd|credentials?|auth)[A-Za-z0-9_\-]*[\"'`]?"
            r"\s*(?:=>|:=|[:=])\s*[\"'`]?"
            r"([A-Za-z0-9+/=_\-.~]{" + str(GENERIC_MIN_LENGTH) + r",})(?![A-Za-z0-9+/=_\-.~(])",
            re.IGNORECASE,
        ),
        1,
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
