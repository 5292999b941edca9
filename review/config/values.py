"""What ``hindsight.toml`` says, as frozen values: seats, review budgets, write-back, decisions and
maintenance."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from review.lenses import Lens

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MAX_TOKENS = 4096
DEFAULT_MAX_OUTPUT_BYTES = 4 << 20  # a command seat's stdout, per call
DEFAULT_BASE_URLS = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}


class SeatKind(StrEnum):
    """How a seat is reached."""

    COMMAND = "command"
    OPENAI = "openai"
    ANTHROPIC = "anthropic"


class SeatSandbox(StrEnum):
    """Where a command seat may run (docs/security.md, "Command seats")."""

    AUTO = "auto"  # in the sandbox where one works, else with the fallback's bounds and a warning
    REQUIRED = "required"  # only in the sandbox: without one, `serve` refuses and calls fail
    OFF = "off"  # the operator's opt-out: never in the sandbox


@dataclass(frozen=True)
class SeatConfig:
    """One configured reviewer backend; the last five fields are for command seats only."""

    name: str
    lab: str
    kind: SeatKind
    command: tuple[str, ...] = ()
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_tokens: int = DEFAULT_MAX_TOKENS
    pass_env: tuple[str, ...] = ()
    sandbox: SeatSandbox = SeatSandbox.AUTO
    network: bool = False  # share the host's network namespace (nothing else of the host)
    read: tuple[str, ...] = ()  # absolute paths the seat sees read-only
    write: tuple[str, ...] = ()  # absolute paths the seat sees read-write
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES


class ProofPolicy(StrEnum):
    """Where proofs may run: only in a sandbox (skipped where none works), or anyway."""

    SANDBOXED = "sandboxed"
    UNSANDBOXED = "unsandboxed"  # the operator's opt-in where no sandbox works (docs/security.md)


@dataclass(frozen=True)
class ReviewSettings:
    """Size and budget limits of one review, and where its proofs may run."""

    shard_chars: int = 40_000
    parallel_calls: int = 4
    memory_chars: int = 12_000
    cross_session_chars: int = 24_000
    lesson_cap: int = 20
    max_calls: int = 64
    proofs: ProofPolicy = ProofPolicy.SANDBOXED
    proof_memory_mib: int = 2048  # all processes of one proof run together, its copy included
    proof_processes: int = 256  # processes of one proof run together
    proof_copy_mib: int = 1024  # the copy of the head a proof runs on (a tmpfs)
    proof_files: int = 100_000  # entries of the head's tree a proof may copy


class Acknowledge(StrEnum):
    """How the app shows a maintainer what it recorded from their signal."""

    COMMENT = "comment"  # a status block at the end of its own suggestion comment
    REACTION = "reaction"  # 👀 on the reply that decided
    OFF = "off"


@dataclass(frozen=True)
class WritebackSettings:
    """``[writeback]``: how decisions are acknowledged, and how long a dismissal suppresses."""

    acknowledge: Acknowledge = Acknowledge.COMMENT
    suppress_days: int = 180


@dataclass(frozen=True)
class DecisionSettings:
    """``[decisions]``: the optional judge, a configured seat that reads replies the rules leave
    undecided."""

    judge: str | None = None


@dataclass(frozen=True)
class MaintenanceSettings:
    """``[maintenance]``: the optional seat that decides what the maintenance rules cannot."""

    seat: str | None = None


@dataclass(frozen=True)
class HistorySettings:
    """``[history]``: the optional discovery seat that proposes lessons from the back-fill's
    addressed maintainer comments (`hindsight.discover/1`)."""

    seat: str | None = None


@dataclass(frozen=True)
class FixSettings:
    """``[fixes]``: whether a maintainer's `/fix` opens a fix PR (it needs `contents: write`)."""

    enabled: bool = False


@dataclass(frozen=True)
class ReviewConfig:
    """Everything ``hindsight.toml`` says, validated."""

    seats: tuple[SeatConfig, ...]
    lenses: tuple[Lens, ...]
    review: ReviewSettings
    source: str = "hindsight.toml"
    writeback: WritebackSettings = WritebackSettings()
    decisions: DecisionSettings = DecisionSettings()
    maintenance: MaintenanceSettings = MaintenanceSettings()
    fixes: FixSettings = FixSettings()
    history: HistorySettings = HistorySettings()

    def seat(self, name: str) -> SeatConfig:
        """The seat called ``name``; ``KeyError`` if none is configured."""
        for seat in self.seats:
            if seat.name == name:
                return seat
        raise KeyError(name)
