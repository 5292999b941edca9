"""French: what accepts, what refuses, and what vetoes either."""

from __future__ import annotations

from continual.replies.phrases.shared import (
    DU,
    FP,
    NA,
    OS,
    ST,
    WF,
    Language,
    alternation,
    inflect,
    words,
)

PARTICIPLES = words(
    " ".join(
        inflect(
            "corrig modifi appliqu chang résol rég ajust renomm déplac supprim retir enlev remplac"
            " simplifi ajout nettoy factoris invers limit document typ tri isol insér externalis"
            " migr bascul intégr réorganis regroup reformul sécuris échapp normalis",
            "é ée és ées",
        )
    ),
    "extrait extraite extraits converti convertie convertis réécrit réécrite restreint restreinte"
    " résolu résolue réglé réglée mis",
)
NOW = r"\b(?:est|sont) (?:maintenant|désormais|dorénavant) \w|\bc'est (?:maintenant|désormais) \w"
NOW_NOT_CODE = r"\b(?:vert|rouge|bloquant|prêt|mergé|fusionné|cassé)\b"

# The project moved to another tool: never an edit of the commented code.
MOVED_ON = (
    r"\b(?:on est|nous sommes|on a|nous avons|le projet (?:est|a))\s+(?:\w+\s+)?"
    r"(?:passés?|migrés?|basculés?)\s+(?:à|a|sur|vers)\b"
)

LANGUAGE = Language(
    code="fr",
    deferral_words=(
        "tard ultérieurement second prochainement l'avenir l'instant moment "
        "autre prochain prochaine nouvelle nouveau future futur séparée séparé "
        "part dédiée dédié suivi suivante cette ce issue ticket"
    ),
    deferral=(
        r"\b(?:plus tard|ultérieurement|dans un second temps|prochainement|à l'avenir|pour l'instant|pour le moment)\b"
        r"|\b(?:une?|la|le) (?:autre|prochaine?|nouvelle?|future?) (?:pr|mr|issue|ticket|version|release)\b"
        r"|\b(?:pr|mr|issue|ticket) (?:séparée?|à part|dédiée?|de suivi|suivante)\b"
        r"|\bpas (?:dans|pour) (?:cette|ce) (?:pr|mr|pull request)\b"
        r"|\b(?:ouvert|ouvre|ouvrir|créé|crée|créer) (?:une? )?(?:issue|ticket)\b"
    ),
    moved_on=MOVED_ON,
    arguments="deja-gere",
    accept_start=(("fait", "fait", r"(?:c'est )?fait(?![\w'-])"),),
    accept_anywhere=(
        (
            "corrige",
            " ".join((*PARTICIPLES, "mis pris passé passée")),
            # "déjà triée" describes how the code was, it is no edit
            r"(?<!déjà )(?<!toujours )"
            rf"\b(?:{alternation(PARTICIPLES)}|mis à jour|pris en compte|passée? en)(?![\w'-])",
        ),
        ("maintenant", "maintenant désormais dorénavant", NOW),
    ),
    dismiss=(
        (
            "voulu",
            NA,
            "voulu intentionnel intentionnelle attendu s'applique applicable",
            r"\bc'est voulu\b|\bvoulu\b|\bintentionnel(?:le)?\b|\bcomportement attendu\b"
            r"|\bne s'applique pas\b|\bnon applicable\b|\bn'est pas applicable\b",
        ),
        (
            "pas-un-bug",
            FP,
            "bug problème positif alerte arriver produire",
            r"(?:\bce |\bc')?n'est pas un (?:bug|problème)\b|\bfaux positif\b|\bfausse alerte\b"
            r"|\bne peut pas (?:arriver|se produire)\b",
        ),
        (
            "tel-quel",
            WF,
            "laisse laisser garde gardons laissons conserve conservons",
            r"\bon (?:le )?laisse (?:comme ça|tel quel|en l'état)\b|\blaisser (?:tel quel|comme ça|en l'état)\b"
            r"|\b(?:garde|gardons|laisse|laissons|conserve|conservons) (?:ça |cela |le |la |les |l')?"
            r"(?:tel quel|telle quelle|tels quels|comme ça|en l'état)",
        ),
        ("hors-perimetre", OS, "hors", r"\bhors (?:du |de )?(?:périmètre|scope|sujet)\b"),
        (
            "question-de-gout",
            ST,
            "goût style personnelle",
            r"\b(?:question|affaire) de (?:goût|style)\b|\bpréférence personnelle\b",
        ),
        (
            "deja-gere",
            DU,
            "déjà",
            r"\bdéjà (?:géré|traité|couvert|vérifié) (?:par|dans|ailleurs|plus haut)\b",
        ),
    ),
    dismiss_argued=(
        # The project moved to another tool, and the commented code went with the old one.
        (
            "passe-a",
            NA,
            "passé passés migré migrés basculé basculés",
            MOVED_ON + r"[^.!?;]*(?:n'est plus|ne sert plus|obsolète|plus utilisé|inutile)",
        ),
        # "Non, le cache est vidé à chaque déploiement": an opening "non" and an argument.
        (
            "non-car",
            FP,
            "non",
            r"^non\s*[,.:;!—–-]+\s*"
            r"(?!(?:merci|désolé|pas encore|je|j'ai|on|bien vu|bonne|exact|d'accord|effectivement)\b)"
            r"\w+\W+\w+\W+\w+",
        ),
        # "C'est correct ici, car la liste est copiée avant"
        (
            "ok-car",
            FP,
            "car parce puisque",
            r"\bc'est (?:correct|sûr|normal|bon|ok|voulu)(?: ici)?\s*,?\s*"
            r"(?:car|parce que|puisque)\b",
        ),
        # "Je préfère garder la boucle explicite"
        (
            "prefere-garder",
            WF,
            "préfère préférerais préférons garder",
            r"\b(?:je préfère|je préférerais|nous préférons|on préfère) (?:garder|laisser|conserver)\b",
        ),
    ),
    intro=(
        r"merci(?: beaucoup)?|bien vu|bonne (?:remarque|idée)|oui|d'accord|exact|effectivement"
        r"|en effet|bien sûr|entendu"
    ),
    veto_words="probablement ferai ferons mais cependant toutefois partiellement",
    veto_anywhere=r"\b(?:peut-être|je pense|je crois|plus tard|prochaine|je vais|en partie)",
    veto_accept=(
        r"\b(?:pas|jamais|encore|ne|vais|va|doit|devrait|ticket|issue|autre|prochaine?"
        r"|mon commentaire|ma remarque|ma revue)\b|\bn'"
    ),
    veto_dismiss_before=r"\b(?:pas|jamais|si)\b",
    rule_veto=(("maintenant", NOW_NOT_CODE),),
)
