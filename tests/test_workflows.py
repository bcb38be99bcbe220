"""The hosted CI's workflow files (.github/workflows), which cannot run on this machine, are
kept valid here: each is checked against the hosted CI's own schema (schemastore's
github-workflow schema, as check-jsonschema vendors it, so no network is needed), and
against the facts this project relies on (the platforms it promises, pinned actions)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

WORKFLOWS = sorted((Path(__file__).parent.parent / ".github" / "workflows").glob("*.y*ml"))
# The labels GitHub's hosted runners answer to that this project uses (issue 27).
RUNNERS = {"macos-latest", "windows-latest", "ubuntu-latest"}
# Each action at the major this project moved to deliberately: the first majors that run on
# node24 or later (GitHub retires node20 actions). A bump is an edit here too.
ACTIONS = {
    "actions/checkout": "v7",
    "actions/setup-python": "v7",
    "actions/setup-node": "v7",
    "Vampire/setup-wsl": "v7",
}


def _check(path: Path) -> subprocess.CompletedProcess[str]:
    schema = ["--builtin-schema", "vendor.github-workflows"]
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", *schema, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _load(path: Path) -> dict[str, Any]:
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def test_there_are_workflows() -> None:
    assert WORKFLOWS, "no workflow under .github/workflows"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_a_workflow_fits_the_hosted_schema(path: Path) -> None:
    checked = _check(path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_schema_check_rejects_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    stepz: []\n")
    assert _check(broken).returncode != 0


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_jobs_run_on_known_runners_with_pinned_actions(path: Path) -> None:
    jobs: dict[str, dict[str, Any]] = _load(path)["jobs"]
    for name, job in jobs.items():
        matrix = job.get("strategy", {}).get("matrix", {})
        labels = matrix.get("os", []) if "matrix.os" in str(job["runs-on"]) else [job["runs-on"]]
        assert labels and set(labels) <= RUNNERS, (name, labels)
        assert "timeout-minutes" in job, name  # a hung job is a failure, not six hours
        for step in job["steps"]:
            uses = step.get("uses")
            if uses is not None:
                action, _, version = uses.partition("@")
                assert ACTIONS.get(action) == version, (name, uses)  # a major, never a branch


def test_the_platforms_workflow_covers_what_issue_27_promises() -> None:
    (platforms,) = (p for p in WORKFLOWS if p.name == "platforms.yml")
    text = platforms.read_text(encoding="utf-8")
    jobs = _load(platforms)["jobs"]
    assert jobs["suite"]["strategy"]["matrix"]["os"] == ["macos-latest", "windows-latest"]
    assert jobs["suite"]["strategy"]["matrix"]["python"] == ["3.11", "3.12", "3.13"]
    assert "Register-ScheduledTask" in text and "AllowDevelopmentWithoutDevLicense" in text
    assert any("setup-wsl" in s.get("uses", "") for s in jobs["wsl"]["steps"])
    for name in ("wsl", "agents-macos"):
        (agents,) = (
            s["run"] for s in jobs[name]["steps"] if "tests/agents/run.sh" in s.get("run", "")
        )
        assert "-p no:randomly" in agents and "KIMI_PYTHON=" in agents and "NODE24_BIN=" in agents


def _run(job: dict[str, Any], name: str) -> str:
    (step,) = (s for s in job["steps"] if s.get("name") == name)
    text = step["run"]
    assert isinstance(text, str)
    return text


def test_the_standard_user_is_made_without_a_prompt_and_a_failed_logon_is_named() -> None:
    """Audit of issue 27, workflow item 5: ``net user`` can stop at a (Y/N) prompt, and a
    task that never logged on left only "cannot find standard-user.log"."""
    (platforms,) = (p for p in WORKFLOWS if p.name == "platforms.yml")
    script = _run(_load(platforms)["jobs"]["standard-user"], "Suite as a standard user")
    assert "New-LocalUser" in script and "ConvertTo-SecureString" in script
    assert "net user $user" not in script
    assert script.index("LastTaskResult") < script.index("Get-Content standard-user.log")


def test_the_wsl_job_checks_the_real_windows_side() -> None:
    """Points 13-14 where they can only be seen: Windows git through interop on /mnt/c."""
    (platforms,) = (p for p in WORKFLOWS if p.name == "platforms.yml")
    wsl = _load(platforms)["jobs"]["wsl"]
    packages = next(s for s in wsl["steps"] if "setup-wsl" in s.get("uses", ""))["with"]
    assert "nodejs" not in packages["additional-packages"]  # Ubuntu's is Node 18
    check = _run(wsl, "A repository on the Windows drive, Windows git and doctor (points 13-14)")
    assert "/mnt/c/" in check and '"$coffer" project' in check and "git.exe" in check
    assert "Windows git cannot run coffer's clean filter" in check  # doctor names it
    assert "never links across" in check


def test_checkouts_keep_lf_on_windows() -> None:
    """Windows runners check out with core.autocrlf=true: without this, WSL gets a CRLF
    run.sh and byte-exact tests fail (audit of issue 27, workflow item 1)."""
    attributes = (Path(__file__).parent.parent / ".gitattributes").read_text(encoding="utf-8")
    assert "* text=auto eol=lf" in attributes.splitlines()


def test_ci_runs_the_simulated_platforms_the_docs_name() -> None:
    """docs/platforms.md calls these behaviours "simulated" or proven "here": in .ci/run."""
    steps = [
        line.split("#", 1)[0]
        for line in (Path(__file__).parent.parent / ".ci" / "run").read_text().splitlines()
    ]
    simulated = [s for s in steps if "COFFER_SIMULATE=windows" in s]
    assert len(simulated) == 1 and "-m pytest" in simulated[0] and "tests/" not in simulated[0]
    assert "for code_page in cp1252 gbk; do" in steps
    assert any('PYTHONIOENCODING="$code_page"' in s and s.endswith(" tests/cli") for s in steps)
