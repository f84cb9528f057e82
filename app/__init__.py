"""Omaha: a self-hosted Omaha poker server."""

__version__ = "0.1.0"
