"""The dependency rule: `continual` imports neither `review` nor `ghapp`; `review` never `ghapp`.

The GitHub simulator (`ghsim`) stands beside the rooms: it imports none of them but the loopback
server, and of the product only the demo imports it.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from tests.support.imports import imported_alone

ROOT = Path(__file__).resolve().parents[1]

LAYERS = ("continual", "review", "ghapp", "ghsim")
FORBIDDEN = {
    "continual": ("review", "ghapp", "ghsim"),
    "review": ("ghapp", "ghsim"),
    "ghsim": ("continual", "review"),
}
# What of the door the simulator may load, and the one product module that may load the simulator.
SIMULATOR_USES = {"ghapp", "ghapp.loopback"}
SIMULATOR_USERS = {"ghapp.demo"}


def module_names() -> list[str]:
    names = []
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            if "migrations" in path.parts or path.name == "__main__.py":  # __main__ runs the CLI
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


@functools.cache
def imported_by_each_module() -> dict[str, list[str]]:
    """Import every module alone in a fresh interpreter and list the project modules it pulled in."""
    return imported_alone(module_names(), ROOT)


def _downward_violations(imports: dict[str, list[str]]) -> list[str]:
    assert any(name.startswith("continual.") for name in imports)
    assert any(name.startswith("review.") for name in imports)
    violations = []
    for module, loaded in imports.items():
        layer = module.split(".")[0]
        forbidden = FORBIDDEN.get(layer, ())
        violations += [f"{module} imports {m}" for m in loaded if m.split(".")[0] in forbidden]
    return violations


def _door_crossings(imports: dict[str, list[str]]) -> tuple[set[str], set[str]]:
    """What of the door the simulator loads beyond SIMULATOR_USES, and which product modules
    load the simulator."""
    assert "ghsim.driver" in imports
    door = {
        f"{module} imports {m}"
        for module, loaded in imports.items()
        if module.startswith("ghsim")
        for m in loaded
        if m.startswith("ghapp") and m not in SIMULATOR_USES
    }
    users = {
        module
        for module, loaded in imports.items()
        if module.split(".")[0] in ("ghapp", "review", "continual")
        and any(m.startswith("ghsim") for m in loaded)
    }
    return door, users


def test_layers_import_only_downwards_and_the_simulator_stands_outside_the_door() -> None:
    # One test for both, so that the suite's workers import every module alone only once.
    imports = imported_by_each_module()
    assert _downward_violations(imports) == []
    door, users = _door_crossings(imports)
    assert door == set()
    assert users <= SIMULATOR_USERS, users


# A concept with one home: the text that marks it appears in product code only there (the
# simulator is GitHub, not the product; the demo seat runs sandboxed with only `review/` in view).
ONE_HOME = {
    "the bot suffix, or a bot's login built from a slug": (
        re.compile(r"""["']\[bot\]["']|\}\[bot\]["']"""),
        {"continual/writeback/authors.py"},
    ),
    "a unified diff's hunk header read": (
        re.compile(r"""re\.compile\(r?["']\^?@@"""),
        # The seats read the patch themselves: they run sandboxed with their own package only.
        {"continual/patches.py", "review/demo_seat.py", "review/example_seat.py"},
    ),
    "a hidden marker written": (re.compile(r"<!-- hindsight:"), {"continual/markers.py"}),
}


def test_each_concept_is_spelled_out_in_its_one_home() -> None:
    strays = []
    for concept, (pattern, homes) in ONE_HOME.items():
        found = {
            str(path.relative_to(ROOT))
            for layer in ("continual", "review", "ghapp")
            for path in (ROOT / layer).rglob("*.py")
            if pattern.search(path.read_text())
        }
        assert found & homes, f"{concept}: its home no longer holds it"
        strays += [f"{concept}: {name}" for name in sorted(found - homes)]
    assert strays == []
