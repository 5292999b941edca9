"""The shape of each webhook event, checked before routing: the fields its handlers read, typed.

A delivery is refused (422, nothing stored) when a field a route reads has the wrong type, is out
of the range its column holds, or is missing where its handler needs it; and, whatever its event,
when any integer in it passes 64 bits or any text in it holds NUL (which PostgreSQL refuses to
store). Everything else in a payload is left alone, so real payloads with more (or, from older
GitHub versions, fewer optional) fields still pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
)

# Ids are stored as BIGINT (GitHub's pass 2^32); pull request and issue numbers as INTEGER.
ID_MAX = 2**63 - 1
NUMBER_MAX = 2**31 - 1
# An account login: letters, digits, `-` (and `_` for managed users), or a bot's `name[bot]`;
# never `#`, which marks a login an account has given up (`ghapp.tenants.released`).
LOGIN_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,38}(\[bot\])?$"
# `owner/name` as GitHub allows them: a name of letters, digits, `-`, `_` and `.`, never `.`/`..`.
FULL_NAME_PATTERN = (
    r"^[A-Za-z0-9][A-Za-z0-9_-]{0,38}/"
    r"(?:[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}|\.[A-Za-z0-9_-][A-Za-z0-9._-]{0,98}|\.\.[A-Za-z0-9._-]{1,98})$"
)
NUL_ESCAPE = b"\\u0000"
# A run of 19 digits is the shortest that can spell an integer outside 64 bits. The body is looked
# at once, in C, with every digit read as 0, `\` and `u` kept and every other byte read as a
# space: a long run of 0 is then a long run of digits, and `\u0000` an escape of NUL or of
# another character written in digits (`\u2019`), which the body itself then tells apart.
MASK = bytes(0x30 if 0x30 <= b <= 0x39 else b if b in b"\\u" else 0x20 for b in range(256))
LONG_DIGIT_RUN = b"0" * 19
MAX_PROBLEMS = 5  # a refusal names at most this many fields
FIELD_NAME_CHARS = 60

ACTION_CHARS = 64  # the deliveries table's column

Id = Annotated[StrictInt, Field(ge=1, le=ID_MAX)]
Action = Annotated[StrictStr, Field(max_length=ACTION_CHARS)]
Number = Annotated[StrictInt, Field(ge=1, le=NUMBER_MAX)]
Login = Annotated[StrictStr, Field(pattern=LOGIN_PATTERN)]
FullName = Annotated[StrictStr, Field(pattern=FULL_NAME_PATTERN)]


class Shape(BaseModel):
    """A part of a payload: strict types on the fields named, any other field left alone."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)


class Owner(Shape):
    id: Id
    login: Login
    type: StrictStr | None = None


class User(Shape):
    login: StrictStr | None = None
    type: StrictStr | None = None


class InstallationRef(Shape):
    id: Id


class InstallationOf(InstallationRef):
    account: Owner
    suspended_at: StrictStr | None = None


class RepositoryRef(Shape):
    id: Id
    name: StrictStr | None = None
    full_name: FullName | None = None


class RepositoryOf(RepositoryRef):
    full_name: FullName
    owner: Owner | None = None


class PushRepository(RepositoryRef):
    default_branch: StrictStr | None = None


class HeadRepository(Shape):
    full_name: StrictStr | None = None


class Head(Shape):
    sha: StrictStr
    ref: StrictStr | None = None
    repo: HeadRepository | None = None  # null when the head's fork was deleted


class Pull(Shape):
    number: Number
    head: Head | None = None
    base: Head | None = None
    user: User | None = None
    draft: StrictBool | None = None
    body: StrictStr | None = None
    state: StrictStr | None = None
    merged: StrictBool | None = None
    merged_at: StrictStr | None = None
    closed_at: StrictStr | None = None
    merged_by: User | None = None
    author_association: StrictStr | None = None
    performed_via_github_app: dict[str, Any] | None = None
    merge_commit_sha: StrictStr | None = None


class Issue(Shape):
    number: Number
    pull_request: dict[str, Any] | None = None
    state: StrictStr | None = None
    user: User | None = None
    author_association: StrictStr | None = None
    performed_via_github_app: dict[str, Any] | None = None


class Comment(Shape):
    id: Id | None = None
    body: StrictStr | None = None
    user: User | None = None
    performed_via_github_app: dict[str, Any] | None = None
    author_association: StrictStr | None = None
    in_reply_to_id: Id | None = None


class Envelope(Shape):
    """What every delivery must get right, whatever its event."""

    action: Action | None = None
    installation: InstallationRef | None = None
    repository: RepositoryRef | None = None
    organization: Owner | None = None


class InstallationEvent(Envelope):
    action: Action
    installation: InstallationOf
    repositories: list[RepositoryRef] | None = None


class InstallationRepositoriesEvent(Envelope):
    action: Action
    installation: InstallationOf
    repositories_added: list[RepositoryRef] | None = None
    repositories_removed: list[RepositoryRef] | None = None


class InstallationTargetEvent(Envelope):
    """The account an installation is on was renamed (users and organisations alike)."""

    action: Action
    installation: InstallationRef
    account: Owner


