"""The hand evaluator's lookup tables made resident at start-up (Linux; elsewhere nothing).

phevaluator's Omaha tables are 30.6 MB of read-only data in its extension module
(`noflush_plo4` 22.4 MB, `flush_plo4` 8.2 MB). The kernel maps their pages in as lookups
first read them, 64 KiB around each: the first hands with a river (every player's hand
reader, every showdown) bring in most of them, and the rest come over hours. That read as a
server whose RSS grows while hands are played (docs/performance.md, Connections: memory):
half the growth a connection seemed to cost at a human pace, and the growth that went on
after warm-up. It is a fixed cost of the process, bounded by the tables' size: paid here,
once, the RSS a host sees at start is what it stays at, and it grows only with what tables
and connections hold. The pages are clean and file-backed: the kernel shares them between
processes that map the same file and may drop them under memory pressure (read back on
the next lookup), as before.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import mmap
from pathlib import Path

log = logging.getLogger("omaha")

#: madvise(2): populate the page tables for reading (Linux 5.14)
MADV_POPULATE_READ = 22


def mappings(path: str, maps: str = "/proc/self/maps") -> list[tuple[int, int, str]]:
    """The (start, end, permissions) of the mappings of the file `path` in this process."""
    out = []
    for line in Path(maps).read_text().splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) == 6 and fields[5] == path:
            start, end = fields[0].split("-")
            out.append((int(start, 16), int(end, 16), fields[1]))
    return out


def populate(ranges: list[tuple[int, int]]) -> int:
    """Map in every page of `ranges` (readable mappings); returns the bytes made resident."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    done = 0
    for start, end in ranges:
        if libc.madvise(start, end - start, MADV_POPULATE_READ) != 0:  # an older kernel
            for page in range(start, end, mmap.PAGESIZE):
                ctypes.c_char.from_address(page).value  # noqa: B018 - the read maps it in
        done += end - start
    return done


def evaluator_tables() -> int:
    """Make the evaluator's extension module resident (bytes; 0 when there is nothing to do
    or it cannot be done here). Never raises: without it the server only warms up later."""
    try:
        from phevaluator import _pheval

        if not Path("/proc/self/maps").exists():
            return 0
        path = str(Path(_pheval.__file__ or "").resolve())
        return populate([(a, b) for a, b, perms in mappings(path) if perms.startswith("r")])
    except Exception as error:  # ImportError (no extension), OSError, ...
        log.debug("evaluator tables not made resident (%s)", type(error).__name__)
        return 0
