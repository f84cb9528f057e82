from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.main import create_app
from tests.migrated import migrate

ClientFactory = Callable[[Settings], AbstractAsyncContextManager[httpx.AsyncClient]]


@asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """The app with its lifespan run, and an HTTP client talking to it in process."""
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            yield client


@pytest.fixture
def client_for() -> ClientFactory:
    def make(settings: Settings) -> AbstractAsyncContextManager[httpx.AsyncClient]:
        return running(create_app(settings))

    return make


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    await migrate(settings.effective_database_url)
    async with running(create_app(settings)) as http:
        yield http
