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

LANGUAGE = Language(
    code="es",
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
