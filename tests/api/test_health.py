import httpx

from app.config import Settings
from tests.api.conftest import ClientFactory
from tests.migrated import migrate
from tests.servers import free_port


async def test_healthz_says_the_process_is_up(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


async def test_readyz_checks_database_and_in_process_presence(client: httpx.AsyncClient) -> None:
    response = await client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ready",
        "checks": {"database": "ok", "presence": "ok", "tables": "ok"},
    }


async def test_readyz_with_redis_and_postgresql(
    client_for: ClientFactory, settings: Settings, postgres_url: str, redis_url: str
) -> None:
    real = settings.model_copy(update={"database_url": postgres_url, "redis_url": redis_url})
    await migrate(postgres_url)  # unmigrated, the stored tables cannot be listed: not ready
    async with client_for(real) as client:
        response = await client.get("/readyz")
    assert response.status_code == 200, response.text
    assert response.json()["checks"] == {"database": "ok", "presence": "ok", "tables": "ok"}


async def test_readyz_is_503_when_redis_does_not_answer(
    client_for: ClientFactory, settings: Settings
) -> None:
    dead = settings.model_copy(update={"redis_url": f"redis://127.0.0.1:{free_port()}/0"})
    async with client_for(dead) as client:
        response = await client.get("/readyz")
        health = await client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["presence"].startswith("error")
    assert health.status_code == 200


async def test_readyz_is_503_when_the_database_does_not_answer(
    client_for: ClientFactory, settings: Settings
) -> None:
    url = f"postgresql+asyncpg://nobody@127.0.0.1:{free_port()}/none"
    async with client_for(settings.model_copy(update={"database_url": url})) as client:
        response = await client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["database"].startswith("error")
    # The registry could not list the stored tables: it keeps trying, and says so.
    assert response.json()["checks"]["tables"].startswith("restoring")


async def test_index_serves_the_client_page(client: httpx.AsyncClient) -> None:
    response = await client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "<title>Omaha</title>" in response.text


async def test_lifespan_puts_resources_on_app_state(settings: Settings) -> None:
    from app.main import create_app
    from app.presence import InProcessPresence
    from tests.api.conftest import running

    app = create_app(settings)
    async with running(app):
        assert app.state.settings is settings
        assert app.state.engine.dialect.name == "sqlite"
        assert isinstance(app.state.presence, InProcessPresence)
        assert app.state.secret_key == "x" * 40
