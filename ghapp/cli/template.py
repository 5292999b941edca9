"""The commented ``hindsight.toml`` that `hindsight init` writes (examples/hindsight.toml is a
copy, its seat run by ``python3``): it starts as written, its one seat needing no key."""

from __future__ import annotations

import json

SEAT_MODULE = "review.example_seat"

TEMPLATE = """\
# hindsight.toml: who reviews pull requests, through which lenses, within which budgets.
# `hindsight serve` and `hindsight worker` read it at start (the path is HINDSIGHT_CONFIG,
# default ./hindsight.toml) and refuse to start when it is missing or wrong, naming the problem;
# `--no-review` starts them with reviews off on purpose. docs/seats.md has every key.

# --- Seats: the reviewers ------------------------------------------------------------------
# Every seat reviews every lens of every shard of a pull request. This file starts as written:
# its one seat is the example program installed with Hindsight, which needs no key. Add the seats
# you will use (uncomment one below and set its key variable: `serve` refuses to start while a
# seat's key is not set) and remove the example once a model reviews.

# A program run once per call: a `hindsight.call/1` request as JSON on stdin, the result as JSON
# on stdout (docs/seats.md). `review.example_seat` (review/example_seat.py in the installed
# package) flags debugging print( calls added to Python files; start yours from it.
[[seats]]
name = "local"                      # unique; receipts and the ledger name the seat
lab = "local"                       # the organisation behind the model; receipts carry it
kind = "command"
command = __SEAT_COMMAND__   # argv, no shell
timeout_s = 120                     # seconds per call
# pass_env = ["SEAT_LICENSE_KEY"]   # the only variables of the app's the program sees

# Any OpenAI-compatible chat-completions endpoint (OpenAI, a local vLLM or Ollama server, …).
# [[seats]]
# name = "openai"
# lab = "openai"
# kind = "openai"
# model = "gpt-4o-mini"
# base_url = "https://api.openai.com/v1"
# api_key_env = "OPENAI_API_KEY"    # the NAME of the variable holding the key, never the key
# timeout_s = 120

# The Anthropic Messages API.
# [[seats]]
# name = "anthropic"
# lab = "anthropic"
# kind = "anthropic"
# model = "claude-sonnet-4-5"
# base_url = "https://api.anthropic.com"
# api_key_env = "ANTHROPIC_API_KEY"
# max_tokens = 4096
# timeout_s = 120

# --- Lenses: what each call looks for -------------------------------------------------------
# Without any [[lenses]] the four built-in ones are used. A built-in name (correctness,
# security, performance, tests) may omit its instructions; any other lens needs them.
[[lenses]]
name = "correctness"

[[lenses]]
name = "security"

# [[lenses]]
# name = "docs"
# instructions = "Check that every public function added has a docstring."

# --- The review's budgets (defaults shown) ----------------------------------------------------
[review]
shard_chars = 40000          # patch characters per shard
parallel_calls = 4           # calls in flight at once
memory_chars = 12000         # the session-memory block handed to each call
cross_session_chars = 24000  # the block recalled from earlier reviews
lesson_cap = 20              # lessons in the shared header
max_calls = 64               # calls per review

# --- Write-back: how the app answers maintainers' decisions (defaults shown) ----------------
[writeback]
acknowledge = "comment"      # "comment": a status block on its suggestion; "reaction": 👀; "off"
suppress_days = 180          # how long a dismissal keeps the same finding from coming back

# --- The judge: a seat that reads the replies the rules leave undecided ---------------------
# It abstains unless a reply decides, quotes it verbatim, and its verdict waits for the same
# evidence as a natural reply's (docs/seats.md, hindsight.judge/2).
[decisions]
# judge = "anthropic"        # the name of one of the seats above

# --- Maintenance ------------------------------------------------------------------------------
# seat = "…" picks the seat that runs the store's maintenance; leave the section out to run it
# without a model.
# [maintenance]
# seat = "local"

# --- Fix PRs: a maintainer's /fix opens the suggested change as a pull request ----------------
# Needs the app's `contents: write` permission (`hindsight setup --fixes`); docs/fixes.md.
# [fixes]
# enabled = true
"""


def hindsight_toml(python: str = "python3") -> str:
    """The template, its command seat run by ``python`` (`init` gives this interpreter's path, so
    the seat finds the installed package wherever the app runs)."""
    return TEMPLATE.replace("__SEAT_COMMAND__", json.dumps([python, "-m", SEAT_MODULE]))


HINDSIGHT_TOML = hindsight_toml()
