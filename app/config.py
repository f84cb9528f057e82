"""Settings: every knob is an environment variable.

`get_settings()` reads the environment once per process. `load_settings_or_exit()` is what
the command line uses: a bad value stops start-up with one line naming the variable.
"""

from __future__ import annotations

import os
import secrets
import socket
import sys
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from app.envfile import host_name

SECRET_KEY_MIN_LENGTH = 32
SECRET_KEY_FILE = "secret_key"
METRICS_TOKEN_MIN_LENGTH = 16


class Settings(BaseSettings):
    """The server's configuration, read from environment variables of the same name."""

    model_config = SettingsConfigDict(case_sensitive=False, extra="ignore", frozen=True)

    data_dir: Path = Field(
        default=Path("./data"),
        description="Where the embedded database and the generated secret key live.",
    )
    database_url: str | None = Field(
        default=None,
        description="SQLAlchemy async URL; default sqlite+aiosqlite:///<DATA_DIR>/omaha.sqlite3.",
    )
    redis_url: str | None = Field(
        default=None, description="redis:// URL for presence; unset keeps presence in process."
    )
    host: str = Field(default="127.0.0.1", min_length=1)
    port: int = Field(default=8000, ge=1, le=65535)
    secret_key: SecretStr | None = Field(
        default=None,
        description="Signs session cookies; unset generates one in <DATA_DIR>/secret_key.",
    )
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Comma-separated origins allowed to open a WebSocket; empty = same origin.",
    )
    log_level: Literal["debug", "info", "warning", "error", "critical"] = "info"
    log_format: Literal["text", "json"] = "text"
    presence_ttl: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        description="Seconds a connection stays online without a refresh (every third of it).",
    )

    between_hands: float = Field(
        default=2.0, ge=0, le=60, description="Seconds between the end of a hand and the next deal."
    )
    away_grace: float = Field(
        default=60.0,
        ge=0,
        le=3600,
        description="Seconds a disconnected seated player stays in before being sat out.",
    )
    store_timeout: float = Field(
        default=5.0,
        gt=0,
        le=60,
        description="Seconds a table waits for a database write before answering unavailable.",
    )
    bot_think: float = Field(
        default=1.5, ge=0, le=30, description="Seconds a practice bot thinks, on average."
    )
    bot_samples: int = Field(
        default=300,
        ge=20,
        le=5000,
        description="Run-outs a practice bot draws per decision (fewer: cheaper, plays worse).",
    )
    chat_burst: int = Field(
        default=5, ge=1, le=100, description="Chat messages a person may send per CHAT_WINDOW."
    )
    chat_window: float = Field(
        default=10.0, gt=0, le=3600, description="Seconds over which CHAT_BURST is counted."
    )
    ws_max_message: int = Field(
        default=4096, ge=256, le=65536, description="Largest inbound WebSocket message (bytes)."
    )
    ws_rate: float = Field(
        default=20.0, gt=0, le=1000, description="Inbound messages per second per connection."
    )
    ws_burst: int = Field(default=40, ge=1, le=10000, description="Burst above WS_RATE allowed.")
    ws_outbox_limit: int = Field(
        default=512,
        ge=8,
        le=100000,
        description="Messages a connection may fall behind before it is closed.",
    )

    # ------------------------------------------------------------- Internet-facing
    public_url: str | None = Field(
        default=None,
        description="The address players use (https://poker.example.org): invite links, the "
        "allowed Host and Origin, and Secure __Host- cookies derive from it. Unset: loopback "
        "and IP-literal hosts only, same origin.",
    )
    domain: str | None = Field(
        default=None,
        description="The host name players use behind the HTTPS proxy of docker-compose.yml "
        "(poker.example.org): PUBLIC_URL is https://<DOMAIN> unless set itself.",
    )
    forwarded_allow_ips: str = Field(
        default="127.0.0.1",
        min_length=1,
        description="Comma-separated proxy addresses whose X-Forwarded-For/-Proto are believed.",
    )
    session_days: int = Field(default=30, ge=1, le=400, description="A session's lifetime.")
    sessions_per_minute: int = Field(
        default=30, ge=1, le=100000, description="New sessions (names chosen) per client address."
    )
    tables_per_minute: int = Field(
        default=10, ge=1, le=100000, description="Tables created per client address a minute."
    )
    tables_per_host: int = Field(
        default=20, ge=1, le=100000, description="Open tables one player may host."
    )
    reads_per_minute: int = Field(
        default=60, ge=1, le=100000,
        description="Costly reads (ledgers, exports, deal figures) per client address a minute.",
    )  # fmt: skip
    tournaments_per_host: int = Field(
        default=3, ge=1, le=1000, description="Unfinished tournaments one player may host."
    )
    ws_per_session: int = Field(
        default=8, ge=1, le=10000, description="WebSocket connections one player may hold."
    )
    ws_per_table: int = Field(
        default=200, ge=2, le=100000, description="WebSocket connections to one table."
    )
    seat_requests_per_table: int = Field(
        default=20, ge=1, le=1000, description="Pending seat requests a table keeps."
    )
    max_body: int = Field(
        default=65536, ge=1024, le=2**24, description="Largest HTTP request body (bytes)."
    )
    header_timeout: float = Field(
        default=10.0, gt=0, le=300, description="Seconds a client has to send request headers."
    )
    max_connections: int = Field(
        default=1000, ge=10, le=1000000, description="Open connections the server accepts."
    )
    ws_flood_seconds: float = Field(
        default=3.0, gt=0, le=600, description="Seconds over WS_RATE before a client is closed."
    )
    # ------------------------------------------------------------- several processes
    process_name: str | None = Field(
        default=None,
        max_length=64,
        pattern=r"^[A-Za-z0-9._:-]+$",
        description="Names this process among those sharing DATABASE_URL and REDIS_URL (each "
        "its own); default <hostname>:<PORT>.",
    )
    lease_seconds: float = Field(
        default=10.0,
        ge=0.2,
        le=300,
        description="A table's owner lease: a process that stops renewing it loses its tables "
        "to the others after this.",
    )
    lease_renew: float = Field(
        default=2.0,
        gt=0,
        le=100,
        description="Seconds between lease renewals and sweeps for lapsed tables "
        "(under half of LEASE_SECONDS).",
    )
    drain_seconds: float = Field(
        default=30.0,
        ge=0,
        le=3600,
        description="Seconds a stopping process (SIGTERM) with others beside it lets the hands "
        "in play end before handing its tables over.",
    )
    metrics_token: SecretStr | None = Field(
        default=None,
        description="GET /metrics (Prometheus text) answers with `Authorization: Bearer "
        "<METRICS_TOKEN>` only; unset: /metrics is off (404).",
    )
    log_debug_loggers: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Third-party loggers allowed below info (they stay at info otherwise).",
    )
    memory_trace: bool = Field(
        default=False,
        description="Measuring only: tracemalloc from start-up, a snapshot into DATA_DIR on "
        "SIGUSR1 (SIGUSR2: after a full collection); see app/memtrace.py. Slows the server.",
    )
    memory_trace_frames: int = Field(
        default=8, ge=0, le=64,
        description="With MEMORY_TRACE: frames kept per traced allocation; 0: no tracemalloc "
        "(RSS unskewed), the snapshot holds RSS and live objects by type only.",
    )  # fmt: skip

    @field_validator("database_url", "redis_url", "secret_key", "public_url", "domain",
                     "metrics_token", mode="before")  # fmt: skip
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if value.startswith(("postgresql://", "postgres://")):
            # The usual libpq form: use the async driver this server ships with.
            return "postgresql+asyncpg://" + value.split("://", 1)[1]
        if not value.startswith(("sqlite+aiosqlite://", "postgresql+asyncpg://")):
            raise ValueError(
                "must start with sqlite+aiosqlite:// or postgresql+asyncpg:// (or postgresql://)"
            )
        return value

    @field_validator("redis_url")
    @classmethod
    def _known_redis(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("must start with redis://, rediss:// or unix://")
        return value

    @field_validator("secret_key")
    @classmethod
    def _long_secret(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and len(value.get_secret_value()) < SECRET_KEY_MIN_LENGTH:
            raise ValueError(f"must be at least {SECRET_KEY_MIN_LENGTH} characters long")
        return value

    @field_validator("metrics_token")
    @classmethod
    def _long_token(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and len(value.get_secret_value()) < METRICS_TOKEN_MIN_LENGTH:
            raise ValueError(f"must be at least {METRICS_TOKEN_MIN_LENGTH} characters long")
        return value

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str):
            value = [part for part in (p.strip() for p in value.split(",")) if part]
        if isinstance(value, list):
            for origin in value:
                if not isinstance(origin, str) or not origin.startswith(("http://", "https://")):
                    raise ValueError(f"{origin!r} is not an origin like https://poker.example.org")
            return [origin.rstrip("/") for origin in value]
        return value

    @field_validator("public_url")
    @classmethod
    def _origin_only(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip().rstrip("/")
        scheme, _, rest = value.partition("://")
        scheme = scheme.lower()
        if scheme not in ("http", "https") or not rest or "/" in rest or "@" in rest:
            raise ValueError("must be an origin like https://poker.example.org (no path)")
        return f"{scheme}://{rest.lower()}"

    @field_validator("domain")
    @classmethod
    def _host_name(cls, value: str | None) -> str | None:
        if value is None:
            return None
        name = host_name(value)
        if name is None:
            raise ValueError("must be a host name like poker.example.org (no scheme, port or path)")
        return name

    @model_validator(mode="after")
    def _public_url_from_domain(self) -> Settings:
        if self.public_url is None and self.domain is not None:
            object.__setattr__(self, "public_url", f"https://{self.domain}")  # (frozen)
        return self

    @field_validator("log_debug_loggers", mode="before")
    @classmethod
    def _split_names(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("log_level", "log_format", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _renew_within_lease(self) -> Settings:
        if self.lease_renew * 2 > self.lease_seconds:
            raise ValueError("LEASE_RENEW must be at most half of LEASE_SECONDS")
        return self

    @property
    def effective_process_name(self) -> str:
        if self.process_name:
            return self.process_name
        return f"{socket.gethostname()}:{self.port}"

    @property
    def shared(self) -> bool:
        """Several processes may share the tables: PostgreSQL and Redis (else it runs alone)."""
        return self.redis_url is not None and not self.is_sqlite

    @property
    def effective_database_url(self) -> str:
        if self.database_url is not None:
            return self.database_url
        return f"sqlite+aiosqlite:///{self.data_dir.as_posix()}/omaha.sqlite3"

    @property
    def public_host(self) -> str | None:
        """The Host header the public URL implies (host[:port]), if PUBLIC_URL is set."""
        return self.public_url.split("://", 1)[1] if self.public_url else None

    @property
    def https(self) -> bool:
        return bool(self.public_url and self.public_url.startswith("https://"))

    @property
    def is_sqlite(self) -> bool:
        return self.effective_database_url.startswith("sqlite")

    def ensure_secret_key(self) -> str:
        """Return SECRET_KEY, or the one kept in DATA_DIR/secret_key (made on first use).

        Keeping a generated key on disk lets sessions survive a restart of a local run.
        """
        if self.secret_key is not None:
            return self.secret_key.get_secret_value()
        path = self.data_dir / SECRET_KEY_FILE
        if path.exists():
            key = path.read_text(encoding="utf-8").strip()
            if len(key) >= SECRET_KEY_MIN_LENGTH:
                return key
        self.data_dir.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(48)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(key + "\n")
        os.chmod(path, 0o600)
        return key


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()


def describe_error(error: ValidationError) -> str:
    """One line naming the first bad variable and what is wrong with it."""
    first = error.errors()[0]
    name = str(first["loc"][0]).upper() if first["loc"] else "settings"
    message = str(first["msg"])
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    more = len(error.errors()) - 1
    suffix = f" (and {more} more)" if more > 0 else ""
    return f"invalid setting {name}: {message}{suffix}"


def load_settings_or_exit() -> Settings:
    try:
        return get_settings()
    except ValidationError as error:
        print(f"omaha: {describe_error(error)}", file=sys.stderr)
        raise SystemExit(2) from None
