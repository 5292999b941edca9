"""Portuguese: what accepts, what refuses, and what vetoes either."""

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
        "ajust alter aplic atualiz modific consert arrum renome adicion simplific troc separ"
        " document limp incorpor integr mud",
        "ado ada ados adas",
    ),
    *inflect("corrig resolv mov remov extraí substituí convert incluí", "ido ida idos idas"),
    *words("feito feita reescrito reescrita"),
)
PRETERITE = words(
    "troquei movi mudei renomeei removi apaguei tirei adicionei acrescentei extraí simplifiquei"
    " substituí corrigi ajustei apliquei atualizei alterei reescrevi separei converti limpei"
    " documentei fiz usei incluí arrumei consertei resolvi integrei"
)
NOW = (
    r"\bagora (?:é|são|está|estão|usa|usam|retorna|devolve|valida|trata|lança|fecha|aceita"
    r"|rejeita)\b"
)

# The project moved to another tool: never an edit of the commented code.
MOVED_ON = r"\b(?:migramos|mudamos|passamos|trocamos|o projeto (?:migrou|mudou|passou))\s+(?:para|pro|pra|de)\b"

LANGUAGE = Language(
    code="pt",
    deferral_words=(
        "mais depois futuramente futuro enquanto ora outro outra próximo "
        "próxima novo separado separada parte futura seguinte neste nesse nesta "
        "nessa este issue ticket"
    ),
    deferral=(
        r"\bmais tarde\b|\bdepois\b(?! d[oa]s?\b| que\b)|\b(?:futuramente|no futuro|por enquanto|por ora)\b"
        r"|\b(?:outro|outra|próximo|próxima|novo|futuro) (?:pr|issue|ticket)\b"
        r"|\b(?:pr|issue|ticket) (?:separad[oa]|à parte|futur[oa]|seguinte)\b"
        r"|\bnão (?:neste|nesse|nesta|nessa|em este) (?:pr|pull request)\b"
        r"|\b(?:abri|abro|abrirei|criei|crio|criarei) (?:uma?|um) (?:issue|ticket)\b"
    ),
    moved_on=MOVED_ON,
    arguments="ja-tratado",
    accept_start=(
        ("feito", "feito", r"feito(?![\w'-])"),
        ("pronto", "pronto", r"pronto(?![\w'-])"),
        # First-person past tense at the start of a clause: "Troquei para X".
        (
            "preterito",
            " ".join(PRETERITE),
            r"(?:(?:eu|já|também)\s+)?(?:(?:o|a|os|as)\s+)?"
            rf"(?:{alternation(PRETERITE)})(?![\w'-])",
        ),
    ),
    accept_anywhere=(
        ("corrigido", " ".join(PARTICIPLES), rf"\b(?:{alternation(PARTICIPLES)})\b"),
        ("agora", "agora", NOW),
    ),
    dismiss=(
        (
            "intencional",
            NA,
            "intencional proposital propósito design esperado aplica",
            r"\bé intencional\b|\bproposital\b|\bde propósito\b|\bpor design\b"
            r"|\bcomportamento esperado\b|\bnão se aplica\b",
        ),
        (
            "nao-e-um-bug",
            FP,
            "bug erro problema positivo alarme acontecer ocorrer",
            r"\bnão é (?:um )?(?:bug|erro|problema)\b|\bfalso positivo\b|\b(?:alarme falso|falso alarme)\b"
            r"|\bnão pode (?:acontecer|ocorrer)\b",
        ),
        (
            "deixar-assim",
            WF,
            "deixar manter mudar alterar",
            r"\bdeixar (?:assim|como está)\b|\bmanter como está\b|\bnão (?:vou|vamos) (?:mudar|alterar)\b",
        ),
        ("fora-do-escopo", OS, "fora", r"\bfora (?:do|de) escopo\b"),
        ("questao-de-gosto", ST, "questão", r"\bquestão de (?:gosto|estilo)\b"),
        (
            "ja-tratado",
            DU,
            "já",
            r"\bjá (?:é )?(?:tratado|coberto|validado|verificado) (?:em|no|na|pelo|pela)\b",
        ),
    ),
    dismiss_argued=(
        # The project moved to another tool, and the commented code went with the old one.
        (
            "migramos",
            NA,
            "migramos mudamos passamos trocamos migrou mudou passou",
            MOVED_ON
            + r"[^.!?;]*(?:não é mais usad|não se usa mais|obsolet|não (?:é|e) mais necessári)",
        ),
        # "Não, o cache é limpo a cada deploy": an opening "não" and an argument.
        (
            "nao-porque",
            FP,
            "não",
            r"^não\s*[,.:;!—–-]+\s*"
            r"(?!(?:obrigad[oa]|desculp\w*|ainda|eu|nós|a gente|boa|bem|certo|verdade)\b)"
            r"\w+\W+\w+\W+\w+",
        ),
        # "Prefiro manter o loop explícito"
        (
            "prefiro-manter",
            WF,
            "prefiro preferimos manter deixar",
            r"\b(?:prefiro|preferimos|preferiria) (?:manter|deixar)\b",
        ),
    ),
    intro=(
        r"obrigad[oa]|valeu|boa(?: observação| ideia)?|bem visto|bom ponto|sim|certo|perfeito|show"
        r"|verdade|tem razão|beleza"
    ),
    veto_words="talvez provavelmente depois mas porém contudo farei",
    veto_anywhere=(
        r"\b(?:acho que|mais tarde|em parte)\b"
        r"|\b(?:vou|vamos)\b(?<!não vou)(?<!não vamos) "
        r"(?:corrigir|arrumar|ajustar|fazer|ver|verificar|olhar|mudar)\b"
    ),
    # "não usado" (unused) describes the thing removed, it does not negate the edit
    veto_accept=(
        r"\b(?:ainda|nunca|deve|deveria|outro|outra|próximo|próxima|backlog|meu comentário"
        r"|minha revisão)\b"
        r"|\bnão\b(?! (?:usad|utilizad|necessári)\w*)"
    ),
    veto_dismiss_before=r"\b(?:nunca|talvez)\b",
)
