"""The REST endpoints the simulator serves, as data: one handler per GitHub route."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route

from ghsim import conversation, git, gitdata, graphql, issues, manifests, oauth, pulls
from ghsim.endpoint import (
    Call,
    Context,
    Handler,
    endpoint,
    json_response,
    paginate,
    per_page,
)
from ghsim.model import ApiError, Author
from ghsim.shapes import iso

ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]


def _app_author(ctx: Context) -> Author:
    return Author(ctx.world.bot, "NONE", via_app=True)


def _number(call: Call, name: str) -> int:
    return int(call.params[name])


# --- the app (JWT) ------------------------------------------------------------------------


def get_app(ctx: Context, call: Call) -> Response:
    ctx.require_app(call)
    return json_response(ctx.shapes.app())


def list_installations(ctx: Context, call: Call) -> Response:
    ctx.require_app(call)
    with ctx.world.lock:
        installations = sorted(ctx.world.installations.values(), key=lambda i: i.id)
        page, headers = paginate(call, installations)
        return json_response([ctx.shapes.installation(i) for i in page], headers=headers)


def get_installation(ctx: Context, call: Call) -> Response:
    ctx.require_app(call)
    with ctx.world.lock:
        installation = ctx.world.installation(_number(call, "installation_id"))
        return json_response(ctx.shapes.installation(installation))


def create_access_token(ctx: Context, call: Call) -> Response:
    ctx.require_app(call)
    with ctx.world.lock:
        token, issued = ctx.world.mint_token(_number(call, "installation_id"))
        installation = ctx.world.installation(issued.installation_id)
        content = {
            "token": token,
            "expires_at": iso(issued.expires_at),
            "permissions": dict(installation.permissions),
            "repository_selection": installation.repository_selection,
        }
    return json_response(content, status=201)


def get_repo_installation(ctx: Context, call: Call) -> Response:
    ctx.require_app(call)
    with ctx.world.lock:
        repo = ctx.world.repo(call.repo_name())
        if repo.installation_id is None:
            raise ApiError(404, "Not Found")
        return json_response(ctx.shapes.installation(ctx.world.installation(repo.installation_id)))


def list_hook_deliveries(ctx: Context, call: Call) -> Response:
    """``GET /app/hook/deliveries``: newest first, paginated with ``cursor`` (Link rel="next")."""
    ctx.require_app(call)
    size = per_page(call)
    attempts, cursor = ctx.hooks.page(call.query.get("cursor"), size)
    headers = {}
    if cursor is not None:
        target = call.request.url.include_query_params(per_page=size, cursor=cursor)
        headers["link"] = f'<{target}>; rel="next"'
    return json_response([a.shape() for a in attempts], headers=headers)


def redeliver_hook_delivery(ctx: Context, call: Call) -> Response:
    """``POST /app/hook/deliveries/{id}/attempts``: the same body and guid, sent again."""
    ctx.require_app(call)
    ctx.hooks.redeliver(_number(call, "delivery_id"))
    return json_response({}, status=202)


# --- an installation (token) -----------------------------------------------------------------


def list_installation_repositories(ctx: Context, call: Call) -> Response:
    installation = ctx.require_installation(call)
    with ctx.world.lock:
        repos = sorted(
            (ctx.world.repo(name) for name in installation.repositories), key=lambda r: r.id
        )
        page, headers = paginate(call, repos)
        content = {
            "total_count": len(repos),
            "repository_selection": installation.repository_selection,
            "repositories": [ctx.shapes.repo(r) for r in page],
        }
    return json_response(content, headers=headers)


def get_repo(ctx: Context, call: Call) -> Response:
    name = ctx.require_repo(call)
    with ctx.world.lock:
        return json_response(ctx.shapes.full_repo(ctx.world.repo(name)))


def collaborator_permission(ctx: Context, call: Call) -> Response:
    """A person's permission: the owner is admin, others what the test set, else `read`."""
    name = ctx.require_repo(call)
    login = str(call.params["login"])
    with ctx.world.lock:
        permission = ctx.world.explicit_permission(name, login) or "read"
        user = ctx.world.account(login, "Bot" if login.endswith("[bot]") else "User")
        role = {"maintain": "maintain", "triage": "triage"}.get(permission, permission)
        legacy = {"maintain": "write", "triage": "read"}.get(permission, permission)
        shaped = {
            "permission": legacy,
            "role_name": role,
            "user": {**ctx.shapes.user(user), "role_name": role},
        }
    return json_response(shaped)


