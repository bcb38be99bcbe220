"""coffer: one canonical memory store, seen natively by every coding agent."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
