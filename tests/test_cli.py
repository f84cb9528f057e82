"""The command line, run as a newcomer runs it: `python -m app ...` in a subprocess."""

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

from pydantic import SecretStr

from app.__main__ import COMMANDS, build_parser, prepare_database
from app.config import Settings

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "PORT"}}
    base["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        env={**base, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_commands_are_registered() -> None:
    assert {"serve", "migrate"} <= set(COMMANDS)
    assert build_parser().parse_args(["migrate"]).revision == "heads"


def test_serve_with_a_bad_port_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    result = run_cli("serve", env={"PORT": "not-a-port"}, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert result.stderr.startswith("omaha: invalid setting PORT:")
    assert not (tmp_path / "data").exists()


def test_migrate_creates_the_embedded_database(tmp_path: Path) -> None:
    result = run_cli("migrate", env={"DATA_DIR": str(tmp_path / "data")}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "data" / "omaha.sqlite3").is_file()


def test_serve_refuses_postgresql_behind_head(postgres_url: str, tmp_path: Path) -> None:
    result = run_cli("serve", env={"DATABASE_URL": postgres_url}, cwd=tmp_path)
    assert result.returncode == 1
    assert "not starting" in result.stderr
    assert "python -m app migrate" in result.stderr


def test_serve_accepts_postgresql_once_migrated(postgres_url: str, tmp_path: Path) -> None:
    result = run_cli("migrate", env={"DATABASE_URL": postgres_url}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert prepare_database(Settings(database_url=postgres_url)) is None


def test_init_writes_new_secrets_with_the_standard_library_alone(tmp_path: Path) -> None:
    template = (ROOT / ".env.example").read_text()
    # -S: no site-packages, so nothing installed is importable: what a host has before setup
    cmd = [sys.executable, "-S", "-m", "app", "init", "--domain", "Poker.Example.org"]
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT)}
    done = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    path = tmp_path / ".env"
    assert path.stat().st_mode & 0o777 == 0o600
    written = dict(line.split("=", 1) for line in path.read_text().splitlines()
                   if line and not line.startswith("#"))  # fmt: skip
    assert written["DOMAIN"] == "poker.example.org"
    for name in ("SECRET_KEY", "POSTGRES_PASSWORD"):
        assert len(written[name]) >= 64 and written[name] != "replace-me"
        assert re.fullmatch(r"[A-Za-z0-9_-]+", written[name])  # safe in DATABASE_URL
    assert written["SECRET_KEY"] != written["POSTGRES_PASSWORD"]
    # Everything else is the template's, comments included.
    made = ("SECRET_KEY=", "POSTGRES_PASSWORD=", "DOMAIN=")
    kept = [line for line in template.splitlines() if not line.startswith(made)]
    assert [line for line in path.read_text().splitlines() if not line.startswith(made)] == kept
    settings = Settings(secret_key=SecretStr(written["SECRET_KEY"]), domain=written["DOMAIN"])
    assert settings.public_url == "https://poker.example.org"

    # Never over an existing file: the same bytes stay, exit 1, one line why.
    before = path.read_bytes()
    again = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and "not overwriting" in again.stderr
    assert path.read_bytes() == before

    # A second host's secrets are its own; a bad name writes nothing.
    other = tmp_path / "other.env"
    result = run_cli("init", "--file", str(other), env={}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "SECRET_KEY=" + written["SECRET_KEY"] not in other.read_text()
    assert "DOMAIN=\n" in other.read_text()
    bad = run_cli("init", "--file", str(tmp_path / "bad.env"), "--domain", "https://x.org",
                  env={}, cwd=tmp_path)  # fmt: skip
    assert bad.returncode == 2 and not (tmp_path / "bad.env").exists()


async def test_migrate_check_lists_and_tries_the_pending_migrations_and_keeps_none(
    database_url: str, tmp_path: Path
) -> None:
    from app.store.db import create_engine
    from app.store.migrate import pending, schema_state, upgrade_connection

    engine = create_engine(database_url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(upgrade_connection, "0012")
        result = await asyncio.to_thread(
            run_cli, "migrate", "--check", env={"DATABASE_URL": database_url}, cwd=tmp_path
        )
        assert result.returncode == 0, result.stderr
        steps = [revision for revision, _ in pending(frozenset({"0012"}))]
        assert steps[:2] == ["0013", "0014"]
        listed = re.findall(r"^  (\w+)  ", result.stdout, re.MULTILINE)
        assert listed == steps
        assert f"all {len(steps)} ran cleanly" in result.stdout
        assert (await schema_state(engine)).current == {"0012"}  # nothing kept
        if database_url.startswith("sqlite"):  # (one database is enough for this)
            async with engine.begin() as connection:
                await connection.run_sync(upgrade_connection)
            done = await asyncio.to_thread(
                run_cli, "migrate", "--check", env={"DATABASE_URL": database_url}, cwd=tmp_path
            )
            assert done.returncode == 0 and "nothing to migrate" in done.stdout
    finally:
        await engine.dispose()
