"""The reason a host gives for adjusting a stack: one printable line, bounded, kept with the
ledger entry it explains. Adjustments made during a hand wait for its end and are entered as
one; their reasons are joined."""

from __future__ import annotations

from typing import Any

from app.tables.errors import TableError

#: characters in one reason (the protocol's bound)
REASON_MAX = 100
#: characters stored for one ledger entry (a hand's waiting adjustments, joined)
REASONS_MAX = 300


def clean_reason(value: Any) -> str:
    """The reason as given, trimmed; "" when none. Refused: not text, too long, or more than
    one printable line."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TableError("bad_reason", "a reason is text")
    text = value.strip()
    if len(text) > REASON_MAX or not text.isprintable():
        raise TableError("bad_reason", f"a reason is one line of at most {REASON_MAX} characters")
    return text


def join_reasons(waiting: str, reason: str) -> str:
    """Another adjustment's reason added to those waiting for the end of the hand; the
    stored text is bounded (the last reasons give way to an ellipsis)."""
    joined = "; ".join(r for r in (waiting, reason) if r)
    return joined if len(joined) <= REASONS_MAX else joined[: REASONS_MAX - 1] + "…"
