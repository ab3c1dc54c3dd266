"""Helpers shared by the tests: running the installed ``airqueue`` command and reading its
error output."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "scenarios" / "examples"
UDP_BOTTLENECK = EXAMPLES / "udp-bottleneck.toml"
DUMBBELL = EXAMPLES / "dumbbell.toml"

#: Everything `airqueue run` writes.
OUTPUT_FILES = (
    "summary.json",
    "flows.csv",
    "flows.parquet",
    "timeseries.parquet",
    "queues.parquet",
    "classes.parquet",
    "scenario.toml",
)

#: A run that would take days (a 100 Gbit/s link saturated for 1000 h): for tests that
#: stop runs with Ctrl-C or kill them.
RUNAWAY = """\
[run]
duration = "1000h"
sample_interval = "1000h"

[[nodes]]
name = "a"

[[nodes]]
name = "b"

[[links]]
name = "ab"
between = ["a", "b"]
rate = "100Gbit"

[[flows]]
name = "f"
from = "a"
to = "b"
app = { kind = "cbr", size = 100, interval = "1ns" }
"""

#: Signs that an error escaped as a crash instead of a message.
CRASH_MARKERS = ("Traceback", "panicked", "RUST_BACKTRACE")

_PROBLEM_LINE = re.compile(r"^\s+(\S.*?): ")


def airqueue_cli(
    *args: str | Path,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Runs ``python -m airqueue.cli ARGS`` (the installed package) and captures its output.

    The terminal is 200 columns wide so that rich does not fold table cells, and
    AIRQUEUE_DEBUG is unset unless ``env`` sets it.
    """
    full_env = {k: v for k, v in os.environ.items() if k != "AIRQUEUE_DEBUG"}
    full_env.update({"COLUMNS": "200", "NO_COLOR": "1"})
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "airqueue.cli", *(str(a) for a in args)],
        capture_output=True,
        text=True,
        cwd=cwd or REPO,
        env=full_env,
        timeout=300,
        check=False,
    )


def problem_paths(stderr: str) -> list[str]:
    """The field paths of the ``  path: message`` problem lines the CLI prints."""
    return [m.group(1) for line in stderr.splitlines() if (m := _PROBLEM_LINE.match(line))]


def reports_path(stderr: str, expected: str) -> bool:
    """Whether one of the problems is about exactly ``expected`` (a field path, or for
    file-level problems such as TOML syntax errors, the file's name)."""
    return any(
        p == expected or (expected.endswith(".toml") and Path(p).name == expected)
        for p in problem_paths(stderr)
    )


def require_binary(name: str, package: str) -> str:
    """The path of an external program a test needs; fails (never skips) when it is missing,
    saying how to install it, so that CI cannot pass without running the test."""
    import shutil

    path = shutil.which(name)
    if path is None:
        import pytest

        pytest.fail(
            f"{name} is not installed; install it with "
            f"`DEBIAN_FRONTEND=noninteractive apt-get install -y {package}` (.ci/run does)"
        )
    return path


def interrupt(
    argv: list[str],
    cwd: Path,
    after: float = 3.0,
    ready: Callable[[int], bool] | None = None,
    group: bool = True,
) -> tuple[int, str, float]:
    """Starts ``argv`` in its own process group, sends SIGINT to the group (as a terminal
    does; to the process alone if not ``group``) after ``after`` seconds, or once
    ``ready(pid)`` is true, and returns (exit code, stderr, seconds to exit).

    The child gets SIGINT's default disposition, as a terminal's foreground job has: a test
    run started in the background (``make test &``, some CI runners) has SIGINT ignored,
    children inherit that, and Python then installs no KeyboardInterrupt handler."""
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        start_new_session=True,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    if ready is None:
        time.sleep(after)
    else:
        deadline = time.monotonic() + 120
        while not ready(proc.pid) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
    sent = time.monotonic()
    if group:
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    try:
        _, stderr = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the run ignored Ctrl-C")
    return proc.returncode, stderr, time.monotonic() - sent
