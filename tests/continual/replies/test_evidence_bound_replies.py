"""What a reply may decide on its words alone, and when: agreement and deferrals decide nothing,
an acceptance waits for the code, a refusal binds at once or, when it only argues, at merge."""

from __future__ import annotations

import pytest

from continual.replies import (
    AGREEMENT_RULE,
    Binding,
    classify_reply,
    read_agreement,
    read_deferral,
)
from continual.values import Decision, Reason

SLUG = "hindsight"


def read(text: str) -> tuple[Decision | None, Reason | None, Binding | None]:
    verdict = classify_reply(text, app_slug=SLUG)
    if verdict is None:
        return None, None, None
    return verdict.decision, verdict.reason, verdict.binding


AGREEMENT_ONLY = [
    "Fair enough.",
    "sure",
    "Yeah.",
    "Sounds great.",
    "Good catch.",
    "Nice find!",
    "Well spotted, thanks",
    "You are correct.",
    "Agreed, will do.",
    "Sorry! Thanks for spotting that.",
    "My mistake, thank you.",
    "Bonne idée !",
    "Gute Idee, danke!",
    "Buena idea, gracias.",
    "好主意！",
]


@pytest.mark.parametrize("text", AGREEMENT_ONLY)
def test_agreement_thanks_praise_or_apology_alone_decide_nothing(text: str) -> None:
    assert read(text) == (None, None, None)


@pytest.mark.parametrize("text", ["Good catch.", "You are correct.", "Agreed, will do."])
def test_agreement_is_offered_to_the_evidence_binding(text: str) -> None:
    verdict = read_agreement(text)
    assert verdict is not None
    assert (verdict.decision, verdict.rule, verdict.binding) == (
        Decision.ACCEPTED,
        AGREEMENT_RULE,
        Binding.EVIDENCE,
    )


@pytest.mark.parametrize("text", ["Thanks!", "Fixed.", "Good catch, but no.", "Why?", ""])
def test_what_is_not_agreement_alone_is_not_offered(text: str) -> None:
    assert read_agreement(text) is None


FIX_AFTER_COURTESY = [
    "Thank you!\nFixed.",
    "Thanks for catching this.\n\nUpdated.",
    "Ah good point.\nChanged.",
    "Thanks a lot!\nDone in abc1234.",
    "Sorry about that.\nRemoved the unused import.",
    "Danke!\nErledigt.",
    "Merci !\nC'est corrigé.",
]


@pytest.mark.parametrize("text", FIX_AFTER_COURTESY)
def test_the_fix_word_on_the_line_after_thanks_accepts_bound_to_evidence(text: str) -> None:
    assert read(text) == (Decision.ACCEPTED, None, Binding.EVIDENCE)


MOVED_ON = [
    "We moved to ruff last month, this config is obsolete.",
    "The repo switched from Travis to GitHub Actions, so this file is no longer used. Closing.",
    "We migrated off Jenkins, the pipeline file is gone anyway.",
    "Wir sind auf GitHub Actions umgestiegen, die Datei wird nicht mehr gebraucht.",
    "Nous sommes passés à Vite, ce fichier n'est plus utilisé.",
    # said without "we", when what went with the old tool is named
    "Resolving: moved to pytest, this nose plugin is dead.",
    "Switched to uv, requirements.txt isn't used anymore.",
    "We no longer use Travis, closing.",
]


@pytest.mark.parametrize("text", MOVED_ON)
def test_a_project_that_moved_to_another_tool_dismisses_as_not_applicable(text: str) -> None:
    assert read(text) == (Decision.DISMISSED, Reason.NOT_APPLICABLE, Binding.AT_MERGE)


def test_moving_code_is_still_an_edit_and_moving_tools_alone_is_nothing() -> None:
    assert read("We moved the check to the constructor.")[0] is Decision.ACCEPTED
    assert read("Moved the check into the constructor.")[0] is Decision.ACCEPTED
    assert read("We switched to ruff last week.") == (None, None, None)
    assert read("We switched to a set.")[0] is Decision.ACCEPTED
    assert read("Moved to a helper.")[0] is Decision.ACCEPTED
    assert read("Thanks, moved to `utils.py`.")[0] is Decision.ACCEPTED


