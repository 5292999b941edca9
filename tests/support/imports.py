"""Which project modules each module pulls in when it is imported alone in a fresh interpreter.

One interpreter per module costs the interpreter's start and every third-party import again, for
each of a few hundred modules. Here one interpreter imports the third-party packages once, then
forks a child per module, as many at once as there are cores: each child starts with no project module loaded, imports its one
module and reports what of the project came with it. Which project modules an import pulls in
does not depend on which third-party modules were already loaded, so the answer is the same.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROJECT = ("continual", "review", "ghapp", "ghsim")
# Loaded before forking: the third-party packages and submodules the project's modules import (a
# name missing here is only slower: each child imports it itself, about a second for the ORM).
THIRD_PARTY = (
    "alembic",
    "cmarkgfm",
    "cryptography",
    "difflib",
    "githubkit",
    "http.cookies",
    "httpx",
    "itsdangerous",
    "jinja2",
    "numpy",
    "numpy.typing",
    "orjson",
    "prometheus_client",
    "prometheus_client.core",
    "psycopg",
    "pydantic",
    "pydantic_settings",
    "snowballstemmer",
    "sqlalchemy",
    "sqlalchemy.dialects.postgresql",
    "sqlalchemy.dialects.sqlite",
    "sqlalchemy.future",
    "sqlalchemy.orm",
    "starlette",
    "starlette.applications",
    "starlette.formparsers",
    "starlette.middleware.errors",
    "starlette.middleware.exceptions",
    "starlette.responses",
    "starlette.routing",
    "starlette.websockets",
    "uvicorn",
    "yaml",
)

_SERVER = r"""
import importlib, json, os, sys, tempfile, traceback
project, preload, names = json.loads(sys.stdin.read())
for name in preload:
    try:
        importlib.import_module(name)
    except Exception:
        pass
assert not [m for m in sys.modules if m.split(".")[0] in project], "a project module was preloaded"
folder = tempfile.mkdtemp()
at_once = len(os.sched_getaffinity(0))
running, found, waiting = {}, {}, list(enumerate(names))
while waiting or running:
    while waiting and len(running) < at_once:
        index, name = waiting.pop(0)
        path = os.path.join(folder, str(index))
        pid = os.fork()
        if pid == 0:
            try:
                importlib.import_module(name)
                answer = {"loaded": sorted(m for m in sys.modules if m.split(".")[0] in project)}
            except BaseException:
                answer = {"error": traceback.format_exc()}
            with open(path, "w") as out:
                out.write(json.dumps(answer))
            os._exit(0)
        running[pid] = (name, path)
    pid, _ = os.wait()
    name, path = running.pop(pid)
    with open(path) as result:
        answer = json.loads(result.read() or '{"error": "the child wrote nothing"}')
    os.remove(path)
    if "error" in answer:
        sys.exit(f"importing {name} failed:\n{answer['error']}")
    found[name] = answer["loaded"]
os.rmdir(folder)
print(json.dumps(found))
"""


def imported_alone(names: list[str], cwd: Path) -> dict[str, list[str]]:
    """For each module name, the project modules loaded once it is imported on its own."""
    result = subprocess.run(
        [sys.executable, "-c", _SERVER],
        input=json.dumps([PROJECT, THIRD_PARTY, names]),
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
    )
    if result.returncode != 0:
        raise AssertionError(result.stderr[-4000:])
    found: dict[str, list[str]] = json.loads(result.stdout)
    return found
