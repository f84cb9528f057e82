"""The typed refusal of the table actor: a stable `code` for clients and a message for people."""

from __future__ import annotations


class TableError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, str]:
        return {"type": "error", "code": self.code, "message": self.message}
