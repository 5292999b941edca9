"""Driving what people say on the simulator's pull requests: comments, reviews, replies, reactions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ghsim import conversation, issues
from ghsim.model import Author
from ghsim.state import check_association

if TYPE_CHECKING:
    from ghsim.endpoint import Context
    from ghsim.state import World
    from ghsim.webhooks import Payloads

Json = dict[str, Any]


class TalkDriver:
    """Mixed into ``GitHubSimulator``: what people say, delivered as its webhook, and read back."""

    world: World
    payloads: Payloads
    context: Context

    def _emit_event(self, event: str, payload: Mapping[str, Any]) -> None:
        raise NotImplementedError

    def _author(self, login: str, association: str, user_type: str, via_app: bool) -> Author:
        check_association(association)
        return Author(self.world.account(login, user_type), association, via_app)

    def add_review_comment(
        self,
        repo: str,
        number: int,
        *,
        body: str,
        path: str,
        line: int,
        author: str = "maintainer",
        author_association: str = "MEMBER",
        user_type: str = "User",
        side: str = "RIGHT",
        commit_id: str | None = None,
        via_app: bool = False,
    ) -> Json:
        """A person's (or a bot's) review comment on a diff line; ApiError(422) when off the diff."""
        who = self._author(author, author_association, user_type, via_app)
        with self.world.lock:
            head = self.world.pull(repo, number).head_sha
            spec = {"body": body, "path": path, "line": line, "side": side}
            spec["commit_id"] = commit_id or head
            comment = conversation.create_review_comment(
                self.world, repo, number, author=who, spec=spec
            )
        payload = self.payloads.review_comment("created", comment)
        self._emit_event("pull_request_review_comment", payload)
        return self.context.shapes.review_comment(comment)

    def add_review(
        self,
        repo: str,
        number: int,
        *,
        body: str,
        author: str = "maintainer",
        author_association: str = "MEMBER",
        user_type: str = "User",
    ) -> Json:
        """A submitted review (event COMMENT, no comments) by ``author``."""
        who = self._author(author, author_association, user_type, False)
        review, _ = conversation.create_review(
            self.world,
            repo,
            number,
            author=who,
            body=body,
            event="COMMENT",
            commit_id=None,
            comments=(),
        )
        self._emit_event("pull_request_review", self.payloads.review(review))
        return self.context.shapes.review(review)

    def reply(
        self,
        repo: str,
        number: int,
        comment_id: int,
        body: str,
        *,
        author: str = "maintainer",
        author_association: str = "MEMBER",
        user_type: str = "User",
        via_app: bool = False,
    ) -> Json:
        """Reply in the thread of ``comment_id`` as ``author`` with ``author_association``."""
        who = self._author(author, author_association, user_type, via_app)
        comment = conversation.reply(self.world, repo, number, comment_id, author=who, body=body)
        payload = self.payloads.review_comment("created", comment)
        self._emit_event("pull_request_review_comment", payload)
        return self.context.shapes.review_comment(comment)

    def edit_comment(self, repo: str, comment_id: int, body: str) -> Json:
        """Edit a review comment's body, as its author would."""
        comment, previous = conversation.edit_review_comment(self.world, repo, comment_id, body)
        payload = self.payloads.review_comment("edited", comment, previous_body=previous)
        self._emit_event("pull_request_review_comment", payload)
        return self.context.shapes.review_comment(comment)

    def delete_comment(self, repo: str, comment_id: int) -> None:
        """Delete a review comment; it answers 404 from then on."""
        with self.world.lock:
            comment = conversation.review_comment(self.world, repo, comment_id)
            payload = self.payloads.review_comment("deleted", comment)
            conversation.delete_review_comment(self.world, repo, comment_id)
        self._emit_event("pull_request_review_comment", payload)

    def react(
        self, repo: str, comment_id: int, content: str, *, by: str, user_type: str = "User"
    ) -> Json:
        """``by`` reacts to a review comment (``+1``, ``-1``, ``eyes``…); GitHub sends no webhook."""
        user = self.world.account(by, user_type)
        reaction, _ = issues.add_reaction(self.world, "pulls", repo, comment_id, user, content)
        return self.context.shapes.reaction(reaction)

    def set_permission(self, repo: str, login: str, permission: str) -> None:
        """What ``login`` may do in ``repo`` (admin, maintain, write, triage, read, none), as
        ``GET …/collaborators/{login}/permission`` answers it."""
        if permission not in {"admin", "maintain", "write", "triage", "read", "none"}:
            raise ValueError(f"unknown permission {permission!r}")
        with self.world.lock:
            self.world.permissions[(repo.lower(), login.lower())] = permission

    def resolve_thread(self, repo: str, comment_id: int, *, by: str, resolved: bool = True) -> None:
        """``by`` resolves (or unresolves) the thread of review comment ``comment_id``; GitHub
        sends ``pull_request_review_thread`` resolved (or unresolved)."""
        with self.world.lock:
            root = conversation.review_comment(self.world, repo, comment_id)
            kind = "Bot" if by.endswith("[bot]") else "User"
            who = self.world.account(by, kind)
            if resolved:
                self.world.resolved_threads[comment_id] = who
            else:
                self.world.resolved_threads.pop(comment_id, None)
            action = "resolved" if resolved else "unresolved"
            payload = self.payloads.review_thread(action, root, sender=who)
        self._emit_event("pull_request_review_thread", payload)

    def unresolve_thread(self, repo: str, comment_id: int, *, by: str) -> None:
        """``by`` opens the thread of review comment ``comment_id`` again."""
        self.resolve_thread(repo, comment_id, by=by, resolved=False)

    def add_issue_comment(
        self,
        repo: str,
        number: int,
        body: str,
        *,
        author: str = "maintainer",
        author_association: str = "MEMBER",
        user_type: str = "User",
        via_app: bool = False,
    ) -> Json:
        who = self._author(author, author_association, user_type, via_app)
        comment = issues.create_issue_comment(self.world, repo, number, author=who, body=body)
        self._emit_event("issue_comment", self.payloads.issue_comment("created", comment))
        return self.context.shapes.issue_comment(comment)

    # --- reading it back -------------------------------------------------------------

    def review_comments(self, repo: str, number: int) -> list[Json]:
        with self.world.lock:
            found = conversation.pull_review_comments(self.world, repo, number)
            return [self.context.shapes.review_comment(c) for c in found]

    def reviews(self, repo: str, number: int, *, include_implicit: bool = True) -> list[Json]:
        """Reviews of the pull request; ``include_implicit=False`` leaves out single comments'."""
        with self.world.lock:
            found = conversation.pull_reviews(self.world, repo, number)
            shaped = [self.context.shapes.review(r) for r in found]
        return [r for r in shaped if include_implicit or r["body"] or r["state"] != "COMMENTED"]

    def issue_comments(self, repo: str, number: int) -> list[Json]:
        with self.world.lock:
            found = issues.issue_comments(self.world, repo, number)
            return [self.context.shapes.issue_comment(c) for c in found]

    def reactions(self, repo: str, comment_id: int, *, kind: str = "pulls") -> list[Json]:
        """Reactions on a review comment (``kind="pulls"``) or an issue comment (``"issues"``)."""
        with self.world.lock:
            found = issues.reactions(self.world, kind, repo, comment_id)
            return [self.context.shapes.reaction(r) for r in found]
