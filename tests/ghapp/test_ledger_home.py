"""`/` points to the ledger, and evidence links go to GitHub's web side of the API in use."""

from __future__ import annotations

import httpx
import pytest

from ghapp.web.render import github_web_url


def test_the_root_points_to_the_ledger(ledger_url: str) -> None:
    answer = httpx.get(f"{ledger_url}/", follow_redirects=False)
    assert answer.status_code == 302 and answer.headers["location"] == "/ledger"
    assert httpx.get(f"{ledger_url}/nothing-here").status_code == 404


@pytest.mark.parametrize(
    ("api", "web"),
    [
        ("https://api.github.com", "https://github.com"),
        ("https://api.github.com/", "https://github.com"),
        ("https://ghe.example.com/api/v3", "https://ghe.example.com"),
        ("http://127.0.0.1:8123", "http://127.0.0.1:8123"),
    ],
)
def test_the_web_side_of_an_api(api: str, web: str) -> None:
    assert github_web_url(api) == web
