"""An adapter for an agent that is not installed is not imported (coffer.adapter.deferred,
docs/adr/0023): after one run that imported it, a spec adapter whose module files are
unchanged detects from its kept presence, and imports its module the first time anything
else is asked of it. Detection answers as the module would; a changed module is imported."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

import pytest

from coffer.adapter import Context, plugins, registry
from coffer.adapter.deferred import Deferred, presence, record
from coffer.adapter.plugins import Plugin
from tests.helpers import coffer, imported_after, make_repo

SPEC_SOURCE = """
from __future__ import annotations

from coffer.adapter.facts import AgentFacts
from coffer.adapter.spec import AgentSpec, Place, Render

SPEC = AgentSpec(
    name="{name}",
    config=Place("~/.{name}", env="{env}"),
    executables=("{name}-cli",),
    installed=("~/.{name}.json", "$XDG_CONFIG_HOME/{name}-ext-*"),
    project=Render(("{{root}}/{upper}.md",)),
    global_=Render(("{{config}}/{upper}.md",)),
    facts=AgentFacts(title="{upper} agent"),
)
NAME, detect, targets, inputs, native_memory = SPEC.members()
FACTS = SPEC.facts
"""

OLD = 1_000_000_000  # an mtime long past: not "changed a moment ago"


def _install(site: Path, module: str, name: str, *, package: bool = False) -> Path:
    """A spec adapter installed the way pip leaves one; its files dated long ago."""
    site.mkdir(exist_ok=True)
    source = SPEC_SOURCE.format(name=name, env=f"{name.upper()}_HOME", upper=name.upper())
    if package:
        (site / module).mkdir()
        path = site / module / "__init__.py"
    else:
        path = site / f"{module}.py"
    path.write_text(source)
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[coffer.adapters]\n{name} = {module}\n")
    for p in (path, path.parent, info, site):
        os.utime(p, (OLD, OLD))
    return path


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(plugins, "RACY_SECONDS", float("-inf"))  # keys of a fresh tmp dir
    Path(os.environ["COFFER_HOME"]).mkdir(parents=True, exist_ok=True)
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    return site


def _forget(module: str) -> None:
    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        del sys.modules[name]


def _ctx(home: Path, **environ: str) -> Context:
    return Context(home, environ, home / "store", None)


@pytest.mark.posix_only("a #!/bin/sh script run as a program")
def test_a_spec_adapter_is_deferred_and_detects_as_its_module(site: Path, tmp_path: Path) -> None:
    _install(site, "dfr_one", "dfrone")
    first = registry.load_adapters().adapters["dfrone"]
    assert not isinstance(first, Deferred)  # the first run imports it, and keeps its presence
    _forget("dfr_one")
    loaded = registry.load_adapters()
    later = loaded.adapters["dfrone"]
    assert isinstance(later, Deferred)
    assert loaded.origins["dfrone"] == "dfr_one"
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    contexts = {"nothing": _ctx(home, PATH=str(bin_dir))}
    assert later.detect(contexts["nothing"]) is False
    (home / ".dfrone.json").write_text("{}")
    contexts["installed file"] = _ctx(home)
    assert later.detect(contexts["installed file"]) is True
    (home / ".dfrone.json").unlink()
    (home / ".config" / "dfrone-ext-1.2").mkdir()
    contexts["installed glob"] = _ctx(home)
    assert later.detect(contexts["installed glob"]) is True
    (home / ".config" / "dfrone-ext-1.2").rmdir()
    (tmp_path / "elsewhere").mkdir()
    contexts["config env"] = _ctx(home, DFRONE_HOME=str(tmp_path / "elsewhere"))
    assert later.detect(contexts["config env"]) is True
    exe = bin_dir / "dfrone-cli"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    contexts["on PATH"] = _ctx(home, PATH=str(bin_dir))
    assert later.detect(contexts["on PATH"]) is True
    assert "dfr_one" not in sys.modules  # all of that without importing the module
    assert "not imported" in repr(later)

    # Anything more imports it, checked, and answers as the module does.
    project = _ctx(home)._replace(project=tmp_path / "repo")
    targets = later.targets(project)
    module = sys.modules["dfr_one"]
    assert targets == module.targets(project)
    assert loaded.features("dfrone").facts == module.FACTS
    assert later.FACTS is module.FACTS
    assert "(dfr_one, imported)" in repr(later)
    for ctx in contexts.values():
        assert later.detect(ctx) == module.detect(ctx)


def test_an_edited_module_is_imported_again(site: Path) -> None:
    path = _install(site, "dfr_two", "dfrtwo")
    registry.load_adapters()
    _forget("dfr_two")
    assert isinstance(registry.load_adapters().adapters["dfrtwo"], Deferred)
    os.utime(path, (OLD + 5, OLD + 5))  # the same bytes, touched: its mtime no longer matches
    _forget("dfr_two")
    assert not isinstance(registry.load_adapters().adapters["dfrtwo"], Deferred)
    _forget("dfr_two")
    assert isinstance(registry.load_adapters().adapters["dfrtwo"], Deferred)  # kept anew
    path.write_text(path.read_text().replace('"~/.dfrtwo"', '"~/.dfrtwo-moved"'))
    os.utime(path, (OLD + 5, OLD + 5))  # a same-mtime edit: the size tells
    _forget("dfr_two")
    again = registry.load_adapters().adapters["dfrtwo"]
    assert not isinstance(again, Deferred)
    assert presence(again) is not None and presence(again).config.default == "~/.dfrtwo-moved"


def test_a_package_that_gained_a_module_is_imported_again(site: Path) -> None:
    path = _install(site, "dfr_pkg", "dfrpkg", package=True)
    registry.load_adapters()
    _forget("dfr_pkg")
    assert isinstance(registry.load_adapters().adapters["dfrpkg"], Deferred)
    (path.parent / "extra.py").write_text("X = 1\n")
    os.utime(path.parent / "extra.py", (OLD, OLD))
    _forget("dfr_pkg")
    assert not isinstance(registry.load_adapters().adapters["dfrpkg"], Deferred)


def test_a_module_changed_a_moment_ago_is_not_kept(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _install(site, "dfr_new", "dfrnew")
    registry.load_adapters()
    plugin = Plugin("dfrnew", "dfr_new", "dfr_new")
    module = sys.modules["dfr_new"]
    assert record(plugin, module) is not None
    path.touch()  # now: within the mtime's granularity a later edit could look the same
    monkeypatch.setattr(plugins, "RACY_SECONDS", 2.0)
    assert record(plugin, module) is None


def test_hand_written_detect_is_always_imported(site: Path) -> None:
    registry.load_adapters()
    loaded = registry.load_adapters()
    assert not isinstance(loaded.adapters["claude"], Deferred)  # its detect is its own code
    assert not isinstance(loaded.adapters["codex"], Deferred)
    assert isinstance(loaded.adapters["vibe"], Deferred)
    assert presence(loaded.adapters["claude"]) is None


def test_a_deferred_module_that_fails_raises_to_its_caller(tmp_path: Path) -> None:
    # Its files were unchanged, so this is rare (a dependency went away); the engine's
    # call_adapter then reports it against the adapter, as any adapter failure.
    spec_presence = presence(registry.load_adapters().adapters["vibe"])
    assert spec_presence is not None
    gone = Deferred(Plugin("x", "no_such_module_xyz", "d"), "x", spec_presence, registry.features)
    assert gone.detect(_ctx(tmp_path)) is False
    with pytest.raises(ModuleNotFoundError):
        gone.targets(_ctx(tmp_path))
    not_an_adapter = Deferred(Plugin("x", "os.path", "d"), "x", spec_presence, registry.features)
    with pytest.raises(registry.ContractError, match="does not implement"):
        not_an_adapter.features()


def _quiet(tmp_path: Path) -> Path:
    """A working directory nothing writes to: ``python -c`` puts it first on the import
    path, whose mtimes key the kept entry points (the console script puts its bin there)."""
    quiet = tmp_path / "quiet"
    quiet.mkdir()
    os.utime(quiet, (OLD, OLD))
    return quiet


def _path_settled() -> None:
    """Wait until no import-path directory changed within plugins.RACY_SECONDS: a run keeps
    nothing under a key that young (plugins.lookup), and on a busy CI machine something
    (bytecode written beside site-packages, the checkout) can have changed a moment ago,
    or be changed by the run before."""
    newest = 0.0
    for path in sys.path:
        with contextlib.suppress(OSError):
            newest = max(newest, os.stat(path or ".").st_mtime)
    wait = newest + plugins.RACY_SECONDS - time.time()
    if wait > 0:
        time.sleep(wait + 0.1)


def test_adapter_list_and_project_leave_uninstalled_agents_unimported(
    tmp_path: Path, fake_home: Path
) -> None:
    (fake_home / ".codex").mkdir()
    repo = make_repo(tmp_path / "repo")
    quiet, at = _quiet(tmp_path), ["--project", str(repo)]
    unused = ("coffer_adapters.vibe", "coffer_adapters.aider", "coffer_adapters.zed")
    # The first run imports every adapter and creates the store; the next keeps the
    # presences there (a run that finds no store keeps nothing: it creates none).
    assert imported_after(["project", *at], quiet, unused) == (0, list(unused))
    _path_settled()  # else this run, like the first, keeps nothing
    assert imported_after(["adapter", "list", *at], quiet, unused) == (0, list(unused))
    # Nor what detection used to pull in: glob. hashlib and shutil are public API, allowed
    # off the session-start no-op (docs/adr/0049).
    stdlib: tuple[str, ...] = ()
    if sys.version_info < (3, 13):  # 3.13's pathlib imports glob itself
        stdlib += ("glob",)
    code, found = imported_after(
        ["adapter", "list", *at], quiet, (*unused, *stdlib, "coffer_adapters.codex")
    )
    assert (code, found) == (0, ["coffer_adapters.codex"])
    assert coffer("remember", "Deploys use make release.", cwd=repo).returncode == 0
    code, found = imported_after(
        ["project", *at], quiet, (*unused, *stdlib, "coffer_adapters.codex")
    )
    assert (code, found) == (0, ["coffer_adapters.codex"])
    assert "Deploys use make release." in (repo / "AGENTS.md").read_text()
    # `--all` shows every agent: those modules are imported then.
    code, found = imported_after(["adapter", "list", "--all", *at], quiet, unused)
    assert (code, found) == (0, list(unused))


def test_installing_a_deferred_agent_later_ends_the_no_op(tmp_path: Path, fake_home: Path) -> None:
    # The stamp watches what a spec's detect looks at (its config directory), so the
    # session after `vibe` is installed projects for it, without importing it before.
    (fake_home / ".codex").mkdir()
    repo = make_repo(tmp_path / "repo")
    quiet, at = _quiet(tmp_path), ["--project", str(repo)]
    assert coffer("remember", "Deploys use make release.", cwd=repo).returncode == 0
    # a global entry: vibe's global file gets a block only when there is one to show
    assert coffer("remember", "Answer briefly.", "--scope", "global", cwd=repo).returncode == 0
    assert coffer("project", cwd=repo).returncode == 0
    assert coffer("remember", "Tests run with make check.", cwd=repo).returncode == 0
    assert imported_after(["project", *at], quiet, ()) == (0, [])  # imports them all, once
    assert coffer("remember", "Lint with make lint.", cwd=repo).returncode == 0
    assert imported_after(["project", *at], quiet, ("coffer_adapters.vibe",)) == (0, [])
    # the no-op: the stamp was written by a run that left vibe unimported
    code, found = imported_after(["project", *at], quiet, ("coffer.projection.engine",))
    assert (code, found) == (0, [])
    (fake_home / ".vibe").mkdir()
    run = coffer("project", cwd=repo)
    assert run.returncode == 0, run.stderr
    # the full path ran, for vibe too: its global file has the global tier's block
    assert "coffer:memory:start" in (fake_home / ".vibe" / "AGENTS.md").read_text()


def test_the_bytecode_a_first_run_writes_keeps_the_adapters_deferred(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As on a user's machine: Python writes bytecode. The first import of a top-level
    # module creates `__pycache__` beside it, which changes the mtime of that import-path
    # directory, so the kept entry points are looked up again on the next run; what was
    # kept of the deferred adapters must survive that (issue 23), else that run imports
    # every adapter again.
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    monkeypatch.setenv("PYTHONPATH", str(site))
    _install(site, "dfr_cli", "dfrcli")
    os.utime(site, (OLD, OLD))
    quiet = _quiet(tmp_path)
    assert imported_after(["adapter", "list"], quiet, ("dfr_cli",)) == (0, ["dfr_cli"])
    assert (site / "__pycache__").is_dir()  # the first run wrote it
    assert imported_after(["adapter", "list"], quiet, ("dfr_cli",)) == (0, [])
    assert imported_after(["adapter", "list"], quiet, ("dfr_cli",)) == (0, [])


def test_a_module_found_elsewhere_after_the_import_path_changed_is_imported(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The other side of keeping presences across a new import path: a module of the same
    # name earlier on the path is not the one whose presence was kept.
    monkeypatch.setenv("PYTHONPATH", str(site))
    _install(site, "dfr_moved", "dfrmoved")
    quiet = _quiet(tmp_path)
    assert imported_after(["adapter", "list"], quiet, ("dfr_moved",)) == (0, ["dfr_moved"])
    assert imported_after(["adapter", "list"], quiet, ("dfr_moved",)) == (0, [])
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "dfr_moved.py").write_text((site / "dfr_moved.py").read_text())
    os.utime(earlier / "dfr_moved.py", (OLD, OLD))
    os.utime(earlier, (OLD + 10, OLD + 10))
    monkeypatch.setenv("PYTHONPATH", f"{earlier}{os.pathsep}{site}")
    assert imported_after(["adapter", "list"], quiet, ("dfr_moved",)) == (0, ["dfr_moved"])
