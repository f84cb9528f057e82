"""The documents' links that point into the repository lead to something: a picture the
README shows, a doc another refers to (the tournament screenshots were linked from the
README for a release before any was made)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_every_relative_link_of_the_docs_leads_to_a_file() -> None:
    broken = []
    for doc in documents():
        for target in LINK.findall(doc.read_text()):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (doc.parent / target).exists():
                broken.append(f"{doc.relative_to(ROOT)}: {target}")
    assert broken == []


def test_the_link_pattern_finds_the_pictures() -> None:  # (the test above could pass empty)
    text = (ROOT / "README.md").read_text()
    assert any(t.endswith(".png") for t in LINK.findall(text))
