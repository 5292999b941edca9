"""The JSON GitHub's REST v3 answers for each record, built from the simulator's state."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from ghsim.model import (
    REACTION_CONTENTS,
    Account,
    Commit,
    FileChange,
    Installation,
    IssueComment,
    PullRequest,
    Reaction,
    Repository,
    Review,
    ReviewComment,
)
from ghsim.pulls import Comparison
from ghsim.state import World
from ghsim.trees import COMPARE_FILE_LIMIT

HTML_URL = "https://github.com"
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"

Json = dict[str, Any]


def iso(moment: datetime | None) -> str | None:
    return moment.strftime(TIME_FORMAT) if moment is not None else None


# The URL templates every repository carries: ``{name}_url`` is ``{repo url}/{path}``.
REPO_URLS: dict[str, str] = {
    "forks": "forks",
    "keys": "keys{/key_id}",
    "collaborators": "collaborators{/collaborator}",
    "teams": "teams",
    "hooks": "hooks",
    "issue_events": "issues/events{/number}",
    "events": "events",
    "assignees": "assignees{/user}",
    "branches": "branches{/branch}",
    "tags": "tags",
    "blobs": "git/blobs{/sha}",
    "git_tags": "git/tags{/sha}",
    "git_refs": "git/refs{/sha}",
    "trees": "git/trees{/sha}",
    "statuses": "statuses/{sha}",
    "languages": "languages",
    "stargazers": "stargazers",
    "contributors": "contributors",
    "subscribers": "subscribers",
    "subscription": "subscription",
    "commits": "commits{/sha}",
    "git_commits": "git/commits{/sha}",
    "comments": "comments{/number}",
    "issue_comment": "issues/comments{/number}",
    "contents": "contents/{+path}",
    "compare": "compare/{base}...{head}",
    "merges": "merges",
    "archive": "{archive_format}{/ref}",
    "downloads": "downloads",
    "issues": "issues{/number}",
    "pulls": "pulls{/number}",
    "milestones": "milestones{/number}",
    "notifications": "notifications{?since,all,participating}",
    "labels": "labels{/name}",
    "releases": "releases{/id}",
    "deployments": "deployments",
}


class Shapes:
    """Renders records as GitHub does, with API URLs under the simulator's own base URL."""

    def __init__(self, world: World, api_url: str) -> None:
        self.world = world
        self.api = api_url.rstrip("/")

    def user(self, account: Account) -> Json:
        login = account.login
        url = f"{self.api}/users/{login}"
        return {
            "login": login,
            "id": account.id,
            "node_id": account.node_id,
            "avatar_url": f"https://avatars.githubusercontent.com/u/{account.id}?v=4",
            "gravatar_id": "",
            "url": url,
            "html_url": f"{HTML_URL}/{login}",
            "followers_url": f"{url}/followers",
            "following_url": f"{url}/following{{/other_user}}",
            "gists_url": f"{url}/gists{{/gist_id}}",
            "starred_url": f"{url}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{url}/subscriptions",
            "organizations_url": f"{url}/orgs",
            "repos_url": f"{url}/repos",
            "events_url": f"{url}/events{{/privacy}}",
            "received_events_url": f"{url}/received_events",
            "type": account.type,
            "site_admin": False,
        }

    def app(self) -> Json:
        world = self.world
        return {
            "id": world.app_id,
            "slug": world.app_slug,
            "node_id": f"A_{world.app_id}",
            "client_id": f"Iv1.{world.app_id:016x}",
            "owner": self.user(world.app_owner),
            "name": world.app_name,
            "description": "",
            "external_url": f"{HTML_URL}/apps/{world.app_slug}",
            "html_url": f"{HTML_URL}/apps/{world.app_slug}",
            "created_at": "2024-01-01T00:00:00Z",
            "updated_at": "2024-01-01T00:00:00Z",
            "permissions": dict(world.app_permissions),
            "events": list(world.app_events),
            "installations_count": len(world.installations),
        }

    def installation(self, inst: Installation, *, webhook: bool = False) -> Json:
        """REST answers ISO times; webhook payloads carry epoch seconds, as the fixtures show."""

        def moment(value: datetime | None) -> str | int | None:
            if value is None:
                return None
            return int(value.timestamp()) if webhook else iso(value)

        return {
            "id": inst.id,
            "account": self.user(inst.account),
            "repository_selection": inst.repository_selection,
            "access_tokens_url": f"{self.api}/app/installations/{inst.id}/access_tokens",
            "repositories_url": f"{self.api}/installation/repositories",
            "html_url": f"{HTML_URL}/settings/installations/{inst.id}",
            "app_id": self.world.app_id,
            "app_slug": self.world.app_slug,
            "target_id": inst.account.id,
            "target_type": inst.account.type,
            "permissions": dict(inst.permissions),
            "events": list(inst.events),
            "created_at": moment(inst.created_at),
            "updated_at": moment(inst.updated_at),
            "single_file_name": None,
            "suspended_at": iso(inst.suspended_at),
            "suspended_by": self.user(inst.suspended_by) if inst.suspended_by else None,
        }

    def repo_brief(self, repo: Repository) -> Json:
        return {
            "id": repo.id,
            "node_id": repo.node_id,
            "name": repo.name,
            "full_name": repo.full_name,
            "private": repo.private,
        }

    def repo(self, repo: Repository) -> Json:
        url = f"{self.api}/repos/{repo.full_name}"
        return {
            **self.repo_brief(repo),
            "owner": self.user(repo.owner),
            "html_url": f"{HTML_URL}/{repo.full_name}",
            "description": None,
            "fork": False,
            "url": url,
            **{f"{name}_url": f"{url}/{path}" for name, path in REPO_URLS.items()},
            "created_at": iso(repo.created_at),
            "updated_at": iso(repo.created_at),
            "pushed_at": iso(repo.created_at),
            "git_url": f"git://github.com/{repo.full_name}.git",
            "ssh_url": f"git@github.com:{repo.full_name}.git",
            "clone_url": f"{HTML_URL}/{repo.full_name}.git",
            "svn_url": f"{HTML_URL}/{repo.full_name}",
            "mirror_url": None,
            "homepage": None,
            "size": 0,
            "language": None,
            "license": None,
            "stargazers_count": 0,
            "watchers_count": 0,
            "watchers": 0,
            "forks_count": 0,
            "forks": 0,
            "open_issues_count": 0,
            "open_issues": 0,
            "has_issues": True,
            "has_projects": False,
            "has_downloads": True,
            "has_wiki": False,
            "has_pages": False,
            "is_template": False,
            "web_commit_signoff_required": False,
            "custom_properties": {},
            "default_branch": repo.default_branch,
            "visibility": "private" if repo.private else "public",
            "archived": False,
            "disabled": False,
            "topics": [],
        }

    def full_repo(self, repo: Repository) -> Json:
        """``GET /repos/{owner}/{repo}``: the repository with the counts only that answer has."""
        return {
            **self.repo(repo),
            "has_discussions": False,
            "network_count": 0,
            "subscribers_count": 0,
        }

    def _ref(self, repo: Repository, ref: str, sha: str) -> Json:
        return {
            "label": f"{repo.owner.login}:{ref}",
            "ref": ref,
            "sha": sha,
            "user": self.user(repo.owner),
            "repo": self.repo(repo),
        }

    def pull(self, pull: PullRequest) -> Json:
        repo = self.world.repo(pull.repo)
        url = f"{self.api}/repos/{pull.repo}/pulls/{pull.number}"
        html = f"{HTML_URL}/{pull.repo}/pull/{pull.number}"
        issue = f"{self.api}/repos/{pull.repo}/issues/{pull.number}"
        additions = sum(change.additions for change in pull.files)
        deletions = sum(change.deletions for change in pull.files)
        review_comments = sum(
            1
            for c in self.world.review_comments.values()
            if c.repo == pull.repo and c.pull_number == pull.number
        )
        return {
            "url": url,
            "id": pull.id,
            "node_id": pull.node_id,
            "html_url": html,
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "issue_url": issue,
            "number": pull.number,
            "state": pull.state,
            "locked": False,
            "title": pull.title,
            "user": self.user(pull.user),
            "body": pull.body,
            "created_at": iso(pull.created_at),
            "updated_at": iso(pull.updated_at),
            "closed_at": iso(pull.closed_at),
            "merged_at": iso(pull.merged_at),
            "merge_commit_sha": pull.merge_commit_sha,
            "assignee": None,
            "assignees": [],
            "requested_reviewers": [],
            "requested_teams": [],
            "labels": [],
            "milestone": None,
            "draft": pull.draft,
            "commits_url": f"{url}/commits",
            "review_comments_url": f"{url}/comments",
            "review_comment_url": f"{self.api}/repos/{pull.repo}/pulls/comments{{/number}}",
            "comments_url": f"{issue}/comments",
            "statuses_url": f"{self.api}/repos/{pull.repo}/statuses/{pull.head_sha}",
            "head": self._ref(
                self.world.repo(pull.head_repo) if pull.head_repo else repo,
                pull.head_ref,
                pull.head_sha,
            ),
            "base": self._ref(repo, pull.base_ref, pull.base_sha),
            "_links": {
                "self": {"href": url},
                "html": {"href": html},
                "issue": {"href": issue},
                "comments": {"href": f"{issue}/comments"},
                "review_comments": {"href": f"{url}/comments"},
                "review_comment": {
                    "href": f"{self.api}/repos/{pull.repo}/pulls/comments{{/number}}"
                },
                "commits": {"href": f"{url}/commits"},
                "statuses": {"href": f"{self.api}/repos/{pull.repo}/statuses/{pull.head_sha}"},
            },
            "author_association": pull.author_association,
            "auto_merge": None,
            "active_lock_reason": None,
            "merged": pull.merged,
            "mergeable": None if pull.state == "closed" else True,
            "rebaseable": None if pull.state == "closed" else True,
            "mergeable_state": "unknown" if pull.state == "closed" else "clean",
            "merged_by": self.user(pull.merged_by) if pull.merged_by else None,
            "comments": sum(
                1
                for c in self.world.issue_comments.values()
                if c.repo == pull.repo and c.number == pull.number
            ),
            "review_comments": review_comments,
            "maintainer_can_modify": False,
            "commits": len(pull.files_by_sha),
            "additions": additions,
            "deletions": deletions,
            "changed_files": len(pull.files),
        }

    def pull_file(self, repo: str, sha: str, change: FileChange) -> Json:
        blob = hashlib.sha1(f"{sha}:{change.filename}".encode()).hexdigest()
        shaped: Json = {
            "sha": blob,
            "filename": change.filename,
            "status": change.status,
            "additions": change.additions,
            "deletions": change.deletions,
            "changes": change.additions + change.deletions,
            "blob_url": f"{HTML_URL}/{repo}/blob/{sha}/{change.filename}",
            "raw_url": f"{HTML_URL}/{repo}/raw/{sha}/{change.filename}",
            "contents_url": f"{self.api}/repos/{repo}/contents/{change.filename}?ref={sha}",
        }
        if change.patch is not None:
            shaped["patch"] = change.patch
        if change.previous_filename is not None:
            shaped["previous_filename"] = change.previous_filename
        return shaped

    def reactions_summary(self, kind: str, repo: str, comment_id: int) -> Json:
        counts = dict.fromkeys(REACTION_CONTENTS, 0)
        for reaction in self.world.reactions.values():
            if reaction.subject == (kind, comment_id):
                counts[reaction.content] += 1
        return {
            "url": f"{self.api}/repos/{repo}/{kind}/comments/{comment_id}/reactions",
            "total_count": sum(counts.values()),
            **counts,
        }

    def review_comment(self, c: ReviewComment) -> Json:
        url = f"{self.api}/repos/{c.repo}/pulls/comments/{c.id}"
        html = f"{HTML_URL}/{c.repo}/pull/{c.pull_number}#discussion_r{c.id}"
        pull_url = f"{self.api}/repos/{c.repo}/pulls/{c.pull_number}"
        shaped: Json = {
            "url": url,
            "pull_request_review_id": c.review_id,
            "id": c.id,
            "node_id": c.node_id,
            "diff_hunk": c.diff_hunk,
            "path": c.path,
            "position": c.position,
            "original_position": c.position,
            "commit_id": c.commit_id,
            "original_commit_id": c.original_commit_id,
            "user": self.user(c.user),
            "body": c.body,
            "created_at": iso(c.created_at),
            "updated_at": iso(c.updated_at),
            "html_url": html,
            "pull_request_url": pull_url,
            "author_association": c.author_association,
            "_links": {
                "self": {"href": url},
                "html": {"href": html},
                "pull_request": {"href": pull_url},
            },
            "reactions": self.reactions_summary("pulls", c.repo, c.id),
            "start_line": c.start_line,
            "original_start_line": c.start_line,
            "start_side": c.start_side,
            "line": c.line,
            "original_line": c.line,
            "side": c.side,
            "subject_type": "line",
            "performed_via_github_app": self.app() if c.via_app else None,
        }
        if c.in_reply_to_id is not None:
            shaped["in_reply_to_id"] = c.in_reply_to_id
        return shaped

    def review(self, r: Review) -> Json:
        html = f"{HTML_URL}/{r.repo}/pull/{r.pull_number}#pullrequestreview-{r.id}"
        pull_url = f"{self.api}/repos/{r.repo}/pulls/{r.pull_number}"
        shaped: Json = {
            "id": r.id,
            "node_id": r.node_id,
            "user": self.user(r.user),
            "body": r.body,
            "state": r.state,
            "html_url": html,
            "pull_request_url": pull_url,
            "author_association": r.author_association,
            "_links": {"html": {"href": html}, "pull_request": {"href": pull_url}},
            "commit_id": r.commit_id,
        }
        if r.submitted_at is not None:
            shaped["submitted_at"] = iso(r.submitted_at)
        return shaped

    def issue_comment(self, c: IssueComment) -> Json:
        url = f"{self.api}/repos/{c.repo}/issues/comments/{c.id}"
        return {
            "url": url,
            "html_url": f"{HTML_URL}/{c.repo}/pull/{c.number}#issuecomment-{c.id}",
            "issue_url": f"{self.api}/repos/{c.repo}/issues/{c.number}",
            "id": c.id,
            "node_id": c.node_id,
            "user": self.user(c.user),
            "created_at": iso(c.created_at),
            "updated_at": iso(c.updated_at),
            "author_association": c.author_association,
            "body": c.body,
            "reactions": self.reactions_summary("issues", c.repo, c.id),
            "performed_via_github_app": self.app() if c.via_app else None,
        }

    def reaction(self, r: Reaction) -> Json:
        return {
            "id": r.id,
            "node_id": r.node_id,
            "user": self.user(r.user),
            "content": r.content,
            "created_at": iso(r.created_at),
        }

    def commit(self, repo: str, c: Commit) -> Json:
        person = {
            "name": c.author_name,
            "email": f"{c.author_name}@users.noreply.github.com",
            "date": iso(c.at),
        }
        return {
            "sha": c.sha,
            "node_id": f"C_{c.sha[:20]}",
            "commit": {
                "url": f"{self.api}/repos/{repo}/git/commits/{c.sha}",
                "author": person,
                "committer": person,
                "message": c.message,
                "tree": {"sha": c.sha, "url": f"{self.api}/repos/{repo}/git/trees/{c.sha}"},
                "comment_count": 0,
            },
            "url": f"{self.api}/repos/{repo}/commits/{c.sha}",
            "comments_url": f"{self.api}/repos/{repo}/commits/{c.sha}/comments",
            "html_url": f"{HTML_URL}/{repo}/commit/{c.sha}",
            "author": self.user(c.author) if c.author else None,
            "committer": self.user(c.author) if c.author else None,
            "parents": [
                {"sha": sha, "url": f"{self.api}/repos/{repo}/commits/{sha}"} for sha in c.parents
            ],
        }

    def comparison(self, repo: str, cmp: Comparison, basehead: str) -> Json:
        world = self.world
        return {
            "url": f"{self.api}/repos/{repo}/compare/{basehead}",
            "html_url": f"{HTML_URL}/{repo}/compare/{basehead}",
            "permalink_url": f"{HTML_URL}/{repo}/compare/{cmp.base_sha}...{cmp.head_sha}",
            "diff_url": f"{HTML_URL}/{repo}/compare/{basehead}.diff",
            "patch_url": f"{HTML_URL}/{repo}/compare/{basehead}.patch",
            "base_commit": self.commit(repo, world.commits[cmp.base_sha]),
            "merge_base_commit": self.commit(repo, world.commits[cmp.merge_base]),
            "status": cmp.status,
            "ahead_by": cmp.ahead_by,
            "behind_by": cmp.behind_by,
            "total_commits": len(cmp.commits),
            "commits": [self.commit(repo, c) for c in cmp.commits],
            "files": [
                self.pull_file(repo, cmp.head_sha, change)
                for change in cmp.files[:COMPARE_FILE_LIMIT]
            ],
        }
