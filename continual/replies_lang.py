"""Phrase tables for replies that accept a suggestion, and the cues that veto any verdict."""

from __future__ import annotations

from continual import replies_edits as edits

# Languages: en, de, fr, es, pt, zh, ja, ko. Every table holds lower-cased regular-expression source.
# Rule names become the `rule` of a verdict: `natural.<name>` for English, `natural.<lang>.<name>`
# for the other languages.

# --- accepted -----------------------------------------------------------------------------------

# Who did it, in front of an English past participle: "I fixed", "we've updated", "this is now fixed".
EN_SUBJECT = (
    r"(?:(?:i|we)(?:'ve| have)?\s+(?:now\s+|just\s+|also\s+|went ahead and\s+)?"
    r"|(?:this|that|it|this one|both)\s+(?:is|has been|was|'s|are|have been)\s+(?:now\s+)?"
    r"|now\s+)?"
)
EN_ACCEPT_VERBS: tuple[tuple[str, str, str], ...] = (
    ("fixed", "fixed", r"fixed"),
    ("done", "done", r"done(?! with\b)(?!\s+\w+ing\b)"),
    ("updated", "updated", r"updated"),
    ("changed", "changed", r"changed"),
    ("addressed", "addressed", r"addressed"),
    ("applied", "applied", r"applied"),
    ("resolved", "resolved", r"resolved"),
    ("corrected", "corrected", r"corrected"),
    ("adjusted", "adjusted", r"adjusted"),
    ("removed", "removed", r"removed"),
    ("added", "added", r"added"),
    ("renamed", "renamed", r"renamed"),
    ("switched", "switched swapped", r"switched|swapped"),
    ("moved", "moved", r"moved"),
    ("replaced", "replaced", r"replaced"),
    (
        "extracted",
        "extracted dropped deleted inlined simplified wrapped",
        r"extracted|dropped|deleted|inlined|simplified|wrapped",
    ),
    (
        "refactored",
        "refactored reworked rewritten rewrote reworded",
        r"refactored|reworked|rewritten|rewrote|reworded",
    ),
    ("implemented", "implemented incorporated", r"implemented|incorporated"),
    ("handled", "handled", r"handled"),
    ("committed", "committed", r"committed"),
    ("tweaked", "tweaked amended patched", r"tweaked|amended|patched"),
    ("made-the-change", "made", r"made (?:the|this|that) change"),
    (
        "took-suggestion",
        "took accepted used went adopted followed applied committed incorporated picked",
        edits.EN_TOOK,
    ),
    ("pushed-a-fix", "pushed", r"pushed (?:a |the )?(?:fix|commit|change)(?:es|s)?"),
)
# Anchored at the start of a sentence, after any "good catch," / "thanks," introduction.
EN_ACCEPT_START: tuple[tuple[str, str, str], ...] = (
    (
        "fixed-in-sha",
        "fixed done resolved addressed handled applied updated changed",
        EN_SUBJECT + r"(?:fixed|done|resolved|addressed|handled|applied|updated|changed)"
        r"\s+(?:in|by|with|via)\s+(?:commit\s+)?[0-9a-f]{7,40}\b",
    ),
    ("fixed-now", "should", r"should be (?:fixed|addressed|resolved|good) now\b"),
    *(
        (name, triggers, EN_SUBJECT + rf"(?:{verbs})(?![\w'-])")
        for name, triggers, verbs in EN_ACCEPT_VERBS
    ),
    # Any other edit, said in the past tense at the start of a clause: "Tightened the regex".
    (
        "edited",
        " ".join((*edits.EN_EDIT_VERBS, "made", edits.EN_RE_TRIGGERS)),
        EN_SUBJECT
        + rf"(?:{edits.alternation(edits.EN_EDIT_VERBS)}|{edits.EN_MADE}|{edits.EN_RE_VERBS})"
        + r"(?![\w'-])",
    ),
    (
        "we-edited",
        " ".join(edits.EN_EDIT_VERBS_WITH_SUBJECT),
        r"(?:i|we)(?:'ve| have)?\s+(?:just\s+|also\s+|now\s+)?"
        rf"(?:{edits.alternation(edits.EN_EDIT_VERBS_WITH_SUBJECT)})(?![\w'-])",
    ),
)

