"""docker-compose.yml as Compose resolves it, with and without DOMAIN and with the scale
profile: the proxy alone publishes ports, every app process sits behind it and believes
forwarded addresses from the edge network only, and DOMAIN is the one setting HTTPS needs."""

from __future__ import annotations

from typing import Any

import pytest

from tests.deploy.caddy import ROOT
from tests.deploy.compose import INTERNET, LOCAL, resolved

APPS = ("app", "app2")


def networks_of(service: dict[str, Any]) -> set[str]:
    return set(service.get("networks") or {"default": None})


@pytest.mark.parametrize(
    ("env", "http", "https", "subnet"),
    [(LOCAL, 8000, 8443, "10.1.2.0/28"), (INTERNET, 80, 443, "10.87.43.0/28")],
    ids=["local", "internet"],
)
def test_only_the_proxy_publishes_and_the_apps_trust_its_network_alone(
    env: dict[str, str], http: int, https: int, subnet: str
) -> None:
    config = resolved(env)
    domain = env["DOMAIN"]
    services = config["services"]
    published = {name for name, s in services.items() if s.get("ports")}
    assert published == {"proxy"}
    ports = {(p["published"], p["target"], p.get("protocol", "tcp"))
             for p in services["proxy"]["ports"]}  # fmt: skip
    assert ports == {(http, 80, "tcp"), (https, 443, "tcp"), (https, 443, "udp")}
    edge = config["networks"]["edge"]
    assert edge["internal"] is True
    assert edge["ipam"]["config"] == [{"subnet": subnet}]
    on_edge = {name for name, s in services.items() if "edge" in networks_of(s)}
    assert on_edge == {"proxy", *APPS}  # nothing else shares the trusted addresses
    assert "outside" in networks_of(services["proxy"])  # its ports, and the ACME CA
    assert "default" not in networks_of(services["proxy"])  # it cannot reach the databases
    for name in APPS:
        app_env = services[name]["environment"]
        assert app_env["FORWARDED_ALLOW_IPS"] == subnet  # the proxy's network, exactly
        assert app_env["DOMAIN"] == domain and app_env["PUBLIC_URL"] == ""  # (derived)
        assert services[name]["networks"]["edge"]["aliases"] == ["omaha"]
    assert services["app2"]["environment"]["PROCESS_NAME"] == "app2"
    assert services["app2"]["profiles"] == ["scale"]
    site = services["proxy"]["environment"]["SITE_ADDRESS"]
    assert site == (domain or ":80")


def test_the_proxy_reads_the_shipped_caddy_files_and_keeps_its_certificates() -> None:
    proxy = resolved(INTERNET)["services"]["proxy"]
    mounts = {v.split(":")[1]: v.split(":")[0] for v in proxy["volumes"]}
    assert mounts["/etc/caddy"] == str(ROOT / "deploy" / "caddy")
    assert (ROOT / "deploy" / "caddy" / "Caddyfile").is_file()
    assert mounts["/data"] == "caddydata"  # certificates survive a new container


def test_backups_are_scheduled_and_kept_in_a_volume() -> None:
    backup = resolved(LOCAL)["services"]["backup"]
    env = backup["environment"]
    assert (env["BACKUP_INTERVAL"], env["BACKUP_KEEP_DAYS"]) == ("24h", "14")
    assert env["PGHOST"] == "postgres" and env["PGPASSWORD"] == "replace-me"
    mounts = {v.split(":")[1]: v.split(":")[0] for v in backup["volumes"]}
    assert mounts["/backups"] == "backups"
    assert mounts["/usr/local/bin/omaha-backup"] == str(ROOT / "deploy" / "backup.sh")