def get_pull(ctx: Context, call: Call) -> Response:
    name = ctx.require_repo(call)
    with ctx.world.lock:
        return json_response(ctx.shapes.pull(ctx.world.pull(name, _number(call, "number"))))


PULL_STATES = frozenset({"open", "closed", "all"})
PULL_SORTS = frozenset({"created", "updated"})


def list_pulls(ctx: Context, call: Call) -> Response:
    """A repository's pull requests: ``state`` open (default), closed or all, ordered by
    ``sort`` (created, default, or updated) in ``direction`` (desc by default), paginated."""
    name = ctx.require_repo(call)
    state = call.query.get("state", "open")
    sort = call.query.get("sort", "created")
    direction = call.query.get("direction", "desc")
    if state not in PULL_STATES or sort not in PULL_SORTS or direction not in ("asc", "desc"):
        raise ApiError(422, "Validation Failed", ["state, sort or direction is not valid"])
    with ctx.world.lock:
        found = [
            pull
            for (repo, _), pull in ctx.world.pulls.items()
            if repo == name and (state == "all" or pull.state == state)
        ]
        found.sort(
            key=lambda pull: (
                pull.updated_at if sort == "updated" else pull.created_at,
                pull.number,
            ),
            reverse=direction == "desc",
        )
        page, headers = paginate(call, found)
        return json_response([ctx.shapes.pull(pull) for pull in page], headers=headers)


def list_pull_files(ctx: Context, call: Call) -> Response:
    name = ctx.require_repo(call)
    with ctx.world.lock:
        pull = ctx.world.pull(name, _number(call, "number"))
        page, headers = paginate(call, pull.files)
        content = [ctx.shapes.pull_file(name, pull.head_sha, change) for change in page]
    return json_response(content, headers=headers)


def list_review_comments(ctx: Context, call: Call) -> Response:
    name = ctx.require_repo(call)
    with ctx.world.lock:
        found = conversation.pull_review_comments(ctx.world, name, _number(call, "number"))
        page, headers = paginate(call, found)
        return json_response([ctx.shapes.review_comment(c) for c in page], headers=headers)


def create_review_comment(ctx: Context, call: Call) -> Response:
    name = ctx.require_repo(call)
    spec = call.body if isinstance(call.body, dict) else {}
    with ctx.world.lock:
        comment = conversation.create_review_comment(
            ctx.world, name, _number(call, "number"), author=_app_author(ctx), spec=spec
        )
        return json_response(ctx.shapes.review_comment(comment), status=201)


def create_reply(ctx: Context, call: Call) -> Response:
    name = ctx.require_repo(call)
    with ctx.world.lock:
        comment = conversation.reply(
            ctx.world,
            name,
            _number(call, "number"),
            _number(call, "comment_id"),
            author=_app_author(ctx),
            body=call.field("body"),
        )
        return json_response(ctx.shapes.review_comment(comment), status=201)


def review_comment(ctx: Context, call: Call) -> Response:
    name = ctx.require_repo(call)
    comment_id = _number(call, "comment_id")
    with ctx.world.lock:
        if call.request.method == "DELETE":
            conversation.delete_review_comment(ctx.world, name, comment_id)
            return Response(status_code=204)
        if call.request.method == "PATCH":
            comment, _ = conversation.edit_review_comment(
                ctx.world, name, comment_id, call.field("body")
            )
        else:
            comment = conversation.review_comment(ctx.world, name, comment_id)
        return json_response(ctx.shapes.review_comment(comment))


