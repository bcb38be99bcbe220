"""The adapters of issue 12 §1's remaining agents (docs/adr/0030): where each renders, which
tiers are NONE and why, detection by an editor extension's directory, the files shared with
other agents, and the hosted agents' note; then one end-to-end run through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

from coffer.adapter import Context, Mode, Target
from coffer_adapters import (
    amazonq,
    antigravity,
    augment,
    cline,
    continue_,
    firebase_studio,
    jetbrains_ai,
    jules,
    junie,
    kilo,
    openhands,
    roo,
    trae,
    warp,
)
from coffer_adapters import gemini as gemini_adapter
from tests.adapters.test_spec_adapters import ctx_for, paths
from tests.helpers import coffer, project_shared_block

HOSTED = "`coffer project --git-block commit`"


def by_tier(module: ModuleType, ctx: Context) -> dict[str, Target]:
    return {t.tier: t for t in module.targets(ctx)}


def test_agents_reading_agents_md_share_the_project_block(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    assert ctx.project is not None
    for module in (roo, warp, continue_, augment, junie, trae, antigravity, amazonq, jules,
                   openhands):  # fmt: skip
        assert paths(module, ctx)["project"] == ctx.project / "AGENTS.md", module.NAME


def test_the_none_tiers_say_why(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    none = {  # one NONE tier each at least (the last one's note is kept)
        m.NAME: t.note
        for m in (roo, jetbrains_ai, trae, amazonq, jules, firebase_studio, openhands)
        for t in m.targets(ctx)
        if t.mode is Mode.NONE
    }
    assert set(none) == {m.NAME for m in (roo, jetbrains_ai, trae, amazonq, jules,
                                          firebase_studio, openhands)}  # fmt: skip
    assert ".roorules" in none["roo"]  # a ~/.roo/rules file would hide every project's
    assert all(note for note in none.values())
    assistant = by_tier(jetbrains_ai, ctx)
    assert {t.mode for t in assistant.values()} == {Mode.NONE}
    assert "apply: always" in assistant["project"].note


def test_roo_reads_agent_md_when_there_is_no_agents_md(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    assert ctx.project is not None
    (ctx.project / "AGENT.md").write_text("legacy\n")
    assert paths(roo, ctx)["project"] == ctx.project / "AGENT.md"


def test_a_warp_md_takes_the_block_and_the_global_file_is_clines(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    assert ctx.project is not None
    assert paths(warp, ctx)["global"] == ctx.home / ".agents" / "AGENTS.md"
    assert paths(warp, ctx)["global"] == paths(cline, ctx)["global"]  # one block, two readers
    (ctx.project / "WARP.md").write_text("warp rules\n")
    project = by_tier(warp, ctx)["project"]
    assert project.path == ctx.project / "WARP.md"
    assert "WARP.md exists, so Warp reads it instead of AGENTS.md" in project.note
    assert ctx.project / "WARP.md" in warp.inputs(ctx)[1]


def test_rule_directories_get_a_file_of_coffers_own(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    assert paths(continue_, ctx)["global"] == ctx.home / ".continue/rules/coffer-memory.md"
    assert paths(augment, ctx)["global"] == ctx.home / ".augment/rules/coffer-memory.md"
    moved = ctx_for(tmp_path, {"CONTINUE_GLOBAL_DIR": str(tmp_path / "cont")})
    assert paths(continue_, moved)["global"] == tmp_path / "cont/rules/coffer-memory.md"
    assert "CONTINUE_GLOBAL_DIR" in continue_.inputs(moved)[0]


def test_antigravity_shares_gemini_clis_global_file_within_its_cap(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    mine = by_tier(antigravity, ctx)["global"]
    assert mine.path == ctx.home / ".gemini" / "GEMINI.md" and mine.max_bytes == 12_000
    theirs = {t.tier: t.path for t in gemini_adapter.targets(ctx)}
    assert theirs["global"] == mine.path


def test_junie_shares_agents_md_and_warns_before_it_hides_legacy_guidelines(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    assert ctx.project is not None
    tiers = by_tier(junie, ctx)
    assert tiers["project"].path == ctx.project / "AGENTS.md"
    assert tiers["global"].path == ctx.home / ".junie" / "AGENTS.md"
    (ctx.project / ".junie").mkdir()
    (ctx.project / ".junie" / "guidelines.md").write_text("legacy\n")
    note = by_tier(junie, ctx)["project"].note
    assert "reads it instead of .junie/guidelines.md" in note
    (ctx.project / ".junie" / "AGENTS.md").write_text("preferred\n")
    assert paths(junie, ctx)["project"] == ctx.project / ".junie" / "AGENTS.md"


def test_hosted_agents_say_how_the_block_reaches_them(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    assert ctx.project is not None
    for module in (jules, firebase_studio, openhands):
        assert HOSTED in by_tier(module, ctx)["project"].note, module.NAME
    assert paths(firebase_studio, ctx)["project"] == ctx.project / ".idx" / "airules.md"
    assert not firebase_studio.detect(ctx)  # nothing local: on only when enabled


def test_editor_extensions_are_detected_by_their_directory(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    extensions = ctx.home / ".vscode" / "extensions"
    for module, directory in (
        (roo, "rooveterinaryinc.roo-cline-3.31.1"),
        (kilo, "kilocode.kilo-code-7.5.15"),
        (continue_, "continue.continue-1.2.3"),
        (augment, "augment.vscode-augment-0.600.0"),
        (amazonq, "amazonwebservices.amazon-q-vscode-1.90.0"),
    ):
        assert not module.detect(ctx), module.NAME
        (extensions / directory).mkdir(parents=True)
        assert module.detect(ctx), module.NAME


def test_the_new_agents_share_one_block_end_to_end(tmp_path: Path, fake_home: Path) -> None:
    repo = project_shared_block(
        tmp_path,
        fake_home,
        (".roo", ".warp", ".continue", ".augment", ".aws/amazonq", ".openhands", ".cline"),
    )
    listed = json.loads(coffer("adapter", "list", "--json", cwd=repo).stdout)
    reading = {
        a["name"]
        for a in listed["adapters"]
        if any(t["path"] == str(repo / "AGENTS.md") and t["state"] == "ok" for t in a["targets"])
    }
    assert {"roo", "warp", "continue", "augment", "amazonq", "openhands", "cline"} <= reading
    shared = (fake_home / ".agents" / "AGENTS.md").read_text()  # Warp's and Cline's
    assert shared.count("coffer:memory:start") == 1
    assert (fake_home / ".continue" / "rules" / "coffer-memory.md").is_file()
    assert not (fake_home / ".roo" / "rules").exists()  # Roo's global tier is NONE
    assert coffer("unproject", "--all", cwd=repo).returncode == 0
    assert not (repo / "AGENTS.md").exists()
    assert not (fake_home / ".agents").exists()
    assert not (fake_home / ".continue" / "rules").exists()
