"""Throwaway database servers for the tests: a PostgreSQL cluster and redis-server.

Both are started once per test session on free loopback ports and removed afterwards. When a
server is missing the tests that need it are skipped, except under CI=true, where they fail.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest


def under_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def missing(what: str) -> None:
    """Fail under CI, skip elsewhere: a missing server is never a silent pass in CI."""
    if under_ci():
        pytest.fail(f"{what} (CI=true: a missing server fails the run)", pytrace=False)
    pytest.skip(what)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def postgres_bindir() -> Path | None:
    """Where pg_ctl and initdb are: `pg_config --bindir`, /usr/lib/postgresql/*/bin, PATH."""
    candidates: list[Path] = []
    if env := os.environ.get("PG_BINDIR"):
        candidates.append(Path(env))
    if pg_config := shutil.which("pg_config"):
        try:
            out = subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, check=True, timeout=10
            )
            candidates.append(Path(out.stdout.strip()))
        except (subprocess.SubprocessError, OSError):
            pass

    def version(path: str) -> float:
        try:
            return float(Path(path).parent.name)
        except ValueError:
            return 0.0

    installed = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version, reverse=True)
    candidates += [Path(p) for p in installed]
    if pg_ctl := shutil.which("pg_ctl"):
        candidates.append(Path(pg_ctl).resolve().parent)
    for folder in candidates:
        if (folder / "pg_ctl").is_file() and (folder / "initdb").is_file():
            return folder
    return None


@dataclass(frozen=True)
class PostgresServer:
    host: str
    port: int
    user: str
    version: str
    # For fault tests on a cluster of their own: stop, start, freeze and thaw it.
    data: Path | None = None
    bindir: Path | None = None
    as_user: tuple[str, ...] = ()
    options: str = ""

    def url(self, dbname: str) -> str:
        return f"postgresql+asyncpg://{self.user}@{self.host}:{self.port}/{dbname}"

    def _pg_ctl(self, *args: str) -> None:
        assert self.data is not None and self.bindir is not None
        subprocess.run([*self.as_user, str(self.bindir / "pg_ctl"), "-D", str(self.data), *args],
                       capture_output=True, check=True, timeout=60)  # fmt: skip

    def stop(self) -> None:
        """Stop the server (fast: open connections are closed, as in a real outage)."""
        self._pg_ctl("-m", "fast", "-w", "stop")

    def start(self) -> None:
        assert self.data is not None
        self._pg_ctl("-o", self.options, "-l", str(self.data.parent / "server.log"),
                     "-w", "-t", "60", "start")  # fmt: skip

    def processes(self) -> list[int]:
        """The postmaster and every process it started (backends, writers)."""
        assert self.data is not None
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        children = subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True,
                                  text=True, timeout=10).stdout.split()  # fmt: skip
        return [postmaster, *map(int, children)]

    def freeze(self) -> None:
        """SIGSTOP the whole server: connections stay open and nothing answers."""
        for pid in self.processes():
            os.kill(pid, signal.SIGSTOP)

    def thaw(self) -> None:
        for pid in self.processes():
            os.kill(pid, signal.SIGCONT)


@contextmanager
def postgres_cluster(durable: bool = False, max_connections: int = 100) -> Iterator[PostgresServer]:
    """initdb + pg_ctl start in a temporary folder; as the `postgres` user when run as root.
    Tests run without fsync (a throwaway cluster); `durable` keeps PostgreSQL's defaults
    (fsync, synchronous_commit, full_page_writes on), as docker compose runs it."""
    bindir = postgres_bindir()
    if bindir is None:
        missing("the PostgreSQL server is not installed (Debian: apt-get install postgresql)")
        raise AssertionError("unreachable")
    as_user: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="omaha-pg-"))
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(folder, ignore_errors=True)
            missing("running as root needs a `postgres` user to run the PostgreSQL test server")
            raise AssertionError("unreachable") from None
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data = folder / "data"
    port = free_port()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*as_user, *args], capture_output=True, text=True, check=True, timeout=120
        )

    started = False
    try:
        run(str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
            "-E", "UTF8", "--no-locale", "--no-sync")  # fmt: skip
        options = f"-p {port} -h 127.0.0.1 -k {folder} -c max_connections={max_connections}"
        if not durable:
            options += " -F -c fsync=off -c full_page_writes=off"
        run(str(bindir / "pg_ctl"), "-D", str(data), "-o", options,
            "-l", str(folder / "server.log"), "-w", "-t", "60", "start")  # fmt: skip
        started = True
        version = run(str(bindir / "postgres"), "--version").stdout.split()[-1]
        yield PostgresServer(host="127.0.0.1", port=port, user="postgres", version=version,
                             data=data, bindir=bindir, as_user=tuple(as_user),
                             options=options)  # fmt: skip
    except subprocess.CalledProcessError as error:
        log = folder / "server.log"
        detail = log.read_text() if log.exists() else ""
        raise RuntimeError(
            f"cannot start the PostgreSQL test server: {error.stderr or error.stdout}\n{detail}"
        ) from error
    finally:
        if started:
            subprocess.run(
                [*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                capture_output=True,
                timeout=60,
            )
        shutil.rmtree(folder, ignore_errors=True)


def redis_executable() -> str | None:
    return os.environ.get("REDIS_SERVER") or shutil.which("redis-server")


def wait_for_port(host: str, port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
