"""Who counts: the one rule for a bot and a maintainer, and the app's own bot login.

"Only maintainers count, never bots": every check of an account, in the core and at the door,
reads these functions, so the rule cannot diverge between the two.
"""

from __future__ import annotations

from dataclasses import dataclass

MAINTAINER_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
BOT_TYPE = "Bot"
BOT_SUFFIX = "[bot]"


@dataclass(frozen=True)
class Author:
    """Who wrote a comment or opened a PR, as GitHub reports it."""

    login: str
    type: str  # "User", "Bot", "Organization"
    association: str  # author_association: OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE…
    via_app: bool = False  # performed_via_github_app was set


def bot_login(slug: str) -> str:
    """The login of an app's bot account: `<slug>[bot]`."""
    return f"{slug}{BOT_SUFFIX}"


def is_bot_account(login: str, kind: str | None = None, *, via_app: bool = False) -> bool:
    """A bot by any of GitHub's three signals: type Bot, a `[bot]` login (in any case), or
    acting via an app."""
    return kind == BOT_TYPE or login.lower().endswith(BOT_SUFFIX) or via_app


def is_bot(author: Author) -> bool:
    """`is_bot_account` of an author."""
    return is_bot_account(author.login, author.type, via_app=author.via_app)


def is_maintainer(author: Author) -> bool:
    """An owner, member or collaborator of the repository who is not a bot."""
    return author.association.upper() in MAINTAINER_ASSOCIATIONS and not is_bot(author)


def is_app_bot(author: Author, *, bot_login: str) -> bool:
    """The app's own bot account (`<slug>[bot]`, type Bot)."""
    return author.type == BOT_TYPE and author.login.lower() == bot_login.lower()
