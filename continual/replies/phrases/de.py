"""German: what accepts, what refuses, and what vetoes either."""

from __future__ import annotations

from continual.replies.phrases.shared import DU, FP, NA, OS, ST, WF, Language, alternation, words

PARTICIPLES = words(
    "behoben erledigt gefixt gefixed korrigiert angepasst geändert umgesetzt übernommen eingebaut"
    " aktualisiert eingearbeitet umgestellt ausgelagert verschoben umbenannt entfernt vereinfacht"
    " ergänzt hinzugefügt gelöscht ersetzt umgebaut überarbeitet eingefügt verbessert bereinigt"
    " aufgeräumt extrahiert refaktoriert refactored umgeschrieben zusammengefasst vereinheitlicht"
    " abgesichert dokumentiert eingeschränkt erhöht reduziert verringert gekürzt getauscht"
    " ausgetauscht herausgezogen rausgezogen rausgenommen herausgenommen weggelassen eingeführt"
    " nachgezogen nachgebessert verlagert umformuliert typisiert maskiert sortiert gecacht gekapselt"
    " konvertiert umgewandelt hochgezogen zurückgenommen zurückgedreht begrenzt abgefangen"
    " gestrichen rausgeworfen"
)
# "ist jetzt eine Konstante", "sind nun typisiert"
NOW = r"\b(?:ist|sind)\s+(?:jetzt|nun|inzwischen|mittlerweile)\s+(?!noch\b|nicht\b|kein)\w"
NOW_NOT_CODE = r"\b(?:grün|rot|blocker|bereit|gemerged|gemergt|kaputt|fehlerhaft|instabil|flaky)\b"

# The project moved to another tool: never an edit of the commented code.
MOVED_ON = (
    r"\b(?:wir sind|wir haben|das projekt ist|das projekt hat)\s+(?:\w+\s+){0,2}(?:auf|zu)\s+(?:[\w.-]+\s+){1,3}"
    r"(?:umgestiegen|gewechselt|migriert|umgezogen|umgestellt)\b"
)

