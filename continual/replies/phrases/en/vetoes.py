"""English openers, and the English cues that make a reply discussion rather than a verdict."""

from __future__ import annotations

INTRO = (
    r"(?:this |it |that )?should be (?:good|fine|ok|okay) now(?=\s*[,;:—–-])"
    r"|(?:good|nice|great) (?:catch|point|find|spot|call|idea|eye)"
    r"|thanks?(?: you)?(?: for [^,.!;:—–]*)?"
    r"|thx|ty|cheers|yes|yep|yup|yeah|indeed|agreed|agree|ok|okay|right|true|correct"
    r"|you(?:'re| are) (?:right|correct)|oops|whoops|ah|oh|makes sense|fair (?:enough|point)"
    r"|good|nice|great|cool|perfect|absolutely|definitely|of course|sure(?: thing)?|alright"
    r"|all right|aight|ack|roger|np|well spotted|nice one|sounds good"
)

# What a deferral promises to do: "I'll fix it", "we're going to look".
_CHANGE_VERBS = (
    r"(?:fix|do|update|change|address|add|handle|look|take|check|think|try|revisit|follow|tackle"
    r"|clean|remove|rename|refactor|move|switch|implement|apply|consider|investigate|open|create"
    r"|file|push|work|get|make|adjust|rework|rewrite|correct|test)"
)
VETO_WORDS = (
    "maybe perhaps probably possibly might unsure later eventually gonna lol totally but"
    " however though although partially partly half mostly differently wip"
)
# Hedges, deferrals, sarcasm, contrast, partial agreement.
VETO_ANYWHERE = (
    r"\b(?:not sure|i think|i guess|i believe|i suppose|could be|not certain|follow[- ]?up|for now"
    r"|next pr|future pr|separate issue|tracked in|let me|yeah right|said no one|oh great|as if"
    r"|some of|not all|not as suggested|on second thought|hmm+|someone else|somebody else"
    r"|nothing changed|no code changes?)\b"
    # "except" as contrast, not the keyword ("replaced the bare except"); "instead", unless what it
    # replaces is quoted code ("instead of `==`")
    r"|\bexcept\b(?<!try/except)(?<!bare except)(?<!broad except)(?<!blanket except)(?<!the except)(?<!an except)"
    r"(?<!\ba except)"
    r"(?!\s+(?:clause|block|handler|statement|with|\w*error|\w*exception)\b)"
    r"|\binstead\b(?! of (?!(?:your|yours|the suggest\w*|what|that|this|it)\b)[\w`])"
    r"|\bfor the first (?:case|one|part|two|few|half)\b"
    # a partial change: "fixed the first one", "one of them", "what about the second?"
    r"|\bthe first (?:one|case|part|two|few|half|instance|occurrence|call|point|issue|item)\b"
    r"|\b(?:one|two|some|most|half|part) of (?:them|these|those|it|the (?:cases|calls|places|issues))\b"
    r"|\b(?:what|how) about\b|\band the (?:other|second|rest)\b"
    # a change other than the one suggested: "went a different way", "took another approach"
    r"|\b(?:a |an )?(?:different|another|alternative|other|own|slightly different) (?:way|approach|route"
    r"|fix|solution|direction|change|tack|path)\b|\bthan (?:you |the bot |was |what was )?(?:suggested"
    r"|proposed|recommended)\b"
    r"|\bthe (?:second|remaining) (?:one|case|part|half)"
    r"|\bneeds? more (?:thought|work|time|discussion)\b"
    rf"|\b(?:i'll|we'll|i will|we will|will|i'm going to|we're going to|(?<!not )going to)\s+"
    rf"(?:(?!not\b|never\b)\w+\s+)?{_CHANGE_VERBS}\b"
    r"|/s\b|🙄|😒"
    # "let's discuss", but not the refusals "let's not" and "let's keep it"
    r"|\blet's\b(?! (?:not|keep|leave)\b)"
)