class RepositoryEvent(Envelope):
    action: Action
    installation: InstallationRef
    repository: RepositoryOf


class PullRequestEvent(Envelope):
    action: Action
    repository: RepositoryOf
    pull_request: Pull

    @property
    def pull(self) -> Pull | Issue:
        """The pull request the event is about."""
        return self.pull_request


class ReviewCommentEvent(PullRequestEvent):
    comment: Comment


class ReviewEvent(PullRequestEvent):
    review: Comment


class Thread(Shape):
    """A review thread as `pull_request_review_thread` carries it: its comments, the root first."""

    node_id: StrictStr | None = None
    comments: list[Comment] | None = None


class ReviewThreadEvent(PullRequestEvent):
    """A thread resolved or unresolved; `sender` is who did it."""

    thread: Thread
    sender: User | None = None


class IssueCommentEvent(Envelope):
    action: Action
    repository: RepositoryOf
    issue: Issue
    comment: Comment

    @property
    def pull(self) -> Pull | Issue:
        """The pull request the event is about: the issue of a conversation comment."""
        return self.issue


# The events that can change what maintainers decided on one pull request.
PullEvent = PullRequestEvent | IssueCommentEvent


class PushEvent(Envelope):
    """A push: which ref moved, from which commit to which (fields GitHub always sends, read
    leniently as the push route's filter does)."""

    repository: PushRepository | None = None
    ref: StrictStr | None = None
    before: StrictStr | None = None
    after: StrictStr | None = None
    deleted: StrictBool | None = None
    forced: StrictBool | None = None


class BadPayload(ValueError):
    """A delivery whose fields do not have the shape its event needs; the message names them."""

    def __init__(self, event: str, problems: list[str]) -> None:
        super().__init__(f"the {event} payload is malformed: " + "; ".join(problems[:MAX_PROBLEMS]))

    @classmethod
    def of(cls, event: str, error: ValidationError) -> BadPayload:
        return cls(
            event,
            [
                f"{'.'.join(str(part) for part in item['loc']) or 'payload'}: {item['msg']}"
                for item in error.errors(include_url=False)[:MAX_PROBLEMS]
            ],
        )


S = TypeVar("S", bound=Shape)


def parse(event: str, shape: type[S], payload: Mapping[str, Any]) -> S:
    """The payload as its shape, the one value its handler reads; raises `BadPayload` when the
    payload does not have the shape."""
    try:
        return shape.model_validate(payload)
    except ValidationError as exc:
        raise BadPayload.of(event, exc) from None


def _named(path: tuple[str, ...]) -> str:
    """A field's path as a refusal names it: NUL shown escaped, each part at most 60 characters."""
    parts = (part.replace("\0", "\\u0000")[:FIELD_NAME_CHARS] for part in path)
    return ".".join(parts) or "payload"


def _out_of_range(value: object) -> bool:
    if isinstance(value, int):
        return not -ID_MAX - 1 <= value <= ID_MAX
    return isinstance(value, float) and value.is_integer() and abs(value) > ID_MAX


def _value_problem(value: object, *, nul: bool, wide: bool) -> str | None:
    if nul and isinstance(value, str) and "\0" in value:
        return "text must not contain NUL (\\u0000)"
    if wide and _out_of_range(value):
        return "integer out of the 64-bit range"
    return None


def _problems(payload: Mapping[str, Any], *, nul: bool, wide: bool) -> list[str]:
    """The fields holding NUL (when `nul`) or an integer past 64 bits (when `wide`), at most
    `MAX_PROBLEMS`; one walk, paths made only for containers."""
    problems: list[str] = []
    stack: list[tuple[tuple[str, ...], Any]] = [((), payload)]
    while stack and len(problems) < MAX_PROBLEMS:
        path, container = stack.pop()
        items = container.items() if isinstance(container, dict) else enumerate(container)
        for key, value in items:
            if nul and isinstance(key, str) and "\0" in key:
                problems.append(f"{_named((*path, '<key>'))}: text must not contain NUL (\\u0000)")
            if isinstance(value, (dict, list)):
                stack.append(((*path, str(key)), value))
            elif (problem := _value_problem(value, nul=nul, wide=wide)) is not None:
                problems.append(f"{_named((*path, str(key)))}: {problem}")
    return problems[:MAX_PROBLEMS]


def check_values(event: str, payload: Mapping[str, Any], body: bytes) -> None:
    """Raise `BadPayload` when any integer in the payload passes 64 bits or any text (a key or a
    value) holds NUL.

    Both are looked for only when the raw body could hold one (a `\\u0000` escape, a run of 19
    digits), so a common payload is not walked at all. orjson reads an integer below -2^63 as a
    float, so an integral float that large is refused too."""
    masked = body.translate(MASK)
    nul = NUL_ESCAPE in masked and NUL_ESCAPE in body
    wide = LONG_DIGIT_RUN in masked
    if nul or wide:
        problems = _problems(payload, nul=nul, wide=wide)
        if problems:
            raise BadPayload(event, problems)
