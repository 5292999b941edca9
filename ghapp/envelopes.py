"""The shape of each webhook event, checked before routing: the fields its handlers read, typed.

A delivery is refused (422, nothing stored) when a field a route reads has the wrong type or is
missing where its handler needs it. Everything else in a payload is left alone, so real payloads
with more (or, from older GitHub versions, fewer optional) fields still pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictBool, StrictInt, StrictStr, ValidationError


class Shape(BaseModel):
    """A part of a payload: strict types on the fields named, any other field left alone."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)


class Owner(Shape):
    id: StrictInt
    login: StrictStr
    type: StrictStr | None = None


class User(Shape):
    login: StrictStr | None = None
    type: StrictStr | None = None


class InstallationRef(Shape):
    id: StrictInt


class InstallationOf(InstallationRef):
    account: Owner
    suspended_at: StrictStr | None = None


class RepositoryRef(Shape):
    id: StrictInt
    name: StrictStr | None = None
    full_name: StrictStr | None = None


class RepositoryOf(RepositoryRef):
    full_name: StrictStr
    owner: Owner | None = None


class Head(Shape):
    sha: StrictStr


class Pull(Shape):
    number: StrictInt
    head: Head | None = None
    user: User | None = None
    draft: StrictBool | None = None
    body: StrictStr | None = None
    state: StrictStr | None = None
    merged: StrictBool | None = None
    merged_at: StrictStr | None = None
    closed_at: StrictStr | None = None
    merged_by: User | None = None
    author_association: StrictStr | None = None


class Issue(Shape):
    number: StrictInt
    pull_request: dict[str, Any] | None = None
    user: User | None = None


class Comment(Shape):
    id: StrictInt | None = None
    body: StrictStr | None = None
    user: User | None = None


class Envelope(Shape):
    """What every delivery must get right, whatever its event."""

    action: StrictStr | None = None
    installation: InstallationRef | None = None
    repository: RepositoryRef | None = None
    organization: Owner | None = None


class InstallationEvent(Envelope):
    action: StrictStr
    installation: InstallationOf
    repositories: list[RepositoryRef] | None = None


class InstallationRepositoriesEvent(Envelope):
    action: StrictStr
    installation: InstallationOf
    repositories_added: list[RepositoryRef] | None = None
    repositories_removed: list[RepositoryRef] | None = None


class RepositoryEvent(Envelope):
    action: StrictStr
    installation: InstallationRef
    repository: RepositoryOf


class PullRequestEvent(Envelope):
    action: StrictStr
    repository: RepositoryOf
    pull_request: Pull


class ReviewCommentEvent(PullRequestEvent):
    comment: Comment


class ReviewEvent(PullRequestEvent):
    review: Comment


class IssueCommentEvent(Envelope):
    action: StrictStr
    repository: RepositoryOf
    issue: Issue
    comment: Comment


class BadPayload(ValueError):
    """A delivery whose fields do not have the shape its event needs; the message names them."""

    def __init__(self, event: str, error: ValidationError) -> None:
        problems = [
            f"{'.'.join(str(part) for part in item['loc']) or 'payload'}: {item['msg']}"
            for item in error.errors(include_url=False)[:5]
        ]
        super().__init__(f"the {event} payload is malformed: " + "; ".join(problems))


def check(event: str, shape: type[Shape], payload: Mapping[str, Any]) -> None:
    """Raise `BadPayload` unless `payload` has `shape`."""
    try:
        shape.model_validate(payload)
    except ValidationError as exc:
        raise BadPayload(event, exc) from None
