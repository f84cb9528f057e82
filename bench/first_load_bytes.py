"""What a table page's first load fetches, for two versions of static/ side by side:
``.venv/bin/python -m bench.first_load_bytes A B [--settle 3]``.

A and B as in `bench.client_ab` (a git revision, a directory, or ``.``), each served by this
checkout's server code. One cold load of each (the host's page of a new table, as
`bench.client_ab`'s first loads): the bytes `bench.client.transferred` counts (compressed,
headers included, up to the live view drawn), then every response until the page has been
quiet for ``--settle`` seconds (what deferred loading could push past that mark is counted
here), and the files fetched, each with its bytes. Deterministic: no timing is read.
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from bench.client import transferred
from bench.client_ab import site_root
from tests.e2e import harness
from tests.e2e.harness import Player, launch, server
from tests.e2e.test_games import new_table

HERE = harness.ROOT


def first_load(browser: Any, base: str, code: str, cookies: Any, settle: float) -> dict[str, Any]:
    context = browser.new_context()
    context.add_cookies(cookies)
    page = context.new_page()
    seen: list[Any] = []
    page.on("requestfinished", lambda r: seen.append(r))
    total, _, _ = transferred(page, f"{base}/t/{code}")
    count = len(seen)
    while True:  # until no response for `settle` seconds
        before = len(seen)
        page.wait_for_timeout(settle * 1000)
        if len(seen) == before:
            break
    files = []
    for r in seen:
        s = r.sizes()
        path = r.url.split("/static/", 1)[1].split("/", 1)[1] if "/static/" in r.url else r.url
        files.append((path.replace(base, ""), s["responseBodySize"] + s["responseHeadersSize"]))
    context.close()
    return {"mark": total, "mark_count": count, "files": files}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("versions", nargs=2, help="A B: git revisions, directories, or '.'")
    parser.add_argument("--settle", type=float, default=3.0, help="quiet seconds that end a load")
    args = parser.parse_args()
    results = []
    with contextlib.ExitStack() as stack, sync_playwright() as pw:
        browser = launch(pw)
        for spec in args.versions:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            harness.ROOT = site_root(spec, tmp)
            try:
                base = stack.enter_context(server(tmp, BETWEEN_HANDS="0", AWAY_GRACE="3600"))
            finally:
                harness.ROOT = HERE
            host = Player(browser, base, "Host")
            host.join()
            code = new_table(host, decision_time=5, seats=6, buy_in_max=10_000, buy_in_min=40)
            results.append(first_load(browser, base, code, host.context.cookies(), args.settle))
        browser.close()
    for spec, r in zip(args.versions, results, strict=True):
        settled = sum(n for _, n in r["files"])
        print(
            f"{spec}: {r['mark'] / 1024:.1f} KB ({r['mark']:,d} B) in {r['mark_count']} responses"
            f" by the live view drawn; {settled / 1024:.1f} KB in {len(r['files'])} once settled"
        )
        for path, n in r["files"]:
            print(f"  {n:7,d}  {path}")
    a, b = (r["mark"] for r in results)
    print(f"B / A: {b / a:.2f} by the mark")


if __name__ == "__main__":
    main()
