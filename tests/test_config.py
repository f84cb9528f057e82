import os
import stat
from pathlib import Path

import pytest
from pydantic import ValidationError

from app.config import Settings, describe_error, get_settings, load_settings_or_exit


def test_defaults_run_locally_on_embedded_sqlite() -> None:
    settings = Settings()
    assert settings.effective_database_url == "sqlite+aiosqlite:///data/omaha.sqlite3"
    assert settings.is_sqlite
    assert settings.redis_url is None
    assert (settings.host, settings.port) == ("127.0.0.1", 8000)
    assert settings.allowed_origins == []
    assert (settings.log_level, settings.log_format) == ("info", "text")


def test_every_knob_is_an_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {
        "DATABASE_URL": "postgresql://omaha:pw@db:5432/omaha",
        "REDIS_URL": "redis://cache:6379/0",
        "HOST": "0.0.0.0",
        "PORT": "9000",
        "SECRET_KEY": "k" * 32,
        "ALLOWED_ORIGINS": "https://poker.example.org, http://localhost:8000/",
        "LOG_LEVEL": "DEBUG",
        "LOG_FORMAT": "json",
        "PRESENCE_TTL": "12.5",
        "DATA_DIR": "/var/lib/omaha",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    settings = get_settings()
    assert settings.effective_database_url == "postgresql+asyncpg://omaha:pw@db:5432/omaha"
    assert not settings.is_sqlite
    assert settings.redis_url == "redis://cache:6379/0"
    assert (settings.host, settings.port) == ("0.0.0.0", 9000)
    assert settings.ensure_secret_key() == "k" * 32
    assert settings.allowed_origins == ["https://poker.example.org", "http://localhost:8000"]
    assert (settings.log_level, settings.log_format) == ("debug", "json")
    assert settings.presence_ttl == 12.5
    assert settings.data_dir == Path("/var/lib/omaha")


def test_empty_values_mean_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "ALLOWED_ORIGINS"):
        monkeypatch.setenv(key, "")
    settings = Settings()
    assert settings.database_url is None and settings.redis_url is None
    assert settings.secret_key is None and settings.allowed_origins == []


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("PORT", "99999", "less than or equal to 65535"),
        ("PORT", "eighty", "integer"),
        ("DATABASE_URL", "mysql://x/y", "must start with"),
        ("REDIS_URL", "localhost:6379", "must start with"),
        ("SECRET_KEY", "short", "at least 32"),
        ("ALLOWED_ORIGINS", "poker.example.org", "not an origin"),
        ("LOG_LEVEL", "loud", "'debug'"),
        ("LOG_FORMAT", "xml", "'json'"),
        ("PRESENCE_TTL", "0", "greater than 0"),
    ],
)
def test_a_bad_setting_is_named_in_one_line(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, words: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError) as caught:
        Settings()
    line = describe_error(caught.value)
    assert line.startswith(f"invalid setting {name}: ")
    assert words in line
    assert "\n" not in line


def test_bad_setting_exits_2_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PORT", "0")
    with pytest.raises(SystemExit) as caught:
        load_settings_or_exit()
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("omaha: invalid setting PORT:")


def test_generated_secret_key_is_kept_private_and_reused(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    key = settings.ensure_secret_key()
    path = tmp_path / "data" / "secret_key"
    assert len(key) >= 32
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert Settings(data_dir=tmp_path / "data").ensure_secret_key() == key


def test_secret_key_is_not_shown_in_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_KEY", "s3cr3t" * 8)
    assert "s3cr3t" not in repr(Settings())


def test_public_url_is_an_origin() -> None:
    settings = Settings(public_url="HTTPS://Poker.Example.org/")
    assert settings.public_url == "https://poker.example.org"
    assert settings.public_host == "poker.example.org" and settings.https
    assert Settings(public_url="").public_url is None
    for bad in ("poker.example.org", "ftp://x", "https://x/path", "https://user@x"):
        with pytest.raises(ValidationError):
            Settings(public_url=bad)


def test_domain_gives_an_https_public_url_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOMAIN", "Poker.Example.org.")
    settings = Settings()
    assert settings.domain == "poker.example.org"
    assert settings.public_url == "https://poker.example.org" and settings.https
    monkeypatch.setenv("PUBLIC_URL", "https://cards.example.net")
    assert Settings().public_url == "https://cards.example.net"
    monkeypatch.setenv("DOMAIN", "")
    monkeypatch.delenv("PUBLIC_URL")
    assert Settings().public_url is None and Settings().domain is None
    for bad in ("https://poker.example.org", "poker.example.org:443", "poker.example.org/x",
                "-poker.org", "poker..org", "a" * 64 + ".org"):  # fmt: skip
        monkeypatch.setenv("DOMAIN", bad)
        with pytest.raises(ValidationError):
            Settings()


def test_metrics_token_is_long_or_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().metrics_token is None
    monkeypatch.setenv("METRICS_TOKEN", "")
    assert Settings().metrics_token is None
    monkeypatch.setenv("METRICS_TOKEN", "short")
    with pytest.raises(ValidationError):
        Settings()
    monkeypatch.setenv("METRICS_TOKEN", "t" * 16)
    settings = Settings()
    assert settings.metrics_token is not None and "t" * 16 not in repr(settings)


def test_limits_and_debug_loggers_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOG_DEBUG_LOGGERS", "uvicorn, aiosqlite")
    monkeypatch.setenv("WS_PER_SESSION", "3")
    settings = Settings()
    assert settings.log_debug_loggers == ["uvicorn", "aiosqlite"] and settings.ws_per_session == 3
    monkeypatch.setenv("MAX_BODY", "12")
    with pytest.raises(ValidationError):
        Settings()
