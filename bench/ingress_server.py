"""The server side of the ingress benchmark: the real app (web only) or a bare Starlette endpoint."""

from __future__ import annotations

import argparse

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bench.common import pin
from ghapp.app import create_app
from ghapp.settings import Settings


async def bare(request: Request) -> Response:
    await request.body()
    return JSONResponse({"ok": True}, status_code=202)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["app", "bare"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database-url")
    parser.add_argument("--secret", default="bench-secret")
    parser.add_argument("--cpu", type=int, default=0)
    args = parser.parse_args()
    pin(args.cpu)
    if args.mode == "bare":
        app = Starlette(routes=[Route("/webhooks", bare, methods=["POST"])])
    else:
        settings = Settings(database_url=args.database_url, webhook_secret=args.secret)
        app = create_app(settings, run_worker=False)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
