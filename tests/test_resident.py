"""The hand evaluator's tables are resident once the server started (app/resident.py):
RSS does not grow with the hands played by paging them in (docs/performance.md,
Connections: memory). Each case in a fresh interpreter: this one's may have read them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import sys
from app import memtrace, resident
import app.poker.evaluation
if sys.argv[1] == "fallback":
    resident.MADV_POPULATE_READ = -1  # refused as by a kernel before 5.14: pages read one by one
before = memtrace.mapped_kib("_pheval")
made = resident.evaluator_tables()
print(before, made // 1024, memtrace.mapped_kib("_pheval"))
"""


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="Linux only")
@pytest.mark.parametrize("how", ["madvise", "fallback"])
def test_the_evaluator_tables_are_resident_after_start_up(how: str) -> None:
    out = subprocess.run([sys.executable, "-c", PROBE, how], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    before, made, after = map(int, out.split())
    assert made > 30_000  # KiB: the Omaha tables are 30.6 MB
    assert before < made // 4  # importing reads next to nothing of them
    assert after >= made  # every page of the module mapped in


def test_nothing_to_make_resident_is_no_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from app import resident

    monkeypatch.setattr(resident, "mappings", lambda path: [])
    assert resident.evaluator_tables() == 0
