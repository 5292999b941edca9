"""The published OpenAPI 3.1 description of `/v1`, served at `GET /v1/openapi.json`: its schema
components are in `schemas`, its operations in `paths`."""

from __future__ import annotations

import json
import sys
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ghapp.api.openapi.paths import PATHS
from ghapp.api.openapi.schemas import SCHEMAS

VERSION = "1.0.0"


def description() -> dict[str, Any]:
    """The whole OpenAPI document."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "Hindsight API", "version": VERSION},
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
        "paths": PATHS,
    }


async def document(request: Request) -> Response:
    return JSONResponse(description())


def main() -> None:
    """Print the description (docs/openapi.json is this output)."""
    json.dump(description(), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
