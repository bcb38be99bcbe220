"""The declarative adapter shape (coffer/adapter/spec.py, docs/adr/0027): templates, the choice
of file, notes, derived inputs and detection, on an imaginary agent."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from coffer.adapter import Context, Mode, registry
from coffer.adapter.facts import AgentFacts, Checked, Load
from coffer.adapter.spec import AgentSpec, Candidate, Nothing, Place, Render, SpecError, resolve

FACTS = AgentFacts(
    title="Imaginary",
    loads=(Load("{root}/IMAG.md", "project"),),
    checked=(Checked("1.0", ("Docs",), "test"),),
)
SPEC = AgentSpec(
    name="imag",
    config=Place("$XDG_CONFIG_HOME/imag", env="IMAG_HOME"),
    facts=FACTS,
    executables=("imag",),
    installed=("~/.editor/extensions/vendor.imag-*",),
    project=Render(
        ("{root}/.imag.md", "{root}/IMAG.md"),
        create="{root}/IMAG.md",
        max_bytes=1000,
        displaces=("LEGACY.md",),
        off_env=("IMAG_NO_PROJECT",),
    ),
    global_=Render(
        ("${IMAG_EXTRA}/IMAG.md", "{config}/IMAG.md", Candidate("~/.other/O.md", unless=("NO_O",))),
        create="~/.other/O.md",
    ),
)


def ctx(tmp_path: Path, **env: str) -> Context:
    home = tmp_path / "home"
    project = tmp_path / "p"
    for d in (home, project):
        d.mkdir(exist_ok=True)
    base = {"HOME": str(home), "PATH": "", "XDG_CONFIG_HOME": str(home / ".config")}
    return Context(home, {**base, **env}, tmp_path / "store", project)


def by_tier(c: Context, spec: AgentSpec = SPEC) -> dict[str, object]:
    return {t.tier: t for t in spec.targets(c)}


def test_the_file_the_agent_reads_gets_the_block(tmp_path: Path) -> None:
    c = ctx(tmp_path)
    assert c.project is not None
    project = SPEC.targets(c)[0]
    assert (project.tier, project.mode, project.path) == (
        "project",
        Mode.RENDER,
        c.project / "IMAG.md",
    )
    assert project.max_bytes == 1000 and project.note == "" and project.active
    (c.project / ".imag.md").write_text("own\n")
    project = SPEC.targets(c)[0]
    assert project.path == c.project / ".imag.md"
    assert project.note == ".imag.md exists, so Imaginary reads it instead of IMAG.md"


def test_a_displaced_file_is_announced_before_coffer_creates_the_new_one(tmp_path: Path) -> None:
    c = ctx(tmp_path)
    assert c.project is not None
    (c.project / "LEGACY.md").write_text("old\n")
    note = SPEC.targets(c)[0].note
    assert note == (
        "once IMAG.md exists Imaginary reads it instead of LEGACY.md here; "
        "move shared instructions into IMAG.md"
    )
    (c.project / "IMAG.md").write_text("now it exists\n")
    assert SPEC.targets(c)[0].note == ""


def test_a_switched_off_file_is_an_inactive_target(tmp_path: Path) -> None:
    project = SPEC.targets(ctx(tmp_path, IMAG_NO_PROJECT="1"))[0]
    assert not project.active and "IMAG_NO_PROJECT set: Imaginary does not read it" in project.note


def test_global_candidates_env_and_create(tmp_path: Path) -> None:
    c = ctx(tmp_path)
    glob_ = SPEC.targets(c)[1]
    assert glob_.path == c.home / ".other" / "O.md"  # none exists: ``create``
    # ``create`` switched off by its ``unless``: the first candidate that applies
    assert SPEC.targets(ctx(tmp_path, NO_O="1"))[1].path == c.home / ".config/imag/IMAG.md"
    moved = tmp_path / "moved"
    assert SPEC.targets(ctx(tmp_path, IMAG_HOME=str(moved), NO_O="1"))[1].path == moved / "IMAG.md"
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "IMAG.md").write_text("x\n")
    assert SPEC.targets(ctx(tmp_path, IMAG_EXTRA=str(extra)))[1].path == extra / "IMAG.md"


def test_no_project_means_no_project_target(tmp_path: Path) -> None:
    c = ctx(tmp_path)
    bare = Context(c.home, c.environ, c.store, None)
    assert [t.tier for t in SPEC.targets(bare)] == ["global"]


def test_inputs_are_derived_from_the_spec(tmp_path: Path) -> None:
    c = ctx(tmp_path)
    assert c.project is not None
    env, files = SPEC.inputs(c)
    assert set(env) == {"IMAG_HOME", "IMAG_NO_PROJECT", "IMAG_EXTRA", "NO_O", "XDG_CONFIG_HOME"}
    assert set(files) == {
        c.project / ".imag.md",
        c.project / "IMAG.md",
        c.home / ".config/imag/IMAG.md",
        c.home / ".other/O.md",
    }


def test_detection_by_directory_extension_glob_or_executable(tmp_path: Path) -> None:
    c = ctx(tmp_path)
    assert not SPEC.detect(c)
    ext = c.home / ".editor" / "extensions" / "vendor.imag-1.2.3"
    ext.mkdir(parents=True)
    assert SPEC.detect(c)
    shutil.rmtree(ext)
    (tmp_path / "bin").mkdir()
    shutil.copy(sys.executable, tmp_path / "bin" / "imag")
    assert SPEC.detect(ctx(tmp_path, PATH=str(tmp_path / "bin")))
    (c.home / ".config" / "imag").mkdir(parents=True)
    assert SPEC.detect(c)


def test_nothing_is_a_none_target_with_its_reason(tmp_path: Path) -> None:
    spec = AgentSpec("none", Place("~/.none"), FACTS, global_=Nothing("no global file"))
    c = ctx(tmp_path)
    (target,) = spec.targets(c)
    assert (target.mode, target.path, target.note) == (
        Mode.NONE,
        c.home / ".none",
        "no global file",
    )


def test_members_satisfy_the_contract_and_facts_are_checked() -> None:
    from types import SimpleNamespace

    NAME, detect, targets, inputs, native_memory = SPEC.members()
    module = SimpleNamespace(
        NAME=NAME, detect=detect, targets=targets, inputs=inputs,
        native_memory=native_memory, FACTS=SPEC.facts,
    )  # fmt: skip
    assert registry.features(module).facts is FACTS
    module.FACTS = {"title": "x"}
    with pytest.raises(registry.ContractError, match="FACTS must be"):
        registry.features(module)


def test_templates(tmp_path: Path) -> None:
    c = ctx(tmp_path, SOME="~/x")
    assert resolve("~/a", c, None) == c.home / "a"
    assert resolve("${SOME}/b", c, None) == Path("~/x").expanduser() / "b"
    assert resolve("${UNSET}/b", c, None) is None
    assert resolve("{root}", c, None) == c.project
    with pytest.raises(SpecError, match="does not start with"):
        resolve("relative/AGENTS.md", c, None)
