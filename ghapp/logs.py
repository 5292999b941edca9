"""Structured logs: a constant message followed by the record's fields as key=value pairs."""

from __future__ import annotations

import logging
import sys

_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class FieldsFormatter(logging.Formatter):
    """`time level logger message key=value …`, the fields being whatever was passed in `extra`."""

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = " ".join(
            f"{key}={value!r}" if isinstance(value, str) and " " in value else f"{key}={value}"
            for key, value in record.__dict__.items()
            if key not in _STANDARD and not key.startswith("_")
        )
        return f"{line} {fields}" if fields else line


def configure_logging(level: str = "INFO") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(FieldsFormatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
