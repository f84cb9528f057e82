"""Caddy for the tests: Debian's package, run on loopback only, never reaching the Internet.

Every run gets its own folder for Caddy's data and configuration (XDG_DATA_HOME,
XDG_CONFIG_HOME, HOME: its internal CA, certificates and autosave), no admin endpoint, and
addresses bound to 127.0.0.1. Its internal CA issues the certificates (`local_certs`, `tls
internal`): no ACME, no OCSP, and its root never goes into the system's trust store.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

from tests.servers import missing

ROOT = Path(__file__).resolve().parents[2]
#: the proxy's files as docker-compose.yml mounts them at /etc/caddy
CADDY_DIR = ROOT / "deploy" / "caddy"


def caddy_bin() -> str:
    found = shutil.which("caddy")
    if found is None:
        missing("caddy is not installed (Debian: apt-get install caddy)")
        raise AssertionError("unreachable")
    return found


def isolated_env(folder: Path, **extra: str) -> dict[str, str]:
    """Caddy's environment: its own folders under `folder`, the variables the shipped
    configuration reads (`extra`), nothing of the developer's."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(folder),
        "XDG_DATA_HOME": str(folder / "data"),
        "XDG_CONFIG_HOME": str(folder / "config"),
    }
    return {**env, **extra}


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [caddy_bin(), *args], capture_output=True, text=True, env=env, timeout=60, check=False
    )


def loopback_config(http_port: int, https_port: int) -> str:
    """A Caddyfile for a test: the shipped site (omaha.caddy) as `https://localhost`, on
    loopback ports, with certificates from Caddy's internal CA."""
    return f"""{{
	admin off
	skip_install_trust
	local_certs
	ocsp_stapling off
	default_bind 127.0.0.1
	http_port {http_port}
	https_port {https_port}
}}

localhost {{
	tls internal
	import {CADDY_DIR / "omaha.caddy"}
}}
"""


def root_certificate(folder: Path) -> Path:
    return folder / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"


@contextmanager
def running_caddy(
    folder: Path, config: str, env: dict[str, str]
) -> Iterator[subprocess.Popen[bytes]]:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "Caddyfile"
    path.write_text(config)
    log = (folder / "caddy.log").open("wb")
    process = subprocess.Popen(
        [caddy_bin(), "run", "--config", str(path), "--adapter", "caddyfile"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)
        log.close()


async def tls_ready(
    folder: Path, port: int, process: subprocess.Popen[bytes], timeout: float = 90.0
) -> ssl.SSLContext:
    """Wait until Caddy answers a TLS handshake for localhost with a certificate of its
    internal CA (made at its start, in the background); the context that trusts that CA."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        if process.poll() is not None:
            raise AssertionError(f"caddy exited: {(process.args, process.returncode)}")
        root = root_certificate(folder)
        if root.is_file():
            try:
                # (the file can be there before Caddy has written it all)
                context = ssl.create_default_context(cafile=str(root))
                _, writer = await asyncio.open_connection(
                    "127.0.0.1", port, ssl=context, server_hostname="localhost"
                )
            except (OSError, ssl.SSLError):
                pass
            else:
                writer.close()
                return context
        if loop.time() > deadline:
            log = (folder / "caddy.log").read_text(errors="replace")[-2000:]
            raise AssertionError(f"caddy did not serve TLS in {timeout} s:\n{log}")
        await asyncio.sleep(0.05)


@asynccontextmanager
async def proxy_for(
    folder: Path, app_port: int, http_port: int, https_port: int
) -> AsyncIterator[ssl.SSLContext]:
    """The shipped site in front of the app on 127.0.0.1:`app_port`, ready for TLS."""
    env = isolated_env(folder, APP_HOST="127.0.0.1", APP_PORT=str(app_port))
    with running_caddy(folder, loopback_config(http_port, https_port), env) as process:
        yield await tls_ready(folder, https_port, process)
