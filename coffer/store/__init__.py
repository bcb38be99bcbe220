"""The canonical store: entries, MEMORY.md indexes, the project list, settings, health checks."""

from __future__ import annotations
