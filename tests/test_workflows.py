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
                assert "@v" in uses, (name, uses)  # a released major version, never a branch


def test_the_platforms_workflow_covers_what_issue_27_promises() -> None:
    (platforms,) = (p for p in WORKFLOWS if p.name == "platforms.yml")
    text = platforms.read_text(encoding="utf-8")
    jobs = _load(platforms)["jobs"]
    assert jobs["suite"]["strategy"]["matrix"]["os"] == ["macos-latest", "windows-latest"]
    assert jobs["suite"]["strategy"]["matrix"]["python"] == ["3.11", "3.12", "3.13"]
    assert "Register-ScheduledTask" in text and "AllowDevelopmentWithoutDevLicense" in text
    assert any("setup-wsl" in s.get("uses", "") for s in jobs["wsl"]["steps"])
    for name in ("wsl", "agents-macos"):
        assert any("tests/agents/run.sh" in s.get("run", "") for s in jobs[name]["steps"])


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
