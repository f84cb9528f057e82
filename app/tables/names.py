"""Display names and table names: what a name may contain, and when two names look the same.

A name is NFC-normalised and stripped; it may not contain control, format, surrogate,
private-use or unassigned characters (Unicode categories Cc, Cf, Cs, Co, Cn: right-to-left
overrides, zero-width joiners, BOMs, NUL, CR/LF...) nor line or paragraph separators; its
length is bounded in characters.

Two names are *the same* when their skeletons are equal: NFKC, case folding, accents removed,
then a small confusables map (Cyrillic and Greek letters that look Latin, digits that look like
letters, "rn" for "m", "vv" for "w"). It is deliberately smaller than Unicode's full
confusables table (UTS #39): it catches the look-alikes a friend would type, not every glyph.
"""

from __future__ import annotations

import unicodedata

#: categories refused anywhere in a name
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})

#: look-alike letters and digits, mapped to the Latin letter they imitate (after case folding)
CONFUSABLES = str.maketrans(
    {
        # Cyrillic
        "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o",
        "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "l", "ї": "l",
        "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l",
        # Greek
        "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "l", "κ": "k", "ν": "v",
        "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ς": "c",
        # digits and Latin letters that pass for others
        "0": "o", "1": "l", "i": "l", "ı": "l", "|": "l", "5": "s", "$": "s",
    }
)  # fmt: skip
_DIGRAPHS = (("rn", "m"), ("vv", "w"), ("cl", "d"))


class BadName(ValueError):
    """A name that cannot be used, with the reason in words."""


def clean_name(raw: str, max_length: int) -> str:
    """The name to store: NFC, stripped, checked. Raises `BadName` saying what is wrong."""
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        raise BadName("a name cannot contain a lone surrogate") from None
    name = unicodedata.normalize("NFC", raw).strip()
    if not name:
        raise BadName("a name cannot be empty")
    if len(name) > max_length:
        raise BadName(f"a name is at most {max_length} characters")
    for char in name:
        if unicodedata.category(char) in REFUSED_CATEGORIES:
            raise BadName(f"a name cannot contain the character U+{ord(char):04X}")
    return name


def skeleton(name: str) -> str:
    """What a name looks like: equal skeletons are names a reader cannot tell apart."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    bare = "".join(
        c for c in unicodedata.normalize("NFD", folded) if unicodedata.category(c) != "Mn"
    )
    text = "".join(bare.split()).translate(CONFUSABLES)
    for pair, single in _DIGRAPHS:
        text = text.replace(pair, single)
    return text
