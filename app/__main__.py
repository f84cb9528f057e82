"""Command line: `python -m app serve`, `migrate [--check]`, `init`, `restore FILE`,
`replay FILE...`, `verify-deals FILE`.

A subcommand is one function `(args) -> int` and one entry in `COMMANDS`, whose `add` callback
declares its arguments. Exit codes: 0 done, 1 refused or failed, 2 bad settings or usage.
Everything but the standard library is imported by the command that needs it: `init` runs
with the system's Python before anything is installed.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.logging import setup_logging

if TYPE_CHECKING:
    from app.config import Settings

log = logging.getLogger("omaha")


def load_settings_or_exit() -> Settings:
    from app.config import load_settings_or_exit as load

    return load()


@dataclass(frozen=True)
class Command:
    help: str
    run: Callable[[argparse.Namespace], int]
    add: Callable[[argparse.ArgumentParser], None] = lambda parser: None


def prepare_database(settings: Settings) -> str | None:
    """Bring the embedded SQLite database to head; check that any other database is at head.

    Returns None when the schema is ready, else a message saying why the server must not start.
    """
    from app.store.db import create_engine
    from app.store.migrate import schema_state, upgrade

    url = settings.effective_database_url
    if settings.is_sqlite:
        upgrade(url, secret=settings.ensure_secret_key())
        return None

    async def check() -> str | None:
        engine = create_engine(url)
        try:
            state = await schema_state(engine)
        finally:
            await engine.dispose()
        if state.at_head:
            return None
        return f"{state.describe()}: run `python -m app migrate` first"

    return asyncio.run(check())


# A full (generation 2) collection walks every live container: with 3,000 connections that is
# ~1 million objects (FastAPI/uvicorn coroutines, tasks, frames; ~350 per connection) and
# 0.5-1.5 s with the event loop stopped. With the default thresholds (700, 10, 10) one ran
# every 3-8 s at 500 tables, which was the whole of the p95/p99 latency (docs/performance.md,
# Load). After start-up the heap is frozen (never scanned again) and full collections are
# tens of minutes apart at 500 tables.
# A young collection's count is allocations minus deallocations, and at a human pace the
# objects that die are mostly old ones (timers, futures and coroutines that waited seconds,
# a hand's events): the count crept to 1,000 while 10,000-30,000 new objects piled up, and
# each young collection stopped the loop 5-100 ms (app/pauses.py's figures). At 100 they hold
# ~1,000-3,000 (p99 ~3 ms), each object is still scanned at most twice before it is old, so
# the collector's CPU is unchanged (bench/load.py, 500 tables: p99 142 -> 48 ms, server CPU
# 58 -> 56 %).
GC_THRESHOLDS = (100, 2, 100_000)


def tune_gc() -> None:
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from app.main import create_app, uvicorn_options

    settings = load_settings_or_exit()
    setup_logging(settings.log_level, settings.log_format, settings.log_debug_loggers)
    try:
        refusal = prepare_database(settings)
    except Exception as error:
        print(f"omaha: cannot open the database: {error}", file=sys.stderr)
        return 1
    if refusal is not None:
        print(f"omaha: not starting: {refusal}", file=sys.stderr)
        return 1

    if settings.memory_trace:
        from app import memtrace

        # before the app is built: its allocations are traced too
        memtrace.start(settings.memory_trace_frames)
    shown_host = "127.0.0.1" if settings.host in ("0.0.0.0", "::", "") else settings.host
    if ":" in shown_host:
        shown_host = f"[{shown_host}]"
    url = f"http://{shown_host}:{settings.port}/"

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[object] | None = None) -> None:  # type: ignore[override]
            await super().startup(sockets)  # type: ignore[arg-type]
            if self.started:
                tune_gc()
                from app.resident import evaluator_tables

                evaluator_tables()  # a fixed cost, paid now: RSS then grows with use only
                if settings.memory_trace:
                    from app import memtrace

                    memtrace.install(settings.data_dir)
                print(f"\n  Omaha is running: open {url}\n", flush=True)

    config = uvicorn.Config(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_config=None,
        access_log=False,
        proxy_headers=True,
        server_header=False,
        **uvicorn_options(settings),  # type: ignore[arg-type]
    )
    server = Server(config)
    server.run()
    return 0 if server.started else 1


def migrate(args: argparse.Namespace) -> int:
    from app.store.migrate import upgrade

    settings = load_settings_or_exit()
    setup_logging(settings.log_level, settings.log_format, settings.log_debug_loggers)
    if args.check:
        return check_migrations(settings)
    try:
        upgrade(settings.effective_database_url, args.revision, sealed_with(settings))
    except Exception as error:
        print(f"omaha: migration failed: {error}", file=sys.stderr)
        return 1
    log.info("database is at %s", args.revision)
    return 0


def sealed_with(settings: Settings) -> str | None:
    """The key the stored decks were sealed with, for a migration that reads them: SECRET_KEY,
    else the one a local run keeps in DATA_DIR (none is made here)."""
    from app.config import SECRET_KEY_FILE

    if settings.secret_key is not None:
        return settings.secret_key.get_secret_value()
    path = settings.data_dir / SECRET_KEY_FILE
    return path.read_text(encoding="utf-8").strip() if path.is_file() else None


def check_migrations(settings: Settings) -> int:
    """What `migrate` would run, tried for real and not kept (`app.store.migrate.dry_run`)."""
    from alembic.util import CommandError

    from app.store.db import create_engine
    from app.store.migrate import dry_run, pending, schema_state

    url = settings.effective_database_url

    async def current() -> frozenset[str]:
        engine = create_engine(url)
        try:
            return (await schema_state(engine)).current
        finally:
            await engine.dispose()

    try:
        at = asyncio.run(current())
        steps = pending(at)
    except CommandError as error:
        print(f"omaha: this database is not one this version can upgrade: {error}",
              file=sys.stderr)  # fmt: skip
        return 1
    except Exception as error:
        print(f"omaha: cannot open the database: {error}", file=sys.stderr)
        return 1
    where = ", ".join(sorted(at)) or "empty (no schema yet)"
    if not steps:
        print(f"database is at {where}: up to date, nothing to migrate")
        return 0
    print(f"database is at {where}; `python -m app migrate` would run:")
    for revision, title in steps:
        print(f"  {revision}  {title}")
    try:
        asyncio.run(dry_run(url, sealed_with(settings)))
    except Exception as error:
        print(f"omaha: the dry run failed (nothing was changed): {type(error).__name__}: {error}",
              file=sys.stderr)  # fmt: skip
        return 1
    kind = "on a copy" if settings.is_sqlite else "in a transaction, rolled back"
    print(f"dry run: all {len(steps)} ran cleanly {kind}; nothing was changed")
    return 0


def init(args: argparse.Namespace) -> int:
    from app.envfile import command

    return command(args)


def _add_init(parser: argparse.ArgumentParser) -> None:
    from app.envfile import add_arguments

    add_arguments(parser)


def restore(args: argparse.Namespace) -> int:
    from pathlib import Path

    from app.store.restore import RestoreError
    from app.store.restore import restore as run

    settings = load_settings_or_exit()
    setup_logging(settings.log_level, settings.log_format, settings.log_debug_loggers)
    try:
        restored = run(Path(args.file), settings.effective_database_url, sealed_with(settings))
    except RestoreError as error:
        print(f"omaha: {error}", file=sys.stderr)
        return 1
    print(restored.describe())
    return 0


def _add_restore(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a backup written by pg_dump --format=custom")


def replay(args: argparse.Namespace) -> int:
    from app.replay import command

    return command(args)


def _add_replay(parser: argparse.ArgumentParser) -> None:
    from app.replay import add_arguments

    add_arguments(parser)


def _add_migrate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("revision", nargs="?", default="heads", help="target (default: heads)")
    parser.add_argument(
        "--check",
        action="store_true",
        help="list the migrations an upgrade would run and try them without keeping anything",
    )


def verify_deals(args: argparse.Namespace) -> int:
    """Recompute every deck of a deals export from its seeds and compare it with the
    commitments (docs/fairness.md). 0: every revealed hand matches; 1: a mismatch; 2: the
    file is not an export."""
    import json

    from app.history.deals import BadExport, verify

    try:
        with open(args.file, encoding="utf-8") as f:
            verdict = verify(json.load(f))
    except (OSError, ValueError) as error:  # BadExport and JSON errors are ValueErrors
        kind = "not a deals export" if isinstance(error, BadExport) else "cannot read it"
        print(f"omaha: {args.file}: {kind}: {error}", file=sys.stderr)
        return 2
    for problem in verdict.problems:
        print(f"MISMATCH {problem}")
    print(
        f"{verdict.verified} hands recomputed and matching, {verdict.unrevealed} of sessions "
        f"whose seed is not revealed (their roots checked), {len(verdict.problems)} mismatches"
    )
    return 0 if verdict.ok else 1


def _add_verify_deals(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a table's deals.json (GET /api/tables/{code}/deals.json)")


COMMANDS: dict[str, Command] = {
    "serve": Command("migrate the embedded database if needed, then run the server", serve),
    "migrate": Command("upgrade the database to the latest schema", migrate, _add_migrate),
    "init": Command("write .env for docker compose with new random secrets", init, _add_init),
    "restore": Command(
        "restore a backup (pg_dump custom format) into an empty database, then migrate it",
        restore,
        _add_restore,
    ),
    "replay": Command(
        "replay PHH hand histories, one JSON line of finishing stacks per file",
        replay,
        _add_replay,
    ),
    "verify-deals": Command(
        "recompute every deck of a deals export and compare it with its commitments",
        verify_deals,
        _add_verify_deals,
    ),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Every command; with `only`, the arguments of that one alone (the others' `add` may
    import what `init` must run without)."""
    parser = argparse.ArgumentParser(prog="python -m app", description="Omaha poker server")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, command in COMMANDS.items():
        each = sub.add_parser(name, help=command.help, description=command.help)
        if only is None or name == only:
            command.add(each)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    chosen = given[0] if given and given[0] in COMMANDS else None
    args = build_parser(chosen).parse_args(given)
    return COMMANDS[args.command].run(args)


if __name__ == "__main__":
    sys.exit(main())
