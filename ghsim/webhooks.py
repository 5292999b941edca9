"""Webhook payloads shaped like GitHub's, built from the simulator's state, and their signed delivery."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from ghsim.model import (
    REACTION_CONTENTS,
    Account,
    Installation,
    IssueComment,
    PullRequest,
    Review,
    ReviewComment,
)
from ghsim.shapes import HTML_URL, Shapes, iso

log = logging.getLogger(__name__)

HOOKSHOT_AGENT = "GitHub-Hookshot/5f1c2e9"
HOOK_ID = 424242
# Fields of a full pull request that review and review-comment events leave out.
FULL_PULL_ONLY = frozenset(
    {
        "additions",
        "changed_files",
        "comments",
        "commits",
        "deletions",
        "maintainer_can_modify",
        "mergeable",
        "mergeable_state",
        "merged",
        "merged_by",
        "rebaseable",
        "review_comments",
    }
)
Payload = dict[str, Any]


def sign(secret: str | bytes, body: bytes) -> str:
    """``X-Hub-Signature-256`` for ``body``: ``sha256=`` and the hex HMAC-SHA256 under ``secret``."""
    key = secret.encode() if isinstance(secret, str) else secret
    return "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest()


def delivery_headers(
    event: str,
    body: bytes,
    secret: str | bytes,
    *,
    app_id: int,
    delivery_id: str | None = None,
) -> dict[str, str]:
    """The headers GitHub sends with a delivery of ``body`` to an app's webhook URL."""
    return {
        "Content-Type": "application/json",
        "User-Agent": HOOKSHOT_AGENT,
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery_id or str(uuid.uuid4()),
        "X-GitHub-Hook-ID": str(HOOK_ID),
        "X-GitHub-Hook-Installation-Target-ID": str(app_id),
        "X-GitHub-Hook-Installation-Target-Type": "integration",
        "X-Hub-Signature-256": sign(secret, body),
    }


@dataclass(frozen=True)
class Delivery:
    """One delivery made: what was sent and what the receiver answered (status 0: no answer)."""

    id: str
    event: str
    action: str | None
    body: bytes
    status: int
    response_text: str

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def encode(payload: Mapping[str, Any]) -> bytes:
    return json.dumps(payload, separators=(",", ":")).encode()


def post_body(
    url: str,
    secret: str | bytes,
    app_id: int,
    event: str,
    body: bytes,
    *,
    action: str | None,
    delivery_id: str,
    timeout_s: float = 10.0,
) -> Delivery:
    """POST ``body`` signed under ``delivery_id``; a receiver that cannot be reached is recorded
    as GitHub records it (status 0), not raised."""
    headers = delivery_headers(event, body, secret, app_id=app_id, delivery_id=delivery_id)
    try:
        with httpx.Client(timeout=timeout_s, trust_env=False) as client:
            response = client.post(url, content=body, headers=headers)
        status, text = response.status_code, response.text
    except httpx.TransportError as exc:
        status, text = 0, f"failed to connect to host: {type(exc).__name__}"
    log.info(
        "webhook delivered",
        extra={"event": event, "action": action, "delivery": delivery_id, "status": status},
    )
    return Delivery(
        id=delivery_id,
        event=event,
        action=action,
        body=body,
        status=status,
        response_text=text,
    )


