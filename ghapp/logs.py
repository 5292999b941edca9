"""Structured logs: a constant message and the record's fields, as plain text or one JSON object."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

from ghapp.settings import LogFormat

_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}
# uvicorn adds a copy of its message with ANSI colour codes; the plain message says the same.
_DROPPED = frozenset({"color_message"})
# Libraries whose INFO lines say nothing an operator acts on (alembic: "Context impl SQLiteImpl").
_QUIET = ("alembic",)


def fields(record: logging.LogRecord) -> dict[str, Any]:
    """What was passed in ``extra``: the record's own attributes beyond the standard ones."""
    return {
        key: value
        for key, value in record.__dict__.items()
        if key not in _STANDARD and key not in _DROPPED and not key.startswith("_")
    }


class FieldsFormatter(logging.Formatter):
    """`time level logger message key=value …`, the fields being whatever was passed in `extra`."""

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        shown = " ".join(
            f"{key}={value!r}" if isinstance(value, str) and " " in value else f"{key}={value}"
            for key, value in fields(record).items()
        )
        return f"{line} {shown}" if shown else line


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message and the fields."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            **fields(record),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str, ensure_ascii=False)


def configure_logging(level: str = "INFO", log_format: LogFormat = LogFormat.TEXT) -> None:
    handler = logging.StreamHandler(sys.stderr)
    if log_format is LogFormat.JSON:
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(FieldsFormatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in _QUIET:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
