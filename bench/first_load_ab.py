"""First load of a table page, two checkouts side by side:
``.venv/bin/python -m bench.first_load_ab A B [--loads 15]`` (A, B: checkouts of this project,
e.g. a `git worktree` of the commit before a change, and this one).

Starts a server from each checkout (SQLite, this project's interpreter) with a host seated at a
six-seat table, then loads, interleaved (A's reference, A's table, B's reference, B's table,
and again), each in a new browser context (empty cache), the one-line file and the table page
of each. Prints per checkout the medians of the navigation timings (time to first byte, DOM
interactive, DOMContentLoaded), the first contentful paint, and `bench.client`'s stamps (the
first paint that shows the server drawing's last element, the live view drawn; the
reference's first paint and load event), and the ratio of the table's first paint to the
reference's, with every load's ratio. Interleaving puts both under the same load; run it twice
in both orders on a noisy machine.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from bench.client import transferred
from tests.e2e import harness
from tests.e2e.harness import Player, launch, server, settable
from tests.e2e.test_games import new_table

NAVIGATION = """() => {
  const n = performance.getEntriesByType('navigation')[0];
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  return { ttfb: n.responseStart, interactive: n.domInteractive,
           dcl: n.domContentLoadedEventEnd, fcp: fcp.startTime };
}"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("checkouts", nargs=2, type=Path)
    parser.add_argument("--loads", type=int, default=15)
    args = parser.parse_args()
    rows: dict[tuple[str, str], list[dict[str, float]]] = {}
    with contextlib.ExitStack() as stack, sync_playwright() as pw:
        browser = launch(pw)
        sites = []
        for root in args.checkouts:
            harness.ROOT = root.resolve()  # the server runs from that checkout
            tmp = stack.enter_context(tempfile.TemporaryDirectory())
            base = stack.enter_context(server(Path(tmp), BETWEEN_HANDS="0", AWAY_GRACE="3600"))
            host = Player(browser, base, "Host")
            host.join()
            code = new_table(host, decision_time=5, seats=6, buy_in_max=10_000, buy_in_min=40)
            home = host.page.request.get(base + "/").text()
            reference = base + home.split('rel="icon" href="')[1].split('"')[0]
            sites.append((str(root), reference, f"{base}/t/{code}", host.context.cookies()))
        for _ in range(args.loads):
            for name, reference, table, cookies in sites:
                for kind, url in (("reference", reference), ("table", table)):
                    context = browser.new_context()
                    context.add_cookies(settable(cookies))
                    page = context.new_page()
                    # the same stamps as bench.client (the first paint; the live view drawn,
                    # or the reference's load event), and the navigation's own
                    _, painted, mark = transferred(page, url)
                    row: dict[str, Any] = page.evaluate(NAVIGATION)
                    row |= {"painted": painted, "live" if kind == "table" else "load": mark}
                    rows.setdefault((name, kind), []).append(row)
                    context.close()
    for name, *_ in sites:
        for kind in ("reference", "table"):
            got = rows[(name, kind)]
            medians = {k: round(statistics.median(r[k] for r in got), 1) for k in got[0]}
            print(f"{name:30} {kind:9} {medians}")
        tables, references = rows[(name, "table")], rows[(name, "reference")]
        ratio = statistics.median(r["painted"] for r in tables) / statistics.median(
            r["painted"] for r in references
        )
        pairs = zip(tables, references, strict=True)
        each = sorted(round(t["painted"] / r["painted"], 2) for t, r in pairs)
        print(f"{name:30} first paint ratio {ratio:.2f} (target <= 2); each load: {each}")


if __name__ == "__main__":
    main()
