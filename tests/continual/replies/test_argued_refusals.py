"""Refusals that argue instead of naming a reason, and replies that only look like them."""

from __future__ import annotations

import pytest

from continual.replies import Binding, classify_reply
from continual.values import Decision, Reason

SLUG = "hindsight"

FP = Reason.FALSE_POSITIVE
NA = Reason.NOT_APPLICABLE
ST = Reason.STYLE
WF = Reason.WONT_FIX
DU = Reason.DUPLICATE
OS = Reason.OUT_OF_SCOPE

ARGUED = [
    ("No — the config is reloaded on every request anyway.", FP, "natural.no-because"),
    ("Nope, `rows` can never be empty at this point.", FP, None),
    ("No need, the client retries on its own.", FP, "natural.no-because"),
    ("That's safe because the path is joined under the sandbox root.", FP, "natural.safe-because"),
    ("The lock isn't needed since only one worker writes.", FP, "natural.not-needed-because"),
    ("I don't think that's a problem here, the handle is closed by the pool.", FP, None),
    ("I don't think so — the size is bounded by the schema.", FP, "natural.dont-think-so"),
    ("There's no race, the queue is owned by one thread.", FP, "natural.nothing-to-fix"),
    (
        "We cannot drop the old parser since two plugins still import it.",
        WF,
        "natural.cannot-because",
    ),
    ("This module is no longer used by anything. Closing.", NA, "natural.obsolete"),
    ("The helper is only called from the migration script.", NA, "natural.only-called-from"),
    # in other languages
    ("Nein, der Cache wird bei jedem Deploy geleert.", FP, "natural.de.nein-weil"),
    ("Das ist hier in Ordnung, weil die Liste vorher kopiert wird.", FP, "natural.de.ok-weil"),
    ("Ich würde das lieber so lassen.", WF, "natural.de.lieber-so"),
    ("Non, le cache est vidé à chaque déploiement.", FP, "natural.fr.non-car"),
    ("C'est correct ici, car la liste est copiée avant.", FP, "natural.fr.ok-car"),
    ("Je préfère garder la boucle explicite.", WF, "natural.fr.prefere-garder"),
    ("Não, o cache é limpo a cada deploy.", FP, "natural.pt.nao-porque"),
    ("Prefiro manter o loop explícito.", WF, "natural.pt.prefiro-manter"),
    ("Prefiero mantener el bucle explícito.", WF, "natural.es.prefiero-mantener"),
    ("Está bien así porque la lista se copia antes.", FP, "natural.es.bien-porque"),
    ("No, la lista nunca está vacía aquí.", FP, "natural.no-because"),
]


@pytest.mark.parametrize(("text", "reason", "rule"), ARGUED)
def test_a_refusal_by_argument_is_a_dismissal(text: str, reason: Reason, rule: str | None) -> None:
    verdict = classify_reply(text, app_slug=SLUG)
    assert verdict is not None, text
    assert (verdict.decision, verdict.reason) == (Decision.DISMISSED, reason)
    if rule is not None:
        assert verdict.rule == rule
    # No refusal word: it decides at merge or close, if the commented lines stayed as they were.
    assert verdict.binding is Binding.AT_MERGE, text


# A named reason outranks the default of an argument: "No, …" argues the finding is wrong, but what
# the reply says about the code decides the class.
CAREFUL_READER = [
    ("No, the timeout of None is exactly what we want here.", NA),
    ("Nope, the middleware already validates the token.", DU),
    ("No, this is deliberate: the error must reach the caller.", NA),
    ("I'd rather keep the explicit loop, it reads better.", ST),
    ("Rather not, the comprehension is harder to follow.", ST),
    ("I don't think this is worth it for a one-off script.", WF),
    ("Thanks, but I'd like to keep this PR focused.", OS),
]


@pytest.mark.parametrize(("text", "reason"), CAREFUL_READER)
def test_the_reason_is_the_one_a_careful_reader_gives(text: str, reason: Reason) -> None:
    verdict = classify_reply(text, app_slug=SLUG)
    assert verdict is not None, text
    assert (verdict.decision, verdict.reason) == (Decision.DISMISSED, reason)


NEITHER = [
    "Nein, danke für den Hinweis, ich schaue es mir an.",
    "Nein, noch nicht behoben.",
    "Non, je regarde demain.",
    "Non, pas encore corrigé.",
    "Não, ainda não corrigi.",
    "Não, eu vejo isso amanhã.",
    # an opening "no" that answers a question or reports a status
    "No worries, take your time.",
    "Nope, CI is still red on Windows.",
    "No, I meant the function below.",
    "No, the tests pass locally.",
    "No, you're right, I'll change it.",
    "No, it does need a lock. Good catch.",
    "Nope.",
    "I don't think so.",
    # an argument taken back by an edit or by agreement
    "This is fine because I fixed it in the previous commit.",
    "It's only called from tests, so I removed it.",
    "There's no race anymore after the lock change.",
    # a preference about something else, or a request
    "I prefer your version, thanks!",
    "I'd rather not block the PR on this.",
    "Let's not worry about it for now.",
    # a courtesy "but" does not make a contrast into a refusal
    "Thanks, but it still fails on CI.",
    "Good point, but the other branch has the same issue.",
]


@pytest.mark.parametrize("text", NEITHER)
def test_what_only_looks_like_an_argued_refusal_decides_nothing(text: str) -> None:
    assert classify_reply(text, app_slug=SLUG) is None


def test_a_project_that_moved_its_ci_and_closes_the_thread_is_not_an_acceptance() -> None:
    text = "Closing: we moved CI from Travis to GitHub Actions, the old config is no longer used."
    verdict = classify_reply(text, app_slug=SLUG)
    assert verdict is not None
    assert (verdict.decision, verdict.reason) == (Decision.DISMISSED, NA)
    assert verdict.binding is Binding.AT_MERGE


def test_moving_ci_without_closing_the_thread_decides_nothing() -> None:
    assert classify_reply("We moved CI to GitHub Actions last week.", app_slug=SLUG) is None


def test_a_courteous_refusal_keeps_its_reason() -> None:
    verdict = classify_reply("Thanks, but this is intentional.", app_slug=SLUG)
    assert verdict is not None
    assert (verdict.decision, verdict.reason) == (Decision.DISMISSED, NA)
