"""The declarative adapters (coffer_adapters/*.py built from an AgentSpec): each passes the
conformance kit, each keeps the facts it was checked against, and each says what it writes
for the files its agent really loads (captured from each agent by real runs)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from coffer.adapter import Context, Mode, registry
from coffer.adapter.spec import AgentSpec
from coffer.testing import AdapterContract
from coffer_adapters import aider, cline, hermes, kilo, kimi, openclaw, opencode, pi, qwen, vibe
from tests import conftest

# Every registered adapter built from a spec, found the way coffer finds them: a new one is
# put through the kit without being listed here.
SPECS: list[ModuleType] = [
    a for a in registry.load_adapters().adapters.values()
    if isinstance(a, ModuleType) and isinstance(getattr(a, "SPEC", None), AgentSpec)
]  # fmt: skip


def _installed(module: ModuleType) -> type[AdapterContract]:
    def prepare(self: AdapterContract, ctx: Context) -> None:
        module.SPEC.config_dir(ctx).mkdir(parents=True, exist_ok=True)

    return type(f"TestContract_{module.NAME}", (AdapterContract,), {
        "adapter": module, "prepare": prepare,
    })  # fmt: skip


for _module in SPECS:
    globals()[f"TestContract_{_module.NAME}"] = _installed(_module)


def ctx_for(tmp_path: Path, environ: dict[str, str] | None = None) -> Context:
    home = tmp_path / "home"
    project = tmp_path / "work" / "p"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    home.mkdir(exist_ok=True)
    env = {"HOME": str(home), "PATH": "", "XDG_CONFIG_HOME": str(home / ".config")}
    return Context(home, {**env, **(environ or {})}, tmp_path / "store", project)


def paths(module: ModuleType, ctx: Context) -> dict[str, Path]:
    return {t.tier: t.path for t in module.targets(ctx)}


def test_the_declarative_adapters_are_found() -> None:
    assert {"cursor", "opencode", "qwen", "kilo", "pi", "cline", "openclaw"} <= {
        m.NAME for m in SPECS
    }
    assert {"aider", "hermes", "kimi", "vibe"} <= {m.NAME for m in SPECS}


@pytest.mark.parametrize("module", SPECS, ids=lambda m: m.NAME)
def test_every_spec_adapter_records_what_was_checked(module: ModuleType) -> None:
    spec: AgentSpec = module.SPEC
    facts = registry.features(module).facts
    assert facts is spec.facts and facts is not None
    assert spec.name == module.NAME
    assert facts.checked and all(c.version and c.how and c.source for c in facts.checked)
    assert facts.loads, "the files the agent loads, in order"
    # An agent's own memory coffer imports and switches off is described so in its FACTS.
    if module.native_memory(ctx_for_probe()) is not None:
        assert facts.native is not None
        assert not facts.native.coffer.startswith(("not managed", "out of reach"))


def ctx_for_probe() -> Context:
    return Context(Path("/nonexistent/home"), {}, Path("/nonexistent/store"), None)


@pytest.mark.parametrize("module", SPECS, ids=lambda m: m.NAME)
def test_an_agent_that_is_not_installed_is_not_detected(module, tmp_path) -> None:
    assert module.detect(ctx_for(tmp_path)) is False


@pytest.mark.parametrize("module", SPECS, ids=lambda m: m.NAME)
def test_tests_never_inherit_the_agent_directories_of_the_machine(module) -> None:
    # conftest clears or points into tmp_path every variable a spec reads, so no test
    # reaches a real config dir
    assert set(module.SPEC.env_names) <= {*conftest._CLEARED, *conftest._ISOLATED}


def test_qwen_shares_agents_md_and_keeps_its_own_global_file(tmp_path) -> None:
    ctx = ctx_for(tmp_path)
    assert paths(qwen, ctx) == {
        "project": ctx.project / "AGENTS.md",
        "global": ctx.home / ".qwen" / "QWEN.md",
    }
    assert qwen.FACTS.native is not None and qwen.FACTS.native.on_by_default


def test_kilo_renders_where_kilo_reads_and_never_hides_claude_md(tmp_path) -> None:
    ctx = ctx_for(tmp_path)
    assert paths(kilo, ctx)["global"] == ctx.home / ".claude" / "CLAUDE.md"
    own = ctx.home / ".config" / "kilo" / "AGENTS.md"
    own.parent.mkdir(parents=True)
    own.write_text("mine\n")
    assert paths(kilo, ctx)["global"] == own
    moved = tmp_path / "kilo-dir"
    moved.mkdir()
    (moved / "AGENTS.md").write_text("x\n")
    assert paths(kilo, ctx_for(tmp_path, {"KILO_CONFIG_DIR": str(moved)}))["global"] == (
        moved / "AGENTS.md"
    )
    env, files = kilo.inputs(ctx_for(tmp_path, {"KILO_CONFIG_DIR": str(moved)}))
    assert {"KILO_CONFIG_DIR", "KILO_DISABLE_CLAUDE_CODE_PROMPT", "XDG_CONFIG_HOME"} <= set(env)
    assert moved / "AGENTS.md" in files and own in files


def test_kilo_without_claude_fallback_creates_its_own_file(tmp_path) -> None:
    ctx = ctx_for(tmp_path, {"KILO_DISABLE_CLAUDE_CODE_PROMPT": "1"})
    assert paths(kilo, ctx)["global"] == ctx.home / ".config" / "kilo" / "AGENTS.md"


def test_kilo_project_files_switched_off_make_the_target_inactive(tmp_path) -> None:
    ctx = ctx_for(tmp_path, {"KILO_DISABLE_PROJECT_CONFIG": "1"})
    project = next(t for t in kilo.targets(ctx) if t.tier == "project")
    assert project.active is False and "KILO_DISABLE_PROJECT_CONFIG" in project.note


def test_pi_global_goes_into_the_file_pi_already_reads(tmp_path) -> None:
    ctx = ctx_for(tmp_path)
    agent = ctx.home / ".pi" / "agent"
    assert paths(pi, ctx)["global"] == agent / "AGENTS.md"
    agent.mkdir(parents=True)
    (agent / "CLAUDE.md").write_text("mine\n")
    target = next(t for t in pi.targets(ctx) if t.tier == "global")
    assert target.path == agent / "CLAUDE.md"
    assert "CLAUDE.md exists, so Pi reads it instead of AGENTS.md" in target.note
    moved = tmp_path / "pi"
    assert paths(pi, ctx_for(tmp_path, {"PI_CODING_AGENT_DIR": str(moved)}))["global"] == (
        moved / "AGENTS.md"
    )


def test_pi_and_opencode_warn_before_agents_md_hides_a_claude_md(tmp_path) -> None:
    ctx = ctx_for(tmp_path)
    assert ctx.project is not None
    (ctx.project / "CLAUDE.md").write_text("rules\n")
    for module in (pi, opencode, kilo):
        note = next(t for t in module.targets(ctx) if t.tier == "project").note
        assert "reads it instead of CLAUDE.md here" in note, module.NAME


def test_hermes_renders_into_its_own_project_file_when_there_is_one(tmp_path) -> None:
    ctx = ctx_for(tmp_path)
    assert ctx.project is not None
    by_tier = {t.tier: t for t in hermes.targets(ctx)}
    assert by_tier["project"].path == ctx.project / "AGENTS.md"
    assert by_tier["project"].max_bytes == 20_000
    assert by_tier["global"].mode is Mode.NONE
    (ctx.project / ".hermes.md").write_text("hermes only\n")
    project = next(t for t in hermes.targets(ctx) if t.tier == "project")
    assert project.path == ctx.project / ".hermes.md"
    assert "instead of AGENTS.md" in project.note


def test_kimi_keeps_the_root_file_in_its_budget_and_has_no_global_file(tmp_path) -> None:
    by_tier = {t.tier: t for t in kimi.targets(ctx_for(tmp_path))}
    assert by_tier["project"].max_bytes == 32 * 1024
    assert by_tier["global"].mode is Mode.NONE


def test_openclaw_global_is_the_workspace(tmp_path) -> None:
    ctx = ctx_for(tmp_path)
    assert paths(openclaw, ctx)["global"] == ctx.home / ".openclaw" / "workspace" / "AGENTS.md"
    state = tmp_path / "state"
    moved = ctx_for(tmp_path, {"OPENCLAW_STATE_DIR": str(state)})
    assert paths(openclaw, moved)["global"] == state / "workspace" / "AGENTS.md"


def test_aider_is_none_and_says_how_to_load_the_block(tmp_path) -> None:
    ctx = ctx_for(tmp_path)
    assert ctx.project is not None
    by_tier = {t.tier: t for t in aider.targets(ctx)}
    assert {t.mode for t in by_tier.values()} == {Mode.NONE}
    assert by_tier["project"].path == ctx.project / ".aider.conf.yml"
    assert "read: AGENTS.md" in by_tier["project"].note
    (ctx.home / ".aider.conf.yml").write_text("model: x\n")
    assert aider.detect(ctx) is True


def test_cline_and_vibe(tmp_path) -> None:
    ctx = ctx_for(tmp_path)
    assert paths(cline, ctx)["global"] == ctx.home / ".agents" / "AGENTS.md"
    assert paths(vibe, ctx)["global"] == ctx.home / ".vibe" / "AGENTS.md"
    moved = ctx_for(tmp_path, {"VIBE_HOME": str(tmp_path / "v")})
    assert paths(vibe, moved)["global"] == tmp_path / "v" / "AGENTS.md"


def test_zed_renders_into_the_one_rules_file_it_reads(tmp_path) -> None:
    from coffer_adapters import zed

    ctx = ctx_for(tmp_path)
    assert ctx.project is not None
    by_tier = {t.tier: t for t in zed.targets(ctx)}
    assert by_tier["project"].path == ctx.project / "AGENTS.md"
    assert by_tier["global"].mode is Mode.NONE
    (ctx.project / ".clinerules").mkdir()  # a directory: Zed reads files only
    assert paths(zed, ctx)["project"] == ctx.project / "AGENTS.md"
    (ctx.project / ".cursorrules").write_text("rules\n")
    project = next(t for t in zed.targets(ctx) if t.tier == "project")
    assert project.path == ctx.project / ".cursorrules"
    assert ".cursorrules exists, so Zed reads it instead of AGENTS.md" in project.note


def test_second_batch_targets(tmp_path) -> None:
    from coffer_adapters import amp, copilot, crush, droid, goose, kiro, windsurf

    ctx = ctx_for(tmp_path)
    assert ctx.project is not None
    home = ctx.home
    assert paths(goose, ctx)["global"] == home / ".config" / "goose" / ".goosehints"
    assert {t.tier: t.mode for t in crush.targets(ctx)}["global"] is Mode.NONE
    glob_ = next(t for t in windsurf.targets(ctx) if t.tier == "global")
    assert glob_.path == home / ".codeium/windsurf/memories/global_rules.md"
    assert glob_.max_bytes == 6_000
    assert paths(droid, ctx)["global"] == home / ".factory" / "AGENTS.md"
    assert paths(kiro, ctx)["global"] == home / ".kiro" / "steering" / "AGENTS.md"
    assert paths(copilot, ctx)["global"] == home / ".copilot" / "copilot-instructions.md"
    assert paths(amp, ctx)["global"] == home / ".config" / "amp" / "AGENTS.md"
    (ctx.project / "AGENT.md").write_text("legacy name\n")
    assert paths(amp, ctx)["project"] == ctx.project / "AGENT.md"
    for module in (goose, crush, windsurf, droid, kiro, copilot):
        assert paths(module, ctx)["project"] == ctx.project / "AGENTS.md", module.NAME


def test_copilot_is_detected_by_its_vs_code_extension(tmp_path) -> None:
    from coffer_adapters import copilot

    ctx = ctx_for(tmp_path)
    assert not copilot.detect(ctx)
    (ctx.home / ".vscode" / "extensions" / "github.copilot-chat-0.40.0").mkdir(parents=True)
    assert copilot.detect(ctx)
