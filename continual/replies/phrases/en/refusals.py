"""English replies that refuse a suggestion, each with the reason it gives."""

from __future__ import annotations

from continual.replies.phrases.shared import DU, FP, NA, OS, ST, WF, Refusal

DISMISS: tuple[Refusal, ...] = (
    (
        "intentional",
        NA,
        "intentional intentionally deliberate deliberately purpose design designed intended expected",
        r"\b(?:intentional(?:ly)?|deliberate(?:ly)?|on purpose|by design|as designed"
        r"|(?:working|works) as (?:intended|expected|designed))\b",
    ),
    (
        "expected",
        NA,
        "expected intended",
        r"\b(?:this|that|it)(?:'s| is) (?:the )?(?:expected|intended)\b|^(?:expected|intended)\b"
        r"|\bexpected behaviou?r\b|\b(?:is|are|was|were) (?:expected|intended)(?! to\b)(?=\s*(?:[.!;:,—–]|$))",
    ),
    (
        "not-applicable",
        NA,
        "applicable apply irrelevant relevant",
        r"\b(?:not applicable|does(?:n't| not) apply)\b"
        r"|\b(?:irrelevant|not relevant) (?:here|for (?:this|us|our)|to (?:this|us|our))\b",
    ),
    ("false-alarm", FP, "false", r"\bfalse (?:alarm|positive)\b"),
    (
        "bot-misread",
        FP,
        "misread misunderstood misinterpreted misidentified misflagged flagged spurious",
        r"\b(?:bot|tool|linter|analy[sz]er|checker|scanner|reviewer|review|model|it)\s+(?:\w+\s+)?"
        r"(?:misread|misunderstood|misinterpreted|misidentified|mis-?flagged)\b"
        r"|\bspurious (?:warning|finding|alert|report|flag|complaint|error)\b",
    ),
    (
        "no-bug-here",
        FP,
        "bug issue problem",
        r"^no (?:real |actual )?(?:bug|issue|problem) here\b"
        r"|\bthere(?:'s| is) no (?:real |actual )?(?:bug|issue|problem) here\b",
    ),
    (
        "not-a-bug",
        FP,
        "bug issue problem concern",
        r"(?:\bnot|n't) (?:a |an )?(?:real |actual |valid )?(?:bug|issue|problem|concern)\b",
    ),
    ("hypothetical", FP, "hypothetical hypothetically", r"\bhypothetical(?:ly)?\b"),
    (
        "cannot-happen",
        FP,
        "happen occur null none nil empty negative zero undefined reached called",
        r"\b(?:can't|cannot|can never|could never|will never|won't ever|won't)\s+(?:ever\s+)?"
        r"(?:happen|occur|be (?:null|none|nil|empty|negative|zero|undefined|reached|called))\b"
        r"|\b(?:is|are) never (?:null|none|nil|empty|negative|zero|undefined)\b",
    ),
    (
        "bot-is-wrong",
        FP,
        "wrong incorrect mistaken",
        r"\b(?:bot|tool|reviewer|finding|suggestion|analysis|warning|linter)(?:'s| is| was)\s+"
        r"(?:\w+\s+)?(?:wrong|incorrect|mistaken)\b|^(?:this is |that's |that is )?incorrect\b",
    ),
    (
        "wont-fix",
        WF,
        "won't will",
        r"\b(?:won't|will not)\s+(?:fix|change|do|address|apply)\b",
    ),
    (
        "not-changing",
        WF,
        "change fix changing fixing",
        r"\bnot (?:going to )?(?:change|fix|changing|fixing) (?:it|this|that)\b",
    ),
    (
        "keep-as-is",
        WF,
        "keep keeping leave leaving",
        r"\bkeep(?:ing)? (?:it |this |that )?(?:as[- ]is|as it is|like (?:this|that)|this way|unchanged)\b"
        r"|\bleav(?:e|ing) (?:it |this |that )?(?:as[- ]is|as it is|like (?:this|that)|unchanged|alone)\b"
        r"|\bleaving it(?=\s*(?:[.!;—]|$))",
    ),
    (
        "prefer-current",
        WF,
        "prefer rather keep keeping",
        r"\b(?:i'd |i would |we'd )?(?:prefer|rather) (?:to )?(?:keep|leave)\b|\bi'd rather not\b"
        r"|\bkeep(?:ing)? (?:the )?(?:current|existing|original|old|present) (?:behaviou?r|approach"
        r"|implementation|code|version|name|naming|logic|form|wording|signature|api|order|default)s?\b",
    ),
    (
        "declined",
        WF,
        "decline declined declining",
        r"\bdeclin(?:e|ed|ing) (?:this|it|that|the suggestion)\b",
    ),
    ("not-worth-it", WF, "worth", r"\bnot worth (?:it|the|fixing|changing)\b"),
    (
        "nope-breaks",
        WF,
        "break breaks",
        r"^(?:nope|no)\b[,.!—-]*\s*(?:that|this|it)\s+(?:would\s+)?breaks?\b",
    ),
    (
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
        "matter-of-taste",
        ST,
        "taste style stylistic preference choice bikeshed bikeshedding nit cosmetic subjective",
        r"\bmatter of (?:taste|style|preference|opinion)\b|\bsubjective\b"
        r"|\b(?:style|stylistic|naming|personal|spelling|formatting|cosmetic) (?:preference|choice)\b"
        r"|\bpersonal taste\b|\bpurely (?:stylistic|cosmetic)\b|\bstyle nit\b|\bbikeshed(?:ding)?\b",
    ),
    (
        "already-handled",
        DU,
        "already",
        r"\balready (?:handled|covered|checked|validated|guarded|tested|caught|taken care of|enforced"
        r"|sanitized|escaped)\s+(?:in|by|at|on|elsewhere|above|below|upstream|earlier|inside|within)\b",
    ),
    (
        "handled-elsewhere",
        DU,
        "already always",
        r"\b(?:handled|covered|checked|validated|guarded|caught|enforced|sanitized|escaped)"
        r" (?:in|by|at|inside) [^.!?;]{1,40}\balready\b|\bcovered already\b"
        r"|\b(?:caller|callers|parent|upstream|middleware|framework|orm|schema|validator|constructor"
        r"|parser|serializer|decorator|wrapper|database|router) (?:already|always) (?:validates"
        r"|checks|handles|guards|escapes|sanitizes|covers|rejects|ensures|enforces|filters|catches)\b",
    ),
    ("duplicate", DU, "duplicate dupe dup", r"\b(?:duplicate|dupe|dup) of\b"),
)
