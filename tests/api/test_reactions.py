"""Issue 26, item 14, through the protocol: a seated player's reaction reaches everyone at the
table with its seat, is one of a fixed set (anything else refused, nothing sent), comes from a
seated player only, is limited like chat (the same limiter, its own count) and is kept
nowhere: a later snapshot has none."""

from __future__ import annotations

from pathlib import Path

from tests.api.live import live_server
from tests.api.test_evening import clients, evening, ok, refused


async def test_a_reaction_is_shown_to_all_bounded_and_kept_nowhere(
    tmp_path: Path, sqlite_url: str
) -> None:
    async with live_server(evening(tmp_path, sqlite_url, chat_burst=3, chat_window=60)) as base:
        host, player, watcher = await clients(base, "host", "player", "watcher")
        code = await host.create_table(decision_time=0, seats=2)
        for c in (host, player, watcher):
            await c.connect(code)
        await ok(host, type="pause")
        await ok(player, type="sit", seat=1, buy_in=100)
        reply = await ok(player, type="react", reaction="laugh")
        assert reply["reaction"] == "laugh"
        for c in (host, watcher, player):
            got = await c.wait_for(lambda m: m["type"] == "reaction")
            said = (got["seat"], got["reaction"], got["player_id"])
            assert said == (1, "laugh", player.player_id)
        # Typed refusals, nothing sent: an unknown name, an emoji instead of a name, a
        # number, a field too many; a watcher (no seat) never reacts.
        await refused(player, "bad_message", type="react", reaction="poop")
        await refused(player, "bad_message", type="react", reaction="\N{FACE WITH TEARS OF JOY}")
        await refused(player, "bad_message", type="react", reaction=3)
        await refused(player, "bad_message", type="react", reaction="wow", seat=0)
        await refused(watcher, "not_seated", type="react", reaction="wow")
        # Three a minute here (CHAT_BURST): the fourth is refused; chat has its own count.
        await ok(player, type="react", reaction="wow")
        await ok(player, type="react", reaction="fire")
        await refused(player, "rate_limited", type="react", reaction="clap")
        await ok(player, type="chat", text="still talking")
        await host.wait_for(lambda m: m["type"] == "chat")
        sent = [m["reaction"] for m in host.messages if m["type"] == "reaction"]
        assert sent == ["laugh", "wow", "fire"]
        late = (await clients(base, "late"))[0]
        await late.connect(code)
        snap = await late.wait_for(lambda m: m["type"] == "snapshot")
        assert "reaction" not in str(snap.keys())
        for c in (host, player, watcher, late):
            await c.close()