# (language, rule name, trigger words, pattern). A rule is tried only when one of its trigger words
# (a substring, for Chinese, Japanese and Korean) occurs in the reply.
ACCEPT_START: tuple[tuple[str, str, str, str], ...] = (
    *(("en", name, triggers, pattern) for name, triggers, pattern in EN_ACCEPT_START),
    ("fr", "fait", "fait", r"(?:c'est )?fait(?![\w'-])"),
    ("es", "hecho", "hecho", r"hecho(?![\w'-])"),
    ("es", "listo", "listo", r"listo(?![\w'-])"),
    ("pt", "feito", "feito", r"feito(?![\w'-])"),
    ("pt", "pronto", "pronto", r"pronto(?![\w'-])"),
    # First-person past tense at the start of a clause: "Lo cambié a pathlib", "Troquei para X".
    (
        "es",
        "preterito",
        " ".join(edits.ES_PRETERITE),
        rf"(?:(?:yo|ya|también)\s+)?(?:(?:lo|la|los|las|le)\s+)?"
        rf"(?:{edits.alternation(edits.ES_PRETERITE)})(?![\w'-])",
    ),
    (
        "pt",
        "preterito",
        " ".join(edits.PT_PRETERITE),
        rf"(?:(?:eu|já|também)\s+)?(?:(?:o|a|os|as)\s+)?"
        rf"(?:{edits.alternation(edits.PT_PRETERITE)})(?![\w'-])",
    ),
)

# What a reply says the code now does: "the input is escaped now", "the timeout is now passed".
EN_NOW_DONE = (
    r"passed|escaped|handled|checked|validated|closed|sorted|cached|guarded|awaited|covered|logged"
    r"|quoted|sanitized|sanitised|released|freed|raised|caught|propagated"
    r"|initialized|initialised|locked|bounded|capped|clamped|typed|annotated|documented|tested"
    r"|filtered|normalized|normalised|encoded|decoded|deduplicated|gone"
)

# Found anywhere in a sentence (participles that rarely mean anything else in a review reply).
ACCEPT_ANYWHERE: tuple[tuple[str, str, str, str], ...] = (
    (
        "en",
        "now-done",
        "now",
        rf"\b(?:is|are) (?:now (?:{EN_NOW_DONE})|(?:{EN_NOW_DONE}) now)\b",
    ),
    (
        "en",
        "now-state",
        "now",
        edits.EN_NOW_STATE,
    ),
    (
        "de",
        "behoben",
        " ".join(edits.DE_PARTICIPLES),
        rf"\b(?:{edits.alternation(edits.DE_PARTICIPLES)})\b",
    ),
    ("de", "jetzt", "jetzt nun inzwischen mittlerweile", edits.DE_NOW),
    (
        "fr",
        "corrige",
        " ".join((*edits.FR_PARTICIPLES, "mis pris passé passée")),
        # "déjà triée" describes how the code was, it is no edit
        r"(?<!déjà )(?<!toujours )"
        rf"\b(?:{edits.alternation(edits.FR_PARTICIPLES)}|mis à jour|pris en compte|passée? en)(?![\w'-])",
    ),
    ("fr", "maintenant", "maintenant désormais dorénavant", edits.FR_NOW),
    (
        "es",
        "arreglado",
        " ".join(edits.ES_PARTICIPLES),
        rf"\b(?:{edits.alternation(edits.ES_PARTICIPLES)})\b",
    ),
    ("es", "ahora", "ahora", edits.ES_NOW),
    (
        "pt",
        "corrigido",
        " ".join(edits.PT_PARTICIPLES),
        rf"\b(?:{edits.alternation(edits.PT_PARTICIPLES)})\b",
    ),
    ("pt", "agora", "agora", edits.PT_NOW),
    (
        "zh",
        "yixiufu",
        "已 好了 搞定 了 按 照 根据",
        r"(?:改|修)好了|搞定|" + edits.ZH_EDIT,
    ),
    ("ja", "shuusei", "ました 済み 完了", edits.JA_EDIT),
    (
        "ko",
        "sujeong",
        "했 였 완료 뒀 두었 바꿨 바꾸었 옮겼 옮기었 뺐 고쳤 넣었 없앴 지웠 나눴 합쳤 빼냈 바꿔 옮겨",
        edits.KO_EDIT,
    ),
)

