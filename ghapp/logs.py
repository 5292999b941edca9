"""Structured logs: a constant message and the record's fields, as plain text or one JSON object."""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ghapp.settings import LogFormat

_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}
# uvicorn adds a copy of its message with ANSI colour codes; the plain message says the same.
_DROPPED = frozenset({"color_message"})
# Libraries whose INFO lines say nothing an operator acts on (alembic: "Context impl SQLiteImpl");
# httpx and httpcore log every request at INFO, the URL whole (setup's carries a one-time code).
_QUIET = ("alembic", "httpx", "httpcore")
# What a text line must never carry raw: C0 controls (newline, CR, ESC, …), DEL, C1 controls, and
# the Unicode line and paragraph separators; each is written as its escape (`\n`, `\x1b`, `\u2028`).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_one(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


# What JSON leaves raw but a reader may take for a line break: DEL, C1 controls, U+2028/U+2029.
_JSON_RAW = re.compile(r"[\x7f-\x9f\u2028\u2029]")


def escape_controls(text: str) -> str:
    """`text` with every control character written as its escape, so one record is one line."""
    return _CONTROL.sub(_escape_one, text)


def fields(record: logging.LogRecord) -> dict[str, Any]:
    """What was passed in ``extra``: the record's own attributes beyond the standard ones."""
    return {
        key: value
        for key, value in record.__dict__.items()
        if key not in _STANDARD and key not in _DROPPED and not key.startswith("_")
    }


def _shown(value: Any) -> str:
    text = str(value)
    return repr(text) if isinstance(value, str) and " " in text else escape_controls(text)


class FieldsFormatter(logging.Formatter):
    """`time level logger message key=value …`, the fields being whatever was passed in `extra`.

    The message and every field have their control characters escaped: a value from a request
    (a path, a header) cannot end the line and forge another. A traceback keeps its own lines.
    """

    def formatMessage(self, record: logging.LogRecord) -> str:
        return escape_controls(super().formatMessage(record))

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        shown = " ".join(
            f"{escape_controls(str(key))}={_shown(value)}" for key, value in fields(record).items()
        )
        return f"{line} {shown}" if shown else line


# uvicorn's access line: `client - "METHOD path HTTP/version" status`, its parts as arguments.
_ACCESS_LOGGER = "uvicorn.access"
_ACCESS_FIELDS = ("client", "method", "path", "http_version", "status")


def access_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The parts of an access line as fields (nothing for any other record)."""
    args = record.args
    if record.name != _ACCESS_LOGGER or not isinstance(args, tuple) or len(args) != 5:
        return {}
    return dict(zip(_ACCESS_FIELDS, args, strict=True))


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message and the fields (an access line's
    client, method, path, HTTP version and status among them)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            **access_fields(record),
            **fields(record),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        text = json.dumps(line, default=str, ensure_ascii=False)
        return _JSON_RAW.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a record is emitted, not the stream it was when
    logging was configured: a replaced and closed stderr (an embedding program's, a test
    runner's capture) never turns a log line into a logging error."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        """The stream is always the current ``sys.stderr``."""


def configure_logging(level: str = "INFO", log_format: LogFormat | str = "text") -> None:
    """One handler on stderr, text or JSON; the noisy libraries at WARNING at least."""
    handler = StderrHandler()
    if str(log_format) == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(FieldsFormatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in _QUIET:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