# Words developers write in English whatever language they reply in: negation, modality, or somewhere
# other than this pull request. Inside the sentence that carries an acceptance in any language, they
# veto it.
VETO_ACCEPT_ANY_LANGUAGE = (
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
    r"|worse|reverting|reverted|fixing|undoing|going back|rolling back"
    r"|my mind|similar|ago|yesterday|last (?:week|time|month|year|release)"
    r"|conflicts?|branch|rebased?|merged?|unrelated|labels?|changelog|release notes|ci|pipeline"
    r"|(?:pr|pull request) (?:description|title|body)|commit message|milestone|reviewers?"
    r"|(?:to|in) the description(?! of)|screenshots?|failing|flaky"
    r"|re-?request(?:ed|ing)? (?:a )?review|lockfile|formatter|breaks?|broke|broken)\b|n't\b|#\d+"
)
# English "no" is Portuguese "in the", so it vetoes English acceptances only.
VETO_ACCEPT = r"\bno\b(?! longer\b)"
# "this is NOT intentional", "IF it is by design"
VETO_DISMISS_BEFORE = (
    r"\b(?:not|never|hardly|nor|if|whether|unless|might|may|could|maybe|would|should|isn't it)\b"
    r"|n't\b|\bno\s+(?=\w)"
)
QUESTION = (
    r"^(?:why|how|what|when|where|who|which|is|isn't|was|wasn't|did|didn't"
    r"|do|don't|are|aren't)\b|^(?:does|doesn't)\b(?!(?: not)? apply\b)"
)

VETO_REFUSAL = (
    r"\b(?:good|nice|great) (?:catch|find|spot)\b|\bwell spotted\b|\byou(?:'re| are) (?:right|correct)\b"
    r"|(?<!n't think the )(?<!n't think )\b(?:bot|tool|reviewer|suggestion|finding) (?:is|was)"
    r" (?:right|correct)\b"
    r"|\b(?:i missed|my bad|my mistake|oops)\b"
    r"|\bas (?:you )?suggested\b"
    r"|\b(?:i|we)(?:'ve| have)? (?:just |already |now |also )?(?:fixed|changed|updated|removed|deleted"
    r"|added|moved|renamed|pushed|applied|addressed|replaced|dropped|reverted|inlined|extracted"
    r"|simplified|rewrote|refactored|made)\b"
    # not what the project did to its tooling: "we moved CI to Buildkite"
    r"(?!\s+(?:ci|the ci|our ci|the build|from|to|over|off|away)\b)"
)
CLOSES_THREAD = r"\b(?:closing|resolving)\b|\bmarking (?:this |it )?(?:as )?resolved\b"
COURTESY_BUT = (
    r"(?:^|[.!?;\n])\s*(?:thanks?(?: you)?(?: for [^,.!;:—–]*)?|good (?:point|catch|idea|call)"
    r"|fair (?:point|enough)|i see|i understand|i get (?:it|that|the point)|i know|understood"
    r"|nice (?:idea|catch)|appreciate (?:it|the suggestion))[\s,!—–-]*but\b"
)

