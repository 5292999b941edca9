"""Edit statements: the verbs and states with which a reply says the code was changed, per language."""

from __future__ import annotations

# Each table is lower-cased regular-expression source, or a space-separated word list from which the
# rule's pattern and its trigger words are both built. A statement counts only at the start of a
# clause (English) or with the tense that says it is done (the other languages), and every veto of
# the classifier still applies to the sentence around it.


def words(*groups: str) -> tuple[str, ...]:
    """The distinct words of some space-separated lists, longest first (for regex alternation)."""
    return tuple(
        sorted({word for group in groups for word in group.split()}, key=len, reverse=True)
    )


def inflect(stems: str, endings: str) -> tuple[str, ...]:
    """Every stem with every ending: `inflect("renomm ajout", "é ée és")`."""
    return words(" ".join(stem + ending for stem in stems.split() for ending in endings.split()))


def alternation(forms: tuple[str, ...]) -> str:
    return "|".join(forms)


# --- English ------------------------------------------------------------------------------------

# Past forms of what one does to code. Forms shared with the present ("split", "set", "cast") are not
# here: without a subject they read as a request ("Cast to int before comparing").
EN_EDIT_VERBS = words(
    "added removed deleted dropped ditched nuked renamed moved relocated switched swapped replaced"
    " changed updated fixed corrected adjusted tweaked amended patched rewrote rewritten reworked"
    " refactored reworded rephrased restructured reorganized reorganised reordered rearranged"
    " extracted inlined simplified wrapped unwrapped combined consolidated deduplicated deduped"
    " factored hoisted lifted pulled narrowed widened broadened tightened loosened relaxed restricted"
    " limited capped clamped bounded bumped increased decreased reduced lowered shortened extended"
    " converted turned marked typed annotated documented clarified guarded escaped sanitized"
    " sanitised quoted encoded decoded normalized normalised lowercased uppercased stripped trimmed"
    " sorted filtered cached memoized memoised pinned unpinned upgraded downgraded exposed hid"
    " privatized prefixed aliased initialized initialised defaulted reverted restored undid"
    " implemented incorporated adopted applied handled addressed resolved tackled silenced"
    " suppressed threaded wired plugged separated isolated decoupled tidied cleaned polished"
    " flipped inverted negated reversed ported wrote gated awaited streamlined generalized"
    " generalised parametrized parameterized parametrised centralized centralised unified"
    " standardized standardised specialized freed"
)
# "made it a constant", not "made a note" or "made sure".
EN_MADE = r"made(?!\s+(?:a|an|some|sure|no|note|progress|it clear|mistakes?)\b)"
# "re-raised with `from exc`"
EN_RE_VERBS = r"re-?raised|re-?threw|re-?thrown"
EN_RE_TRIGGERS = "raised reraised threw rethrew thrown rethrown"
# Forms that are also the present tense: counted only after "I" or "we".
EN_EDIT_VERBS_WITH_SUBJECT = words("split cut put cast reset")
# What a reply says the code now does: "it now returns None", "the loop now exits early".
EN_NOW_DOES = words(
    "uses returns raises exits checks validates handles accepts rejects calls closes releases"
    " logs caches escapes awaits skips defaults reads writes sorts guards catches propagates matches"
    " compares waits retries stops yields copies clamps caps limits bails respects honours honors"
    " preserves keeps sets resets frees locks unlocks lives falls short-circuits requires"
    " forwards delegates wraps"
)
# What code is, once changed: a value in backticks (blanked to x's), a participle, a property, or a
# kind of code object: "is now `None`", "is now keyword-only", "is now a frozen dataclass".
EN_CODE_ADJECTIVES = words(
    "optional required keyword-only positional-only private public protected immutable mutable frozen"
    " final static async sync synchronous asynchronous lazy cached thread-safe idempotent atomic"
    " constant readonly read-only typed untyped nullable non-nullable configurable deterministic"
    " empty none null zero positive negative bounded sorted unique lowercase uppercase"
    " case-insensitive escaped quoted parameterized parametrized generic abstract"
)
EN_CODE_NOUNS = words(
    "constant dataclass property enum method function class set dict dictionary tuple list generator"
    " iterator context manager decorator helper module variable parameter argument field attribute"
    " default constructor classmethod staticmethod fixture test check guard assertion exception error"
    " warning lock mutex loop comprehension f-string literal regex pattern type alias protocol"
    " namedtuple mapping frozenset deque counter wrapper callback hook"
)
# A reply that says the code is now in some state is about the code, unless the state is the pull
# request's or the build's: "CI is now green", "this is now a blocker".
EN_NOW_NOT_CODE = (
    r"\b(?:blockers?|blocking|blocked|green|red|flaky|ready|approved|merged|mergeable|passing|failing"
    r"|pass|passes|fails?|broken|reproduc\w*|locally|outdated|stale|behind|conflicting|twice|slower"
    r"|worse|wrong|missing|crash\w*|hangs?|deadlocks?|regress\w*|deprecated|unused|dead|obsolete"
    r"|irrelevant|moot)\b"
)
EN_CODE_STATE = (
    r"(?:x{2,}"
    rf"|(?:{alternation(EN_EDIT_VERBS)})\b"
    rf"|(?:{alternation(EN_CODE_ADJECTIVES)})(?![\w-])"
    rf"|(?:a|an|the|one)\s+(?:[\w-]+\s+){{0,2}}?(?:{alternation(EN_CODE_NOUNS)})s?\b"
    r")"
)
EN_NOW_STATE = (
    rf"\b(?:is|are|'s)\s+now\s+{EN_CODE_STATE}"
    rf"|\bnow\s+(?:it|this|that|they)(?:'s|\s+is|\s+are)\s+{EN_CODE_STATE}"
    rf"|\b(?:is|are|'s)\s+{EN_CODE_STATE}\s+now\b(?!\s+(?:that|on)\b)"
    rf"|\b[\w`'-]+\s+now\s+(?:{alternation(EN_NOW_DOES)})\b"
)
# "went with your version", "took the suggested wording"
EN_TOOK = (
    r"(?:took|accepted|used|went with|adopted|followed|applied|committed|incorporated|picked)"
    r" (?:the|your|@[\w-]+'s|the bot's) (?:suggested \w+|suggestion|suggestions|version|approach"
    r"|proposal|wording|idea|fix|patch|change|variant|recommendation|snippet|diff|rewrite)"
)

