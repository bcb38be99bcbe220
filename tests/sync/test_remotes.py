"""Hostile remotes and killed rounds, through the real CLI and real git (issue 22 §12-15,
issue 23 §9; docs/adr/0043): stale git locks, a remote that never answers, a lost push
race, the user's own ``core.sshCommand``, and `sync init` to a remote that is not up."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

import pytest

from coffer.base import platform
from coffer.store.entry import slugify
from tests.helpers import coffer
from tests.sync_machines import Machine, World, git, make_world

needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    return make_world(tmp_path, monkeypatch)


class FakeSsh(NamedTuple):
    """An ssh stand-in: logs each call, then runs the remote command here (a local repo
    over "ssh"), or, once ``hang`` exists, never answers: it starts a child and waits."""

    script: Path
    log: Path
    pids: Path
    hang: Path

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def started(self) -> list[int]:
        return [int(x) for x in self.pids.read_text().split()] if self.pids.exists() else []


def fake_ssh(where: Path) -> FakeSsh:
    where.mkdir(parents=True, exist_ok=True)
    fake = FakeSsh(where / "fake-ssh", where / "ssh.log", where / "ssh.pids", where / "hang")
    fake.script.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> "{fake.log}"\n'
        'case " $* " in *" -G "*) exit 1;; esac\n'  # git asking which ssh this is: a plain one
        f'if [ -e "{fake.hang}" ]; then\n'
        "  sleep 300 &\n"
        f'  echo "$$ $!" >> "{fake.pids}"\n'
        "  wait\n"
        "fi\n"
        'for last; do :; done\nexec sh -c "$last"\n'
    )
    fake.script.chmod(0o755)
    return fake


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie waiting to be reaped does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def working_in(repo: Path) -> list[int]:
    """Processes whose working directory is ``repo`` (every git coffer runs there)."""
    out = []
    target = os.path.realpath(repo)
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if os.readlink(f"/proc/{pid}/cwd") == target and alive(int(pid)):
                    out.append(int(pid))
            except OSError:
                continue
    return out


def over_ssh(world: World, m: Machine, fake: FakeSsh, **extra: str) -> dict[str, str]:
    """``m``'s environment with sync set up through the fake ssh (to the world's remote)."""
    env = {**m.env, "GIT_SSH_COMMAND": str(fake.script), **extra}
    done = coffer("sync", "init", f"ssh://fake.invalid{world.remote}", "--host", m.name, env=env)
    assert done.returncode == 0, done.stderr
    return env


# ---- 22.12: git's locks left by a killed round ---------------------------------------------


def test_a_stale_git_lock_left_by_a_killed_round_is_recovered_and_doctor_says_so(
    world: World,
) -> None:
    a = world.a
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    a.ok("sync")
    repo = a.store_root / "sync" / "repo.git"
    # What a round killed inside `git update-ref` leaves: the ref's lock, and the index's.
    for name in ("refs/heads/main.lock", "coffer-index.lock"):
        (repo / name).write_text("0" * 40 + "\n")
        os.utime(repo / name, (time.time() - 120, time.time() - 120))
    doctor = coffer("doctor", cwd=a.project, env=a.env)
    assert doctor.returncode == 1, doctor.stdout
    assert f"warning: sync: {repo / 'refs/heads/main.lock'}: git's lock left by a killed" in (
        doctor.stdout
    )
    a.ok("remember", "Releases are tagged vX.Y.", "--name", "tags")
    said = coffer("sync", cwd=a.project, env=a.env)
    assert said.returncode == 0, said.stderr
    assert "pushed 1 file" in said.stdout
    assert "removed git's stale coffer-index.lock, refs/heads/main.lock" in said.stdout
    assert not list(repo.rglob("*.lock"))
    assert "tags.md" in git("ls-tree", "-r", "--name-only", "main", cwd=world.remote)
    assert "warning: sync" not in coffer("doctor", cwd=a.project, env=a.env).stdout


def test_a_fresh_lock_is_left_alone(world: World) -> None:
    # A lock seconds old may belong to a git that is just starting: not taken away.
    a = world.a
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    repo = a.store_root / "sync" / "repo.git"
    (repo / "refs" / "heads").mkdir(parents=True, exist_ok=True)
    (repo / "refs/heads/main.lock").write_text("")
    said = coffer("sync", cwd=a.project, env=a.env)
    assert said.returncode == 1
    assert "main.lock" in said.stderr and "Traceback" not in said.stderr
    assert "removes the lock once no git uses it for 10 s" in said.stderr
    doctor = coffer("doctor", cwd=a.project, env=a.env)
    assert f"info: sync: {repo / 'refs/heads/main.lock'}: git's lock of a sync round" in (
        doctor.stdout
    )


# ---- 22.13: a remote that never answers ----------------------------------------------------


@pytest.mark.posix_only("a #!/bin/sh script run as a program")
@needs_proc
def test_a_remote_that_never_answers_costs_the_budget_and_leaves_no_process(
    world: World, tmp_path: Path
) -> None:
    a = world.a
    fake = fake_ssh(tmp_path / "ssh")
    env = over_ssh(world, a, fake, COFFER_SYNC_TIMEOUT="2")
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    fake.hang.touch()
    start = time.monotonic()
    said = coffer("sync", cwd=a.project, env=env)
    took = time.monotonic() - start
    assert said.returncode == 1, said
    assert "no answer within 2 s (COFFER_SYNC_TIMEOUT)" in said.stderr
    assert "nothing is lost" in said.stderr and "Traceback" not in said.stderr
    assert took < 10, took
    started = fake.started()  # the ssh and the child it started
    assert len(started) >= 2, fake.calls()
    assert [p for p in started if alive(p)] == []
    assert working_in(a.store_root / "sync" / "repo.git") == []
    # The lock is free again and nothing was lost: once the remote answers, it all goes.
    fake.hang.unlink()
    said = coffer("sync", cwd=a.project, env=env)
    assert said.returncode == 0 and "pushed 1 file" in said.stdout, said


@pytest.mark.posix_only("POSIX signals (SIGTERM to a child)")
@needs_proc
def test_a_stopping_watcher_kills_the_git_and_ssh_of_a_round_in_flight(
    world: World, tmp_path: Path
) -> None:
    a = world.a
    fake = fake_ssh(tmp_path / "ssh")
    env = over_ssh(world, a, fake, COFFER_SYNC_TIMEOUT="600")
    fake.hang.touch()
    log = tmp_path / "watch.log"
    cmd = [sys.executable, "-m", "coffer", "watch", "--log-file", str(log)]
    proc = subprocess.Popen(cmd, env={**os.environ, **env}, cwd=a.project, stderr=subprocess.PIPE)
    try:
        end = time.monotonic() + 30
        while not fake.started():
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < end, log.read_text() if log.exists() else "no log"
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    time.sleep(0.2)  # the kernel's own delivery of the kill
    assert [p for p in fake.started() if alive(p)] == []
    assert working_in(a.store_root / "sync" / "repo.git") == []
    assert "cut short" in log.read_text()


# ---- 22.14: a lost push race ----------------------------------------------------------------


@pytest.mark.posix_only("a #!/bin/sh script run as a program")
def test_a_push_that_loses_a_race_merges_and_pushes_again(world: World) -> None:
    a, b = world.a, world.b
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    a.ok("sync")
    b.ok("sync")
    first = git("rev-parse", "main", cwd=world.remote).strip()
    b.ok("remember", "Releases are tagged vX.Y.", "--name", "tags")
    b.ok("sync")
    # B's push is held back and lands exactly while A's push is being received: the ref
    # moves between the remote's check and its update ("failed to update ref").
    theirs = git("rev-parse", "main", cwd=world.remote).strip()
    git("update-ref", "refs/race/b", theirs, cwd=world.remote)
    git("update-ref", "refs/heads/main", first, cwd=world.remote)
    hook = world.remote / "hooks" / "pre-receive"
    hook.write_text(
        "#!/bin/sh\n"
        f'[ -e "{world.remote}/raced" ] && exit 0\n'
        f'touch "{world.remote}/raced"\n'
        "env -u GIT_QUARANTINE_PATH git update-ref refs/heads/main refs/race/b\n"
    )
    hook.chmod(0o755)
    a.ok("remember", "CI runs on every push.", "--name", "ci")
    said = coffer("sync", cwd=a.project, env=a.env)
    assert (world.remote / "raced").exists()
    assert said.returncode == 0, said.stderr
    assert "cannot reach" not in said.stdout + said.stderr
    assert "pulled 1 file" in said.stdout and "pushed" in said.stdout
    files = git("ls-tree", "-r", "--name-only", "main", cwd=world.remote).split()
    assert {f.rpartition("/")[2] for f in files} == {"deploy.md", "tags.md", "ci.md"}


@pytest.mark.posix_only("a #!/bin/sh script run as a program")
def test_a_push_the_remote_refuses_is_said_as_refused_not_unreachable(world: World) -> None:
    a = world.a
    hook = world.remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'pushes are frozen' >&2\nexit 1\n")
    hook.chmod(0o755)
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    said = coffer("sync", cwd=a.project, env=a.env)
    assert said.returncode == 1
    assert "refused the push" in said.stderr and "pre-receive hook declined" in said.stderr
    assert "cannot reach" not in said.stderr


# ---- 22.15: the user's core.sshCommand ------------------------------------------------------


@pytest.mark.posix_only("a #!/bin/sh script run as a program")
def test_the_users_core_sshcommand_is_the_ssh_sync_runs(world: World, tmp_path: Path) -> None:
    a = world.a
    fake = fake_ssh(tmp_path / "ssh")
    git("config", "--file", str(a.home / ".gitconfig"), "core.sshCommand", str(fake.script))
    env = {k: v for k, v in a.env.items() if k != "GIT_SSH_COMMAND"}
    url = f"ssh://fake.invalid{world.remote}"
    done = coffer("sync", "init", url, "--host", "a", cwd=a.project, env=env)
    assert done.returncode == 0, done.stderr
    a.ok("remember", "We deploy with make release.", "--name", "deploy")
    said = coffer("sync", cwd=a.project, env=env)
    assert said.returncode == 0, said.stderr
    assert "pushed 1 file" in said.stdout
    # Run as the user wrote it: coffer's -o options are for a plain ssh, not a wrapper.
    calls = [c for c in fake.calls() if " -G " not in f" {c} "]
    assert calls and all(c.startswith("fake.invalid git-") for c in calls), calls


# ---- 23.9: `sync init` to a remote that does not answer today --------------------------------


def test_init_to_an_unreachable_remote_keeps_the_configuration(tmp_path: Path) -> None:
    remote = tmp_path / "later.git"
    done = coffer("sync", "init", str(remote), "--host", "a", cwd=tmp_path)
    assert done.returncode == 1
    assert f"cannot reach {remote}" in done.stderr
    assert "sync is set up all the same: `coffer sync` tries it again" in done.stderr
    said = coffer("sync", cwd=tmp_path)
    assert "not set up" not in said.stderr
    assert said.returncode == 1 and f"cannot reach {remote}" in said.stderr
    git("init", "-q", "--bare", "-b", "main", str(remote))  # the remote is up now
    coffer("remember", "Tabs, not spaces.", "--name", "tabs", "--scope", "global", cwd=tmp_path)
    said = coffer("sync", cwd=tmp_path)
    assert said.returncode == 0, said.stderr
    assert "pushed 1 file" in said.stdout


def test_init_without_a_host_names_this_machine_and_its_entries(tmp_path: Path) -> None:
    # The name a machine's commits and conflict copies carry, and the one provenance stamps
    # on what is written here: the short host name (os.uname, no socket; ADR 0049).
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", "-b", "main", str(remote))
    done = coffer("sync", "init", str(remote), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    host = slugify(platform.host_name(), limit=32) or "machine"
    assert json.loads(coffer("sync", "status", "--json", cwd=tmp_path).stdout)["host"] == host
    coffer("remember", "Tabs, not spaces.", "--name", "tabs", "--scope", "global", cwd=tmp_path)
    shown = json.loads(coffer("show", "tabs", "--scope", "global", "--json", cwd=tmp_path).stdout)
    assert shown["metadata"]["origin_machine"] == host
