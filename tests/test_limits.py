"""Memory limits (issue 33, items 2 and 3): under ``ulimit -v`` the default budget is what
the address-space limit leaves, so a run that cannot fit is refused before it starts with
exit 2 and a message naming the limit; an input that used to reserve memory up front
runs; and an allocation that fails anyway ends the run with exit 2 and a message, never
SIGABRT (exit 134). ``tools/limits_check.py`` runs every shipped scenario the same way,
also under a cgroup memory limit."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from airqueue import cli
from support import REPO, UDP_BOTTLENECK

#: ``ulimit -v 1500000``, in bytes.
ULIMIT_V = 1_500_000 * 1024

SLAVE_BUFFER = """\
[run]
duration = "2s"
warmup = "0s"
[[nodes]]
name = "m"
[[nodes]]
name = "s1"
[[piconets]]
name = "bt"
master = "m"
slaves = ["s1"]
slave_buffer = 4294967295
[[flows]]
name = "up"
from = "s1"
to = "m"
app = { kind = "cbr", size = 200, rate = "64kbit" }
"""

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS and /proc")


def cli_under(limit: int, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """The CLI in a child whose address space is limited to ``limit`` bytes."""

    def preexec() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = {k: v for k, v in os.environ.items() if k != "AIRQUEUE_DEBUG"}
    env.update({"COLUMNS": "200", "NO_COLOR": "1"})
    return subprocess.run(
        [sys.executable, "-m", "airqueue.cli", *(str(a) for a in args)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        preexec_fn=preexec,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_720_hour_run_is_refused_under_ulimit_v_naming_the_limit(
    command: str, tmp_path: Path
) -> None:
    """Half of this machine's memory would accept it; half of what ``ulimit -v 1500000``
    leaves does not."""
    extra = ["--out", str(tmp_path / "o")] if command == "run" else []
    proc = cli_under(ULIMIT_V, command, UDP_BOTTLENECK, "--set", "run.duration=720h", *extra)
    assert proc.returncode == 2, proc.stderr
    assert "run.sample_interval" in proc.stderr
    assert "ulimit -v 1500000" in proc.stderr, proc.stderr
    assert not (tmp_path / "o").exists()


def test_the_largest_slave_buffer_runs_under_ulimit_v(tmp_path: Path) -> None:
    """It used to reserve 2^32 slots (34 GB) at build and abort; the buffer now grows."""
    (tmp_path / "bt.toml").write_text(SLAVE_BUFFER)
    proc = cli_under(ULIMIT_V, "validate", tmp_path / "bt.toml")
    assert proc.returncode == 0, proc.stderr
    proc = cli_under(ULIMIT_V, "run", tmp_path / "bt.toml", "--out", tmp_path / "o", "-q")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "o" / "flows.parquet").exists()


def startup_address_space() -> int:
    """The address space (VmPeak) of a CLI that has validated a small scenario: what
    Python, NumPy, pandas and the core map before any scenario of size is built. It
    differs between installs (a fixed limit once failed inside pandas' import)."""
    probe = (
        "import runpy, sys\n"
        "sys.argv = ['airqueue', 'validate', sys.argv[1]]\n"
        "try:\n"
        "    runpy.run_module('airqueue.cli', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "peak = [l for l in open('/proc/self/status') if l.startswith('VmPeak:')][0]\n"
        "print(int(peak.split()[1]) * 1024)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, str(UDP_BOTTLENECK)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    return int(out.stdout.split()[-1])


def test_an_allocation_that_fails_anyway_exits_2_with_a_message_not_sigabrt() -> None:
    """With ``--max-memory`` far above an address-space limit 48 MB over what the CLI
    maps to validate a small scenario, the budget lets
    100 000 flows through and an allocation fails: exit 2 and a message, whether the
    core's allocator (crates/airqueue-py/src/oom.rs) or Python's MemoryError saw it."""
    proc = cli_under(
        startup_address_space() + 48 * 1024 * 1024,
        "validate",
        UDP_BOTTLENECK,
        "--set",
        "flows.cbr.count=100000",
        "--set",
        "flows.cbr.start_spacing=0s",
        "--max-memory",
        "10GB",
    )
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "out of memory" in proc.stderr, proc.stderr
    assert "--max-memory" in proc.stderr


def test_a_given_budget_above_ulimit_v_is_warned_about() -> None:
    proc = cli_under(ULIMIT_V, "validate", UDP_BOTTLENECK, "--max-memory", "10GB")
    assert proc.returncode == 0, proc.stderr
    assert "warning: run: --max-memory 10.0 GB is above the" in proc.stderr, proc.stderr
    assert "ulimit -v 1500000" in proc.stderr
    # A budget within what the limit leaves is not warned about.
    within = cli_under(ULIMIT_V, "validate", UDP_BOTTLENECK, "--max-memory", "100MB")
    assert within.returncode == 0 and "is above the" not in within.stderr, within.stderr


def test_a_memory_error_in_python_is_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    def app(**_: object) -> None:
        raise MemoryError("Unable to allocate 1.00 GiB for an array")

    monkeypatch.setattr(cli, "app", app)
    with pytest.raises(SystemExit) as info:
        cli.main()
    assert info.value.code == 2


def test_the_default_budget_is_within_the_address_space_limit() -> None:
    """In a child under ``ulimit -v``, ``default_max_memory`` is below half the limit."""
    code = "from airqueue import _native; print(_native.default_max_memory())"

    def preexec() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ULIMIT_V, ULIMIT_V))

    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        preexec_fn=preexec,
        check=True,
    ).stdout
    assert 0 < int(out) <= ULIMIT_V // 2
