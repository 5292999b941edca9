"""English replies that refuse a suggestion, each with the reason it gives."""

from __future__ import annotations

from continual.replies.phrases.en.vetoes import MOVED_ON_BY, MOVED_ON_SAID, OBSOLETE
from continual.replies.phrases.shared import DU, FP, NA, OS, ST, WF, Refusal

DISMISS: tuple[Refusal, ...] = (
    (
        "intentional",
        NA,
        (
            "intentional intentionally deliberate deliberately purpose design designed intended"
            " expected want point"
        ),
        r"\b(?:intentional(?:ly)?|deliberate(?:ly)?|on purpose|by design|as designed"
        r"|(?:working|works) as (?:intended|expected|designed))\b"
        r"|(?:\bis|'s) (?:exactly |precisely )?what we want\b"
        r"|\bthat(?:'s| is) (?:the )?(?:whole )?point\b",
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
        r"|\b(?:irrelevant|not relevant) (?:here|for (?:this|us|our)|to (?:this|us|our))\b"
        r"|\bi don't think (?:this|that|it) (?:applies|is applicable|is relevant)\b",
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
        "bug issue problem concern leak race deadlock vulnerability",
        r"(?:\bnot|n't) (?:a |an )?(?:real |actual |valid )?(?:bug|issue|problem|concern|leak"
        r"|race(?: condition)?|deadlock|vulnerability)\b",
    ),
    ("hypothetical", FP, "hypothetical hypothetically", r"\bhypothetical(?:ly)?\b"),
    (
        "cannot-happen",
        FP,
        "happen occur overflow underflow race deadlock null none nil empty negative zero undefined"
        " reached called",
        r"\b(?:can't|cannot|can never|could never|will never|won't ever|won't)\s+(?:ever\s+)?"
        r"(?:happen|occur|overflow|underflow|race|deadlock"
        r"|be (?:null|none|nil|empty|negative|zero|undefined|reached|called))\b"
        r"|\b(?:is|are) never (?:null|none|nil|empty|negative|zero|undefined)\b",
    ),
    (
        "bot-is-wrong",
        FP,
        "wrong incorrect mistaken think",
        r"\b(?:bot|tool|reviewer|finding|suggestion|analysis|warning|linter)(?:'s| is| was)\s+"
        r"(?:\w+\s+)?(?:wrong|incorrect|mistaken)\b|^(?:this is |that's |that is )?incorrect\b"
        r"|\bi don't think (?:the )?(?:bot|suggestion|finding|analysis|warning)(?:'s| is)"
        r" (?:right|correct|accurate|valid)\b",
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
        "keep keeping kept leave leaving",
        r"\b(?:keep(?:ing)?|kept) (?:it |this |that )?(?:as[- ]is|as it is|like (?:this|that)|this way"
        r"|unchanged)\b"
        r"|\bleav(?:e|ing) (?:it |this |that |the \w+ )?(?:as[- ]is|as it is|like (?:this|that)"
        r"|unchanged|alone)\b"
        r"|\bleaving it(?=\s*(?:[.!;—]|$))",
    ),
    (
        "prefer-current",
        WF,
        "prefer rather keep keeping let's",
        r"\b(?:i'd |i would |we'd )?(?:prefer|rather) (?:to )?(?:keep|leave)\b"
        r"|\b(?:i'd|we'd|i would|we would) (?:rather|prefer) not\b(?! (?:to )?(?:block|hold|delay|wait))"
        r"|^rather not\b|^let's not\b(?! (?:worry|block|hold|bother))"
        r"|\bkeep(?:ing)? (?:the )?(?:current|existing|original|old|present) (?:behaviou?r|approach"
        r"|implementation|code|version|name|naming|logic|form|wording|signature|api|order|default)s?\b",
    ),
    (
        "declined",
        WF,
        "decline declined declining",
        r"\bdeclin(?:e|ed|ing) (?:this|it|that|the suggestion)\b",
    ),
    (
        "not-worth-it",
        WF,
        "worth",
        r"\bnot worth (?:it|the|fixing|changing|a|an|another|adding|doing)\b"
        r"|\bi don't think (?:this|that|it)(?:'s| is) worth (?:it|the)\b",
    ),
    (
        "nope-breaks",
        WF,
        "break breaks",
        r"^(?:nope|no)\b[,.!—-]*\s*(?:that|this|it)\s+(?:would\s+)?breaks?\b",
    ),
    (
        "out-of-scope",
        OS,
        "scope unrelated separate belongs part pr change keep",
        r"\bout[- ]of[- ]scope\b|\boutside (?:of )?(?:the )?scope\b|\bbeyond the scope\b"
        r"|\bnot in scope\b|\bunrelated to (?:this|the) (?:pr|change|pull request)\b"
        r"|\bbelongs (?:in|to) (?:its own|a separate|another|a different|a dedicated)"
        r" (?:pr|pull request|change)\b"
        r"|\bnot part of (?:this|the current) (?:pr|pull request|change|changeset)\b"
        r"(?!\s+(?:yet|either)\b)"
        r"|\bkeep (?:this|the) (?:pr|change|diff|pull request) (?:focused|small|minimal|scoped)\b",
    ),
    (
        "matter-of-taste",
        ST,
        "taste style stylistic preference choice bikeshed bikeshedding nit cosmetic subjective",
        r"\bmatter of (?:taste|style|preference|opinion)\b|\bsubjective\b"
        r"|\b(?:style|stylistic|naming|personal|spelling|formatting|cosmetic) (?:preference|choice)\b"
        r"|\bpersonal taste\b|\bpurely (?:stylistic|cosmetic)\b|\bstyle nit\b|\bbikeshed(?:ding)?\b",
    ),
    # Keeping the code as written because it reads better is a matter of style.
    (
        "reads-better",
        ST,
        "prefer rather keep keeping kept",
        r"(?:\b(?:prefer|rather)(?: to)? (?:keep|leave|stick with)|\b(?:i|we)(?:'d| would)? (?:prefer|rather) not"
        r"|\b(?:i|we)(?:'d| would)? prefer (?:the |this |my |our )?(?:current|existing|original|explicit"
        r"|longer|shorter|old)|\bkeep(?:ing)?|\bkept|^rather not)\b[^.!?;]*?(?:\b(?:clearer|readab\w+(?! of the (?:diff|git|history|log))|reads better"
        r"|more (?:readable|explicit|obvious)|(?:easier|harder|simpler) to (?:read|follow|understand"
        r"|debug|scan|grep)|naming|name|explicit)\b)",
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
        "already always up",
        r"\b(?:handled|covered|checked|validated|guarded|caught|enforced|sanitized|escaped)"
        r" (?:in|by|at|inside) [^.!?;]{1,40}\balready\b|\bcovered already\b"
        r"|\b(?:caller|callers|parent|upstream|middleware|framework|orm|schema|validator|constructor"
        r"|parser|serializer|decorator|wrapper|database|router|x{3,}) (?:already|always) (?:validates"
        r"|checks|handles|guards|escapes|sanitizes|covers|rejects|ensures|enforces|filters|catches)\b"
        r"|\b(?:catches|handles|validates|checks) (?:that|this|it|the \w+)(?: \w+)?"
        r" (?:one level|a level|further|higher) up\b",
    ),
    ("duplicate", DU, "duplicate dupe dup", r"\b(?:duplicate|dupe|dup) of\b"),
)

