"""Wiring coffer into agents' configs (`coffer setup`), the watcher service, `coffer uninstall`."""
