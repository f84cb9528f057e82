"""`python -m app init`: write the `.env` that docker compose reads, with new secrets.

SECRET_KEY and POSTGRES_PASSWORD are made here (`secrets`, 48 random bytes each, URL-safe:
the password goes into a URL), the rest is `.env.example` as it is. An existing file is never
overwritten, not even partly: its secrets are in use (a new POSTGRES_PASSWORD does not open
the database made with the old one, and a new SECRET_KEY cannot open its sealed decks).

Standard library only: it runs with the system's Python before anything is installed
(`python3 -m app init` in a checkout, or `make init`).
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import sys
from pathlib import Path

TEMPLATE = ".env.example"
SECRETS = ("SECRET_KEY", "POSTGRES_PASSWORD")
SECRET_BYTES = 48
HOST_NAME = re.compile(
    r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*"
)


def host_name(value: str) -> str | None:
    """`value` as a lower-case DNS name (a trailing dot dropped), or None if it is not one."""
    name = value.strip().lower().rstrip(".")
    return name if HOST_NAME.fullmatch(name) and len(name) <= 253 else None


def template_text() -> str:
    """`.env.example` beside the app package (a checkout), else in the working directory;
    the two secrets alone when there is none."""
    for root in (Path(__file__).resolve().parent.parent, Path.cwd()):
        candidate = root / TEMPLATE
        if candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    return "".join(f"{name}=\n" for name in SECRETS) + "DOMAIN=\n"


def render(template: str, values: dict[str, str]) -> str:
    """The template with each `NAME=...` line of `values` set (appended when missing)."""
    lines = template.splitlines()
    for name, value in values.items():
        assignment = re.compile(rf"{name}=.*")
        for k, line in enumerate(lines):
            if assignment.fullmatch(line):
                lines[k] = f"{name}={value}"
                break
        else:
            lines.append(f"{name}={value}")
    return "\n".join(lines) + "\n"


def write_new(path: Path, text: str) -> None:
    """Create `path` readable by its owner only; FileExistsError if it exists (O_EXCL: no
    check-then-write race with another init)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)


def command(args: argparse.Namespace) -> int:
    path = Path(args.file)
    values = {name: secrets.token_urlsafe(SECRET_BYTES) for name in SECRETS}
    if args.domain:
        domain = host_name(args.domain)
        if domain is None:
            print(f"omaha: --domain {args.domain!r} is not a host name like poker.example.org",
                  file=sys.stderr)  # fmt: skip
            return 2
        values["DOMAIN"] = domain
    try:
        write_new(path, render(template_text(), values))
    except FileExistsError:
        print(f"omaha: {path} exists: not overwriting it (its secrets open your database and "
              "decks; remove it yourself to start over)", file=sys.stderr)  # fmt: skip
        return 1
    except OSError as error:
        print(f"omaha: cannot write {path}: {error.strerror or error}", file=sys.stderr)
        return 1
    where = f"https://{values['DOMAIN']}" if "DOMAIN" in values else "plain HTTP (set DOMAIN)"
    print(f"wrote {path} with a new SECRET_KEY and POSTGRES_PASSWORD (keep it; {where}); "
          "next: docker compose up -d")  # fmt: skip
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--file", default=".env", help="where to write (default: .env)")
    parser.add_argument("--domain", help="the host name players use, e.g. poker.example.org")
