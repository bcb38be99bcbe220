"""The scan's parse cache (coffer/vault/cache.py, docs/adr/0011) is invisible.

Every test compares the cache's results with a scan that reads every file (the
docs/vault-format.md §7.1 behaviour), on vaults holding each kind of file the scan treats
differently.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from coffer.vault import api, cache, scan
from coffer.vault.document import serialize
from coffer.vault.errors import VaultError

from .conftest import memory, project_root, team_root, write_memory

SECRET = "ghp_" + "a" * 24


@pytest.fixture(autouse=True)
def no_racy_window(monkeypatch: pytest.MonkeyPatch) -> None:
    # Files written by a test are younger than the 2 s window and would never be cached.
    monkeypatch.setattr(cache, "RACY_NS", 0)


def env(**extra: str) -> dict[str, str]:
    return {**os.environ, **extra}


NO_CACHE = {"COFFER_VAULT_CACHE": "0"}


def _answer(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except VaultError as exc:
        return ("error", exc.message)


def outputs(**extra: str) -> list[Any]:
    """Everything the vault answers over the test vault, with this environment."""
    environ = env(**extra)
    calls: list[Callable[[], Any]] = [
        lambda: api.search("", env=environ),
        lambda: api.search("auth token", env=environ),
        lambda: api.search("", ["project", "team"], ["handoff"], None, "codex", 100, env=environ),
        lambda: api.doctor(env=environ),
        lambda: api.doctor(["team"], "claude", env=environ),
        lambda: api.read("mem_auth", env=environ),
    ]
    return [_answer(call) for call in calls]


def cache_files() -> list[Path]:
    directory = Path(cache.cache_path(os.environ, "project", "/x")).parent
    return sorted(directory.glob("*.bin")) if directory.is_dir() else []


@pytest.fixture
def vault(repo: Path) -> Path:
    """A vault with every outcome: entries, invalid, misplaced, quarantined, BOM, symlink."""
    root = project_root(repo)
    write_memory(root, "notes/auth.md", id="mem_auth", title="Auth token rotation", tags=["auth"])
    write_memory(root, "handoffs/h.md", id="mem_handoff", kind="handoff", targetHarnesses=["codex"])
    write_memory(root, "notes/deep/a/b/nested.md", id="mem_nested", body="Nested auth.")
    write_memory(root, "notes/old.md", id="mem_old", status="superseded", links=["mem_auth"])
    write_memory(root, "notes/misplaced.md", id="mem_misplaced", kind="fact")
    write_memory(root, "notes/secret.md", id="mem_secret", body=f"token {SECRET}")
    (root / "notes" / "broken.md").write_text("---\nnot: frontmatter\n---\n", encoding="utf-8")
    (root / "notes" / "binary.md").write_bytes(b"\xff\xfe not utf-8")
    bom = "\ufeff" + serialize(memory(id="mem_bom", title="BOM auth"))
    (root / "notes" / "bom.md").write_bytes(bom.encode("utf-8"))
    (root / "notes" / "link.md").symlink_to(root / "notes" / "auth.md")
    (root / "notes" / "skip.txt").write_text("not a memory", encoding="utf-8")
    write_memory(team_root(repo), "notes/team.md", id="mem_team", scope="team", body="auth")
    return repo


@pytest.mark.needs_symlinks
def test_same_results_with_and_without_the_cache(vault: Path) -> None:
    expected = outputs(**NO_CACHE)
    assert cache_files() == []  # COFFER_VAULT_CACHE=0 writes nothing
    assert outputs() == expected  # cold: parses and writes the cache
    assert len(cache_files()) == 2  # one per scope root
    assert outputs() == expected  # warm: served from the cache


@pytest.mark.needs_symlinks
def test_warm_scan_reads_no_file(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = outputs()

    def fail(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("read a file the cache knows")

    reads: list[str] = []
    real = scan.safe_read_bytes

    def counting(path: str, *args: Any, **kwargs: Any) -> bytes:
        reads.append(os.path.basename(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(scan, "safe_read_bytes", counting)
    assert outputs() == expected
    # Only what no cache may stand in for: the file that fails to decode (read errors and
    # decode errors are retried every time, as the reference does).
    assert set(reads) == {"binary.md"}


@pytest.mark.needs_symlinks
def test_nothing_is_written_into_the_vault(vault: Path) -> None:
    before = sorted(str(p) for p in vault.rglob("*"))
    outputs()
    outputs()
    assert sorted(str(p) for p in vault.rglob("*")) == before


@pytest.mark.needs_symlinks
def test_edit_in_place_with_same_size_and_mtime_is_seen(vault: Path) -> None:
    outputs()
    path = project_root(vault) / "notes" / "auth.md"
    st = path.stat()
    text = path.read_text(encoding="utf-8")
    edited = text.replace("Auth token rotation", "Auth token ROTATION")
    assert len(edited) == len(text)
    with open(path, "r+", encoding="utf-8") as fh:
        fh.write(edited)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime
    assert path.stat().st_mtime_ns == st.st_mtime_ns and path.stat().st_size == st.st_size
    title = api.read("mem_auth", env=env())["memory"]["title"]
    assert title == "Auth token ROTATION"
    assert outputs() == outputs(**NO_CACHE)


@pytest.mark.needs_symlinks
def test_deleted_and_added_files(vault: Path) -> None:
    outputs()
    (project_root(vault) / "notes" / "auth.md").unlink()
    write_memory(project_root(vault), "notes/new.md", id="mem_new", title="New auth")
    expected = api.search("", env=env(**NO_CACHE))
    ids = [item["memory"]["id"] for item in expected["results"]]
    assert "mem_auth" not in ids and "mem_new" in ids
    assert api.search("", env=env()) == expected
    assert api.doctor(env=env()) == api.doctor(env=env(**NO_CACHE))
    with pytest.raises(VaultError, match="not found"):
        api.read("mem_auth", env=env())


@pytest.mark.needs_symlinks
def test_file_becoming_invalid_or_secret_is_seen(vault: Path) -> None:
    outputs()
    root = project_root(vault)
    write_memory(root, "notes/auth.md", id="mem_auth", body=f"now with {SECRET}")
    (root / "notes" / "bom.md").write_text("---\nbroken\n", encoding="utf-8")
    report = api.doctor(env=env())
    assert report == api.doctor(env=env(**NO_CACHE))
    codes = {item["path"]: item["code"] for item in report["invalidFiles"]}
    assert codes["project:notes/auth.md"] == "suspected-secret"
    assert codes["project:notes/bom.md"] == "invalid-document"


@pytest.mark.needs_symlinks
@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"garbage",
        lambda data: b"",
        lambda data: data[: len(data) // 2],
        lambda data: data[:-1] + bytes([data[-1] ^ 1]),
        lambda data: data.replace(b"coffer-vault-cache", b"coffer-vault-cachf"),
        lambda data: os.urandom(len(data)),
    ],
)
def test_corrupt_cache_is_ignored(vault: Path, damage: Callable[[bytes], bytes]) -> None:
    expected = outputs(**NO_CACHE)
    outputs()
    for path in cache_files():
        path.write_bytes(damage(path.read_bytes()))
    assert outputs() == expected
    assert outputs() == expected  # rewritten after being ignored


@pytest.mark.needs_symlinks
def test_cache_of_other_code_or_root_is_ignored(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = outputs(**NO_CACHE)
    outputs()
    # Another root's cache under this root's name (e.g. a hash collision) is not used.
    files = cache_files()
    assert len(files) == 2
    files[0].write_bytes(files[1].read_bytes())
    files[1].write_bytes(files[0].read_bytes())
    assert outputs() == expected
    monkeypatch.setattr(cache, "_FORMAT", 999)  # as after an upgrade
    assert outputs() == expected


@pytest.mark.needs_symlinks
def test_budgets_and_truncation_are_the_same(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outputs()  # warm
    total = api.doctor(env=env(**NO_CACHE))["scannedBytes"]
    sizes = [total]
    for limit in (total // 5, total // 3, total // 2, total - 1):
        monkeypatch.setattr(scan, "MAX_SCANNED_BYTES", limit)
        uncached = outputs(**NO_CACHE)
        assert outputs() == uncached
        assert uncached[3]["truncated"] is True
        sizes.append(uncached[3]["scannedBytes"])
    assert len(set(sizes)) > 2
    monkeypatch.setattr(scan, "MAX_SCANNED_BYTES", 16_777_216)
    for budget in (3, 8, 14):
        monkeypatch.setattr(scan, "MAX_VISITED", budget)
        assert outputs() == outputs(**NO_CACHE)


@pytest.mark.needs_symlinks
def test_recently_changed_files_are_not_cached(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "RACY_NS", 2_000_000_000)  # the real window
    expected = outputs(**NO_CACHE)
    assert outputs() == expected
    # Every file is younger than the window ("racily clean"): nothing is cached, so a
    # same-size edit within one timestamp tick cannot be missed.
    assert cache_files() == []
    assert outputs() == expected


@pytest.mark.needs_symlinks
def test_quarantined_content_is_not_copied_into_the_cache(vault: Path) -> None:
    outputs()
    blob = b"".join(path.read_bytes() for path in cache_files())
    assert b"mem_auth" in blob  # entries are cached
    assert SECRET.encode() not in blob
    assert b"mem_secret" not in blob


@pytest.mark.needs_symlinks
def test_dry_run_and_read_only_scans_write_no_cache(vault: Path) -> None:
    outputs(ECC_DRY_RUN="1")
    assert cache_files() == []
    scan.load(api.resolve_roots(), ["project"], env(), write_cache=False)
    assert cache_files() == []
    outputs()
    assert cache_files() != []
    before = {path: path.stat().st_mtime_ns for path in cache_files()}
    outputs()  # nothing changed: not rewritten
    assert {path: path.stat().st_mtime_ns for path in cache_files()} == before


@pytest.mark.needs_symlinks
def test_unusable_cache_location_is_not_an_error(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = outputs(**NO_CACHE)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("COFFER_HOME", str(blocker))
    assert outputs() == expected
    assert outputs() == expected


@pytest.mark.needs_symlinks
def test_cli_output_is_the_same(vault: Path, vault_cli) -> None:  # type: ignore[no-untyped-def]
    for args in (("search", "auth"), ("doctor", "--json"), ("read", "mem_auth", "--json")):
        plain = vault_cli(*args, env=NO_CACHE)
        cold = vault_cli(*args)
        warm = vault_cli(*args)
        assert (plain.code, plain.out, plain.err) == (cold.code, cold.out, cold.err)
        assert (plain.code, plain.out, plain.err) == (warm.code, warm.out, warm.err)
