"""Which isolation this machine offers proofs: bubblewrap, found and probed once per binary."""

from __future__ import annotations

import functools
import logging
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from review.config import ProofPolicy
from review.sandbox.command import NOBODY, bwrap_argv

PROBE_TIMEOUT_S = 20.0
PROBE_SCRIPT = "id -u; id -g"
DEFAULT_BWRAP = "bwrap"
SETPRIV = "/usr/bin/setpriv"

log = logging.getLogger(__name__)


class Isolation(StrEnum):
    """How a proof's processes are isolated from the app."""

    BWRAP = "bwrap"  # namespaces through bubblewrap (the only isolation proofs accept by default)
    UNSANDBOXED = (
        "unsandboxed"  # the operator's opt-in: a copy, an allowlisted env, limits, no namespaces
    )
    NONE = "none"  # nothing works here: proofs are skipped


@dataclass(frozen=True)
class Sandbox:
    """What proofs run in: the isolation, the binary, whether the host user is dropped first
    (``setpriv``, when the app runs as root) and what the probe found, for logs and the ledger."""

    isolation: Isolation
    detail: str
    binary: str | None = None
    drop_privileges: bool = False

    @property
    def runs_proofs(self) -> bool:
        return self.isolation is not Isolation.NONE

    def prefix(self) -> list[str]:
        """The argv in front of bubblewrap's own options."""
        if self.binary is None:
            raise ValueError(f"the {self.isolation.value} sandbox has no binary to run")
        drop = [SETPRIV, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
        return [*(drop if self.drop_privileges else []), self.binary]


UNSANDBOXED = Sandbox(
    Isolation.UNSANDBOXED,
    'no namespaces: [review] proofs = "unsandboxed" runs proofs as the app\'s own user',
)


def _probe(binary: str, *, drop: bool) -> str | None:
    """Run ``id`` in the sandbox; None when it answered the unprivileged ids, else what went wrong."""
    sandbox = Sandbox(Isolation.BWRAP, "probe", binary, drop)
    with tempfile.TemporaryDirectory(prefix="hindsight-probe-") as scratch:
        workdir = Path(scratch)
        if drop:
            os.chown(workdir, NOBODY, NOBODY)
        argv = bwrap_argv(sandbox.prefix(), workdir=workdir, inner=["/bin/sh", "-c", PROBE_SCRIPT])
        try:
            done = subprocess.run(
                argv,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=PROBE_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{type(exc).__name__}: {exc}"
    answer = done.stdout.decode(errors="replace").split()
    if done.returncode == 0 and answer == [str(NOBODY), str(NOBODY)]:
        return None
    error = done.stderr.decode(errors="replace").strip()[-200:]
    return f"exit {done.returncode}, ids {answer}: {error or 'no message'}"


@functools.cache
def detect_sandbox(bwrap: str = DEFAULT_BWRAP) -> Sandbox:
    """Find ``bwrap`` and check that it runs a command as uid/gid 65534 in fresh namespaces.

    Run once per binary and remembered. As root, the host user is dropped to 65534 with
    ``setpriv`` before bubblewrap starts; where that fails, bubblewrap's user namespace alone maps
    the command to 65534 (it still holds no capability).
    """
    binary = shutil.which(bwrap)
    if binary is None:
        found = Sandbox(Isolation.NONE, f"{bwrap!r} not found: install bubblewrap")
        log.warning("proof sandbox unavailable", extra={"detail": found.detail})
        return found
    attempts = [True, False] if os.geteuid() == 0 and Path(SETPRIV).is_file() else [False]
    problems: list[str] = []
    for drop in attempts:
        problem = _probe(binary, drop=drop)
        if problem is None:
            host = f"host uid {NOBODY} (setpriv)" if drop else "user namespace only"
            found = Sandbox(Isolation.BWRAP, f"{binary}, uid {NOBODY}, {host}", binary, drop)
            log.info(
                "proof sandbox", extra={"isolation": found.isolation.value, "detail": found.detail}
            )
            return found
        problems.append(problem)
    found = Sandbox(Isolation.NONE, f"{binary} does not run here: {'; '.join(problems)}")
    log.warning("proof sandbox unavailable", extra={"detail": found.detail})
    return found


def for_policy(found: Sandbox, policy: ProofPolicy) -> Sandbox:
    """What proofs run in under ``[review] proofs``: the sandbox found; where none works, nothing
    (proofs skipped) unless the operator said ``"unsandboxed"``."""
    if found.runs_proofs or policy is not ProofPolicy.UNSANDBOXED:
        return found
    return UNSANDBOXED