# What may open a sentence before the decision: "Good catch, fixed." -> "fixed."
INTRO = (
    r"(?:(?!\+1\b)[^\w@])+|(?:@[\w.-]+(?:\[bot\])?"
    r"|\+1|(?:this |it |that )?should be (?:good|fine|ok|okay) now(?=\s*[,;:—–-])"
    r"|(?:good|nice|great) (?:catch|point|find|spot|call|idea|eye)"
    r"|thanks?(?: you)?(?: for [^,.!;:—–]*)?"
    r"|thx|ty|cheers|yes|yep|yup|yeah|indeed|agreed|agree|ok|okay|right|true|correct"
    r"|you(?:'re| are) (?:right|correct)|oops|whoops|ah|oh|makes sense|fair (?:enough|point)"
    r"|good|nice|great|cool|perfect|absolutely|definitely|of course|sure(?: thing)?|alright"
    r"|all right|aight|ack|roger|np|well spotted|nice one|sounds good"
    r"|danke(?: schön)?|vielen dank|guter (?:punkt|fang|hinweis)|gute idee|gut gesehen|stimmt|richtig"
    r"|ja|klar|du hast recht|sie haben recht|genau|passt|gerne|alles klar"
    r"|merci(?: beaucoup)?|bien vu|bonne (?:remarque|idée)|oui|d'accord|exact|effectivement|en effet"
    r"|bien sûr|entendu"
    r"|gracias|buena (?:observación|idea)|buen punto|bien visto|sí|vale|claro|cierto|tienes razón"
    r"|de acuerdo|entendido|perfecto|obrigad[oa]|valeu|boa(?: observação| ideia)?|bem visto|bom ponto"
    r"|sim|certo|perfeito|show"
    r"|verdade|tem razão|beleza)"
    r"(?:[\s,.!:;—–-]+|$)"
)

# --- vetoes -------------------------------------------------------------------------------------

