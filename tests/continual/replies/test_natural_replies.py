"""Plain-language replies: what clearly accepts, what clearly refuses, and what stays discussion."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from continual.replies import Verdict, classify_reply
from continual.values import Decision, Reason

SLUG = "hindsight"


def verdict(text: str) -> Verdict | None:
    return classify_reply(text, app_slug=SLUG)


ACCEPTED = [
    # agreement alone, or with an immediate promise: the finding is right
    "Took care of it.",
    "Changes applied.",
    "All fixed now.",
    "Good catch, fixed.",
    "Good catch! Fixed in 3f2a1c9.",
    "Done.",
    "done 👍",
    "✅ Done",
    "Updated, thanks for the suggestion.",
    "Changed it to use a context manager.",
    "Addressed in the latest commit.",
    "Resolved in 9b8c7d6.",
    "Applied the suggestion.",
    "Pushed a fix.",
    "You're right. Updated the check to handle the empty case.",
    "Thanks @alice, switched to `secrets.compare_digest`.",
    "Agreed — done.",
    "This is fixed now.",
    "Should be fixed now.",
    "Went with your suggestion.",
    "Nice, I've switched this to a set.",
    # the keyword `except`, a `try/finally` and "instead of `code`" are not contrast or an attempt
    "Replaced the bare except with `except ValueError`.",
    "Good catch! Wrapped the call in a try/finally.",
    "Switched to `hmac.compare_digest` instead of `==`.",
    "+1, changed it to `>=`.",
    "The empty case is handled now.",
    "Fair point; the input is escaped now.",
    "I went ahead and made the change.",
    "This should be good now, I've added the null check.",
    # any edit verb in the past tense opening a clause, and what the code now is or does
    "Tightened the regex as suggested.",
    "Sure, I've hoisted the compile out of the loop.",
    "Aight, memoized it.",
    "Went with your version.",
    "We split the function in two.",
    "The default is now `None`.",
    "It's a frozen dataclass now.",
    "The helper now returns early on an empty list.",
]

DISMISSED = [
    ("This is intentional, the value is validated upstream.", Reason.NOT_APPLICABLE),
    ("By design: callers must hold the lock.", Reason.NOT_APPLICABLE),
    ("That's expected behaviour.", Reason.NOT_APPLICABLE),
    ("Not applicable here.", Reason.NOT_APPLICABLE),
    ("False alarm, `items` is never None here.", Reason.FALSE_POSITIVE),
    ("Not a bug: the index is checked two lines above.", Reason.FALSE_POSITIVE),
    ("This isn't an issue, the connection is closed in `finally`.", Reason.FALSE_POSITIVE),
    ("That's hypothetical; nothing passes a negative size.", Reason.FALSE_POSITIVE),
    ("This can't happen, the parser rejects empty input.", Reason.FALSE_POSITIVE),
    ("Won't fix, this path is deprecated.", Reason.WONT_FIX),
    ("We won't change this.", Reason.WONT_FIX),
    ("Keeping it as is.", Reason.WONT_FIX),
    ("nope, that breaks the layout", Reason.WONT_FIX),
    ("Out of scope for this PR.", Reason.OUT_OF_SCOPE),
    ("Matter of taste, I prefer the explicit loop.", Reason.STYLE),
    ("Naming preference; keeping `cfg`.", Reason.STYLE),
    ("Already handled in `validate_request`.", Reason.DUPLICATE),
    ("Doesn't apply here, this module never runs on Windows.", Reason.NOT_APPLICABLE),
    ("Purely cosmetic; we keep the existing naming.", Reason.STYLE),
    ("Duplicate of the comment above.", Reason.DUPLICATE),
    ("Personal preference, leaving it as is.", Reason.STYLE),
]

NEITHER = [
    # negation
    "not fixed yet",
    "Not done.",
    "This isn't fixed.",
    "Haven't fixed it yet.",
    "It's not intentional.",
    "I wouldn't call it a false positive.",
    "Not out of scope, we should do it here.",
    # questions
    "fixed? no",
    "Fixed?",
    "isn't this already fixed?",
    "why was this not fixed",
    "Is this intentional?",
    "Done? I don't see the change.",
    # contrast and partial agreement
    "done, but not as suggested",
    "Fixed, but differently.",
    "Partly fixed; the second case still fails.",
    "Fixed the other one, not this.",
    "Agree, but not in this PR.",
    # deferrals
    "Will do in a follow-up.",
    "I'll fix this later.",
    "Added a TODO.",
    "Tracked in #123.",
    # hedges
    "Maybe.",
    "Not sure this matters.",
    "I think this is intentional.",
    "Probably a false positive, but I'll check.",
    # sarcasm
    "Sure, fixed... said no one ever.",
    "Yeah right, because that's totally fixed.",
    "Oh great, another fix for a bug that doesn't exist. Done, I guess.",
    # somewhere else, or some other time
    "The bug is fixed in main, rebase first.",
    "We fixed a similar bug last week.",
    "Done reviewing, looks fine.",
    # chatter about the pull request itself, not the suggestion
    "Resolved the merge conflict.",
    "Updated the changelog.",
    "Removed the label, re-requesting review.",
    "Corrected the typo in the PR description.",
    "Updated, CI is unrelated.",
    "It is now called twice, which breaks the retry.",
    # partial, or done some other way
    "Done for the first case; the second one needs more thought.",
    "Done, except for the docs.",
    "Used a lock instead.",
    # agreement with anything but an immediate change
    "Good catch, I'll take a look.",
    "Good point, although I'm not sure it matters.",
    "You're right that it's inconsistent.",
    "Good catch? The caller checks it.",
    "Agreed, let me think about it.",
    "That's better but slower.",
    "✅ CI passed",
    "All good",
    "The changes made here break CI",
    "Makes sense, will update next week.",
    # thanks, discussion, emoji
    "Thanks!",
    "Thanks for the review!",
    "Ok, sure.",
    "Acknowledged.",
    "LGTM",
    "👍",
    "🎉🎉",
    "✅",
    "",
    # both at once
    "Intentional. Updated the comment to explain it.",
    # an edit of the pull request, of one's own review, or of something else than the code
    "Renamed the PR.",
    "Deleted my earlier comment.",
    "Made a note to revisit this.",
    "I set up a meeting to discuss.",
    "Switched to draft while I rework this.",
    "Added it to the backlog.",
    "Made things worse, reverting.",
    # a state that is the build's, not the code's; a form that may be a request
    "CI is now green.",
    "It now takes ten minutes to run the suite.",
    "Cast to `int` before the comparison.",
]

LANGUAGES = [
    ("Behoben.", Decision.ACCEPTED, None),
    ("Erledigt, danke!", Decision.ACCEPTED, None),
    ("Guter Punkt, geändert.", Decision.ACCEPTED, None),
    ("Das ist so gewollt.", Decision.DISMISSED, Reason.NOT_APPLICABLE),
    ("Kein Bug, die Liste ist nie leer.", Decision.DISMISSED, Reason.FALSE_POSITIVE),
    ("Noch nicht behoben.", None, None),
    ("Corrigé, merci !", Decision.ACCEPTED, None),
    ("C'est fait.", Decision.ACCEPTED, None),
    ("C'est voulu.", Decision.DISMISSED, Reason.NOT_APPLICABLE),
    ("Ce n'est pas un bug.", Decision.DISMISSED, Reason.FALSE_POSITIVE),
    ("Pas encore corrigé.", None, None),
    ("Arreglado, gracias.", Decision.ACCEPTED, None),
    ("Hecho.", Decision.ACCEPTED, None),
    ("Es intencional.", Decision.DISMISSED, Reason.NOT_APPLICABLE),
    ("Fuera del alcance de este PR.", Decision.DISMISSED, Reason.OUT_OF_SCOPE),
    ("Todavía no está arreglado.", None, None),
    ("Corrigido, obrigado!", Decision.ACCEPTED, None),
    ("Isso é proposital.", Decision.DISMISSED, Reason.NOT_APPLICABLE),
    ("Ainda não corrigido.", None, None),
    ("已修复", Decision.ACCEPTED, None),
    ("好的，已修改。", Decision.ACCEPTED, None),
    ("这是故意的", Decision.DISMISSED, Reason.NOT_APPLICABLE),
    ("误报", Decision.DISMISSED, Reason.FALSE_POSITIVE),
    ("还没修复", None, None),
    ("这不是故意的", None, None),
    ("修正しました", Decision.ACCEPTED, None),
    ("仕様です", Decision.DISMISSED, Reason.NOT_APPLICABLE),
    ("意図的ではありません", None, None),
    ("後で対応します", None, None),
    ("수정했습니다", Decision.ACCEPTED, None),
    ("의도된 동작입니다", Decision.DISMISSED, Reason.NOT_APPLICABLE),
    ("의도된 것이 아닙니다", None, None),
    ("나중에 수정하겠습니다", None, None),
    # Portuguese "no" is "in the", Spanish "no" is "not"
    ("ajustado no último commit", Decision.ACCEPTED, None),
    ("No lo he ajustado.", None, None),
    ("Wird bereits im Parser geprüft.", Decision.DISMISSED, Reason.DUPLICATE),
    ("按建议调整了，谢谢。", Decision.ACCEPTED, None),
    ("已解决合并冲突", None, None),
    ("这里是故意这样写的。", Decision.DISMISSED, Reason.NOT_APPLICABLE),
    ("不是故意这样写的", None, None),
    # "不可能" (cannot) is no hedge, "可能" (maybe) is
    ("误报，这个值不可能为空。", Decision.DISMISSED, Reason.FALSE_POSITIVE),
    ("可能是误报", None, None),
    ("这个超出了本 PR 的范围。", Decision.DISMISSED, Reason.OUT_OF_SCOPE),
    ("コンフリクトを解消し、修正しました", None, None),
    ("충돌 해결하고 수정했습니다", None, None),
    # edit statements in each language, and where they do not decide
    ("Hab's umgebaut, danke.", Decision.ACCEPTED, None),
    ("Ist jetzt eine Konstante.", Decision.ACCEPTED, None),
    ("Entfernt wurde nichts.", None, None),
    ("J'ai déplacé la validation dans le constructeur.", Decision.ACCEPTED, None),
    (
        "Ce n'est pas un problème, la liste est déjà triée.",
        Decision.DISMISSED,
        Reason.FALSE_POSITIVE,
    ),
    ("Lo cambié a `pathlib`.", Decision.ACCEPTED, None),
    ("Lo moví a otro PR.", None, None),
    ("Removi o import não usado.", Decision.ACCEPTED, None),
    ("Ainda não troquei.", None, None),
    ("改成常量了，谢谢。", Decision.ACCEPTED, None),
    ("不改了", Decision.DISMISSED, Reason.WONT_FIX),
    ("挪到下个 PR 了。", None, None),
    ("関数に切り出しました。", Decision.ACCEPTED, None),
    ("別の PR に移動しました。", None, None),
    ("함수로 분리했습니다.", Decision.ACCEPTED, None),
    ("제 코멘트를 삭제했습니다.", None, None),
    # a vetoed acceptance ("handled ... already") leaves the reply to a duplicate refusal
    ("This is handled in the middleware already.", Decision.DISMISSED, Reason.DUPLICATE),
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_clear_acceptances(text: str) -> None:
    found = verdict(text)
    assert found is not None, text
    assert found.decision is Decision.ACCEPTED
    assert found.reason is None


@pytest.mark.parametrize(("text", "reason"), DISMISSED)
def test_clear_refusals_with_their_reason(text: str, reason: Reason) -> None:
    found = verdict(text)
    assert found is not None, text
    assert (found.decision, found.reason) == (Decision.DISMISSED, reason)


@pytest.mark.parametrize("text", NEITHER)
def test_discussion_decides_nothing(text: str) -> None:
    assert verdict(text) is None


@pytest.mark.parametrize(("text", "decision", "reason"), LANGUAGES)
def test_languages(text: str, decision: Decision | None, reason: Reason | None) -> None:
    found = verdict(text)
    if decision is None:
        assert found is None
    else:
        assert found is not None, text
        assert (found.decision, found.reason) == (decision, reason)


def test_a_verdict_explains_itself() -> None:
    found = verdict("Good catch! Fixed in 3f2a1c9.")
    assert found is not None
    assert found.rule == "natural.fixed-in-sha"
    assert found.span == "Fixed in 3f2a1c9"
    german = verdict("Ist jetzt behoben.")
    assert german is not None and german.rule == "natural.de.behoben"
    assert german.span == "behoben"
    edit = verdict("Good catch — tightened the regex.")
    assert edit is not None and edit.rule == "natural.edited"
    assert edit.span == "tightened"
    refusal = verdict("This is intentional, see the ADR.")
    assert refusal is not None and refusal.rule == "natural.intentional"
    assert refusal.span == "intentional"


def test_quoted_bot_text_and_code_are_not_read_as_the_reply() -> None:
    quoted = "> This is intentional?\n> Fixed in abc1234\n\nWhy do you think so?"
    assert verdict(quoted) is None
    code = "```python\n# fixed: not a bug\n```\nLet me look at it."
    assert verdict(code) is None
    assert verdict("> Consider renaming `x`.\n\nDone.") is not None


def test_a_long_essay_is_discussion_unless_it_opens_with_a_command() -> None:
    context = "Here is some context about the module and its history. " * 20
    assert verdict("Good catch, done. " + context) is None
    typed = verdict("Fixed. " + context)
    assert typed is not None and typed.rule == "grammar.accept"


@given(st.text(max_size=400))
def test_never_raises_on_arbitrary_text(text: str) -> None:
    found = verdict(text)
    assert found is None or isinstance(found, Verdict)


@given(st.text(alphabet=st.sampled_from("👍🎉✅🚀❤️😀🙏 \n"), max_size=20))
def test_emoji_only_replies_decide_nothing(text: str) -> None:
    assert verdict(text) is None


@given(st.sampled_from(ACCEPTED), st.sampled_from(["?", " maybe", " but not here", " later"]))
def test_a_hedge_or_question_turns_an_acceptance_into_discussion(text: str, tail: str) -> None:
    assert verdict(text.rstrip(".!") + tail) is None


@pytest.mark.parametrize(
    "text",
    [
        "Fixed the CI failure, unrelated to this comment.",
        "Fixed the typo in the PR description.",
        "fixed the commit message",
        "Fixed the changelog entry.",
        "Applied the labels.",
    ],
)
def test_a_typed_word_about_the_pull_request_itself_decides_nothing(text: str) -> None:
    assert classify_reply(text, app_slug="hindsight") is None
