"""The team tier under the store's hostile-content rules (docs/adr/0018, 0036): teammates'
files carrying a secret of every family in every field, file names included, never put it
into a rendered file, the team index or a message."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coffer.secrets import find_secrets, visible
from tests.helpers import coffer, make_repo
from tests.properties.test_hostile_props import hostile_entry


@settings(
    max_examples=int(os.environ.get("COFFER_PROPERTY_EXAMPLES", "8")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(hostile_entry(), min_size=1, max_size=5))
def test_no_team_file_puts_a_secret_into_what_is_committed_or_printed(
    tmp_path: Path, fake_home: Path, entries: list[tuple[str, str, str]]
) -> None:
    (fake_home / ".claude").mkdir(exist_ok=True)
    (fake_home / ".codex").mkdir(exist_ok=True)
    repo = make_repo(tmp_path / uuid.uuid4().hex)
    assert coffer("team", "init", cwd=repo).returncode == 0
    team = repo / ".coffer" / "memory"
    (team / "deploy.md").write_text("We deploy with make release.\n")
    for filename, text, _ in entries:
        (team / filename).write_text(text, encoding="utf-8", errors="surrogatepass")
    results = [coffer("project", cwd=repo), coffer("team", "list", cwd=repo)]
    results += [coffer("doctor", cwd=repo), coffer("recall", "note", "--json", cwd=repo)]
    assert results[0].returncode == 0, results[0].stderr
    # `team add` of the clean entry regenerates the committed index over every file
    assert coffer("remember", "Tabs.", "--name", "tabs", cwd=repo).returncode == 0
    results.append(coffer("team", "add", "tabs", cwd=repo))
    rendered = [repo / "AGENTS.md", team / "MEMORY.md"]
    files = [p.read_text(encoding="utf-8", errors="replace") for p in rendered if p.exists()]
    for text in files:
        assert find_secrets(text) == [], text
    for text in [*files, *(r.stdout for r in results), *(r.stderr for r in results)]:
        for _, _, secret in entries:
            assert secret not in text and secret not in visible(text)
    assert "We deploy with make release." in (repo / "AGENTS.md").read_text()
