"""The review's configuration: seats, lenses and budgets read from ``hindsight.toml``."""

from __future__ import annotations

from review.config.fields import ConfigError
from review.config.load import load_config, loads_config, parse_config
from review.config.values import (
    DEFAULT_BASE_URLS,
    DEFAULT_MAX_OUTPUT_BYTES,
    DEFAULT_MAX_TOKENS,
    DEFAULT_TIMEOUT_S,
    Acknowledge,
    DecisionSettings,
    FixSettings,
    HistorySettings,
    MaintenanceSettings,
    ProofPolicy,
    ReviewConfig,
    ReviewSettings,
    SeatConfig,
    SeatKind,
    SeatSandbox,
    WritebackSettings,
)

__all__ = [
    "DEFAULT_BASE_URLS",
    "DEFAULT_MAX_OUTPUT_BYTES",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_TIMEOUT_S",
    "Acknowledge",
    "ConfigError",
    "DecisionSettings",
    "FixSettings",
    "HistorySettings",
    "MaintenanceSettings",
    "ProofPolicy",
    "ReviewConfig",
    "ReviewSettings",
    "SeatConfig",
    "SeatKind",
    "SeatSandbox",
    "WritebackSettings",
    "load_config",
    "loads_config",
    "parse_config",
]