# What a deferral promises to do: "I'll fix it", "we're going to look".
_CHANGE_VERBS = (
    r"(?:fix|do|update|change|address|add|handle|look|take|check|think|try|revisit|follow|tackle"
    r"|clean|remove|rename|refactor|move|switch|implement|apply|consider|investigate|open|create"
    r"|file|push|work|get|make|adjust|rework|rewrite|correct|test)"
)
# Anywhere in a reply: hedges, deferrals, sarcasm, contrast and partial agreement make it discussion.
# Single words are looked up in a set; phrases, and words that need context, are expressions.
VETO_WORDS = (
    # English
    "maybe perhaps probably possibly might unsure later eventually let's gonna lol totally but"
    " however though although partially partly half mostly differently wip"
    # German
    " vielleicht eventuell wahrscheinlich glaube denke später nachher demnächst morgen aber jedoch"
    " allerdings teilweise"
    # French
    " probablement ferai ferons mais cependant toutefois partiellement"
    # Spanish
    " quizá quizás probablemente luego después haré pero parcialmente"
    # Portuguese
    " talvez provavelmente depois mas porém contudo farei"
)
VETO_ANYWHERE = (
    # English hedges, deferrals, sarcasm, contrast, partial agreement
    r"\b(?:not sure|i think|i guess|i believe|i suppose|could be|not certain|follow[- ]?up|for now"
    r"|next pr|future pr|separate issue|tracked in|let me|yeah right|said no one|oh great|as if"
    r"|some of|not all|not as suggested|on second thought|hmm+|someone else|somebody else"
    r"|nothing changed|no code changes?)\b"
    # "except" as contrast, not the keyword ("replaced the bare except"); "instead", unless what it
    # replaces is quoted code ("instead of `==`")
    r"|\bexcept\b(?<!bare except)(?<!broad except)(?<!blanket except)(?<!the except)(?<!an except)"
    r"(?<!\ba except)"
    r"(?!\s+(?:clause|block|handler|statement|with|\w*error|\w*exception)\b)"
    r"|\binstead\b(?! of (?!(?:your|yours|the suggest\w*|what|that|this|it)\b)[\w`])"
    r"|\bfor the first (?:case|one|part|two|few|half)\b"
    r"|\bthe (?:second|remaining) (?:one|case|part|half)"
    r"|\bneeds? more (?:thought|work|time|discussion)\b"
    rf"|\b(?:i'll|we'll|i will|we will|will|i'm going to|we're going to|(?<!not )going to)\s+"
    rf"(?:(?!not\b|never\b)\w+\s+)?{_CHANGE_VERBS}\b"
    r"|/s\b|🙄|😒"
    # German
    r"|\b(?:mache ich|machen wir|kümmere mich|folge-pr)\b"
    # French
    r"|\b(?:peut-être|je pense|je crois|plus tard|prochaine|je vais|en partie)"
    # Spanish
    r"|\b(?:tal vez|puede que|creo que|más tarde|sin embargo|en parte)\b"
    r"|\b(?:voy|vamos)\b(?<!no voy)(?<!no vamos) a "
    r"(?:corregir|arreglar|cambiar|hacer|revisar|mirar|ver)\b"
    # Portuguese
    r"|\b(?:acho que|mais tarde|em parte)\b"
    r"|\b(?:vou|vamos)\b(?<!não vou)(?<!não vamos) "
    r"(?:corrigir|arrumar|ajustar|fazer|ver|verificar|olhar|mudar)\b"
)
# The same for replies with Chinese, Japanese or Korean text.
VETO_CJK = (
    # Chinese
    r"(?<!不)可能|也许|或许|大概|我觉得|稍后|之后|以后|后续|下次|回头|再改|再处理|但是|不过|部分|暂时"
    # Japanese
    r"|かもしれ|たぶん|多分|後で|あとで|後ほど|別の?pr|今後|次のpr|予定|けど|けれど|ですが|一部|検討"
    # Korean
    r"|아마|혹시|나중에|추후|다음\s?pr|다음에|예정|하지만|그런데|다만|일부|검토"
)
# Case-sensitive: "TODO" as written by developers, not Spanish/Portuguese "todo".
VETO_TODO = r"\bTODO\b|\bFIXME\b"

