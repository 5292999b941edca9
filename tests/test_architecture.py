"""The dependency rule: `continual` imports neither `review` nor `ghapp`; `review` never `ghapp`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LAYERS = ("continual", "review", "ghapp")
FORBIDDEN = {"continual": ("review", "ghapp"), "review": ("ghapp",)}


def module_names() -> list[str]:
    names = []
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            if "migrations" in path.parts or path.name == "__main__.py":  # __main__ runs the CLI
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def imported_by_each_module() -> dict[str, list[str]]:
    """Import every module alone in a fresh interpreter and list the project modules it pulled in."""
    found = {}
    for name in module_names():
        probe = (
            f"import importlib, sys, json; importlib.import_module({name!r}); "
            "print(json.dumps(sorted(m for m in sys.modules "
            "if m.split('.')[0] in ('continual', 'review', 'ghapp'))))"
        )
        result = subprocess.run(
            [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
        )
        found[name] = json.loads(result.stdout)
    return found


def test_layers_import_only_downwards() -> None:
    imports = imported_by_each_module()
    assert any(name.startswith("continual.") for name in imports)
    assert any(name.startswith("review.") for name in imports)
    violations = []
    for module, loaded in imports.items():
        layer = module.split(".")[0]
        forbidden = FORBIDDEN.get(layer, ())
        violations += [f"{module} imports {m}" for m in loaded if m.split(".")[0] in forbidden]
    assert violations == []