LANGUAGE = Language(
    code="de",
    deferral_words=(
        "später nachher demnächst irgendwann zukünftig künftig vorerst erste "
        "zukunft folge folgepr folgeissue separaten eigenen anderen nächsten neuen späteren "
        "weiteren diesem issue ticket"
    ),
    deferral=(
        r"\b(?:später|nachher|demnächst|irgendwann|zukünftig|künftig|vorerst|fürs erste|in zukunft)\b"
        r"|\bfolge-?(?:pr|issue|ticket|commit)s?\b"
        r"|\b(?:separaten|eigenen|anderen|nächsten|neuen|späteren|weiteren) (?:pr|pull request|issue|ticket|commit)s?\b"
        r"|\bnicht (?:in|mit) diesem (?:pr|pull request)\b"
        r"|\b(?:issue|ticket) (?:angelegt|erstellt|aufgemacht|eröffnet)\b"
        r"|\b(?:lege|mache|erstelle) (?:ich |wir )?(?:dafür )?(?:ein(?:en)? )?(?:issue|ticket)\b"
    ),
    moved_on=MOVED_ON,
    arguments="bereits-abgedeckt",
    accept_anywhere=(
        (
            "behoben",
            " ".join(PARTICIPLES),
            # "bewusst nicht gecacht" says what the code does not do, it is no edit
            rf"(?<!nicht )\b(?:{alternation(PARTICIPLES)})\b",
        ),
        ("jetzt", "jetzt nun inzwischen mittlerweile", NOW),
    ),
    dismiss=(
        (
            "absicht",
            NA,
            "absicht absichtlich beabsichtigt gewollt verhalten",
            r"\b(?:absicht|absichtlich|beabsichtigt|gewollt|so gewollt|erwartetes verhalten)\b",
        ),
        (
            "kein-bug",
            FP,
            "bug fehler problem fehlalarm positiv passieren vorkommen auftreten nie",
            r"\bkein(?:e|en)? (?:bug|fehler|problem)\b|\bfehlalarm\b|\bfalsch positiv\b"
            r"|\bkann (?:hier )?nicht (?:passieren|vorkommen|auftreten)\b|\btritt nie auf\b",
        ),
        (
            "bleibt-so",
            WF,
            "so ändern geändert",
            r"\blassen wir (?:so|das so)\b|\bbleibt so\b|\blasse (?:ich |es |das )*so\b"
            r"|\b(?:werde|werden) (?:ich |wir )?(?:das |es )?nicht ändern\b|\bwird nicht geändert\b",
        ),
        (
            "nicht-dieser-pr",
            OS,
            "gehört außerhalb teil gegenstand bestandteil diesem",
            r"\bgehört nicht in diesen pr\b|\baußerhalb des (?:umfangs|scopes)\b"
            r"|\bnicht (?:teil|gegenstand|bestandteil) (?:dieses|des) (?:prs?|pull requests?)\b"
            r"|\bnicht in diesem pr\b(?! (?:mehr|noch)\b)",
        ),
        (
            "geschmackssache",
            ST,
            "geschmackssache stilfrage geschmacksfrage frage",
            r"\bgeschmackssache\b|\bstilfrage\b|\bgeschmacksfrage\b|\bfrage des (?:stils|geschmacks)\b",
        ),
        (
            "bereits-abgedeckt",
            DU,
            "bereits schon",
            r"\bbereits (?:abgedeckt|behandelt|geprüft) (?:in|durch|von)\b"
            r"|\b(?:wird|werden|ist|sind) (?:bereits|schon) (?:in|durch|von|im|beim) [^.!?;]{1,40}"
            r"(?:geprüft|abgedeckt|behandelt|validiert|abgefangen)\b",
        ),
    ),
    dismiss_argued=(
        # The project moved to another tool, and the commented code went with the old one.
        (
            "umgestiegen",
            NA,
            "umgestiegen gewechselt migriert umgezogen umgestellt",
            MOVED_ON
            + r"[^.!?;]*(?:nicht mehr|veraltet|obsolet|hinfällig|überflüssig|entfällt|entfallen)\b",
        ),
        # "Nein, der Cache wird bei jedem Deploy geleert": an opening "nein" and an argument.
        (
            "nein-weil",
            FP,
            "nein nö",
            r"^(?:nein|nö)\s*[,.:;!—–-]+\s*"
            r"(?!(?:danke|sorry|noch nicht|ich|wir|gute|guter|stimmt|richtig|passt)\b)"
            r"\w+\W+\w+\W+\w+",
        ),
        # "Das ist hier in Ordnung, weil die Liste vorher kopiert wird"
        (
            "ok-weil",
            FP,
            "weil da denn",
            r"\b(?:das|es) ist (?:hier )?(?:in ordnung|ok|okay|sicher|korrekt|unkritisch)\s*,?\s*"
            r"(?:weil|da|denn)\b",
        ),
        # "Ich würde lieber bei der expliziten Schleife bleiben"
        (
            "lieber-so",
            WF,
            "lieber behalten beibehalten bleiben",
            r"\b(?:ich würde|wir würden|würde ich|würden wir) (?:das |es )?(?:lieber|eher)"
            r" (?:so lassen|beibehalten|behalten|bei [^.!?;]{1,40} bleiben)\b",
        ),
    ),
    intro=(
        r"danke(?: schön)?|vielen dank|guter (?:punkt|fang|hinweis)|gute idee|gut gesehen|stimmt"
        r"|richtig|ja|klar|du hast recht|sie haben recht|genau|passt|gerne|alles klar"
    ),
    veto_words=(
        "vielleicht eventuell wahrscheinlich glaube denke später nachher demnächst morgen aber jedoch"
        " allerdings teilweise"
    ),
    veto_anywhere=r"\b(?:mache ich|machen wir|kümmere mich|folge-pr)\b",
    veto_accept=(
        r"\b(?:nicht|nichts|kein|keine|keinen|nie|niemals|noch|sollte|soll|muss|müssen|wird|werde"
        r"|werden|issue|meine[nmr]? (?:kommentar|review|anmerkung)"
        r"|ticket|separate[nsr]?|eigene[nmsr]? pr|nächste[nmr]?)\b"
    ),
    veto_dismiss_before=r"\b(?:nicht|ob|wenn|falls|vielleicht)\b",
    rule_veto=(("jetzt", NOW_NOT_CODE),),
)