class Payloads:
    """Builders for the payload of each event the app listens to, from current state."""

    def __init__(self, shapes: Shapes) -> None:
        self.shapes = shapes
        self.world = shapes.world

    def _envelope(self, repo_name: str, sender: Account | None) -> Payload:
        repo = self.world.repo(repo_name)
        envelope: Payload = {"repository": self.shapes.repo(repo)}
        if repo.owner.type == "Organization":
            envelope["organization"] = self.organization(repo.owner)
        if repo.installation_id is not None:
            installation = self.world.installations[repo.installation_id]
            envelope["installation"] = {
                "id": installation.id,
                "node_id": _install_node(installation),
            }
        envelope["sender"] = self.shapes.user(sender or repo.owner)
        return envelope

    def pull_request(
        self,
        action: str,
        repo: str,
        number: int,
        *,
        sender: Account | None = None,
        before: str | None = None,
    ) -> Payload:
        """``pull_request`` opened/synchronize/closed/reopened/…; ``before`` for synchronize."""
        with self.world.lock:
            pull = self.world.pull(repo, number)
            payload: Payload = {
                "action": action,
                "number": number,
                "pull_request": self.shapes.pull(pull),
            }
            if action == "synchronize":
                payload["before"] = before or pull.head_sha
                payload["after"] = pull.head_sha
            return {**payload, **self._envelope(repo, sender or pull.user)}

    def push(
        self, repo: str, *, ref: str, before: str, after: str, forced: bool = False
    ) -> Payload:
        """``push`` of one commit to ``ref``, as GitHub delivers it."""
        with self.world.lock:
            commit = self.world.commits[after]
            changes = commit.files
            shaped = {
                "id": after,
                "tree_id": after,
                "distinct": True,
                "message": commit.message,
                "timestamp": commit.at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "url": f"https://github.com/{repo}/commit/{after}",
                "author": {"name": commit.author_name, "email": "author@example.com"},
                "committer": {"name": commit.author_name, "email": "author@example.com"},
                "added": [c.filename for c in changes if c.status in ("added", "renamed")],
                "removed": [
                    c.previous_filename or c.filename
                    for c in changes
                    if c.status in ("removed", "renamed")
                ],
                "modified": [c.filename for c in changes if c.status == "modified"],
            }
            envelope = self._envelope(repo, None)
            return {
                "ref": ref,
                "before": before,
                "after": after,
                "created": False,
                "deleted": False,
                "forced": forced,
                "base_ref": None,
                "compare": f"https://github.com/{repo}/compare/{before[:12]}...{after[:12]}",
                "commits": [shaped],
                "head_commit": shaped,
                "pusher": {"name": envelope["sender"]["login"], "email": None},
                **envelope,
            }

    def review_comment(
        self,
        action: str,
        comment: ReviewComment,
        *,
        sender: Account | None = None,
        previous_body: str | None = None,
    ) -> Payload:
        """``pull_request_review_comment`` created/edited/deleted for ``comment`` as it stands."""
        with self.world.lock:
            pull = self.world.pull(comment.repo, comment.pull_number)
            shaped = self.shapes.review_comment(comment)
            if shaped["performed_via_github_app"] is None:
                del shaped["performed_via_github_app"]  # not a field of this event's comment
            payload: Payload = {"action": action, "comment": shaped}
            if action == "edited":
                payload["changes"] = {"body": {"from": previous_body or ""}}
            payload["pull_request"] = self._simple_pull(pull)
            return {**payload, **self._envelope(comment.repo, sender or comment.user)}

    def review_thread(self, action: str, root: ReviewComment, *, sender: Account) -> Payload:
        """``pull_request_review_thread`` resolved/unresolved: the thread (its node id and its
        comments, the root first) and the pull request, sent by whoever resolved it."""
        with self.world.lock:
            pull = self.world.pull(root.repo, root.pull_number)
            comments = sorted(
                (
                    c
                    for c in self.world.review_comments.values()
                    if c.id == root.id or c.in_reply_to_id == root.id
                ),
                key=lambda c: c.id,
            )
            thread = {
                "node_id": f"PRRT_{root.node_id}",
                "comments": [self.shapes.review_comment(c) for c in comments],
            }
            payload: Payload = {
                "action": action,
                "thread": thread,
                "pull_request": self.shapes.pull(pull),
            }
            return {**payload, **self._envelope(root.repo, sender)}

    def review(self, review: Review, *, action: str = "submitted") -> Payload:
        with self.world.lock:
            pull = self.world.pull(review.repo, review.pull_number)
            shaped = self.shapes.review(review)
            shaped["state"] = shaped["state"].lower()  # the event spells it lower-case
            payload: Payload = {
                "action": action,
                "review": shaped,
                "pull_request": self._simple_pull(pull),
            }
            return {**payload, **self._envelope(review.repo, review.user)}

    def _simple_pull(self, pull: PullRequest) -> Payload:
        """The pull request as review events carry it: without the counts and merge state."""
        shaped = self.shapes.pull(pull)
        return {key: value for key, value in shaped.items() if key not in FULL_PULL_ONLY}

    def issue_comment(
        self,
        action: str,
        comment: IssueComment,
        *,
        sender: Account | None = None,
        previous_body: str | None = None,
    ) -> Payload:
        """``issue_comment`` on a pull request (``issue.pull_request`` is present)."""
        with self.world.lock:
            pull = self.world.pull(comment.repo, comment.number)
            payload: Payload = {"action": action}
            if action == "edited":
                payload["changes"] = {"body": {"from": previous_body or ""}}
            payload["issue"] = self.issue_of_pull(pull)
            payload["comment"] = self.shapes.issue_comment(comment)
            return {**payload, **self._envelope(comment.repo, sender or comment.user)}

    def installation(
        self, action: str, installation: Installation, *, sender: Account | None = None
    ) -> Payload:
        """``installation`` created/deleted/suspend/unsuspend (pass the record for deleted)."""
        with self.world.lock:
            who = sender or installation.account
            return {
                "action": action,
                "installation": self.shapes.installation(installation, webhook=True),
                "repositories": self._briefs(installation.repositories),
                "sender": self.shapes.user(who),
            }

    def installation_repositories(
        self,
        action: str,
        installation: Installation,
        *,
        added: Iterable[str] = (),
        removed: Iterable[str] = (),
        sender: Account | None = None,
    ) -> Payload:
        with self.world.lock:
            who = self.shapes.user(sender or installation.account)
            return {
                "action": action,
                "installation": self.shapes.installation(installation, webhook=True),
                "repository_selection": installation.repository_selection,
                "repositories_added": self._briefs(added),
                "repositories_removed": self._briefs(removed),
                "requester": who,
                "sender": who,
            }

    def organization(self, account: Account) -> Payload:
        url = f"{self.shapes.api}/orgs/{account.login}"
        return {
            "login": account.login,
            "id": account.id,
            "node_id": account.node_id,
            "url": url,
            "repos_url": f"{url}/repos",
            "events_url": f"{url}/events",
            "hooks_url": f"{url}/hooks",
            "issues_url": f"{url}/issues",
            "members_url": f"{url}/members{{/member}}",
            "public_members_url": f"{url}/public_members{{/member}}",
            "avatar_url": f"https://avatars.githubusercontent.com/u/{account.id}?v=4",
            "description": None,
        }

    def issue_of_pull(self, pull: PullRequest) -> Payload:
        """The issue half of a pull request, as ``issue_comment`` payloads carry it."""
        url = f"{self.shapes.api}/repos/{pull.repo}/issues/{pull.number}"
        html = f"{HTML_URL}/{pull.repo}/pull/{pull.number}"
        return {
            "url": url,
            "repository_url": f"{self.shapes.api}/repos/{pull.repo}",
            "labels_url": f"{url}/labels{{/name}}",
            "comments_url": f"{url}/comments",
            "events_url": f"{url}/events",
            "html_url": html,
            "id": pull.id + 1,
            "node_id": pull.node_id,
            "number": pull.number,
            "title": pull.title,
            "user": self.shapes.user(pull.user),
            "labels": [],
            "state": pull.state,
            "locked": False,
            "assignee": None,
            "assignees": [],
            "milestone": None,
            "comments": 0,
            "created_at": iso(pull.created_at),
            "updated_at": iso(pull.updated_at),
            "closed_at": iso(pull.closed_at),
            "author_association": pull.author_association,
            "active_lock_reason": None,
            "draft": pull.draft,
            "pull_request": {
                "url": f"{self.shapes.api}/repos/{pull.repo}/pulls/{pull.number}",
                "html_url": html,
                "diff_url": f"{html}.diff",
                "patch_url": f"{html}.patch",
                "merged_at": iso(pull.merged_at),
            },
            "body": pull.body,
            "reactions": {
                "url": f"{url}/reactions",
                "total_count": 0,
                **dict.fromkeys(REACTION_CONTENTS, 0),
            },
            "performed_via_github_app": None,
        }

    def _briefs(self, names: Iterable[str]) -> list[Payload]:
        return [self.shapes.repo_brief(self.world.repo(name)) for name in names]


def _install_node(installation: Installation) -> str:
    return f"MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u{installation.id}"
