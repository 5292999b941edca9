"""Which commands a seat reports may be remembered: none that fetch and run code or touch the network.

One pass over the command, reading it as a POSIX shell would (quotes removed, backslashes
applied), so ``c''url``, ``"cu"rl`` and ``c\\url`` read ``curl``. What the shell would compute
at run time — command and process substitution, variables outside an assignment's value, ANSI-C
quoting, globs or braces that could spell a dangerous name, here-documents, aliases — cannot be
read ahead, so it is refused: when unsure, refuse. Every check is a set lookup or a regular
expression on one short word, so the whole reading is linear in the command's length.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from dataclasses import dataclass, field

MAX_COMMAND_CHARS = 2_000
MAX_NESTING = 3  # a quoted string or ``sh -c '…'`` read inside a command, at most this deep

TOO_LONG = f"longer than {MAX_COMMAND_CHARS} characters"
NOT_PLAIN = "holds characters outside printable ASCII"
UNBALANCED = "has an unbalanced quote"
SUBSTITUTION = "computes part of itself at run time (substitution)"
VARIABLE = "runs or passes a variable the app cannot read"
ANSI_QUOTE = "uses $'…' quoting"
HERE_DOC = "feeds a here-document"
PATTERN = "spells a dangerous name with a pattern"
NETWORK = "touches the network"
FETCH_EXEC = "runs what it is piped"
INLINE_CODE = "runs inline code"
EVAL = "evaluates text as a command"
ALIAS = "redefines a command"
NESTED = f"nests shells more than {MAX_NESTING} deep"

NETWORK_PROGRAMS = frozenset(
    {
        "curl", "wget", "wget2", "nc", "ncat", "netcat", "socat", "telnet", "ssh", "scp", "sftp",
        "rsync", "ftp", "tftp", "lftp", "aria2c", "axel", "http", "https", "httpie", "xh",
        "fetch", "dig", "nslookup", "host", "ping", "ping6", "traceroute", "nmap", "openssl",
        "mosh", "smbclient", "gh", "hub", "glab", "aws", "gcloud", "gsutil", "az", "kubectl",
        "docker", "podman", "npx", "pnpx", "uvx", "pipx", "bunx", "iwr", "invoke-webrequest",
        "invoke-restmethod", "powershell", "pwsh", "git-remote-http", "svn", "hg", "bzr",
    }
)  # fmt: skip
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "ash", "busybox", "csh", "tcsh"})  # fmt: skip
INTERPRETERS = frozenset(
    {"python", "pypy", "perl", "ruby", "node", "nodejs", "deno", "bun", "php", "lua", "luajit",
     "rscript", "tclsh", "osascript", "jshell", "irb", "julia", "guile"}
)  # fmt: skip
ALWAYS_CODE = frozenset({"awk", "gawk", "mawk", "nawk", "busybox"})  # their first argument is code
INLINE_FLAGS = frozenset({"-c", "-e", "-E", "-p", "-r", "--eval", "--print", "--command", "eval"})
EVALUATORS = frozenset({"eval", "alias", "unalias", "enable", "builtin", "trap"})
GIT_NETWORK = frozenset(
    {"clone", "fetch", "pull", "push", "ls-remote", "submodule", "remote", "send-email",
     "request-pull", "archive", "lfs", "svn", "p4", "config", "-c", "--upload-pack",
     "--receive-pack", "--exec", "daemon", "http-fetch", "http-push", "instaweb", "bundle"}
)  # fmt: skip
PACKAGE_MANAGERS = frozenset(
    {"pip", "pip3", "uv", "poetry", "pdm", "hatch", "pipenv", "conda", "mamba", "micromamba",
     "npm", "yarn", "pnpm", "bun", "gem", "bundle", "bundler", "cargo", "go", "composer",
     "apt", "apt-get", "dnf", "yum", "apk", "brew", "zypper", "pacman", "nix", "opam",
     "cabal", "stack", "mix", "dotnet", "nuget", "mvn", "gradle", "sbt", "easy_install"}
)  # fmt: skip
PACKAGE_FETCHES = frozenset(
    {"install", "i", "add", "get", "download", "update", "upgrade", "sync", "fetch", "publish",
     "upload", "--with", "dlx", "create", "init", "lock", "restore", "pull", "tool", "login",
     "self-update", "selfupdate", "search", "outdated", "audit", "clone", "remove", "uninstall"}
)  # fmt: skip
# A package manager's verb that fetches only for that manager (``npm run`` runs a script).
PACKAGE_PAIRS = frozenset({("uv", "run"), ("npm", "exec"), ("pnpm", "exec"), ("bun", "x")})
NETWORK_MODULES = frozenset({"http.server", "smtpd", "aiosmtpd", "xmlrpc.server", "webbrowser"})
# Words of prose that name a network program (``host``, ``fetch``, ``ping`` are plain English).
PROSE_NETWORK = frozenset(
    {"curl", "wget", "wget2", "nc", "ncat", "netcat", "socat", "telnet", "ssh", "scp", "sftp",
     "rsync", "ftp", "tftp", "lftp", "aria2c", "nmap", "openssl", "smbclient", "npx", "pnpx",
     "uvx", "pipx", "bunx", "iwr", "invoke-webrequest", "invoke-restmethod", "powershell",
     "pwsh", "eval"}
)  # fmt: skip
SOURCES = frozenset({"source", "."})
GROUPING = frozenset({"{", "}", "{}"})  # a group of commands, or find's placeholder
DANGEROUS = NETWORK_PROGRAMS | SHELLS | INTERPRETERS | ALWAYS_CODE | EVALUATORS | {"git", "env"}

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VERSIONED = re.compile(r"([a-z][a-z_-]*?)[0-9][0-9.]*")
_NETWORK_TEXT = re.compile(r"://|/dev/(?:tcp|udp)/")
_PIPE_TO_SHELL = re.compile(r"\|\s*(?:sudo\s+)?(?:ba|z|da|k|c|tc|fi)?sh\b")
_PROSE_WORD = re.compile(r"[A-Za-z0-9_.+-]+")
_REREAD = frozenset(" \t\n|&;<>()$`'\"\\*?[{")  # a word holding one is read again as a command
_OPERATORS = frozenset("|&;()\n")
_GLOB = frozenset("*?[")
_SPECIAL_PARAMETERS = frozenset("@*#?-$!0123456789")


@dataclass
class _Word:
    text: list[str] = field(default_factory=list)
    dynamic_at: int = -1  # where the first run-time expansion begins in ``text``
    assign_at: int = -1  # the first unquoted ``=``
    pattern: bool = False  # an unquoted glob or brace: it may expand to another name
    quoted: bool = False  # some of it was quoted or escaped: it is read again as a command

    def expanded(self) -> None:
        if self.dynamic_at < 0:
            self.dynamic_at = len(self.text)


@dataclass
class _Simple:
    """One simple command: its words, and whether the previous command's output is piped in."""

    words: list[_Word] = field(default_factory=list)
    piped: bool = False


