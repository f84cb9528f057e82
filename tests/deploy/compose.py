"""docker-compose.yml as Compose resolves it (`docker-compose config`), for a given .env:
no container engine is needed, and none runs here."""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Any

import yaml

from tests.deploy.caddy import ROOT
from tests.servers import missing

#: the two ways a host runs it: a game on the LAN (no DOMAIN; ports and the edge network
#: moved, as a host whose 80 is taken would) and on the Internet (DOMAIN, all defaults)
LOCAL = {"DOMAIN": "", "HTTP_PORT": "8000", "HTTPS_PORT": "8443", "EDGE_SUBNET": "10.1.2.0/28"}
INTERNET = {"DOMAIN": "poker.example.org"}
_resolved: dict[tuple[tuple[str, str], ...], dict[str, Any]] = {}


def resolved(env: dict[str, str]) -> dict[str, Any]:
    """The whole file (the scale profile's services too) for this .env override: once per
    test process (docker-compose takes a second or more)."""
    key = tuple(sorted(env.items()))
    if key not in _resolved:
        _resolved[key] = compose_config("scale", **env)
    return _resolved[key]


def compose_config(*profiles: str, **env: str) -> dict[str, Any]:
    """The resolved file with .env.example as .env and `env` set in the environment (which
    Compose prefers to .env), in `profiles`."""
    found = shutil.which("docker-compose")
    if found is None:
        missing("docker-compose is not installed (Debian: apt-get install docker-compose)")
        raise AssertionError("unreachable")
    args = [found, "--project-directory", str(ROOT), "--env-file", str(ROOT / ".env.example"),
            "-f", str(ROOT / "docker-compose.yml")]  # fmt: skip
    for profile in profiles:
        args += ["--profile", profile]
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}
    done = subprocess.run([*args, "config"], capture_output=True, text=True, timeout=60,
                          env={**base, **env}, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    config: dict[str, Any] = yaml.safe_load(done.stdout)
    return config


def proxy_environment(domain: str) -> dict[str, str]:
    """What the proxy container's Caddy reads, for this DOMAIN ("" for none)."""
    service = resolved(INTERNET if domain else LOCAL)["services"]["proxy"]
    return {k: str(v) for k, v in (service.get("environment") or {}).items()}
