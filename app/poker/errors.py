"""Typed errors of the rules core. Each carries a stable ``code`` for clients and a message
that names the rule, so a refused action can be explained to a person."""

from __future__ import annotations


class PokerError(Exception):
    code = "poker_error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class ConfigError(PokerError):
    """A table or hand configuration the rules cannot deal (bad stakes, too many seats...)."""

    code = "bad_config"


class IllegalAction(PokerError):
    """An action the rules do not allow now. The hand state is left unchanged."""

    code = "illegal_action"