# --- German -------------------------------------------------------------------------------------

DE_PARTICIPLES = words(
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
DE_NOW = r"\b(?:ist|sind)\s+(?:jetzt|nun|inzwischen|mittlerweile)\s+(?!noch\b|nicht\b|kein)\w"
DE_NOW_NOT_CODE = (
    r"\b(?:grün|rot|blocker|bereit|gemerged|gemergt|kaputt|fehlerhaft|instabil|flaky)\b"
)

# --- French -------------------------------------------------------------------------------------

FR_PARTICIPLES = words(
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
FR_NOW = (
    r"\b(?:est|sont) (?:maintenant|désormais|dorénavant) \w|\bc'est (?:maintenant|désormais) \w"
)
FR_NOW_NOT_CODE = r"\b(?:vert|rouge|bloquant|prêt|mergé|fusionné|cassé)\b"

# --- Spanish ------------------------------------------------------------------------------------

ES_PARTICIPLES = (
    *inflect(
        "arregl solucion aplic cambi actualiz ajust modific renombr elimin quit borr agreg simplific"
        " reemplaz separ document limpi incorpor integr reorganiz escap",
        "ado ada ados adas",
    ),
    *inflect("correg añad sustitu convert mov inclu", "ido ida idos idas"),
    *words("hecho hecha resuelto resuelta reescrito reescrita extraído extraída puesto"),
)
ES_PRETERITE = words(
    "cambié moví renombré eliminé quité borré agregué añadí extraje simplifiqué reemplacé sustituí"
    " corregí arreglé apliqué ajusté actualicé modifiqué reescribí separé convertí limpié documenté"
    " hice usé incorporé subí incluí cerré validé escapé integré"
)
ES_NOW = (
    r"\bahora (?:es|son|está|están|usa|usan|devuelve|retorna|valida|maneja|comprueba|lanza|cierra"
    r"|acepta|rechaza)\b"
)

# --- Portuguese ---------------------------------------------------------------------------------

PT_PARTICIPLES = (
    *inflect(
        "ajust alter aplic atualiz modific consert arrum renome adicion simplific troc separ"
        " document limp incorpor integr mud",
        "ado ada ados adas",
    ),
    *inflect("corrig resolv mov remov extraí substituí convert incluí", "ido ida idos idas"),
    *words("feito feita reescrito reescrita"),
)
PT_PRETERITE = words(
    "troquei movi mudei renomeei removi apaguei tirei adicionei acrescentei extraí simplifiquei"
    " substituí corrigi ajustei apliquei atualizei alterei reescrevi separei converti limpei"
    " documentei fiz usei incluí arrumei consertei resolvi integrei"
)
PT_NOW = (
    r"\bagora (?:é|são|está|estão|usa|usam|retorna|devolve|valida|trata|lança|fecha|aceita"
    r"|rejeita)\b"
)

# --- Chinese ------------------------------------------------------------------------------------

_ZH_VERBS = (
    "修改|修复|修正|改正|调整|更新|替换|删除|删掉|去掉|移除|挪|移动|重命名|改名|提取|抽取|抽出|拆分"
    "|简化|换成|改成|改为|改用|用上|加上|添加|增加|补上|补充|封装|内联|重构|优化|处理|采纳|实现|整理"
)
# A verb right after "不" / "没" / "别" is refused, not done: "不改了" keeps the code as it is.
_ZH_NOT = r"(?<![不没未别])"
ZH_EDIT = (
    rf"已(?:经)?(?:{_ZH_VERBS}|改)"
    rf"|{_ZH_NOT}(?:{_ZH_VERBS}|改|加|删|换)(?:好|完|掉|过|进去)?了"
    rf"|{_ZH_NOT}(?:改|换|挪|移|移动|提取|抽取|抽|重命名|拆分|封装|放)(?:成|为|到|进)(?=[^，。！？,.!?]{{1,24}}了)"
    r"|(?:按|照|按照|根据)(?:你|您)?的?(?:建议|写法|意见|方案|思路|说的)[^，。,.]{0,8}"
    r"(?:改|修改|调整|处理|更新)"
)
# "已经在中间件里处理了" says where it was already handled: a duplicate, not an acceptance.
ZH_NOT_HERE = r"已(?:经)?在(?!最新|新的|本次|这次|这个提交)"

# --- Japanese -----------------------------------------------------------------------------------

_JA_NOUNS = (
    "修正|対応|変更|反映|適用|更新|追加|削除|移動|切り替え|置き換え|置換|リネーム|改名|抽出|分割|統合"
    "|整理|簡略化|共通化|定数化|関数化|リファクタリング|リファクタ|書き換え|書き直し|除去|導入|実装"
    "|調整|訂正|短縮|変換|ソート|エスケープ|追記|明記|型付け|削減|集約|移行|取り込み|取込"
)
_JA_VERBS = (
    "変え|直し|消し|移し|切り出し|外し|足し|入れ|取り込み|加え|替え|書き換え|まとめ|分け|使い|揃え"
    "|寄せ|切り替え|置き換え|書き直し|差し替え|入れ替え|組み込み|取り除き|削り|除き|抜き出し|改め"
)
JA_EDIT = (
    rf"(?:{_JA_NOUNS})(?:しました|いたしました|済み|完了)"
    rf"|(?:{_JA_VERBS})ました"
    r"|(?<!まま)(?<!ママ)にしました"
)

# --- Korean -------------------------------------------------------------------------------------

_KO_NOUNS = (
    "수정|반영|변경|적용|처리|업데이트|추가|삭제|제거|이동|분리|추출|통합|정리|리팩토링|리팩터링|개선"
    "|교체|대체|단순화|상수화|함수화|변환|정렬|보완|구현|작성|치환|문서화"
)
_KO_VERBS = "바꿨|바꾸었|옮겼|옮기었|뺐|고쳤|넣었|없앴|지웠|나눴|합쳤|빼냈|바꿔|옮겨"
KO_EDIT = (
    rf"(?:{_KO_NOUNS})\s?(?:을|를)?\s?(?:했|하였|해\s?뒀|해\s?두었)(?:습니다|어요|어|음|다)?"
    rf"|(?:{_KO_NOUNS})\s?완료"
    rf"|(?:{_KO_VERBS})(?:습니다|어요|어|음|다|놨|두었)"
)