# Later work: "in a follow-up", "separate PR", "not in this PR", "opened #12 to track it", "later".
_LATER_WORK = (
    r"(?:pr|pull request|issue|change|commit|patch|ticket|iteration|release|version|mr|one)"
)
# Every alternative but the issue number's starts at a word boundary, tested once for all of them:
# where it fails, as within a word, no alternative is tried (a reply of 65,536 characters, 3 ×
# quicker; bench/untrusted_text.py). Only "#12 to track it" starts at "#", where no other can.
DEFERRAL = (
    r"\b(?:(?:in|for|as|into|with) (?:an?|the) (?:follow[- ]?up|separate|future|later|next|new"
    rf"|subsequent|dedicated|different|another)(?: \w+)? {_LATER_WORK}s?\b"
    rf"|(?:in|for|into) (?:another|a separate|its own|their own|a future|the next) {_LATER_WORK}\b"
    r"|follow[- ]?ups?\b|separate (?:pr|pull request|issue|ticket|change)s?\b"
    rf"|next {_LATER_WORK}\b|future (?:pr|pull request|issue|change|work|release|version)s?\b"
    r"|not (?:in|for|with(?:in)?) this (?:pr|pull request|change|one|round|release|iteration)\b"
    r"|(?:opened|filed|created|raised|logged|added|made|opening|filing|creating) (?:up )?(?:an?|the)"
    r" (?:new |separate |follow[- ]?up )?(?:issue|ticket|todo|card|task)\b"
    r"|(?:i'll|we'll|i will|we will|let me|going to|gonna) (?:open|file|create|raise|log) (?:an?"
    r" |the )?(?:new |separate |follow[- ]?up )?(?:issue|ticket)\b"
    r"|(?:opened|filed|created|raised|logged) #\d+"
    r"|track(?:ing|ed)? (?:this |that |it )?(?:in|as|with|via) (?:an? |the )?(?:#\d+|issue|ticket"
    r"|separate|follow|backlog)"
    r"|(?<!the )(?<!a )later(?! (?:in|on|call|calls|check|checks|step|stage|line|lines|code|version"
    r"|versions|loop|branch|than|one|ones)\b)(?!,? (?:in|on) the\b)"
    r"|eventually\b|down the (?:road|line)\b|at some point\b|another time\b|not now\b"
    r"|for (?:now|the time being)\b|noted for\b|punt(?:ing|ed)?\b|defer(?:ring|red)?\b"
    r"|postpon(?:e|ed|ing)\b|revisit\b|backlog\b|once (?:[\w`'-]+ ){1,4}(?:lands|merges|is merged"
    r"|is in|ships)\b|after (?:the )?(?:[\w.-]+ )?(?:release|refactor|rewrite|migration|merge)\b"
    r"|leave (?:it|this|that) for\b|in (?:the )?future\b)"
    r"|#\d+ (?:to track|tracks|for (?:this|that|it))\b"
)
DEFERRAL_WORDS = (
    "follow followup followups separate future later next new subsequent dedicated "
    "different another own not issue issues ticket tickets todo card task track "
    "tracks tracking tracked eventually road line point time now noted punt punting "
    "punted defer deferring deferred postpone postponed postponing revisit backlog "
    "once after leave #"
)

# What went with the old tool: "the flake8 config is gone", "setup.py isn't used anymore".
OBSOLETE = (
    r"\b(?:gone|obsolete|dead|moot|unused|irrelevant|no longer|not used|isn't used|not relevant"
    r"|doesn't apply|does not apply|being (?:deleted|removed|dropped))\b"
)
# The project moved to another tool, or away from one: "we switched to ruff", "the repo migrated off
# Travis". "We moved it to the constructor" moves code, not the project.
MOVED_ON_BY = (
    r"\b(?:we|we've|we have|we've now|we now|the project|the repo|the repository|the team|this"
    r" (?:repo|project)|our (?:project|repo|team|ci|build|docs))"
    r"\s+(?:(?!it\b|this\b|that\b|them\b|the\b|these\b|those\b)\w+\s+)?"
    r"(?:moved|switched|migrated|transitioned|changed|converted)\s+(?:over\s+|away\s+|back\s+)?"
    r"(?:to|from|off)\b"
    # "we switched to a set", "we moved to `pathlib`": a change of the code
    r"(?!\s+(?:an?|x{2,}|using)\b)"
)
# Said without "we", the move is the project's only when what went with the old tool is named:
# "Moved to pytest, this nose plugin is dead" (but "Moved to a helper" is an edit).
MOVED_ON_SAID = (
    r"(?:^|[:;,—–-]\s*)(?:moved|switched|migrated)\s+(?:over\s+)?(?:to|from|off)\s+(?!an?\b|x{2,})"
    rf"(?:[^.!?;]|\.(?=\w))*{OBSOLETE}"
)
MOVED_ON = rf"{MOVED_ON_BY}|{MOVED_ON_SAID}"

# A question that only asks for another look: "PTAL?", "Could you take another look?", "Better?"
RE_REVIEW = (
    r"^(?:(?:can|could|would) you (?:please )?(?:take|have) (?:a|another) (?:look|pass)"
    r"|ptal|(?:does )?(?:this|that|it) (?:look|looks|seem|seems) (?:good|better|ok|okay|right|fine)"
    r"|(?:look|looks) (?:good|better|ok|okay|fine)|better|good now|ok now|okay now|lgty)\b"
    r"(?:\s*(?:now|to you|again))?\s*\?*$"
)