# Inside the sentence that carries an acceptance: negation, modality, or somewhere other than this PR.
VETO_ACCEPT_SHARED = (
    r"\b(?:not|never|nothing|none|nor|cannot|if|unless|once|when|would|could|can|need|needs"
    r"|must|should|please|want|plan|try(?![/-]|\s+(?:block|clause|statement))|trying|going|will"
    r"|yet|still|already|almost|nearly|some|nope"
    r"|other|another|(?<!to the )previous|upstream|main|master|trunk|develop|separate|different"
    r"|elsewhere|draft|backlog|roadmap|ticket|jira|tracker|the ball|locally|reopen(?:ed|ing)?"
    r"|by mistake|my (?:local|env|environment|machine|laptop|setup)|latest changes"
    r"|as (?:resolved|duplicate|draft|outdated|spam|off-topic)|bump(?:ed|ing)? (?:this|the (?:pr|thread|issue))"
    # the pull request and its process, not the code: "renamed the PR", "set up a meeting"
    r"|(?<!in )(?<!to )(?<!into )(?:the|this) (?:pr|pull request)|(?:this|the) (?:thread|conversation|discussion)"
    r"|into an issue|meeting|standup|on hold|deadline|project board|sprint"
    r"|for (?:today|the day|the week)|wrapped up|why (?:we|it|this|i)"
    # one's own review, not the code: "deleted my earlier comment", "updated my review"
    r"|my (?:\w+ )?(?:comments?|review|approval|reply|replies|message|note|question)"
    # still under way, or undone: "made things worse, reverting"
    r"|worse|reverting|fixing|undoing|going back|rolling back"
    r"|my mind|similar|ago|yesterday|last (?:week|time|month|year|release)"
    r"|conflicts?|branch|rebased?|merged?|unrelated|labels?|changelog|release notes|ci|pipeline"
    r"|(?:pr|pull request) (?:description|title|body)|commit message|milestone|reviewers?"
    r"|re-?request(?:ed|ing)? (?:a )?review|lockfile|formatter|breaks?|broke|broken)\b|n't\b|#\d+"
)
# Each language's own negation and modality, next to the shared list (English "no" is Portuguese
# "in the", so it is English-only).
VETO_ACCEPT: dict[str, str] = {
    "en": r"\bno\b",
    "de": r"\b(?:nicht|nichts|kein|keine|keinen|nie|niemals|noch|sollte|soll|muss|müssen|wird|werde"
    r"|werden|issue|meine[nmr]? (?:kommentar|review|anmerkung)"
    r"|ticket|separate[nsr]?|eigene[nmsr]? pr|nächste[nmr]?)\b",
    "fr": r"\b(?:pas|jamais|encore|ne|vais|va|doit|devrait|ticket|issue|autre|prochaine?"
    r"|mon commentaire|ma remarque|ma revue)\b|\bn'",
    # Portuguese "no" is "in the": "ajustado no último commit"
    "es": r"\b(?:todavía|aún|nunca|falta|debe|debería)\b"
    r"|\bno\b(?! (?:último|ultimo|primeiro|commit|código|codigo|arquivo|pr|branch|teste)\b)"
    r"(?! (?:usad|utilizad|necesari)\w*)"
    r"|\b(?:otro|otra|siguiente|próximo|próxima|backlog|mi comentario|mi revisión)\b",
    # "não usado" (unused) describes the thing removed, it does not negate the edit
    "pt": r"\b(?:ainda|nunca|deve|deveria|outro|outra|próximo|próxima|backlog|meu comentário"
    r"|minha revisão)\b"
    r"|\bnão\b(?! (?:usad|utilizad|necessári)\w*)",
    "zh": r"没|未|不|还|吗|待|要|需|冲突|合并|分支|描述|标题|下个|下一个|迭代|另一个|别的|其他|评论|"
    + edits.ZH_NOT_HERE,
    "ja": r"まだ|ません|ない|予定|べき|か[。]?$|コンフリクト|マージ|ブランチ|リベース|別の|次の|他の"
    r"|自分の|私の|僕の",
    "ko": r"아직|않|안\s|못|나요|까요|겠|충돌|머지|병합|브랜치|리베이스|(?<![가-힣])제\s|댓글",
}
# Immediately before a dismissal cue, in the same clause: "this is NOT intentional", "IF it is by design".
VETO_DISMISS_BEFORE = (
    r"\b(?:not|never|hardly|nor|if|whether|unless|might|may|could|maybe|would|should|isn't it"
    r"|nicht|ob|wenn|falls|vielleicht|pas|jamais|si|nunca|talvez|quizás)\b|n't\b|\bno\s+(?=\w)"
    r"|不是|并非|并不|不|没|非"
)
# Immediately after a dismissal cue (Japanese and Korean negate at the end): "意図的ではありません".
VETO_DISMISS_AFTER = r"^.{0,6}(?:ではな|じゃな|ではありません|아니|아닙|않)"
# A sentence that asks.
QUESTION = (
    r"[?？¿]|^(?:why|how|what|when|where|who|which|is|isn't|was|wasn't|did|didn't"
    r"|do|don't|are|aren't)\b|^(?:does|doesn't)\b(?!(?: not)? apply\b)"
    r"|か[。]?$|(?:나요|까요|습니까)[.。]?$"
)

# A rule's own veto, for cues that are about the code only when the sentence says nothing else:
# "it is now a frozen dataclass" accepts, "CI is now green" does not.
RULE_VETO: dict[tuple[str, str], str] = {
    ("en", "now-state"): edits.EN_NOW_NOT_CODE
    + r"|\b(?:fine|ok|okay|same|good|better|working|works)\b",
    ("de", "jetzt"): edits.DE_NOW_NOT_CODE,
    ("fr", "maintenant"): edits.FR_NOW_NOT_CODE,
}
