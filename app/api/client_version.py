"""Whether a connecting page runs the client's current version (docs/protocol.md section 3).

The page's modules are served under `/static/<version>/` (app/api/assets.py) and fetch some
of their parts only when used (static/js/lazy.js). A page left open across a deploy would
fetch those from its old version's URL, get the new files, and mix them with the old modules
it holds. So the page names its version on its socket (`?client=<version>`) and, when that
is not the current one, the server says so right after accepting, outside the table's
numbered stream: `{"type": "client_version", "current": "<version>"}`. The page reloads at
a safe moment (static/js/new-version.js).

Any value but the current version gets the answer, a malformed one too: the value is only
compared, never stored, logged nor echoed; and a page that sends what the server cannot read
(a version named another way by a later server) is exactly one that should reload, which
refusing its socket (403, retried for ever) or ignoring the value would not bring about.
Without `client` (bots, load generators, pages older than this) nothing is sent.
"""

from __future__ import annotations

import orjson

#: the message's type (docs/protocol.md section 4)
CLIENT_VERSION = "client_version"


def version_news(query: dict[str, str], current: str) -> str | None:
    """The `client_version` message for a socket whose query names a client version that is
    not `current` (assets' version), as the text of one frame; None for none to send."""
    client = query.get("client")
    if client is None or client == current:
        return None
    return orjson.dumps({"type": CLIENT_VERSION, "current": current}).decode()