# Refusals by argument. Their reason is a default: another refusal in the reply decides it.
DISMISS_ARGUED: tuple[Refusal, ...] = (
    # "No — the cache is cleared on every deploy anyway", "Nope, `x` is never empty here", "No need,
    # the parser already rejects it": an opening "no" followed by an argument of a few words.
    (
        "no-because",
        FP,
        "no nope nah",
        r"^(?:no|nope|nah|no need)(?:\s*[,.:;!—–-]+\s*|\s+[—–-]\s*)"
        r"(?!(?:worries|problem|probs?|idea|rush|hurry|sorry|thanks|thank|luck|clue|objections?"
        r"|strong|opinion|preference|way|doubt|kidding|not yet|yet|longer|more|changes|you're right"
        r"|you are right|good|fair|true|makes sense|agreed|i agree|right|ok|okay|sure|wait"
        r"|i (?:haven't|have not|didn't|did not|will|'ll|am|'m|was|just|need|can|could|forgot))\b)"
        # a status report, not an argument: "Nope, CI is still red", "No, I meant the other one"
        r"(?![^.!?;]*\b(?:still|meant|other|ci|red|green|same|pass|passes|passing|locally|yet|haven't"
        r"|hasn't|that one)\b)"
        r"\w+\W+\w+\W+\w+",
    ),
    # "This is fine because the list is copied first", "That's safe since …"
    (
        "safe-because",
        FP,
        "because since",
        r"\b(?:this|that|it)(?:'s| is) (?:fine|safe|harmless|ok|okay|correct)\s*,?\s*(?:because|since)\b",
    ),
    # "The check isn't needed since the schema enforces it"
    (
        "not-needed-because",
        FP,
        "because since",
        r"\b(?:isn't|is not|aren't|are not|not) (?:needed|necessary|required)\s*,?\s*(?:because|since)\b",
    ),
    # "there's no race", "nothing stale to invalidate"
    (
        "nothing-to-fix",
        FP,
        "nothing race leak deadlock risk overflow injection concurrency",
        r"\bthere(?:'s| is) no (?:race|leak|deadlock|risk|overflow|injection|concurrency)\b"
        r"(?! (?:anymore|any more|now|left)\b)"
        r"|\bnothing (?:\w+ )?to (?:sanitise|sanitize|escape|invalidate|close|release|free"
        r"|worry about)\b",
    ),
    # "I don't think that's a problem", "I don't think so — …"
    (
        "dont-think-so",
        FP,
        "think",
        r"^i don't think so\s*[,:;—–-]+\s*\w+\W+\w+"
        r"|\bi don't think (?:this|that|it)(?:'s| is| would be)? (?:a |an )?(?:real |actual )?"
        r"(?:problem|issue|bug|concern|necessary|needed|required)\b"
        r"|\bi don't think we (?:need|want) (?:this|that|it)\b",
    ),
    # "We can't use `match` here since we still support 3.9"
    (
        "cannot-because",
        WF,
        "can't cannot",
        r"\b(?:can't|cannot) (?:use|drop|require|switch to|remove)\b(?=[^.!?;]*\b(?:since|because)\b)",
    ),
    # The finding is about something the project no longer uses or runs.
    (
        "obsolete",
        NA,
        "longer used run anymore away deprecated",
        r"\bno longer (?:used|needed|relevant|exists?|maintained|run|runs)\b"
        r"|\b(?:isn't|is not|not) used (?:by|anywhere|anymore)\b|\b(?:doesn't|does not) run anymore\b"
        r"|\bis going away\b|\bis deprecated and\b"
        r"|\b(?:we|i) (?:no longer|don't|do not) (?:use|need|run|support|ship) (?:\w+ )?(?:anymore|any more)\b"
        r"|\b(?:we|i) no longer (?:use|need|run|support|ship)\b",
    ),
    # The project moved to another tool, and what the suggestion is about went with the old one:
    # "We switched to ruff, so the flake8 config is gone anyway".
    (
        "moved-on",
        NA,
        "moved switched migrated transitioned changed converted",
        rf"{MOVED_ON_BY}(?:[^.!?;]|\.(?=\w))*{OBSOLETE}|{MOVED_ON_SAID}",
    ),
    # "the function is only called from tests"
    (
        "only-called-from",
        NA,
        "only",
        r"\bonly (?:reachable|called|used|invoked|run) (?:from|by|in)\b",
    ),
)

# Refusals in DISMISS that argue rather than refuse (no refusal word): they decide at merge or close,
# when the commented lines stayed as they were.
ARGUMENTS = "cannot-happen nope-breaks already-handled handled-elsewhere"
