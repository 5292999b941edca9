"""Phrase tables for replies that refuse a suggestion, in the eight languages the classifier reads."""

from __future__ import annotations

from continual.values import Reason

FP = Reason.FALSE_POSITIVE
WF = Reason.WONT_FIX
NA = Reason.NOT_APPLICABLE
DU = Reason.DUPLICATE
OS = Reason.OUT_OF_SCOPE
ST = Reason.STYLE

# (language, rule name, reason, trigger words, pattern)
DISMISS: tuple[tuple[str, str, Reason, str, str], ...] = (
    # English
    (
        "en",
        "intentional",
        NA,
        "intentional intentionally deliberate deliberately purpose design designed intended expected",
        r"\b(?:intentional(?:ly)?|deliberate(?:ly)?|on purpose|by design|as designed"
        r"|(?:working|works) as (?:intended|expected|designed))\b",
    ),
    (
        "en",
        "expected",
        NA,
        "expected intended",
        r"\b(?:this|that|it)(?:'s| is) (?:the )?(?:expected|intended)\b|^(?:expected|intended)\b"
        r"|\bexpected behaviou?r\b|\b(?:is|are|was|were) (?:expected|intended)(?! to\b)(?=\s*(?:[.!;:,—–]|$))",
    ),
    (
        "en",
        "not-applicable",
        NA,
        "applicable apply irrelevant relevant",
        r"\b(?:not applicable|does(?:n't| not) apply)\b"
        r"|\b(?:irrelevant|not relevant) (?:here|for (?:this|us|our)|to (?:this|us|our))\b",
    ),
    ("en", "false-alarm", FP, "false", r"\bfalse (?:alarm|positive)\b"),
    (
        "en",
        "bot-misread",
        FP,
        "misread misunderstood misinterpreted misidentified misflagged flagged spurious",
        r"\b(?:bot|tool|linter|analy[sz]er|checker|scanner|reviewer|review|model|it)\s+(?:\w+\s+)?"
        r"(?:misread|misunderstood|misinterpreted|misidentified|mis-?flagged)\b"
        r"|\bspurious (?:warning|finding|alert|report|flag|complaint|error)\b",
    ),
    (
        "en",
        "no-bug-here",
        FP,
        "bug issue problem",
        r"^no (?:real |actual )?(?:bug|issue|problem) here\b"
        r"|\bthere(?:'s| is) no (?:real |actual )?(?:bug|issue|problem) here\b",
    ),
    (
        "en",
        "not-a-bug",
        FP,
        "bug issue problem concern",
        r"(?:\bnot|n't) (?:a |an )?(?:real |actual |valid )?(?:bug|issue|problem|concern)\b",
    ),
    ("en", "hypothetical", FP, "hypothetical hypothetically", r"\bhypothetical(?:ly)?\b"),
    (
        "en",
        "cannot-happen",
        FP,
        "happen occur null none nil empty negative zero undefined reached called",
        r"\b(?:can't|cannot|can never|could never|will never|won't ever|won't)\s+(?:ever\s+)?"
        r"(?:happen|occur|be (?:null|none|nil|empty|negative|zero|undefined|reached|called))\b"
        r"|\b(?:is|are) never (?:null|none|nil|empty|negative|zero|undefined)\b",
    ),
    (
        "en",
        "bot-is-wrong",
        FP,
        "wrong incorrect mistaken",
        r"\b(?:bot|tool|reviewer|finding|suggestion|analysis|warning|linter)(?:'s| is| was)\s+"
        r"(?:\w+\s+)?(?:wrong|incorrect|mistaken)\b|^(?:this is |that's |that is )?incorrect\b",
    ),
    (
        "en",
        "wont-fix",
        WF,
        "won't will",
        r"\b(?:won't|will not)\s+(?:fix|change|do|address|apply)\b",
    ),
    (
        "en",
        "not-changing",
        WF,
        "change fix changing fixing",
        r"\bnot (?:going to )?(?:change|fix|changing|fixing) (?:it|this|that)\b",
    ),
    (
        "en",
        "keep-as-is",
        WF,
        "keep keeping leave leaving",
        r"\bkeep(?:ing)? (?:it |this |that )?(?:as[- ]is|as it is|like (?:this|that)|this way|unchanged)\b"
        r"|\bleav(?:e|ing) (?:it |this |that )?(?:as[- ]is|as it is|like (?:this|that)|unchanged|alone)\b"
        r"|\bleaving it(?=\s*(?:[.!;—]|$))",
    ),
    (
        "en",
        "prefer-current",
        WF,
        "prefer rather keep keeping",
        r"\b(?:i'd |i would |we'd )?(?:prefer|rather) (?:to )?(?:keep|leave)\b|\bi'd rather not\b"
        r"|\bkeep(?:ing)? (?:the )?(?:current|existing|original|old|present) (?:behaviou?r|approach"
        r"|implementation|code|version|name|naming|logic|form|wording|signature|api|order|default)s?\b",
    ),
    (
        "en",
        "declined",
        WF,
        "decline declined declining",
        r"\bdeclin(?:e|ed|ing) (?:this|it|that|the suggestion)\b",
    ),
    ("en", "not-worth-it", WF, "worth", r"\bnot worth (?:it|the|fixing|changing)\b"),
    (
        "en",
        "nope-breaks",
        WF,
        "break breaks",
        r"^(?:nope|no)\b[,.!—-]*\s*(?:that|this|it)\s+(?:would\s+)?breaks?\b",
    ),
    (
        "en",
        "out-of-scope",
        OS,
        "scope unrelated separate belongs part pr change",
        r"\bout[- ]of[- ]scope\b|\boutside (?:of )?(?:the )?scope\b|\bbeyond the scope\b"
        r"|\bnot in scope\b|\bunrelated to (?:this|the) (?:pr|change|pull request)\b"
        r"|\bseparate (?:pr|pull request)\b"
        r"|\bbelongs (?:in|to) (?:its own|a separate|another|a different|a dedicated)"
        r" (?:pr|pull request|change)\b"
        r"|\bnot (?:part of|in|for) (?:this|the current) (?:pr|pull request|change|changeset)\b"
        r"(?!\s+(?:yet|either)\b)",
    ),
    (
        "en",
        "matter-of-taste",
        ST,
        "taste style stylistic preference choice bikeshed bikeshedding nit cosmetic subjective",
        r"\bmatter of (?:taste|style|preference|opinion)\b|\bsubjective\b"
        r"|\b(?:style|stylistic|naming|personal|spelling|formatting|cosmetic) (?:preference|choice)\b"
        r"|\bpersonal taste\b|\bpurely (?:stylistic|cosmetic)\b|\bstyle nit\b|\bbikeshed(?:ding)?\b",
    ),
    (
        "en",
        "already-handled",
        DU,
        "already",
        r"\balready (?:handled|covered|checked|validated|guarded|tested|caught|taken care of|enforced"
        r"|sanitized|escaped)\s+(?:in|by|at|on|elsewhere|above|below|upstream|earlier|inside|within)\b",
    ),
    (
        "en",
        "handled-elsewhere",
        DU,
        "already always",
        r"\b(?:handled|covered|checked|validated|guarded|caught|enforced|sanitized|escaped)"
        r" (?:in|by|at|inside) [^.!?;]{1,40}\balready\b|\bcovered already\b"
        r"|\b(?:caller|callers|parent|upstream|middleware|framework|orm|schema|validator|constructor"
        r"|parser|serializer|decorator|wrapper|database|router) (?:already|always) (?:validates"
        r"|checks|handles|guards|escapes|sanitizes|covers|rejects|ensures|enforces|filters|catches)\b",
    ),
    ("en", "duplicate", DU, "duplicate dupe dup", r"\b(?:duplicate|dupe|dup) of\b"),
    # German
    (
        "de",
        "absicht",
        NA,
        "absicht absichtlich beabsichtigt gewollt verhalten",
        r"\b(?:absicht|absichtlich|beabsichtigt|gewollt|so gewollt|erwartetes verhalten)\b",
    ),
    (
        "de",
        "kein-bug",
        FP,
        "bug fehler problem fehlalarm positiv passieren vorkommen auftreten nie",
        r"\bkein(?:e|en)? (?:bug|fehler|problem)\b|\bfehlalarm\b|\bfalsch positiv\b"
        r"|\bkann (?:hier )?nicht (?:passieren|vorkommen|auftreten)\b|\btritt nie auf\b",
    ),
    (
        "de",
        "bleibt-so",
        WF,
        "so ändern geändert",
        r"\blassen wir (?:so|das so)\b|\bbleibt so\b|\blasse (?:ich |es |das )*so\b"
        r"|\b(?:werde|werden) (?:ich |wir )?(?:das |es )?nicht ändern\b|\bwird nicht geändert\b",
    ),
    (
        "de",
        "nicht-dieser-pr",
        OS,
        "gehört außerhalb teil gegenstand bestandteil diesem",
        r"\bgehört nicht in diesen pr\b|\baußerhalb des (?:umfangs|scopes)\b"
        r"|\bnicht (?:teil|gegenstand|bestandteil) (?:dieses|des) (?:prs?|pull requests?)\b"
        r"|\bnicht in diesem pr\b(?! (?:mehr|noch)\b)",
    ),
    (
        "de",
        "geschmackssache",
        ST,
        "geschmackssache stilfrage geschmacksfrage frage",
        r"\bgeschmackssache\b|\bstilfrage\b|\bgeschmacksfrage\b|\bfrage des (?:stils|geschmacks)\b",
    ),
    (
        "de",
        "bereits-abgedeckt",
        DU,
        "bereits schon",
        r"\bbereits (?:abgedeckt|behandelt|geprüft) (?:in|durch|von)\b"
        r"|\b(?:wird|werden|ist|sind) (?:bereits|schon) (?:in|durch|von|im|beim) [^.!?;]{1,40}"
        r"(?:geprüft|abgedeckt|behandelt|validiert|abgefangen)\b",
    ),
    # French
    (
        "fr",
        "voulu",
        NA,
        "voulu intentionnel intentionnelle attendu s'applique applicable",
        r"\bc'est voulu\b|\bvoulu\b|\bintentionnel(?:le)?\b|\bcomportement attendu\b"
        r"|\bne s'applique pas\b|\bnon applicable\b|\bn'est pas applicable\b",
    ),
    (
        "fr",
        "pas-un-bug",
        FP,
        "bug problème positif alerte arriver produire",
        r"(?:\bce |\bc')?n'est pas un (?:bug|problème)\b|\bfaux positif\b|\bfausse alerte\b"
        r"|\bne peut pas (?:arriver|se produire)\b",
    ),
    (
        "fr",
        "tel-quel",
        WF,
        "laisse laisser garde gardons laissons conserve conservons",
        r"\bon (?:le )?laisse (?:comme ça|tel quel|en l'état)\b|\blaisser (?:tel quel|comme ça|en l'état)\b"
        r"|\b(?:garde|gardons|laisse|laissons|conserve|conservons) (?:ça |cela |le |la |les |l')?"
        r"(?:tel quel|telle quelle|tels quels|comme ça|en l'état)",
    ),
    ("fr", "hors-perimetre", OS, "hors", r"\bhors (?:du |de )?(?:périmètre|scope|sujet)\b"),
    (
        "fr",
        "question-de-gout",
        ST,
        "goût style personnelle",
        r"\b(?:question|affaire) de (?:goût|style)\b|\bpréférence personnelle\b",
    ),
    (
        "fr",
        "deja-gere",
        DU,
        "déjà",
        r"\bdéjà (?:géré|traité|couvert|vérifié) (?:par|dans|ailleurs|plus haut)\b",
    ),
    # Spanish
    (
        "es",
        "intencional",
        NA,
        "intencional intencionado propósito diseño esperado aplica",
        r"\bes intencional\b|\bintencionado\b|\ba propósito\b|\bpor diseño\b"
        r"|\bcomportamiento esperado\b|\bno aplica\b",
    ),
    (
        "es",
        "no-es-un-bug",
        FP,
        "bug error problema positivo alarma pasar ocurrir suceder",
        r"\bno es un (?:bug|error|problema)\b|\bfalso positivo\b|\bfalsa alarma\b"
        r"|\bno puede (?:pasar|ocurrir|suceder)\b",
    ),
    (
        "es",
        "lo-dejamos-asi",
        WF,
        "dejamos dejo dejarlo cambiar",
        r"\b(?:lo dejamos|lo dejo|dejarlo) (?:así|como está)\b|\bno (?:lo )?(?:vamos|voy) a cambiar\b",
    ),
    ("es", "fuera-de-alcance", OS, "fuera", r"\bfuera (?:del|de) (?:alcance|ámbito)\b"),
    ("es", "cuestion-de-gusto", ST, "cuestión", r"\bcuestión de (?:gusto|estilo)\b"),
    ("es", "ya-se-maneja", DU, "ya", r"\bya se (?:maneja|valida|comprueba|controla) en\b"),
    # Portuguese
    (
        "pt",
        "intencional",
        NA,
        "intencional proposital propósito design esperado aplica",
        r"\bé intencional\b|\bproposital\b|\bde propósito\b|\bpor design\b"
        r"|\bcomportamento esperado\b|\bnão se aplica\b",
    ),
    (
        "pt",
        "nao-e-um-bug",
        FP,
        "bug erro problema positivo alarme acontecer ocorrer",
        r"\bnão é (?:um )?(?:bug|erro|problema)\b|\bfalso positivo\b|\b(?:alarme falso|falso alarme)\b"
        r"|\bnão pode (?:acontecer|ocorrer)\b",
    ),
    (
        "pt",
        "deixar-assim",
        WF,
        "deixar manter mudar alterar",
        r"\bdeixar (?:assim|como está)\b|\bmanter como está\b|\bnão (?:vou|vamos) (?:mudar|alterar)\b",
    ),
    ("pt", "fora-do-escopo", OS, "fora", r"\bfora (?:do|de) escopo\b"),
    ("pt", "questao-de-gosto", ST, "questão", r"\bquestão de (?:gosto|estilo)\b"),
    (
        "pt",
        "ja-tratado",
        DU,
        "já",
        r"\bjá (?:é )?(?:tratado|coberto|validado|verificado) (?:em|no|na|pelo|pela)\b",
    ),
    # Chinese
    (
        "zh",
        "guyi",
        NA,
        "故意 有意 预期 设计如此",
        r"故意的|是故意|有意为之|有意的|预期行为|符合预期|设计如此",
    ),
    (
        "zh",
        "wubao",
        FP,
        "不是 误报 不会 不可能",
        r"不是\s?(?:bug|问题|错误)|误报|不会出现|不可能出现|不会发生|不可能发生",
    ),
    ("zh", "baochi", WF, "保持 不改 维持 就这样", r"保持现状|保持不变|不改了|维持原样|就这样吧"),
    ("zh", "chaochu-fanwei", OS, "范围", r"超出.{0,12}范围|不在.{0,12}范围"),
    ("zh", "fengge", ST, "风格 个人 见仁见智", r"风格问题|个人喜好|个人偏好|见仁见智"),
    (
        "zh",
        "chongfu",
        DU,
        "在 上游 上层 调用方 调用者 外层 前面 之前 别处 其他地方 中间件 框架",
        r"已(?:经)?在.{1,20}(?:处理|校验|检查)"
        r"|(?:上游|上层|调用方|调用者|外层|前面|之前|别处|其他地方|中间件|框架)(?:已(?:经)?|都)"
        r"(?:做了?|有)?(?:校验|检查|处理|验证|过滤|判断)",
    ),
    # Japanese
    (
        "ja",
        "ito",
        NA,
        "意図 仕様 想定 設計",
        r"意図的|意図した|意図通り|仕様です|仕様通り|想定通り|想定内|設計通り",
    ),
    (
        "ja",
        "gokenchi",
        FP,
        "バグ 誤検 起こり",
        r"バグではありません|バグではない|バグじゃない|誤検知|誤検出|起こり(?:得|え)ません",
    ),
    (
        "ja",
        "konomama",
        WF,
        "このまま しません",
        r"このままにします|このままで|(?:修正|変更|対応)しません",
    ),
    ("ja", "scope-gai", OS, "外", r"スコープ外|範囲外|対象外"),
    ("ja", "konomi", ST, "問題", r"好みの問題|スタイルの問題"),
    ("ja", "sude-ni", DU, "既に", r"既に.{0,20}(?:対応|処理|チェック)(?:されて|済み)"),
    # Korean
    ("ko", "uido", NA, "의도 설계", r"의도된|의도한|의도적|의도대로|설계상"),
    (
        "ko",
        "otam",
        FP,
        "버그 오탐 않",
        r"버그가 아(?:니|닙)|버그 아(?:니|닙)|오탐|발생하지 않|일어나지 않",
    ),
    ("ko", "geudaero", WF, "그대로 않겠", r"그대로 두|그대로 유지|(?:수정|변경)하지 않겠"),
    ("ko", "beomwi", OS, "범위", r"범위를 벗어|범위 밖|범위 외"),
    ("ko", "chwihyang", ST, "취향 스타일", r"취향 문제|스타일 문제|개인 취향"),
    ("ko", "imi", DU, "이미", r"이미 .{0,20}(?:처리|확인)(?:되|하)"),
)

# Reason to report when a reply names several: the more specific first, `wont-fix` last.
REASON_PRIORITY: tuple[Reason, ...] = (DU, OS, NA, FP, ST, WF)
