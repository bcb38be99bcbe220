"""The projection engine: makes every enabled adapter's targets show the store."""

from __future__ import annotations
