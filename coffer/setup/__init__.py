"""Wiring coffer into agents' configs (`coffer setup`), the watcher service, `coffer uninstall`."""

from __future__ import annotations
