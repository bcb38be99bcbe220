"""coffer.store.frontmatter reads the simple shape without PyYAML, and gives the rest to it."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import yaml

from coffer.store import entry, frontmatter
from coffer.store.entry import Entry, parse, serialize


def test_resolver_patterns_are_pyyamls() -> None:
    resolvers = {
        tag: rx.pattern for rs in yaml.SafeLoader.yaml_implicit_resolvers.values() for tag, rx in rs
    }

    def bare(pattern: str) -> str:  # both are verbose patterns: whitespace is not matched
        return "".join(pattern.split())

    assert bare(resolvers["tag:yaml.org,2002:int"]) == bare(frontmatter.INT.pattern)
    assert bare(resolvers["tag:yaml.org,2002:float"]) == bare(frontmatter.FLOAT.pattern)
    assert frontmatter.INT.flags & re.X and frontmatter.FLOAT.flags & re.X
    dumper = {
        tag: rx.pattern for rs in yaml.SafeDumper.yaml_implicit_resolvers.values() for tag, rx in rs
    }
    assert bare(dumper["tag:yaml.org,2002:timestamp"]) == bare(frontmatter.TIMESTAMP.pattern)
    assert dumper["tag:yaml.org,2002:int"] == resolvers["tag:yaml.org,2002:int"]
    assert dumper["tag:yaml.org,2002:float"] == resolvers["tag:yaml.org,2002:float"]


def test_what_coffer_writes_reads_back_without_yaml() -> None:
    e = Entry(
        name="deploy",
        description="we deploy with `make release` (see docs #3)",
        body="Run it.",
        metadata={
            "type": "project",
            "id": "01M8RJMJSHVD41DT2973QC3N8W",
            "created_at": "2026-12-01T10:30:00+00:00",
            "origin_session_id": "a1b2",
        },
        filename="deploy.md",
    )
    text = serialize(e)
    front = text.split("---\n")[1]
    assert frontmatter.simple(front) == yaml.load(front, Loader=entry._loader())
    back = parse(text, "deploy.md")
    assert (back.name, back.description, back.metadata) == (e.name, e.description, e.metadata)


def test_what_a_remember_writes_is_dumped_without_yaml() -> None:
    front = {
        "name": "retry-staging",
        "description": "retry the staging deploy twice, run 3 (don't skip it)",
        "metadata": {
            "type": "project",
            "id": "01M91EQAVFER6HP4JA98P42PBX",
            "created_at": "2026-12-04T21:17:50+00:00",
            "origin": "mcp:claude-code",
            "pending": True,
            "text_digest": "8c73de607ba8f1c5",
            "n": "1:20",
        },
    }
    fast = frontmatter.dumped(front)
    assert fast is not None and "created_at: '2026-12-04T21:17:50+00:00'" in fast
    assert fast == yaml.safe_dump(
        front, sort_keys=False, allow_unicode=True, default_flow_style=False, width=10_000
    )


@pytest.mark.parametrize(
    "front",
    [
        "name: x\n# a comment\n",
        "name: 1.5\n",
        "name: 0x1F\n",
        "name: yes\n",
        "name: ~\n",
        'name: "quoted"\n',
        "name: a: b\n",
        "name: x #c\n",
        "tags:\n  - a\n",
        "metadata:\n",
        "name: x\nname: y\n",
        "name:\tx\n",
        "name: &a x\n",
        "description: |\n  block\n",
        "  type: project\n",
        "metadata:\n    type: deep\n",
    ],
)
def test_anything_else_goes_to_yaml(front: str) -> None:
    assert frontmatter.simple(front) is None


def test_a_simple_entry_is_parsed_without_importing_yaml() -> None:
    code = (
        "import sys; from coffer.store.entry import parse; "
        "e = parse('---\\nname: d\\ndescription: x\\nmetadata:\\n  type: project\\n"
        "  id: 01ABC\\n---\\nbody\\n', 'd.md'); "
        "assert e.metadata == {'type': 'project', 'id': '01ABC'}, e; "
        "print('yaml' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "False\n"
