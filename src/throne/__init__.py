"""Throne: play and study Leaders and Hidden Leaders."""

__version__ = "0.1.0"