class _Refused(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def refusal(command: str) -> str | None:
    """Why ``command`` may not be remembered (it fetches and runs code, touches the network, or
    cannot be read ahead), or None when it may."""
    if len(command) > MAX_COMMAND_CHARS:
        return TOO_LONG
    try:
        _check(command, depth=0)
    except _Refused as refused:
        return refused.reason
    return None


def text_refusal(text: str) -> str | None:
    """Why a reported text (a fact, a hypothesis) may not be remembered: a command in it
    (between backticks) is refused, or it names a network program or address in its words."""
    if _NETWORK_TEXT.search(text) or _PIPE_TO_SHELL.search(text):
        return NETWORK
    for span in text.split("`")[1::2]:
        reason = refusal(span)
        if reason is not None:
            return reason
    if any(word.lower() in PROSE_NETWORK for word in _PROSE_WORD.findall(text)):
        return NETWORK
    return None


def _plain(command: str) -> bool:
    return all(" " <= ch <= "~" or ch in "\t\n" for ch in command)


def _check(command: str, *, depth: int) -> None:
    if not _plain(command):
        raise _Refused(NOT_PLAIN)
    if _NETWORK_TEXT.search(command):
        raise _Refused(NETWORK)
    for simple in _lex(command):
        _judge(simple, depth=depth)


def _lex(command: str) -> list[_Simple]:
    """The simple commands of ``command``, words quote-removed; raises on what cannot be read."""
    commands = [_Simple()]
    word: _Word | None = None
    i, n = 0, len(command)

    def end_word() -> None:
        nonlocal word
        if word is not None:
            commands[-1].words.append(word)
            word = None

    def start() -> _Word:
        nonlocal word
        if word is None:
            word = _Word()
        return word

    while i < n:
        ch = command[i]
        if ch == "`":
            raise _Refused(SUBSTITUTION)
        if ch in " \t":
            end_word()
            i += 1
        elif ch in _OPERATORS:
            end_word()
            piped = ch == "|" and command[i + 1 : i + 2] not in ("|",)
            if ch in "|&" and command[i + 1 : i + 2] in (ch, "&"):
                i += 1
            commands.append(_Simple(piped=piped))
            i += 1
        elif ch in "<>":
            end_word()
            if command[i + 1 : i + 2] == "(":
                raise _Refused(SUBSTITUTION)
            if command.startswith("<<", i):
                raise _Refused(HERE_DOC)
            i += 1
            while i < n and command[i] in ">&|":
                i += 1
        elif ch == "\\":
            current = start()
            current.quoted = True
            if i + 1 < n and command[i + 1] != "\n":
                current.text.append(command[i + 1])
            i += 2
        elif ch == "'":
            close = command.find("'", i + 1)
            if close < 0:
                raise _Refused(UNBALANCED)
            current = start()
            current.quoted = True
            current.text.extend(command[i + 1 : close])
            i = close + 1
        elif ch == '"':
            i = _double_quoted(command, i + 1, start())
        elif ch == "$":
            i = _dollar(command, i, start())
        else:
            current = start()
            if ch in _GLOB or ch in "{}":
                current.pattern = True
            if ch == "=" and current.assign_at < 0:
                current.assign_at = len(current.text)
            current.text.append(ch)
            i += 1
    end_word()
    return [simple for simple in commands if simple.words]


def _double_quoted(command: str, i: int, word: _Word) -> int:
    word.quoted = True
    n = len(command)
    while i < n:
        ch = command[i]
        if ch == '"':
            return i + 1
        if ch == "`":
            raise _Refused(SUBSTITUTION)
        if ch == "\\" and i + 1 < n and command[i + 1] in '$`"\\\n':
            if command[i + 1] != "\n":
                word.text.append(command[i + 1])
            i += 2
            continue
        if ch == "$":
            i = _dollar(command, i, word, quoted=True)
            continue
        word.text.append(ch)
        i += 1
    raise _Refused(UNBALANCED)


def _dollar(command: str, i: int, word: _Word, *, quoted: bool = False) -> int:
    """Read the ``$`` at ``i``: a substitution or ANSI-C quote is refused, an expansion marks
    the word dynamic, a lone ``$`` is itself."""
    after = command[i + 1 : i + 2]
    if after == "(":
        raise _Refused(SUBSTITUTION)
    if after in ("'", '"') and not quoted:
        raise _Refused(ANSI_QUOTE)
    if after == "{":
        close = command.find("}", i + 2)
        if close < 0:
            raise _Refused(UNBALANCED)
        word.expanded()
        return close + 1
    if after and after in _SPECIAL_PARAMETERS:
        word.expanded()
        return i + 2
    name = _NAME.match(command, i + 1)
    if name is not None:
        word.expanded()
        return name.end()
    word.text.append("$")
    return i + 1


def _program(text: str) -> str:
    """The name a word runs as: its basename, lower case, a version suffix dropped."""
    base = posixpath.basename(text).lower()
    versioned = _VERSIONED.fullmatch(base) if len(base) <= 64 else None
    return versioned.group(1) if versioned else base


def _nested(code: str, *, depth: int) -> None:
    if depth >= MAX_NESTING:
        raise _Refused(NESTED)
    _check(code, depth=depth + 1)


def _judge(simple: _Simple, *, depth: int) -> None:
    words = simple.words
    texts = ["".join(word.text) for word in words]
    in_assignments = True
    interpreted = False
    said: set[str] = set()
    for index, (word, text) in enumerate(zip(words, texts, strict=True)):
        if in_assignments and word.assign_at > 0 and _NAME.fullmatch(text[: word.assign_at]):
            if 0 <= word.dynamic_at < word.assign_at:
                raise _Refused(VARIABLE)
            value = text[word.assign_at + 1 :]
            if _program(value) in NETWORK_PROGRAMS:  # ``GIT_SSH=ssh``, ``PAGER=nc``: run later
                raise _Refused(NETWORK)
            if word.quoted and any(ch in _REREAD for ch in value):
                _nested(value, depth=depth)
            continue
        in_assignments = False
        if word.dynamic_at >= 0:
            raise _Refused(VARIABLE)
        if word.pattern and text not in GROUPING and _could_spell_danger(text):
            raise _Refused(PATTERN)
        program = _program(text)
        said.add(program)
        if program in NETWORK_PROGRAMS or text in NETWORK_MODULES:
            raise _Refused(NETWORK)
        if program in EVALUATORS:
            raise _Refused(EVAL if program == "eval" else ALIAS)
        if program in ALWAYS_CODE:
            raise _Refused(INLINE_CODE)
        if simple.piped and (program in SHELLS or program in INTERPRETERS or text in SOURCES):
            raise _Refused(FETCH_EXEC)
        if program in SHELLS:
            code = _shell_code(texts, index)
            if code is not None:
                _nested(code, depth=depth)
        if program in INTERPRETERS and not interpreted:
            interpreted = True  # its options are read once, for the first interpreter
            if _has_inline_flag(texts[index + 1 :]):
                raise _Refused(INLINE_CODE)
        if word.quoted and any(ch in _REREAD for ch in text):
            _nested(text, depth=depth)
    if "git" in said and said & GIT_NETWORK:
        raise _Refused(NETWORK)
    if said & PACKAGE_MANAGERS and said & PACKAGE_FETCHES:
        raise _Refused(NETWORK)
    if any(manager in said and verb in said for manager, verb in PACKAGE_PAIRS):
        raise _Refused(NETWORK)


def _could_spell_danger(pattern: str) -> bool:
    base = posixpath.basename(pattern).lower() or pattern.lower()
    if "{" in base or "}" in base:
        return True  # a brace expansion can spell anything
    return any(fnmatch.fnmatchcase(name, base) for name in DANGEROUS)


def _shell_code(texts: list[str], index: int) -> str | None:
    """The code a shell at ``texts[index]`` is given with ``-c`` (or an option holding ``c``)."""
    for position in range(index + 1, len(texts)):
        option = texts[position]
        if not option.startswith("-") or option.startswith("--"):
            return None
        if "c" in option[1:]:
            return texts[position + 1] if position + 1 < len(texts) else ""
    return None


def _has_inline_flag(texts: list[str]) -> bool:
    """Whether an interpreter's options give it code to run (``-c``, ``-e``, ``-`` for stdin);
    read up to ``-m``, after which the words are the module's."""
    for option in texts:
        if option == "-m":
            return False
        if option in INLINE_FLAGS or option == "-":
            return True
        if option.startswith("-") and not option.startswith("--") and option[1:2] in "ceEpr":
            return True
    return False
