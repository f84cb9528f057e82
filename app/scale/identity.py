"""A process is known by its incarnation, not its name: `<PROCESS_NAME>@<random>`, made at
every start. Leases, the mark of life, connection ids and stream names carry it, so nothing
addressed to a dead process (its relayed connections' messages, its calls' answers) reaches
the one started after it under the same name.

PROCESS_NAME stays unique among the live processes: `omaha:name:<name>` holds the live
incarnation's `Holder` (renewed with its mark of life, as long as a lease). A process
starting under a name that another incarnation holds
- takes it at once if that holder ran on this machine and its process has ended (a restart:
  same host, boot and PID namespace, and its PID is gone or is another process now);
- else waits for the holder's claim to lapse (up to one lease) and takes it then; if the claim
  is renewed meanwhile, a live process has the name: this one is refused (`NameTaken`).
A process that finds its claim held by another incarnation at a renewal (it was frozen past
its lease and another took the name) stops.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
from collections.abc import Awaitable
from dataclasses import asdict, dataclass
from typing import Any, cast

import orjson
import redis.asyncio as aioredis

from app.scale.keys import Keys
from app.scale.solo import AnotherProcess

SEPARATOR = "@"


def new_incarnation(name: str) -> str:
    return f"{name}{SEPARATOR}{secrets.token_hex(8)}"


def name_of(incarnation: str) -> str:
    return incarnation.split(SEPARATOR, 1)[0]


class NameTaken(AnotherProcess):
    def __init__(self, name: str) -> None:
        super().__init__(
            f"another server process named {name!r} is running (its claim on the name is "
            "renewed): PROCESS_NAME must be unique among the processes sharing REDIS_URL"
        )


def _read(path: str) -> str | None:
    try:
        with open(path) as file:
            return file.read()
    except OSError:
        return None


def _started(pid: int) -> int | None:
    """When process `pid` started (clock ticks after boot), or None if there is none."""
    stat = _read(f"/proc/{pid}/stat")
    if stat is None:
        return None
    try:
        return int(stat.rsplit(")", 1)[1].split()[19])  # field 22, after the command's name
    except (IndexError, ValueError):
        return None


def _namespace() -> str:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


@dataclass(frozen=True)
class Holder:
    """The incarnation holding a name, and where its process runs (to tell a dead one)."""

    incarnation: str
    host: str
    boot: str
    namespace: str
    pid: int
    started: int

    @classmethod
    def here(cls, incarnation: str) -> Holder:
        pid = os.getpid()
        boot = (_read("/proc/sys/kernel/random/boot_id") or "").strip()
        return cls(incarnation, socket.gethostname(), boot, _namespace(), pid, _started(pid) or 0)

    def text(self) -> str:
        return orjson.dumps(asdict(self)).decode()

    @classmethod
    def parse(cls, text: str) -> Holder | None:
        try:
            return cls(**orjson.loads(text))
        except (orjson.JSONDecodeError, TypeError):
            return None

    def ended(self, me: Holder) -> bool | None:
        """Has this holder's process ended? None when this process cannot tell (it ran on
        another machine, or in another PID namespace)."""
        if not self.boot or (self.host, self.boot, self.namespace) != (
            me.host,
            me.boot,
            me.namespace,
        ):
            return None
        if self.pid == me.pid:  # this process's PID: the holder was an earlier process
            return True
        return _started(self.pid) != self.started


# Take the name (absent, already this holder's, or the holder found ended: ARGV[3]);
# returns '' when taken, else the holder's text. Its own claim is only extended (PEXPIRE
# adds no data: it still runs when Redis is at its memory cap and refuses SETs).
_CLAIM = """
local held = redis.call('GET', KEYS[1])
if held == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return ''
end
if (not held) or (ARGV[3] ~= '' and held == ARGV[3]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ''
end
return held
"""


_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class NameClaim:
    """This incarnation's claim on its PROCESS_NAME."""

    def __init__(
        self, client: aioredis.Redis, name: str, holder: Holder, ms: int, keys: Keys | None = None
    ) -> None:
        self.client = client
        self.name = name
        self.holder = holder
        self.ms = ms
        self.key = (keys or Keys()).name(name)
        self._claim = client.register_script(_CLAIM)
        self._release = client.register_script(_RELEASE)

    async def _try(self, ended: str = "") -> str:
        held = await self._claim(keys=[self.key], args=[self.holder.text(), self.ms, ended])
        return str(held)

    async def take(self, poll: float = 0.1) -> str | None:
        """Take the name; returns the incarnation of an ended holder it was taken from (the
        caller declares that one gone), else None. Raises `NameTaken`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 2 * self.ms / 1000 + 1
        seen: tuple[str, int] | None = None
        ended, predecessor = "", None
        while True:
            held = await self._try(ended)
            if held == "":
                return predecessor
            other = Holder.parse(held)
            verdict = other.ended(self.holder) if other is not None else None
            if verdict is False:
                raise NameTaken(self.name)
            if verdict is True and other is not None:
                ended, predecessor = held, other.incarnation
                continue
            ttl = int(await cast(Awaitable[Any], self.client.pttl(self.key)))
            if seen is not None and (seen[0] != held or ttl > seen[1]):
                raise NameTaken(self.name)  # renewed (or taken by another) while it waited
            seen = (held, ttl)
            if loop.time() > deadline:
                raise NameTaken(self.name)
            await asyncio.sleep(poll)

    async def release(self) -> None:
        """Give the name up (a process that stops): the next may start at once."""
        await self._release(keys=[self.key], args=[self.holder.text()])

    async def keep(self) -> bool:
        """Renew the claim (taking it again if it lapsed); False: another incarnation has it."""
        return await self._try() == ""