UNFINISHED = [
    # a partial change, with a question
    "Fixed the first case, what about the other?",
    "Fixed one of them. What about line 40?",
    "Updated. Should I also change `write()`?",
    # a change other than the one suggested, with a request for another look
    "Went a different route and inlined the helper, please take another look.",
    "I did it differently, could you re-review?",
    "Changed it another way, PTAL",
    "Used a different approach than suggested.",
    "Fixed it differently than suggested - moved the logic to the caller.",
    "Fixed the first one, the second is trickier.",
    # an explanation that opens with "done"
    "Done is emitted only after the stream closes, so the buffer is flushed by then.",
    "Done here means the job has been acknowledged by the broker.",
    "Done that way to match the rest of the module.",
    # tentative
    "I'll see what I can do.",
    "I'll double-check that.",
    "Let me check.",
    "Will look into it.",
    "I'll try.",
    # asking the bot, or leaving the pull request
    "@hindsight can you fix it?",
    "Can you open a PR with this change?",
    "Closing this PR, superseded by #9.",
    "Abandoning this PR.",
]


@pytest.mark.parametrize("text", UNFINISHED)
def test_an_unfinished_alternative_or_tentative_change_decides_nothing(text: str) -> None:
    assert read(text) == (None, None, None)


@pytest.mark.parametrize(
    "text",
    [
        "Fixed, can you take another look?",
        "Updated. PTAL?",
        "Done. Does this look better?",
        "Done — switched to `with open(...)`.",
        "done now",
        "Done as suggested.",
    ],
)
def test_a_fix_with_a_request_for_another_look_still_accepts(text: str) -> None:
    assert read(text) == (Decision.ACCEPTED, None, Binding.EVIDENCE)


@pytest.mark.parametrize(
    ("text", "binding"),
    [
        ("This is intentional.", Binding.AT_ONCE),
        ("False positive.", Binding.AT_ONCE),
        ("Not a bug, the lock is held.", Binding.AT_ONCE),
        ("Won't change this.", Binding.AT_ONCE),
        ("Das ist Absicht.", Binding.AT_ONCE),
        ("No, the list is copied before the loop.", Binding.AT_MERGE),
        ("That's safe since the value is never shared.", Binding.AT_MERGE),
        ("The parser already rejects it upstream, there's no leak.", Binding.AT_MERGE),
        ("The middleware already validates the token.", Binding.AT_MERGE),
        # an argument beside a refusal word: the word decides at once
        ("No, this is deliberate: the error must reach the caller.", Binding.AT_ONCE),
    ],
)
def test_a_refusal_word_binds_at_once_and_an_argument_at_merge(text: str, binding: Binding) -> None:
    decision, _, bound = read(text)
    assert (decision, bound) == (Decision.DISMISSED, binding)


def test_a_typed_accept_binds_at_once_and_a_typed_fixed_waits_for_the_code() -> None:
    assert read("accept") == (Decision.ACCEPTED, None, Binding.AT_ONCE)
    assert read("@hindsight accepted") == (Decision.ACCEPTED, None, Binding.AT_ONCE)
    assert read("fixed") == (Decision.ACCEPTED, None, Binding.EVIDENCE)
    assert read("applied") == (Decision.ACCEPTED, None, Binding.EVIDENCE)
    assert read("dismiss wont-fix") == (Decision.DISMISSED, Reason.WONT_FIX, Binding.AT_ONCE)


DEFERRALS = [
    ("Let's do this in a follow-up.", "en"),
    ("I'll address it in a separate PR.", "en"),
    ("Not in this PR.", "en"),
    ("Good catch, will do it later", "en"),
    ("Added a TODO and opened an issue.", "en"),
    ("TODO", "en"),
    ("Opened #42 to track this.", "en"),
    ("Deferring to the next release.", "en"),
    ("Fixed the obvious part; the rest in a follow-up PR.", "en"),
    ("This is out of scope here, I'll do it in another PR.", "en"),
    ("Machen wir später.", "de"),
    ("Kommt in einen eigenen PR.", "de"),
    ("Nicht in diesem PR.", "de"),
    ("Je m'en occupe dans une autre PR.", "fr"),
    ("On fera ça plus tard.", "fr"),
    ("Pas dans cette PR.", "fr"),
    ("Lo hago en otro PR.", "es"),
    ("Más tarde.", "es"),
    ("No en este PR.", "es"),
    ("Faço isso num PR separado.", "pt"),
    ("Fica para depois.", "pt"),
    ("Não neste PR.", "pt"),
    ("次のPRで直します。", "ja"),
    ("あとで修正します。", "ja"),
    ("별도 PR로 처리하겠습니다.", "ko"),
    ("이후에 수정할게요.", "ko"),
    ("在另一个PR里修复。", "zh"),
    ("以后再处理。", "zh"),
]


