"""A stateful GitHub stand-in served over loopback HTTP, for tests and `hindsight demo`."""

from __future__ import annotations

from ghapp.simulator.app_key import AppKeyPair, generate_app_key
from ghapp.simulator.driver import GitHubSimulator
from ghapp.simulator.model import ApiError, FileChange
from ghapp.simulator.patches import addition_patch
from ghapp.simulator.recording import Fault, LoggedRequest
from ghapp.simulator.webhooks import Delivery, delivery_headers, sign

__all__ = [
    "ApiError",
    "AppKeyPair",
    "Delivery",
    "Fault",
    "FileChange",
    "GitHubSimulator",
    "LoggedRequest",
    "addition_patch",
    "delivery_headers",
    "generate_app_key",
    "sign",
]
