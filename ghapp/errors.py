"""Errors that cross from the GitHub client into the job runner, and what the runner does with them."""

from __future__ import annotations

from datetime import datetime


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
