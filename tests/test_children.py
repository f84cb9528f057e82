"""A server's worker processes end with it, even when it is killed with SIGKILL (before, a
review worker of a killed server was found still running after the test run)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

from tests.waits import within_sync

#: a "server" that starts both pools, has each run a job, prints the workers' pids and waits
SERVER = textwrap.dedent("""
    import asyncio, os, sys
    from app.history.work import Workers
    from app.tournaments import figures

    async def main() -> None:
        review = Workers()
        first = await review.call(os.getpid)
        loop = asyncio.get_running_loop()
        second = await loop.run_in_executor(figures._worker(), os.getpid)
        print(first, second, flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())
""")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_workers_of_a_server_killed_with_sigkill_exit() -> None:
    server = subprocess.Popen([sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        workers = [int(pid) for pid in server.stdout.readline().split()]
        assert len(workers) == 2 and all(alive(pid) for pid in workers), workers
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(30)
    # the workers are init's children now: init reaps them once they exit
    within_sync(lambda: not any(alive(pid) for pid in workers), 30, 0.1, "the workers' exit")


def test_both_workers_yield_the_cpu_to_the_server() -> None:
    # niced: a long equity or deal computation waits for the event loop, never the reverse
    from app.children import BACKGROUND

    server = subprocess.Popen([sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        workers = [int(pid) for pid in server.stdout.readline().split()]
        own = os.getpriority(os.PRIO_PROCESS, server.pid)
        for pid in workers:
            assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, own + BACKGROUND), pid
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(30)
