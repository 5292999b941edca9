"""Lenses: the review perspectives, and the four built in (correctness, security, performance, tests)."""

from __future__ import annotations

from dataclasses import dataclass

BUILTIN_LENS_INSTRUCTIONS: dict[str, str] = {
    "correctness": (
        "Look for code that does the wrong thing: logic errors, off-by-one mistakes, unhandled "
        "None or empty values, swallowed or over-broad exceptions, resources that are never "
        "closed, race conditions, and behaviour that contradicts the names, docstrings or the "
        "pull request description. Report only defects you can point to in the changed lines."
    ),
    "security": (
        "Look for ways the change can be abused: injection (SQL, shell, template, path), "
        "evaluation of untrusted input, missing authentication or authorisation checks, secrets "
        "in code or logs, unsafe deserialisation, weak cryptography, and trust in unvalidated "
        "data from requests, files or the environment. Say how an attacker reaches the line."
    ),
    "performance": (
        "Look for work the change makes slower than it needs to be: repeated queries or requests "
        "inside loops, quadratic algorithms over inputs that grow, unbounded memory use, blocking "
        "calls in async code, and missing pagination or limits. Name the input size at which it "
        "starts to matter."
    ),
    "tests": (
        "Look at how the change is tested: behaviour added or changed without a test, tests that "
        "cannot fail, assertions that check the wrong thing, sleeps and flakiness, and edge cases "
        "the change introduces that no test exercises. Name the test that should exist."
    ),
}


@dataclass(frozen=True)
class Lens:
    """A review perspective with its own instructions."""

    name: str
    instructions: str


DEFAULT_LENSES: tuple[Lens, ...] = tuple(
    Lens(name, text) for name, text in BUILTIN_LENS_INSTRUCTIONS.items()
)
