"""The adapter entry points are read from a cache while the import path is unchanged
(coffer.adapter.registry; docs/adr/0023): installing or removing a distribution changes its
directory's mtime, and with it the key, so a plugin is never missed."""

from __future__ import annotations

import importlib.metadata
import json
import os
import sys
from pathlib import Path

import pytest

from coffer.adapter import plugins, registry


def _scan_refused(*args: object, **kwargs: object) -> object:
    raise AssertionError("importlib.metadata was scanned")


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # The venv was perhaps installed a moment ago: that is racy_window's own test, below.
    monkeypatch.setattr(plugins, "RACY_SECONDS", float("-inf"))
    root = Path(os.environ["COFFER_HOME"])
    root.mkdir(parents=True, exist_ok=True)
    return root


def test_second_lookup_reads_the_cache(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = registry.entry_points(registry.GROUP)
    names = [(p.name, p.value, p.dist_name) for p in first]
    assert ("claude", "coffer_adapters.claude_code", "coffer") in names
    cache = json.loads((store / "state" / "adapters.json").read_text())
    assert cache["groups"][registry.GROUP] == [list(n) for n in names]
    monkeypatch.setattr(importlib.metadata, "entry_points", _scan_refused)
    again = registry.entry_points(registry.GROUP)
    assert [(p.name, p.value, p.dist_name) for p in again] == names
    assert registry.load_adapters().adapters.keys() >= {"claude", "codex"}


def test_a_changed_import_path_scans_again(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry.entry_points(registry.GROUP)
    site = tmp_path / "site"
    site.mkdir()
    os.utime(site, (1_000_000_000, 1_000_000_000))  # old: not racy, the key may be kept
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    monkeypatch.setattr(importlib.metadata, "entry_points", _scan_refused)
    with pytest.raises(AssertionError, match="scanned"):
        registry.entry_points(registry.GROUP)


def test_no_store_no_cache_and_a_damaged_cache_is_ignored(store: Path) -> None:
    store.rmdir()
    registry.entry_points(registry.GROUP)
    assert not store.exists()  # listing adapters never creates the store
    (store / "state").mkdir(parents=True)
    (store / "state" / "adapters.json").write_text("{not json")
    assert any(p.name == "codex" for p in registry.entry_points(registry.GROUP))
    assert json.loads((store / "state" / "adapters.json").read_text())["version"] == 3


def test_entry_point_values_load_like_importlib() -> None:
    assert registry.Plugin("x", "coffer.adapter.registry:Plugin", "d").load() is registry.Plugin
    assert registry.Plugin("x", "coffer.adapter.registry", "d").load() is registry
    assert (
        registry.Plugin("x", "coffer.adapter.registry:GROUP [extra]", "d").load() == registry.GROUP
    )


def test_a_directory_changed_a_moment_ago_keeps_no_cache(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plugins, "RACY_SECONDS", 2.0)
    site = tmp_path / "fresh-site"
    site.mkdir()  # just now: a distribution installed within the mtime's granularity
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    assert any(p.name == "claude" for p in registry.entry_points(registry.GROUP))
    assert not (store / "state" / "adapters.json").exists()
