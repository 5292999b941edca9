"""The GitHub client's errors (Gone, RetryAt, Transient, Forbidden, Rejected) and how GitHub's answers become them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

RATE_LIMIT_FALLBACK = timedelta(seconds=60)


class GitHubError(Exception):
    """Base of every error the GitHub client raises on purpose."""


class Gone(GitHubError):
    """GitHub answered 404 (or 410): the comment, pull request or repository no longer exists.

    A domain answer, not a crash: callers treat the object as deleted.
    """

    def __init__(self, what: str) -> None:
        super().__init__(f"{what} is gone (404)")
        self.what = what


class RetryAt(GitHubError):
    """GitHub asked us to come back later (403/429 with retry-after or x-ratelimit-reset).

    The job runner reschedules the job for ``at`` without counting a failed attempt.
    """

    def __init__(self, at: datetime, reason: str) -> None:
        super().__init__(f"rate limited until {at.isoformat()}: {reason}")
        self.at = at
        self.reason = reason


class Transient(GitHubError):
    """A 5xx or a connection failure: the job runner retries with exponential backoff."""


class Forbidden(GitHubError):
    """A 403 with no rate-limit headers: the installation lacks a permission. Not retried."""


class Rejected(GitHubError):
    """GitHub refused the request as invalid (400, 409, 422…): fix the request, do not retry.

    A review comment on a line outside the pull request's diff is answered this way (422).
    """

    def __init__(self, status: int, what: str, message: str, errors: Sequence[Any] = ()) -> None:
        detail = "; ".join(str(error) for error in errors)
        super().__init__(
            f"GitHub rejected {what} ({status}): {message}" + (f": {detail}" if detail else "")
        )
        self.status = status
        self.message = message
        self.errors = tuple(errors)


def _message(response: httpx.Response) -> tuple[str, Sequence[Any]]:
    try:
        data = response.json()
    except ValueError:
        return response.reason_phrase, ()
    if not isinstance(data, Mapping):
        return response.reason_phrase, ()
    errors = data.get("errors")
    return str(data.get("message") or response.reason_phrase), errors if isinstance(
        errors, list
    ) else ()


def retry_time(
    status: int, headers: Mapping[str, str], message: str, now: datetime
) -> datetime | None:
    """When a 403/429 says to come back, per GitHub's rate-limit rules; None if it does not.

    ``retry-after`` (seconds or an HTTP date) wins; then ``x-ratelimit-reset`` when the answer is a
    429 or the remaining budget is 0; a secondary-limit message or a bare 429 waits a minute. A 403
    with ordinary rate-limit headers (GitHub sends them on every answer) is not a rate limit.
    """
    retry_after = headers.get("retry-after")
    if retry_after:
        try:
            return now + timedelta(seconds=max(int(retry_after), 0))
        except ValueError:
            try:
                return max(parsedate_to_datetime(retry_after), now)
            except (TypeError, ValueError):
                return now + RATE_LIMIT_FALLBACK
    reset = headers.get("x-ratelimit-reset")
    if status == 429 or headers.get("x-ratelimit-remaining") == "0":
        if reset and reset.isdigit():
            return max(datetime.fromtimestamp(int(reset), UTC), now)
        return now + RATE_LIMIT_FALLBACK
    if "rate limit" in message.lower():
        return now + RATE_LIMIT_FALLBACK
    return None


def error_for(response: httpx.Response, what: str, now: datetime) -> GitHubError:
    """The domain error for GitHub's non-2xx ``response`` to a request about ``what``."""
    status = response.status_code
    message, errors = _message(response)
    if status in (404, 410):
        return Gone(what)
    if status in (403, 429):
        at = retry_time(status, response.headers, message, now)
        if at is not None:
            return RetryAt(at, f"{status} on {what}: {message}")
        return Forbidden(f"GitHub refused {what} (403): {message}")
    if status >= 500:
        return Transient(f"GitHub answered {status} to {what}")
    return Rejected(status, what, message, errors)
