"""The server side of the ingress and door benchmarks: the real app (web only, served as `hindsight
serve` serves it), a bare body-only endpoint, or a bare endpoint doing the same work a durable
acknowledgement needs."""

from __future__ import annotations

import argparse
import resource

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bench.common import pin
from bench.same_work import same_work_app
from ghapp.app import create_app
from ghapp.serving import uvicorn_config
from ghapp.settings import Settings


async def bare(request: Request) -> Response:
    await request.body()
    return JSONResponse({"ok": True}, status_code=202)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["app", "bare", "same-work"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database-url")
    parser.add_argument("--secret", default="bench-secret")
    parser.add_argument("--cpu", type=int, default=0)
    parser.add_argument("--nofile", type=int, help="the process's open-descriptor limit")
    args = parser.parse_args()
    pin(args.cpu)
    if args.nofile:
        _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (args.nofile, hard))
    options = {"host": "127.0.0.1", "port": args.port, "log_level": "warning", "access_log": False}
    if args.mode == "app":
        settings = Settings(database_url=args.database_url, webhook_secret=args.secret)
        app = create_app(settings, run_worker=False)
        uvicorn.Server(uvicorn_config(app, settings, **options)).run()
        return
    if args.mode == "bare":
        plain = Starlette(routes=[Route("/webhooks", bare, methods=["POST"])])
        uvicorn.run(plain, **options)  # type: ignore[arg-type]
        return
    uvicorn.run(same_work_app(args.database_url, args.secret.encode()), **options)  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
