"""create_app(): the FastAPI application — API routes, the game WebSocket, pages and static files."""

from __future__ import annotations

import asyncio
import logging
import sys
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from throne.server import pages, rules_pages, tutorials, ws
from throne.server.caps import Caps
from throne.server.config import Settings
from throne.server.csrf import CsrfGuard
from throne.server.errors import (
    ApiError,
    api_error_handler,
    database_error_handler,
    http_error_handler,
    store_error_handler,
    unexpected_error_handler,
    validation_error_handler,
)
from throne.server.headers import SecurityHeaders
from throne.server.limits import BodyLimit
from throne.server.lobby import Hub
from throne.server.ratelimit import RateLimiter
from throne.server.routes import accounts, games, metrics, players
from throne.server.sessions import SessionSigner, verify_password
from throne.store.db import Database
from throne.store.repo import Repo, StoreError

log = logging.getLogger(__name__)
STATIC = Path(__file__).parent / "static"


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        db = Database(settings.url, settings.busy_timeout)
        db.upgrade()
        await asyncio.to_thread(verify_password, None, "")  # the dummy hash, before the first login needs it
        hub = Hub(settings, Repo(db))
        app.state.hub = hub
        if settings.redis_url:  # one node of many: the cluster decides which games this node owns
            from throne.server.cluster.node import Cluster
            from throne.server.cluster.ratelimit import SharedChatLimits, SharedRateLimiter

            hub.cluster = Cluster(
                hub,
                settings.redis_url,
                lease_ttl=settings.lease_ttl,
                node=settings.node_name,
                timeout=settings.redis_timeout,
            )
            await hub.cluster.start()
            app.state.limiter = SharedRateLimiter(hub.cluster.redis, settings.rate_limits)
            hub.chat_limits = SharedChatLimits(hub.cluster.redis)
        else:
            await hub.resume()
        sweeper = asyncio.create_task(app.state.caps.sweep_forever(hub), name="stale-tables")
        try:
            yield
        finally:
            sweeper.cancel()
            await hub.close()
            if "throne.ai" in sys.modules:
                sys.modules["throne.ai"].shutdown()
            db.dispose()

    app = FastAPI(
        title="Throne",
        lifespan=lifespan,
        docs_url="/api/docs",
        openapi_url="/api/openapi.json",
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.signer = SessionSigner(settings.resolved_secret())
    app.state.limiter = RateLimiter(settings.rate_limits)
    app.state.caps = Caps(settings)
    app.add_exception_handler(ApiError, api_error_handler)
    app.add_exception_handler(StoreError, store_error_handler)
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    app.add_exception_handler(StarletteHTTPException, http_error_handler)
    app.add_exception_handler(OperationalError, database_error_handler)
    app.add_exception_handler(Exception, unexpected_error_handler)  # JSON 500s, never text/plain
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(CsrfGuard, allowed_origins=settings.allowed_origins)
    app.add_middleware(SecurityHeaders)  # outermost: refusals by the guards above carry the headers too
    routers = (accounts.router, games.router, players.router, metrics.router, ws.router, pages.router,
               rules_pages.router, tutorials.router, tutorials.pages)
    for router in routers:
        app.include_router(router)
    STATIC.mkdir(exist_ok=True)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