def reviews(ctx: Context, call: Call) -> Response:
    name = ctx.require_repo(call)
    number = _number(call, "number")
    with ctx.world.lock:
        if call.request.method == "POST":
            comments = call.field("comments") or []
            if not isinstance(comments, list) or not all(isinstance(c, dict) for c in comments):
                raise ApiError(422, "Invalid request.", ["comments must be an array of objects"])
            review, _ = conversation.create_review(
                ctx.world,
                name,
                number,
                author=_app_author(ctx),
                body=call.field("body"),
                event=call.field("event"),
                commit_id=call.field("commit_id"),
                comments=comments,
            )
            return json_response(ctx.shapes.review(review))
        found = conversation.pull_reviews(ctx.world, name, number)
        page, headers = paginate(call, found)
        return json_response([ctx.shapes.review(r) for r in page], headers=headers)


def review_detail(ctx: Context, call: Call) -> Response:
    name = ctx.require_repo(call)
    number, review_id = _number(call, "number"), _number(call, "review_id")
    with ctx.world.lock:
        review = next(
            (r for r in conversation.pull_reviews(ctx.world, name, number) if r.id == review_id),
            None,
        )
        if review is None:
            raise ApiError(404, "Not Found")
        if not call.request.url.path.endswith("/comments"):
            return json_response(ctx.shapes.review(review))
        found = [
            c
            for c in conversation.pull_review_comments(ctx.world, name, number)
            if c.review_id == review_id
        ]
        page, headers = paginate(call, found)
        return json_response([ctx.shapes.review_comment(c) for c in page], headers=headers)


def issue_comments(ctx: Context, call: Call) -> Response:
    name = ctx.require_repo(call)
    number = _number(call, "number")
    with ctx.world.lock:
        if call.request.method == "POST":
            comment = issues.create_issue_comment(
                ctx.world, name, number, author=_app_author(ctx), body=call.field("body")
            )
            return json_response(ctx.shapes.issue_comment(comment), status=201)
        found = issues.issue_comments(ctx.world, name, number)
        page, headers = paginate(call, found)
        return json_response([ctx.shapes.issue_comment(c) for c in page], headers=headers)


def issue_comment(ctx: Context, call: Call) -> Response:
    name = ctx.require_repo(call)
    comment_id = _number(call, "comment_id")
    with ctx.world.lock:
        comment = issues.issue_comment(ctx.world, name, comment_id)
        if call.request.method == "DELETE":
            del ctx.world.issue_comments[comment_id]
            return Response(status_code=204)
        if call.request.method == "PATCH":
            body = call.field("body")
            if not isinstance(body, str) or not body.strip():
                raise ApiError(422, "Validation Failed", ["body is missing"])
            comment.body = body
            comment.updated_at = ctx.world.now()
        return json_response(ctx.shapes.issue_comment(comment))


def comment_reactions(ctx: Context, call: Call) -> Response:
    name = ctx.require_repo(call)
    kind = "pulls" if "/pulls/comments/" in call.request.url.path else "issues"
    comment_id = _number(call, "comment_id")
    with ctx.world.lock:
        if call.request.method == "POST":
            reaction, created = issues.add_reaction(
                ctx.world, kind, name, comment_id, ctx.world.bot, call.field("content")
            )
            return json_response(ctx.shapes.reaction(reaction), status=201 if created else 200)
        found = issues.reactions(ctx.world, kind, name, comment_id)
        content = call.query.get("content")
        if content is not None:
            found = [r for r in found if r.content == content]
        page, headers = paginate(call, found)
        return json_response([ctx.shapes.reaction(r) for r in page], headers=headers)


def compare(ctx: Context, call: Call) -> Response:
    name = ctx.require_repo(call)
    basehead = str(call.params["basehead"])
    base, separator, head = basehead.partition("...")
    if not separator or not base or not head:
        raise ApiError(404, "Not Found")
    with ctx.world.lock:
        result = pulls.compare(ctx.world, name, base, head)
        return json_response(ctx.shapes.comparison(name, result, basehead))


def not_found(ctx: Context, call: Call) -> Response:
    raise ApiError(404, "Not Found")


