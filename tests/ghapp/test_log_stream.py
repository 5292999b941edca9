"""The log handler writes to the stderr of the moment: a stderr replaced and closed after logging
was configured (an embedding program's, a test runner's capture) never makes a log line a
logging error, and the line reaches the stderr that replaced it."""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Iterator

import pytest

from ghapp.logs import StderrHandler, configure_logging


@pytest.fixture
def root_handlers() -> Iterator[None]:
    root = logging.getLogger()
    kept, level = root.handlers[:], root.level
    yield
    root.handlers[:] = kept
    root.setLevel(level)


def test_a_closed_stderr_of_the_past_is_not_written_to(
    root_handlers: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    configure_logging("INFO")
    [handler] = logging.getLogger().handlers
    assert isinstance(handler, StderrHandler)
    logging.getLogger("hindsight.test").info("while configured")
    assert "while configured" in first.getvalue()
    first.close()
    now = io.StringIO()
    monkeypatch.setattr(sys, "stderr", now)
    failures: list[BaseException | None] = []
    monkeypatch.setattr(handler, "handleError", lambda record: failures.append(sys.exc_info()[1]))
    logging.getLogger("hindsight.test").info("after the first stderr closed")
    assert failures == []
    assert "after the first stderr closed" in now.getvalue()
