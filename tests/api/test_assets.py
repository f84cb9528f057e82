"""The browser client's files: versioned URLs, gzip, caching; security headers on every HTTP
response (app/api/assets.py, app/api/headers.py)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import re
from pathlib import Path

import httpx

from app.api.assets import Assets
from app.api.headers import DOCS_CSP, csp
from app.main import static_dir

#: the policy the app sends: the page's inlined style sheet allowed by its hash, nothing else
SHEET = (static_dir() / "app.css").read_bytes()
CSP = csp([base64.b64encode(hashlib.sha256(SHEET).digest()).decode()])


def asset_urls(page: str) -> list[str]:
    return re.findall(r'(?:src|href)="(/static/[^"]+)"', page)


async def test_pages_name_versioned_assets_and_are_revalidated(client: httpx.AsyncClient) -> None:
    for path in ("/", "/t/AnyCode_123", "/h/42"):
        r = await client.get(path)
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/html")
        assert r.headers["cache-control"] == "no-cache"
        urls = asset_urls(r.text)
        assert "{{static}}" not in r.text
        assert len(urls) >= 3 and len({u.split("/")[2] for u in urls}) == 1, urls
        again = await client.get(path, headers={"If-None-Match": r.headers["etag"]})
        assert again.status_code == 304


async def test_assets_are_gzipped_and_immutable(client: httpx.AsyncClient) -> None:
    page = (await client.get("/")).text
    for url in asset_urls(page):
        r = await client.get(url, headers={"Accept-Encoding": "gzip"})
        assert r.status_code == 200, url
        assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert r.headers["vary"] == "Accept-Encoding"
        if url.endswith((".js", ".mjs", ".css")):
            assert r.headers["content-encoding"] == "gzip"
            assert r.headers["content-type"].startswith(("text/javascript", "text/css"))
        plain = await client.get(url, headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers
        assert plain.content == r.content  # httpx decodes the gzip one


async def test_old_versions_are_not_cached_and_unknown_files_are_404(
    client: httpx.AsyncClient,
) -> None:
    page = (await client.get("/")).text
    url = asset_urls(page)[0]
    version = url.split("/")[2]
    old = await client.get(url.replace(version, "0ld0ld0ld0ld"))
    assert old.status_code == 200 and old.headers["cache-control"] == "no-cache"
    for bad in (f"/static/{version}/nope.js", f"/static/{version}/../app/main.py",
                f"/static/{version}/%2e%2e/pyproject.toml"):  # fmt: skip
        assert (await client.get(bad)).status_code == 404, bad


def test_the_version_follows_the_content(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text('<link href="{{static}}/a.css">')
    (tmp_path / "a.css").write_text("body { color: red }" * 50)
    one = Assets(tmp_path)
    assert one.page.body == f'<link href="/static/{one.version}/a.css">'.encode()
    assert gzip.decompress(one.files["a.css"].gzipped or b"") == one.files["a.css"].body
    (tmp_path / "a.css").write_text("body { color: blue }")
    assert Assets(tmp_path).version != one.version


def test_the_page_preloads_every_module_its_own_import(tmp_path: Path) -> None:
    """One `modulepreload` per module the page's modules import (statically, at any depth),
    those the page names itself first and only there: the browser fetches that graph at once,
    not one level of imports at a time. A module only imported dynamically is fetched when the
    page needs it: not preloaded."""
    (tmp_path / "index.html").write_text(
        '<script type="module" src="{{static}}/boot.js"></script>\n'
        '<link rel="modulepreload" href="{{static}}/lib/a.js">\n{{modulepreload}}'
    )
    bodies = {
        "boot.js": "import { a } from './lib/a.js';\nimport './lib/b.js';\nexport const x = 1;",
        "lib/a.js": "export const a = 1;",
        "lib/b.js": "import {\n  v,\n} from '../vendor/v.mjs';\nconst c = () => import('./c.js');",
        "lib/c.js": "export { v } from '../vendor/v.mjs';",  # only imported dynamically
        "vendor/v.mjs": "export const v = 1;",
        "app.css": "body { color: red }",
    }
    for name, body in bodies.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(body)
    assets = Assets(tmp_path)
    page = assets.page.body.decode()
    urls = asset_urls(page)
    v = f"/static/{assets.version}"
    assert urls == [f"{v}/boot.js", f"{v}/lib/a.js", f"{v}/lib/b.js", f"{v}/vendor/v.mjs"]
    assert page.count('rel="modulepreload"') == 3 and "{{" not in page


async def test_the_page_carries_its_style_sheet_allowed_by_its_hash(
    client: httpx.AsyncClient,
) -> None:
    for path in ("/", "/t/x", "/h/1", "/hands", "/signin"):
        page = (await client.get(path)).text
        styles = re.findall(r"<style>(.*?)</style>", page, re.S)
        assert styles == [SHEET.decode()]  # the one inline style, exactly the file
        # The rules of the other pages and of the table's parts drawn once used: linked (a
        # table page links it when it draws one of those: static/js/lazy.js).
        sheets = re.findall(r'<link rel="stylesheet"[^>]*href="(/static/[^"]+)"', page)
        assert [s.split("/", 3)[3] for s in sheets] == ["more.css"]
        assert " style=" not in page
    digest = base64.b64encode(hashlib.sha256(styles[0].encode()).digest()).decode()
    policy = (await client.get("/")).headers["content-security-policy"]
    assert f"style-src 'self' 'sha256-{digest}';" in policy
    assert "unsafe-inline" not in policy and "script-src 'self';" in policy


async def test_security_headers_on_every_response(client: httpx.AsyncClient) -> None:
    page = (await client.get("/")).text
    responses = [
        await client.get("/"),
        await client.get("/t/x"),
        await client.get(asset_urls(page)[0]),
        await client.get("/healthz"),
        await client.get("/api/tables/x/ledger"),  # 401
        await client.get("/no/such/page"),  # 404
        await client.post("/api/session", json={"name": ""}),  # 422
        await client.get("/openapi.json"),
        # answered by the outer limits, before any route: the headers still wrap them
        await client.get("http://rebinding.example/api/session"),  # 400 bad_host
        await client.post(
            "/api/session", content=b"x" * 2_000_000, headers={"content-type": "application/json"}
        ),  # 413
    ]
    assert [r.status_code for r in responses[-2:]] == [400, 413]
    for r in responses:
        assert r.headers["content-security-policy"] == CSP, r.url
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "same-origin"
        assert r.headers["x-frame-options"] == "DENY"
    docs = await client.get("/docs")
    assert docs.headers["content-security-policy"] == DOCS_CSP
    assert "frame-ancestors 'none'" in DOCS_CSP


def test_the_page_has_no_inline_script_or_style() -> None:
    page = (Path(__file__).resolve().parents[2] / "static" / "index.html").read_text()
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", page)
    assert "<style" not in page and "style=" not in page
