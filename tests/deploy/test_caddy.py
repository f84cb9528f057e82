"""The proxy's configuration as Caddy itself reads it (`caddy adapt`, `caddy validate`), with
the environment docker-compose.yml gives the proxy container: deploy/caddy/Caddyfile without
DOMAIN (plain HTTP on port 80), with it (HTTPS for that name by ACME, HTTP redirected), and the
loopback configuration the end-to-end test runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from tests.deploy.caddy import CADDY_DIR, isolated_env, loopback_config, run
from tests.deploy.compose import INTERNET, proxy_environment

CADDYFILE = CADDY_DIR / "Caddyfile"


def adapt(tmp_path: Path, domain: str) -> dict[str, Any]:
    done = run("adapt", "--config", str(CADDYFILE), "--adapter", "caddyfile",
               env=isolated_env(tmp_path, **proxy_environment(domain)))  # fmt: skip
    assert done.returncode == 0, done.stderr
    config: dict[str, Any] = json.loads(done.stdout)
    return config


def proxy_of(server: dict[str, Any]) -> dict[str, Any]:
    """The reverse_proxy handler of the server's only site."""
    (route,) = server["routes"]
    handlers = route["handle"]
    if handlers[0]["handler"] == "subroute":
        handlers = [h for r in handlers[0]["routes"] for h in r["handle"]]
    (proxy,) = [h for h in handlers if h["handler"] == "reverse_proxy"]
    return cast(dict[str, Any], proxy)  # Caddy's JSON


def test_without_domain_it_serves_plain_http_on_port_80_to_the_app(tmp_path: Path) -> None:
    config = adapt(tmp_path, "")
    assert config["admin"] == {"disabled": True}
    (server,) = config["apps"]["http"]["servers"].values()
    assert server["listen"] == [":80"]
    proxy = proxy_of(server)
    assert proxy["dynamic_upstreams"] == {"source": "a", "name": "omaha", "port": "8000",
                                          "refresh": 1_000_000_000}  # fmt: skip
    assert "tls" not in config["apps"]  # no certificate asked of anyone
    assert config["apps"]["pki"]["certificate_authorities"]["local"]["install_trust"] is False


def test_with_domain_it_serves_https_for_that_name_and_redirects_http(tmp_path: Path) -> None:
    config = adapt(tmp_path, INTERNET["DOMAIN"])
    (server,) = config["apps"]["http"]["servers"].values()
    assert server["listen"] == [":443"]
    (route,) = server["routes"]
    assert route["match"] == [{"host": ["poker.example.org"]}]
    assert "automatic_https" not in server  # certificates and the redirect: Caddy's defaults
    assert proxy_of(server)["dynamic_upstreams"]["name"] == "omaha"
    # (the default issuers are ACME's: no internal issuer is configured for the name)
    assert "internal" not in json.dumps(config.get("apps", {}).get("tls", {}))


@pytest.mark.parametrize("domain", ["", INTERNET["DOMAIN"]])
def test_caddy_validates_the_shipped_configuration(tmp_path: Path, domain: str) -> None:
    done = run("validate", "--config", str(CADDYFILE), "--adapter", "caddyfile",
               env=isolated_env(tmp_path, **proxy_environment(domain)))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Valid configuration" in done.stdout + done.stderr


def test_the_loopback_configuration_validates_and_binds_loopback_only(tmp_path: Path) -> None:
    path = tmp_path / "Caddyfile"
    path.write_text(loopback_config(18080, 18443))
    env = isolated_env(tmp_path, APP_HOST="127.0.0.1", APP_PORT="9")
    done = run("validate", "--config", str(path), "--adapter", "caddyfile", env=env)
    assert done.returncode == 0, done.stderr
    adapted = run("adapt", "--config", str(path), "--adapter", "caddyfile", env=env)
    config = json.loads(adapted.stdout)
    (server,) = config["apps"]["http"]["servers"].values()
    assert server["listen"] == ["127.0.0.1:18443"]
    assert proxy_of(server)["dynamic_upstreams"]["name"] == "127.0.0.1"
    assert config["admin"] == {"disabled": True}
