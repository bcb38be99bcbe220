"""The example adapter passes coffer's conformance kit, and its memory switch is exact."""

from __future__ import annotations

import coffer_adapter_example as example
import pytest

from coffer.adapter import Context
from coffer.base.errors import CofferError
from coffer.testing import AdapterContract


class TestExample(AdapterContract):
    adapter = example

    def prepare(self, ctx: Context) -> None:
        # The agent is installed, remembers something and has its memory on: the kit's
        # project/undo tests then cover the import and the switch as well as the blocks.
        folder = ctx.home / ".example-agent"
        folder.mkdir()
        (folder / "config").write_bytes(b"# Example Agent\nmodel = small\nmemory = on\n")
        (folder / "memory.md").write_text("The user prefers short answers.\n")


CONFIGS = [
    None,
    b"",
    b"model = small",
    b"model = small\n",
    b"memory = on\nmodel = small\n",
    b"model = small\r\nmemory   =   on   # mine\r\n",
    b"memory = yes",
]


@pytest.mark.parametrize("data", CONFIGS)
def test_switch_turns_memory_off_and_back_exactly(data: bytes | None) -> None:
    assert example.enabled(data)
    new, previous = example.disable(data)
    assert not example.enabled(new)
    assert example.restore(new, previous) == (data or b"")


def test_lines_added_below_survive_the_restore() -> None:
    new, previous = example.disable(b"model = small")
    assert example.restore(new + b"theme = dark\n", previous) == b"model = small\ntheme = dark\n"


def test_a_switch_someone_turned_back_on_is_left_alone() -> None:
    new, previous = example.disable(b"memory = on\n")
    with pytest.raises(CofferError):
        example.restore(new.replace(b"off", b"on"), previous)
