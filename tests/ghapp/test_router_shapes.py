"""Routing reads a delivery once as the shape of its first matching route: what that must keep of
the envelope's checks, and what an action no route takes is still held to."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from ghapp.envelopes import BadPayload, PullRequestEvent
from ghapp.handlers import build_router
from tests.conftest import FIXTURES

OPENED: dict[str, Any] = json.loads((FIXTURES / "pull_request" / "opened.payload.json").read_text())
ROUTER = build_router(coalesce_ms=0)


def opened(**changes: Any) -> dict[str, Any]:
    payload = copy.deepcopy(OPENED)
    payload.update(changes)
    return payload


def test_a_routed_delivery_makes_its_jobs_from_one_reading() -> None:
    specs = ROUTER.jobs_for("pull_request", opened())

    assert [spec.kind for spec in specs] == ["pull_request.review"]
    assert specs[0].installation_id == OPENED["installation"]["id"]
    route = ROUTER.route("pull_request.review")
    assert isinstance(route.parse(opened()), PullRequestEvent)


def test_an_action_no_route_takes_is_held_to_the_envelope_only() -> None:
    payload = opened(action="labeled")
    del payload["pull_request"]  # a route's field, which no route of this action reads

    assert ROUTER.jobs_for("pull_request", payload) == []


@pytest.mark.parametrize("action", ["labeled", "opened"])
def test_a_wrong_envelope_field_is_refused_whichever_the_action(action: str) -> None:
    payload = opened(action=action, installation={"id": "1"})

    with pytest.raises(BadPayload, match=r"installation\.id"):
        ROUTER.jobs_for("pull_request", payload)


@pytest.mark.parametrize("action", [{}, ["opened"], 7, "x" * 65])
def test_an_action_that_is_no_short_text_is_refused_not_failed(action: object) -> None:
    with pytest.raises(BadPayload, match="action"):
        ROUTER.jobs_for("pull_request", opened(action=action))


def test_a_routed_action_without_its_routes_field_is_refused() -> None:
    payload = opened()
    del payload["pull_request"]

    with pytest.raises(BadPayload, match="pull_request"):
        ROUTER.jobs_for("pull_request", payload)
