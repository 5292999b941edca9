"""English replies that accept a suggestion: the edit verbs, and what the code is or does now."""

from __future__ import annotations

from continual.replies.phrases.shared import Cue, alternation, words

# Who did it, in front of an English past participle: "I fixed", "we've updated", "this is now fixed".
SUBJECT = (
    r"(?:(?:i|we)(?:'ve| have)?\s+(?:now\s+|just\s+|also\s+|went ahead and\s+)?"
    r"|(?:this|that|it|this one|both)\s+(?:is|has been|was|'s|are|have been)\s+(?:now\s+)?"
    r"|now\s+|all\s+)?"
)

# Past forms of what one does to code. Forms shared with the present ("split", "set", "cast") are not
# here: without a subject they read as a request ("Cast to int before comparing").
EDIT_VERBS = words(
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
MADE = r"made(?!\s+(?:a|an|some|sure|no|note|progress|it clear|mistakes?)\b)"
# "re-raised with `from exc`"
RE_VERBS = r"re-?raised|re-?threw|re-?thrown"
RE_TRIGGERS = "raised reraised threw rethrew thrown rethrown"
# Forms that are also the present tense: counted only after "I" or "we".
EDIT_VERBS_WITH_SUBJECT = words("split cut put cast reset")
# "went with your version", "took the suggested wording"
TOOK = (
    r"(?:took|accepted|used|went with|adopted|followed|applied|committed|incorporated|picked)"
    r" (?:the|your|@[\w-]+'s|the bot's) (?:suggested \w+|suggestion|suggestions|version|approach"
    r"|proposal|wording|idea|fix|patch|change|variant|recommendation|snippet|diff|rewrite)"
)

ACCEPT_VERBS: tuple[Cue, ...] = (
    ("fixed", "fixed", r"fixed"),
    # "Done.", "Done — switched to …", "done in 4be91c2", "done now": not the subject of an
    # explanation ("Done is a terminal state", "Done callbacks run on the loop").
    (
        "done",
        "done",
        r"done(?=\s*(?:[^\w\s]|$)|\s+(?:now|too|also|thanks|thank|thx|ty|both|everywhere"
        r"|as (?:suggested|requested|proposed|well)|in (?:the )?(?:(?:latest|last|new|next)\s+)?"
        r"(?:commit|push|revision)|(?:in|via|with) (?:commit )?[0-9a-f]{7,40})\b)",
    ),
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
        TOOK,
    ),
    ("pushed-a-fix", "pushed", r"pushed (?:a |the )?(?:fix|commit|change)(?:es|s)?"),
    ("took-care", "took taken", r"(?:took|taken) care of\b"),
)

ACCEPT_START: tuple[Cue, ...] = (
    (
        "fixed-in-sha",
        "fixed done resolved addressed handled applied updated changed",
        SUBJECT + r"(?:fixed|done|resolved|addressed|handled|applied|updated|changed)"
        r"\s+(?:in|by|with|via)\s+(?:commit\s+)?[0-9a-f]{7,40}\b",
    ),
    # "Changes applied.", "Suggestion committed."
    (
        "change-made",
        "applied made done committed pushed implemented",
        r"(?:the )?(?:changes?|suggestions?|fix(?:es)?|edits?)\s+(?:applied|made|done|committed|pushed"
        r"|implemented)\b",
    ),
    (
        "fixed-now",
        "should",
        r"(?:(?:this|it|that) )?should be (?:fixed|addressed|resolved|good) now\b",
    ),
    *(
        (name, triggers, SUBJECT + rf"(?:{verbs})(?![\w'-])")
        for name, triggers, verbs in ACCEPT_VERBS
    ),
    # Any other edit, said in the past tense at the start of a clause: "Tightened the regex".
    (
        "edited",
        " ".join((*EDIT_VERBS, "made", RE_TRIGGERS)),
        SUBJECT + rf"(?:{alternation(EDIT_VERBS)}|{MADE}|{RE_VERBS})" + r"(?![\w'-])",
    ),
    (
        "we-edited",
        " ".join(EDIT_VERBS_WITH_SUBJECT),
        r"(?:i|we)(?:'ve| have)?\s+(?:just\s+|also\s+|now\s+)?"
        rf"(?:{alternation(EDIT_VERBS_WITH_SUBJECT)})(?![\w'-])",
    ),
)

