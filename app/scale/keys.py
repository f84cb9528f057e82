"""The Redis keys of several processes, and their bounds (docs/security.md says what each
holds). Presence's keys are app/presence/redis.py's, the rate windows app/api/limits.py's."""

from __future__ import annotations

from dataclasses import dataclass

#: entries a table's in stream keeps at most (trimmed approximately; its owner also trims
#: what it has read), and an incarnation's own stream (its reader trims what it has read)
IN_MAX = 1_000
OUT_MAX = 10_000
#: a stream nobody writes to for this long is gone (what is in it was meant for a process
#: that is gone too: a live reader has trimmed it long before)
STREAM_TTL_MS = 120_000


@dataclass(frozen=True)
class Keys:
    prefix: str = "omaha"

    def lease(self, kind: str, thing_id: str) -> str:
        """Who owns a table or a tournament (its value: the owner's incarnation)."""
        return f"{self.prefix}:{kind}:{thing_id}:owner"

    def table_in(self, table_id: str) -> str:
        return f"{self.prefix}:table:{table_id}:in"

    def out(self, incarnation: str) -> str:
        return f"{self.prefix}:gateway:{incarnation}:out"

    def alive(self, incarnation: str) -> str:
        return f"{self.prefix}:process:{incarnation}"

    def name(self, name: str) -> str:
        return f"{self.prefix}:name:{name}"

    @property
    def processes(self) -> str:
        """Every live incarnation, scored with the moment its mark lapses (Redis time, ms)."""
        return f"{self.prefix}:processes"

    @property
    def load(self) -> str:
        """Each live incarnation's load: the tables it runs (`app.scale.placement`)."""
        return f"{self.prefix}:load"
