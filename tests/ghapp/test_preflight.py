"""`serve` and `worker` refuse to start on an unusable hindsight.toml, naming the file and the
problem, unless `--no-review` says reviews are off on purpose; logs are plain text or JSON."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from ghapp.cli.template import HINDSIGHT_TOML
from ghapp.preflight import check_app_key, usable_config
from ghapp.settings import Settings
from ghsim import GitHubSimulator
from review.config import ConfigError
from review.sandbox import Isolation, Sandbox
from tests.conftest import WEBHOOK_SECRET
from tests.support.processes import free_port, ready, start, stop
from tests.support.simulator import APP_ID, app_key, other_key
from tests.support.web import wait_for

ROOT = Path(__file__).resolve().parents[2]
KEYS = {"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "sk-ant-test"}
SEAT = json.dumps(["python3", "-m", "review.example_seat"])
SEAT_KEYS = r"\[\[seats\]\]|name|lab|kind|model|base_url|api_key_env|max_tokens|timeout_s"


def with_model_seats() -> str:
    """The template with its two model seats uncommented, as a person adds them."""
    head, rest = HINDSIGHT_TOML.split("# Any OpenAI", 1)
    seats, tail = rest.split("# --- Lenses", 1)
    seats = re.sub(rf"(?m)^# ((?:{SEAT_KEYS})(?: |$))", r"\1", seats)
    return f"{head}# Any OpenAI{seats}# --- Lenses{tail}"


def environment(tmp_path: Path, config: Path, **extra: str) -> dict[str, str]:
    key_file = tmp_path / "app.pem"
    key_file.write_text(app_key().private_pem)
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in KEYS and not key.startswith("HINDSIGHT_")
    }
    return {
        **env,
        "PYTHONPATH": str(ROOT),
        "HINDSIGHT_DATABASE_URL": f"sqlite:///{tmp_path / 'h.db'}",
        "HINDSIGHT_GITHUB_APP_ID": str(APP_ID),
        "HINDSIGHT_GITHUB_PRIVATE_KEY_FILE": str(key_file),
        "HINDSIGHT_WEBHOOK_SECRET": WEBHOOK_SECRET,
        "HINDSIGHT_GITHUB_API_URL": "http://127.0.0.1:9",
        "HINDSIGHT_CONFIG": str(config),
        **extra,
    }


def refused(command: list[str], env: dict[str, str], cwd: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "ghapp.cli", *command],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr


def test_a_missing_file_stops_serve_and_worker(tmp_path: Path) -> None:
    config = tmp_path / "nowhere" / "hindsight.toml"
    env = environment(tmp_path, config)
    for command in (["serve"], ["worker", "--until-idle"]):
        err = refused(command, env, tmp_path)
        assert f"{config}: file not found" in err
        assert "hindsight init" in err and "--no-review" in err
    assert not (tmp_path / "h.db").exists(), "refused before touching the database"


def test_a_syntax_error_names_its_line(tmp_path: Path) -> None:
    config = tmp_path / "hindsight.toml"
    config.write_text('[[seats]]\nname = "alpha"\nlab = acme\n')
    err = refused(["serve"], environment(tmp_path, config), tmp_path)
    assert f"{config}: is not valid TOML" in err and "line 3" in err


def test_an_unknown_judge_seat_and_a_missing_key_are_named(tmp_path: Path) -> None:
    config = tmp_path / "hindsight.toml"
    config.write_text(HINDSIGHT_TOML.replace('# judge = "anthropic"', 'judge = "gamma"'))
    err = refused(["serve"], environment(tmp_path, config, **KEYS), tmp_path)
    assert "decisions.judge must name a configured seat, got 'gamma'" in err

    config.write_text(with_model_seats())
    env = environment(tmp_path, config, OPENAI_API_KEY="sk-test")
    err = refused(["worker", "--until-idle"], env, tmp_path)
    assert f"{config}: seats[2] (anthropic): the environment variable ANTHROPIC_API_KEY" in err
    assert "OPENAI_API_KEY" not in err


def test_the_written_configuration_starts_as_written(tmp_path: Path) -> None:
    """As written, its one seat is the installed example, needing no key; the model seats a
    person uncomments need theirs."""
    config = tmp_path / "hindsight.toml"
    config.write_text(HINDSIGHT_TOML)
    assert [seat.name for seat in usable_config(config, {}, cwd=tmp_path).seats] == ["local"]
    config.write_text(with_model_seats())
    with pytest.raises(ConfigError) as failure:
        usable_config(config, {}, cwd=ROOT)
    assert len(failure.value.problems) == 2, "both HTTP seats' variables are named"
    loaded = usable_config(config, KEYS, cwd=ROOT)
    assert [seat.name for seat in loaded.seats] == ["local", "openai", "anthropic"]


def test_a_command_seat_that_cannot_start_is_named(tmp_path: Path) -> None:
    """A program that is not installed, or not executable, is named."""
    config = tmp_path / "hindsight.toml"
    config.write_text(HINDSIGHT_TOML.replace(SEAT, '["no-such-seat-x"]'))
    err = refused(["serve"], environment(tmp_path, config, **KEYS), tmp_path)
    assert "seats[0] (local): the program 'no-such-seat-x' is not found" in err
    script = tmp_path / "seat.sh"
    script.write_text("#!/bin/sh\n")
    config.write_text(HINDSIGHT_TOML.replace(SEAT, '["./seat.sh"]'))
    with pytest.raises(ConfigError, match=re.escape("'./seat.sh' is not found")):
        usable_config(config, KEYS, cwd=tmp_path)  # not executable
    script.chmod(0o755)
    assert usable_config(config, KEYS, cwd=tmp_path).seats[0].command == ("./seat.sh",)


def test_a_seat_that_requires_the_sandbox_stops_the_start_where_none_works(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = tmp_path / "hindsight.toml"
    config.write_text(HINDSIGHT_TOML.replace(SEAT, f'{SEAT}\nsandbox = "required"'))
    missing = Sandbox(Isolation.NONE, "'bwrap' not found: install bubblewrap")
    with pytest.raises(ConfigError) as failure:
        usable_config(config, KEYS, cwd=ROOT, sandbox=missing)
    assert failure.value.problems == (
        "seats[0] (local): sandbox = \"required\" but no sandbox works here ('bwrap' not "
        'found: install bubblewrap); install bubblewrap, or set sandbox = "auto" to run it '
        'without one (docs/security.md, "Command seats")',
    )
    config.write_text(HINDSIGHT_TOML)  # "auto": it starts, and says so
    with caplog.at_level("WARNING", logger="ghapp.preflight"):
        assert usable_config(config, KEYS, cwd=ROOT, sandbox=missing).seats[0].name == "local"
    assert [r.message for r in caplog.records] == ["command seat will run without a sandbox"]


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_serve_logs_plain_text_or_json(tmp_path: Path, log_format: str) -> None:
    """Without a configuration and with --no-review the server starts; its log lines carry no
    ANSI colour codes, and with HINDSIGHT_LOG_FORMAT=json each line is one JSON object."""
    port = free_port()
    env = environment(tmp_path, tmp_path / "absent.toml", HINDSIGHT_LOG_FORMAT=log_format)
    server = start(["serve", "--no-review", "--port", str(port)], env, tmp_path)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(
            lambda: ready(url) or server.poll() is not None, timeout=120, what="serve to be ready"
        )
        assert httpx.get(f"{url}/healthz").status_code == 200
    finally:
        output = stop(server)
    assert "\x1b[" not in output and "color_message" not in output
    lines = [line for line in output.splitlines() if line]
    assert any("/healthz" in line for line in lines), "the access log is there"
    database = f"sqlite:///{tmp_path / 'h.db'}"
    if log_format == "json":
        records = [json.loads(line) for line in lines]  # the banner too: no text line at all
        assert {"time", "level", "logger", "message"} <= set(records[0])
        banner = next(r for r in records if r["message"] == "serving")
        assert banner["url"] == url and banner["database"] == database
        access = [r for r in records if r["logger"] == "uvicorn.access"]
        assert {"method": "GET", "path": "/healthz", "status": 200}.items() <= access[-1].items()
    else:
        assert all(not line.startswith("{") for line in lines)
        banner = next(line for line in lines if line.startswith("hindsight: serving on "))
        assert url in banner and f"database {database}" in banner


def test_a_key_that_is_not_the_apps_stops_serve_and_worker(tmp_path: Path) -> None:
    """A valid RSA key of another app: GitHub (the simulator) refuses its JWT at `GET /app`."""
    wrong = tmp_path / "other.pem"
    wrong.write_text(other_key().private_pem)
    fingerprint = Settings(github_private_key_file=wrong).key_fingerprint()
    with GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as sim:
        env = environment(
            tmp_path,
            tmp_path / "absent.toml",
            HINDSIGHT_GITHUB_API_URL=sim.base_url,
            HINDSIGHT_GITHUB_PRIVATE_KEY_FILE=str(wrong),
        )
        for command in (["serve", "--no-review"], ["worker", "--no-review", "--until-idle"]):
            err = refused(command, env, tmp_path)
            assert f"not a key of app {APP_ID}" in err and fingerprint in err
            assert "HINDSIGHT_GITHUB_APP_ID" in err
        asked = sim.requests("GET", "^/app$")
    assert len(asked) == 2 and all(r.status == 401 for r in asked)


def test_the_apps_own_key_passes_and_an_unreachable_github_is_only_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    key = app_key().private_pem
    with GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as sim:
        settings = Settings(
            github_app_id=APP_ID, github_private_key=key, github_api_url=sim.base_url
        )  # type: ignore[arg-type]
        assert check_app_key(settings) == APP_ID
    away = Settings(
        github_app_id=APP_ID, github_private_key=key, github_api_url="http://127.0.0.1:9"
    )  # type: ignore[arg-type]
    with caplog.at_level("WARNING", logger="ghapp.preflight"):
        assert check_app_key(away, timeout_s=5) is None
    said = [r.message for r in caplog.records if r.name == "ghapp.preflight"]
    assert said == ["app key not checked: GitHub could not be asked"]


def test_a_busy_port_is_one_error_and_no_banner(tmp_path: Path) -> None:
    """`serve` binds before it says it serves: a port in use is refused without a banner."""
    with GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as sim:
        busy = int(sim.base_url.rsplit(":", 1)[1])
        env = environment(tmp_path, tmp_path / "absent.toml", HINDSIGHT_GITHUB_API_URL=sim.base_url)
        result = subprocess.run(
            [sys.executable, "-m", "ghapp.cli", "serve", "--no-review", "--port", str(busy)],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert result.returncode == 2, result.stderr
    assert "serving on" not in result.stderr and "Traceback" not in result.stderr
    assert f"hindsight serve: cannot listen on 127.0.0.1:{busy}: Address already in use" in (
        result.stderr
    )
