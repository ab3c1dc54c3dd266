"""Live mode after ``kill -9`` (issue 34, "no namespace is left behind after Ctrl-C or
``kill -9`` + ``--cleanup``"): the killed run can remove nothing itself, so ``airqueue
live --cleanup`` must remove its namespaces and the ``--exec`` programs it left running
inside them (they run in their own sessions and outlive their parent). Needs root and
/dev/net/tun; skipped otherwise."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "live" / "two-hosts.toml"

pytestmark = [
    pytest.mark.skipif(not Path("/dev/net/tun").exists(), reason="no /dev/net/tun"),
    pytest.mark.skipif(os.geteuid() != 0, reason="live mode needs root (CAP_NET_ADMIN)"),
]


def namespaces(pid: int) -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(f"aq-{pid}-")]


def pids_in(ns: str) -> list[int]:
    out = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (killed, not yet reaped by its parent) counts as gone.
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return False


def test_kill_9_then_cleanup_leaves_no_namespace_and_no_program(tmp_path: Path) -> None:
    env = dict(os.environ)  # the installed airqueue, as the other CLI tests
    p = subprocess.Popen(
        [sys.executable, "-m", "airqueue", "live", str(SCENARIO), "--out", str(tmp_path),
         "--duration", "60s", "--exec", "a=ping -i 0.2 10.0.0.2", "--exec", "b=sleep 600"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (
            len(namespaces(p.pid)) == 2 and all(pids_in(n) for n in namespaces(p.pid))
        ):
            time.sleep(0.1)
        made = namespaces(p.pid)
        assert len(made) == 2, made
        left = [pid for n in made for pid in pids_in(n)]
        assert left, "the --exec programs run inside the namespaces"
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait(10)
    # The run could clean nothing up: its namespaces and programs are still there.
    assert sorted(namespaces(p.pid)) == sorted(made)
    assert any(alive(pid) for pid in left)
    r = subprocess.run(
        [sys.executable, "-m", "airqueue", "live", "--cleanup"],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    for n in made:
        assert n in r.stdout, r.stdout
    assert namespaces(p.pid) == []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(alive(pid) for pid in left):
        time.sleep(0.05)
    assert not any(alive(pid) for pid in left), left
