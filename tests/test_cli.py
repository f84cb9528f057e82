"""The command line, run as a newcomer runs it: `python -m app ...` in a subprocess."""

import os
import subprocess
import sys
from pathlib import Path

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
