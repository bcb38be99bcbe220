"""The kill-point injection (coffer/base/faults.py) cuts the process on every system:
Windows has no SIGKILL, and there os.kill with SIGTERM is TerminateProcess."""

from __future__ import annotations

import os
import signal

import pytest

from coffer.base import faults


@pytest.mark.parametrize("has_sigkill", [True, False])
def test_a_kill_point_kills_with_what_the_system_has(
    has_sigkill: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not has_sigkill:
        monkeypatch.delattr(signal, "SIGKILL", raising=False)
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(os, "kill", lambda pid, sig: sent.append((pid, sig)))
    monkeypatch.setattr(faults, "_ACTIVE", True)
    monkeypatch.setattr(faults, "_KILL_AT", 2)
    monkeypatch.setattr(faults, "_done", 0)
    faults.step("tmpfile a")
    assert sent == []
    faults.step("rename a b")
    expected = signal.SIGKILL if has_sigkill else signal.SIGTERM
    assert sent == [(os.getpid(), expected)]