REPO = "/repos/{owner}/{repo}"
ROUTES: list[tuple[str, list[str], Handler]] = [
    ("/app", ["GET"], get_app),
    ("/app/installations", ["GET"], list_installations),
    ("/app/hook/deliveries", ["GET"], list_hook_deliveries),
    ("/app/hook/deliveries/{delivery_id:int}/attempts", ["POST"], redeliver_hook_delivery),
    ("/app/installations/{installation_id:int}", ["GET"], get_installation),
    ("/app/installations/{installation_id:int}/access_tokens", ["POST"], create_access_token),
    ("/installation/repositories", ["GET"], list_installation_repositories),
    (REPO, ["GET"], get_repo),
    (f"{REPO}/installation", ["GET"], get_repo_installation),
    (f"{REPO}/collaborators/{{login}}/permission", ["GET"], collaborator_permission),
    (f"{REPO}/pulls", ["GET"], list_pulls),
    (f"{REPO}/pulls/{{number:int}}", ["GET"], get_pull),
    (f"{REPO}/pulls/{{number:int}}/files", ["GET"], list_pull_files),
    (f"{REPO}/pulls/{{number:int}}/comments", ["GET"], list_review_comments),
    (f"{REPO}/pulls/{{number:int}}/comments", ["POST"], create_review_comment),
    (f"{REPO}/pulls/{{number:int}}/comments/{{comment_id:int}}/replies", ["POST"], create_reply),
    (f"{REPO}/pulls/comments/{{comment_id:int}}", ["GET", "PATCH", "DELETE"], review_comment),
    (f"{REPO}/pulls/comments/{{comment_id:int}}/reactions", ["GET", "POST"], comment_reactions),
    (f"{REPO}/pulls/{{number:int}}/reviews", ["GET", "POST"], reviews),
    (f"{REPO}/pulls/{{number:int}}/reviews/{{review_id:int}}", ["GET"], review_detail),
    (f"{REPO}/pulls/{{number:int}}/reviews/{{review_id:int}}/comments", ["GET"], review_detail),
    (f"{REPO}/issues/{{number:int}}/comments", ["GET", "POST"], issue_comments),
    (f"{REPO}/issues/comments/{{comment_id:int}}", ["GET", "PATCH", "DELETE"], issue_comment),
    (f"{REPO}/issues/comments/{{comment_id:int}}/reactions", ["GET", "POST"], comment_reactions),
    (f"{REPO}/compare/{{basehead:path}}", ["GET"], compare),
    (f"{REPO}/git/trees/{{sha}}", ["GET"], git.git_tree),
    (f"{REPO}/git/trees", ["POST"], gitdata.create_tree),
    (f"{REPO}/git/commits", ["POST"], gitdata.create_commit),
    (f"{REPO}/git/refs", ["POST"], gitdata.create_ref),
    (f"{REPO}/git/ref/{{ref:path}}", ["GET"], gitdata.get_ref),
    (f"{REPO}/git/refs/{{ref:path}}", ["PATCH", "DELETE"], gitdata.update_ref),
    (f"{REPO}/commits/{{ref:path}}", ["GET"], gitdata.get_commit),
    (f"{REPO}/pulls", ["POST"], gitdata.open_pull_request),
    (f"{REPO}/contents/{{path:path}}", ["GET"], git.contents),
    ("/graphql", ["POST"], graphql.review_threads),
    ("/app-manifests/{code}/conversions", ["POST"], manifests.conversion),
    ("/user", ["GET"], oauth.get_user),
    ("/user/installations", ["GET"], oauth.user_installations),
    (
        "/user/installations/{installation_id:int}/repositories",
        ["GET"],
        oauth.user_installation_repositories,
    ),
    ("/{path:path}", ALL_METHODS, not_found),
]


def build_app(ctx: Context) -> Starlette:
    """The simulator's ASGI app; unknown paths and methods answer GitHub's 404 JSON."""
    return Starlette(
        routes=[
            *manifests.pages(ctx),
            *oauth.pages(ctx),
            *(
                Route(path, endpoint(ctx, handler), methods=methods)
                for path, methods, handler in ROUTES
            ),
        ]
    )