@pytest.mark.parametrize(("text", "language"), DEFERRALS)
def test_a_deferral_is_read_in_every_language_and_decides_nothing(text: str, language: str) -> None:
    deferral = read_deferral(text)
    assert deferral is not None, (language, text)
    assert deferral.span and deferral.span.lower() in text.lower()
    assert read(text) == (None, None, None)


@pytest.mark.parametrize(
    "text",
    [
        "Fixed in #412",
        "Fixed.",
        "This is intentional.",
        "It's validated later in the function.",
        "The later call closes it.",
        "Todo bien, lo cambié.",
        "Luego de revisarlo, lo cambié.",
        "Desde luego, corregido.",
        "O valor é validado depois do loop.",
        "> TODO: check this\nFixed.",
        "Renamed `later()` to `schedule()`.",
        "Out of scope for this PR.",
        "",
    ],
)
def test_what_is_no_deferral_is_not_read_as_one(text: str) -> None:
    assert read_deferral(text) is None


def test_out_of_scope_without_later_work_is_still_a_refusal() -> None:
    assert read("Out of scope for this PR.") == (
        Decision.DISMISSED,
        Reason.OUT_OF_SCOPE,
        Binding.AT_ONCE,
    )


def test_a_typed_command_wins_over_a_deferral_in_its_reason() -> None:
    text = "dismiss out-of-scope, belongs in a follow-up"
    assert read(text) == (Decision.DISMISSED, Reason.OUT_OF_SCOPE, Binding.AT_ONCE)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the examples docs/writeback.md gives, read as it says
        ("Thanks!\nFixed.", (Decision.ACCEPTED, None, Binding.EVIDENCE)),
        ("Good catch, fixed in 3f2a1c", (Decision.ACCEPTED, None, Binding.EVIDENCE)),
        ("Fixed, PTAL?", (Decision.ACCEPTED, None, Binding.EVIDENCE)),
        (
            "This is intentional, the value is validated upstream",
            (Decision.DISMISSED, Reason.NOT_APPLICABLE, Binding.AT_ONCE),
        ),
        (
            "We switched to ruff, the flake8 config is gone anyway",
            (Decision.DISMISSED, Reason.NOT_APPLICABLE, Binding.AT_MERGE),
        ),
        ("there's no race", (Decision.DISMISSED, Reason.FALSE_POSITIVE, Binding.AT_MERGE)),
        ("Out of scope", (Decision.DISMISSED, Reason.OUT_OF_SCOPE, Binding.AT_ONCE)),
        ("We moved CI to GitHub Actions last week", (None, None, None)),
        ("Sorry, my bad, thanks!", (None, None, None)),
        ("Went a different way, please re-review", (None, None, None)),
        ("fixed it differently", (None, None, None)),
        ("Good catch, I'll do it in a follow-up", (None, None, None)),
    ],
)
def test_the_documented_examples(
    text: str, expected: tuple[Decision | None, Reason | None, Binding | None]
) -> None:
    assert read(text) == expected


@pytest.mark.parametrize(
    "text",
    ["später", "plus tard", "más adelante", "en otro PR", "depois", "别的PR", "後で", "다음 PR"],
)
def test_the_documented_deferrals(text: str) -> None:
    assert read_deferral(text) is not None
    assert read(text) == (None, None, None)


def test_an_apology_with_agreement_is_offered_to_the_evidence_binding_only() -> None:
    assert read("Sorry, my bad, thanks!") == (None, None, None)
    assert read_agreement("Sorry, my bad, thanks!") is not None
    assert read_agreement("Sorry, thanks!") is None  # courtesy alone agrees to nothing
