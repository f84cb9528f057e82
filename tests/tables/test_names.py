"""Names: what is refused, how they are normalised, which look the same (known answers)."""

from __future__ import annotations

import pytest

from app.tables.names import BadName, clean_name, skeleton


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "a\x00b",
        "line\r\nbreak",
        "tab\there",
        "\u202eevil",  # right-to-left override (Cf)
        "zero\u200bwidth",  # zero-width space (Cf)
        "\ufeffbom",  # byte order mark (Cf)
        "sep\u2028line",  # line separator (Zl)
        "private\ue000",  # private use (Co)
        "lone\ud800",  # a surrogate: not even UTF-8
        "x" * 33,
    ],
)
def test_refused(raw: str) -> None:
    with pytest.raises(BadName):
        clean_name(raw, 32)


def test_normalised_to_nfc_and_stripped() -> None:
    assert clean_name("  Ame\u0301lie ", 32) == "Amélie"  # e + combining acute -> é
    assert len(clean_name("é" * 32, 32)) == 32
    assert clean_name("Zoë 🂡", 32) == "Zoë 🂡"  # letters and symbols of any script are fine


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Alice", "alice"),
        ("Alice", "Аlice"),  # Cyrillic А
        ("Paypal", "Pаypаl"),
        ("Olga", "0lga"),
        ("Bill", "Bi11"),
        ("Emma", "Ernma"),  # rn looks like m
        ("Straße", "STRASSE"),  # case folding
        ("José", "Jose"),  # accents
        ("Ｂｏｂ", "Bob"),  # full-width (NFKC)
        ("Big Al", "BigAl"),  # spaces
    ],
)
def test_look_alikes_share_a_skeleton(a: str, b: str) -> None:
    assert skeleton(a) == skeleton(b)


@pytest.mark.parametrize(("a", "b"), [("Alice", "Alicia"), ("Bob", "Rob"), ("Ann", "Anne")])
def test_different_names_differ(a: str, b: str) -> None:
    assert skeleton(a) != skeleton(b)
