"""`python -m app replay FILE...`: replay PHH hand histories through the rules engine.

One JSON line per file, in the order given: ``{"file": ..., "finishing_stacks": [...]}``,
or ``{"file": ..., "error": "<action number and the rule>"}`` for a file that cannot be
read or that the rules refuse. A ``.phhs`` session file gives one line per hand, with its
key: ``{"file": ..., "hand": "1", "finishing_stacks": [...]}``. The other files are still
replayed; the exit code is 0 when every file replayed, 1 otherwise. Stacks are in the
file's unit: ints when whole.

This is the I/O side; ``app.poker.phh`` does the reading and works on strings only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from app.poker.phh import PHHError, loads, loads_all


def replay_file(path: str) -> dict[str, object]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return {"file": path, "error": f"cannot read the file: {reason}"}
    try:
        hand = loads(text)
        state = hand.replay()
    except PHHError as error:
        return {"file": path, "error": error.message}
    return {"file": path, "finishing_stacks": hand.stacks_out(state.stacks)}


def replay_session(path: str) -> list[dict[str, object]]:
    """Every hand of a ``.phhs`` file, each replayed on its own."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        hands = loads_all(text)
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return [{"file": path, "error": f"cannot read the file: {reason}"}]
    except PHHError as error:
        return [{"file": path, "error": error.message}]
    out: list[dict[str, object]] = []
    for key, hand in hands:
        try:
            state = hand.replay()
        except PHHError as error:
            out.append({"file": path, "hand": key, "error": error.message})
            continue
        out.append({"file": path, "hand": key, "finishing_stacks": hand.stacks_out(state.stacks)})
    return out


def replay_files(files: Sequence[str], out: TextIO) -> int:
    failed = False
    for path in files:
        results = replay_session(path) if path.endswith(".phhs") else [replay_file(path)]
        for result in results:
            failed = failed or "error" in result
            out.write(json.dumps(result) + "\n")
        out.flush()
    return 1 if failed else 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="PHH hand history files")


def command(args: argparse.Namespace) -> int:
    return replay_files(args.files, sys.stdout)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app replay", description=__doc__)
    add_arguments(parser)
    return command(parser.parse_args(argv))
