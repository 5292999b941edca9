"""Spanish: what accepts, what refuses, and what vetoes either."""

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

PARTICIPLES = (
    *inflect(
        "arregl solucion aplic cambi actualiz ajust modific renombr elimin quit borr agreg simplific"
        " reemplaz separ document limpi incorpor integr reorganiz escap",
        "ado ada ados adas",
    ),
    *inflect("correg añad sustitu convert mov inclu", "ido ida idos idas"),
    *words("hecho hecha resuelto resuelta reescrito reescrita extraído extraída puesto"),
)
PRETERITE = words(
    "cambié moví renombré eliminé quité borré agregué añadí extraje simplifiqué reemplacé sustituí"
    " corregí arreglé apliqué ajusté actualicé modifiqué reescribí separé convertí limpié documenté"
    " hice usé incorporé subí incluí cerré validé escapé integré"
)
NOW = (
    r"\bahora (?:es|son|está|están|usa|usan|devuelve|retorna|valida|maneja|comprueba|lanza|cierra"
    r"|acepta|rechaza)\b"
)

# The project moved to another tool: never an edit of the commented code.
MOVED_ON = (
    r"\b(?:nos (?:pasamos|cambiamos|movimos|migramos)|migramos|(?:hemos|han) (?:migrado|pasado|cambiado)"
    r"|el proyecto (?:migró|se pasó|pasó|cambió))\s+(?:a|de)\b"
)

LANGUAGE = Language(
    code="es",
    deferral_words=(
        "más luego después futuro ahora momento otro otra próximo próxima "
        "siguiente nuevo aparte separado distinto este issue ticket"
    ),
    deferral=(
        r"\bmás (?:tarde|adelante)\b|(?<!desde )\bluego\b(?! de\b)|\bdespués\b(?! de\b| del\b| que\b)"
        r"|\b(?:en el futuro|por ahora|de momento|por el momento)\b"
        r"|\b(?:otro|otra|próximo|próxima|siguiente|nuevo|futuro) (?:pr|issue|ticket)\b"
        r"|\b(?:pr|issue|ticket) (?:aparte|separado|distinto|futuro|siguiente|nuevo)\b"
        r"|\bno en este (?:pr|cambio)\b|\b(?:abr[íoe]|abriré|cre[éo]|crearé) (?:un|una) (?:issue|ticket)\b"
    ),
    moved_on=MOVED_ON,
    arguments="ya-se-maneja",
    accept_start=(
        ("hecho", "hecho", r"hecho(?![\w'-])"),
        ("listo", "listo", r"listo(?![\w'-])"),
        # First-person past tense at the start of a clause: "Lo cambié a pathlib".
        (
            "preterito",
            " ".join(PRETERITE),
            r"(?:(?:yo|ya|también)\s+)?(?:(?:lo|la|los|las|le)\s+)?"
            rf"(?:{alternation(PRETERITE)})(?![\w'-])",
        ),
    ),
    accept_anywhere=(
        ("arreglado", " ".join(PARTICIPLES), rf"\b(?:{alternation(PARTICIPLES)})\b"),
        ("ahora", "ahora", NOW),
    ),
    dismiss=(
        (
            "intencional",
            NA,
            "intencional intencionado propósito diseño esperado aplica",
            r"\bes intencional\b|\bintencionado\b|\ba propósito\b|\bpor diseño\b"
            r"|\bcomportamiento esperado\b|\bno aplica\b",
        ),
        (
            "no-es-un-bug",
            FP,
            "bug error problema positivo alarma pasar ocurrir suceder",
            r"\bno es un (?:bug|error|problema)\b|\bfalso positivo\b|\bfalsa alarma\b"
            r"|\bno puede (?:pasar|ocurrir|suceder)\b",
        ),
        (
            "lo-dejamos-asi",
            WF,
            "dejamos dejo dejarlo cambiar",
            r"\b(?:lo dejamos|lo dejo|dejarlo) (?:así|como está)\b|\bno (?:lo )?(?:vamos|voy) a cambiar\b",
        ),
        ("fuera-de-alcance", OS, "fuera", r"\bfuera (?:del|de) (?:alcance|ámbito)\b"),
        ("cuestion-de-gusto", ST, "cuestión", r"\bcuestión de (?:gusto|estilo)\b"),
        ("ya-se-maneja", DU, "ya", r"\bya se (?:maneja|valida|comprueba|controla) en\b"),
    ),
    dismiss_argued=(
        # The project moved to another tool, and the commented code went with the old one.
        (
            "migramos",
            NA,
            "pasamos cambiamos movimos migramos migrado pasado cambiado migró pasó cambió",
            MOVED_ON + r"[^.!?;]*(?:ya no se usa|ya no es necesari|obsolet|ya no aplica)",
        ),
        # "Prefiero mantener el bucle explícito"
        (
            "prefiero-mantener",
            WF,
            "prefiero preferimos preferiría mantener dejar",
            r"\b(?:prefiero|preferimos|preferiría) (?:mantener|dejar)\b",
        ),
        # "Está bien así porque la lista se copia antes"
        (
            "bien-porque",
            FP,
            "porque ya que",
            r"\b(?:está|es) (?:bien|correcto|seguro)(?: así)?\s*,?\s*(?:porque|ya que|pues)\b",
        ),
    ),
    intro=(
        r"gracias|buena (?:observación|idea)|buen punto|bien visto|sí|vale|claro|cierto"
        r"|tienes razón|de acuerdo|entendido|perfecto"
    ),
    veto_words="quizá quizás probablemente luego después haré pero parcialmente",
    veto_anywhere=(
        r"\b(?:tal vez|puede que|creo que|más tarde|sin embargo|en parte)\b"
        r"|\b(?:voy|vamos)\b(?<!no voy)(?<!no vamos) a "
        r"(?:corregir|arreglar|cambiar|hacer|revisar|mirar|ver)\b"
    ),
    # Portuguese "no" is "in the": "ajustado no último commit"
    veto_accept=(
        r"\b(?:todavía|aún|nunca|falta|debe|debería)\b"
        r"|\bno\b(?! (?:último|ultimo|primeiro|commit|código|codigo|arquivo|pr|branch|teste)\b)"
        r"(?! (?:usad|utilizad|necesari)\w*)"
        r"|\b(?:otro|otra|siguiente|próximo|próxima|backlog|mi comentario|mi revisión)\b"
    ),
    veto_dismiss_before=r"\b(?:si|nunca|quizás)\b",
)