# What a reply says the code now does: "the input is escaped now", "the timeout is now passed".
NOW_DONE = (
    r"passed|escaped|handled|checked|validated|closed|sorted|cached|guarded|awaited|covered|logged"
    r"|quoted|sanitized|sanitised|released|freed|raised|caught|propagated"
    r"|initialized|initialised|locked|bounded|capped|clamped|typed|annotated|documented|tested"
    r"|filtered|normalized|normalised|encoded|decoded|deduplicated|gone"
)
# What a reply says the code now does: "it now returns None", "the loop now exits early".
NOW_DOES = words(
    "uses returns raises exits checks validates handles accepts rejects calls closes releases"
    " logs caches escapes awaits skips defaults reads writes sorts guards catches propagates matches"
    " compares waits retries stops yields copies clamps caps limits bails respects honours honors"
    " preserves keeps sets resets frees locks unlocks lives falls short-circuits requires"
    " forwards delegates wraps"
)
# What code is, once changed: a value in backticks (blanked to x's), a participle, a property, or a
# kind of code object: "is now `None`", "is now keyword-only", "is now a frozen dataclass".
CODE_ADJECTIVES = words(
    "optional required keyword-only positional-only private public protected immutable mutable frozen"
    " final static async sync synchronous asynchronous lazy cached thread-safe idempotent atomic"
    " constant readonly read-only typed untyped nullable non-nullable configurable deterministic"
    " empty none null zero positive negative bounded sorted unique lowercase uppercase"
    " case-insensitive escaped quoted parameterized parametrized generic abstract"
)
CODE_NOUNS = words(
    "constant dataclass property enum method function class set dict dictionary tuple list generator"
    " iterator context manager decorator helper module variable parameter argument field attribute"
    " default constructor classmethod staticmethod fixture test check guard assertion exception error"
    " warning lock mutex loop comprehension f-string literal regex pattern type alias protocol"
    " namedtuple mapping frozenset deque counter wrapper callback hook"
)
# A reply that says the code is now in some state is about the code, unless the state is the pull
# request's or the build's: "CI is now green", "this is now a blocker".
NOW_NOT_CODE = (
    r"\b(?:blockers?|blocking|blocked|green|red|flaky|ready|approved|merged|mergeable|passing|failing"
    r"|pass|passes|fails?|broken|reproduc\w*|locally|outdated|stale|behind|conflicting|twice|slower"
    r"|worse|wrong|missing|crash\w*|hangs?|deadlocks?|regress\w*|deprecated|unused|dead|obsolete"
    r"|irrelevant|moot)\b"
)
CODE_STATE = (
    r"(?:(?:an?\s+)?x{2,}"
    rf"|(?:{alternation(EDIT_VERBS)})\b"
    rf"|(?:{alternation(CODE_ADJECTIVES)})(?![\w-])"
    rf"|(?:a|an|the|one)\s+(?:[\w-]+\s+){{0,2}}?(?:{alternation(CODE_NOUNS)})s?\b"
    r")"
)
NOW_STATE = (
    rf"\b(?:is|are|'s)\s+now\s+{CODE_STATE}"
    rf"|\bnow\s+(?:it|this|that|they)(?:'s|\s+is|\s+are)\s+{CODE_STATE}"
    rf"|\b(?:is|are|'s)\s+{CODE_STATE}\s+now\b(?!\s+(?:that|on)\b)"
    rf"|\b[\w`'-]+\s+now\s+(?:{alternation(NOW_DOES)})\b"
)

ACCEPT_ANYWHERE: tuple[Cue, ...] = (
    ("now-done", "now", rf"\b(?:is|are) (?:now (?:{NOW_DONE})|(?:{NOW_DONE}) now)\b"),
    ("now-state", "now", NOW_STATE),
)
RULE_VETO: tuple[tuple[str, str], ...] = (
    ("now-state", NOW_NOT_CODE + r"|\b(?:fine|ok|okay|same|good|better|working|works)\b"),
)

# A reply that only agrees the finding is right: "Good catch!", "You're right, my bad.", "Agreed,
# will do." Read whole: every part must be agreement, courtesy or an immediate promise to change
# it, and at least one part agreement or that promise; anything else ("Good point, although …",
# "Good catch, I'll take a look") leaves the reply to the other rules.
AGREES = (
    r"(?:(?:that|this|it)(?:'s| is) (?:a |an )?)?(?:really |very )?"
    r"(?:good|nice|great|excellent|sharp) (?:catch|find|spot|point|call|idea|suggestion|eye)s?"
    r"|(?:that|this)(?:'s| is) (?:much |a lot |way |definitely )?(?:better|cleaner|nicer|clearer"
    r"|simpler|safer|more readable)"
    r"|sounds (?:good|great|right|reasonable)"
    r"|well spotted|fair point|valid point|totally valid|100%"
    r"|you(?:'re| are) (?:absolutely |totally |completely |quite )?(?:right|correct)"
    r"|(?:i )?(?:agreed?|concur)|makes (?:total |perfect )?sense|my (?:bad|mistake)|(?:whoops|oops)(?:ie)?"
    r"|(?:thanks?(?: you)?|thx|ty) for (?:catching|spotting|flagging|noticing|finding|pointing out)"
    r"(?: (?:this|that|it))?(?: out)?"
    r"|true|indeed|definitely|absolutely"
)
# An immediate promise to change the code: "will do", "I'll fix it", "let me change that".
PROMISES = (
    r"(?:(?:i|we)(?:'ll| will) |will |let me |i'm going to |going to )"
    r"(?:do|fix|change|update|adjust|correct|remove|rename|add|apply|address|switch|move|drop)"
    r"(?: (?:it|this|that|them|these|those|the (?:name|check|import|call|test|comment|docstring)))?"
    r"(?: (?:now|right away|asap|shortly|in a (?:sec|moment|minute|bit)))?"
    r"|on it"
)
COURTESY = (
    r"thanks?(?: you)?(?: (?:so|very) much)?(?: for the (?:review|suggestion|tip|pointer|heads[- ]up))?"
    r"|thx|ty|cheers|yes|yep|yup|yeah|ok|okay|sure|right|ah|oh|ahh|doh|d'oh|hah?|cool|nice|great"
    r"|sorry|apologies"
    r"|perfect|good"
)
PART = f"(?:{AGREES}|{PROMISES}|{COURTESY})"
# Between parts: spaces, punctuation, emoji; never a question mark.
SEP = r"[^\w?]+"
AGREEMENT = f"(?:{SEP})?{PART}(?:{SEP}{PART})*(?:{SEP})?"
# What must be there besides courtesy or emoji: "Thanks!" or "✅" alone agrees to nothing.
AGREEMENT_CUE = rf"\b(?:{AGREES}|{PROMISES})(?!\w)"
