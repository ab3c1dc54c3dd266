"""Hardening: input that once crashed the loader or left processes behind. Bad input is a
ScenarioError naming the field and the fix (exit 2 in the CLI), never a traceback; a sweep
leaves no process behind when it is killed or interrupted."""

from __future__ import annotations

import copy
import functools
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest

import airqueue
from support import (
    CRASH_MARKERS,
    RUNAWAY,
    UDP_BOTTLENECK,
    airqueue_cli,
    interrupt,
    problem_paths,
)

#: One digit more than Python turns into a number (``sys.get_int_max_str_digits()``).
LONG = "9" * 4301
SEED_RANGE = "from 0 to 18446744073709551615"


def udp_text() -> str:
    return UDP_BOTTLENECK.read_text(encoding="utf-8")


def udp_data() -> dict[str, Any]:
    return tomllib.loads(udp_text())


def assert_exit_2_at(proc: Any, path: str) -> str:
    """The CLI refused the input cleanly, naming ``path``; returns that problem's line."""
    output = proc.stdout + proc.stderr
    for marker in (*CRASH_MARKERS, "internal error"):
        assert marker not in output, output[:2000]
    assert proc.returncode == 2, output[:2000]
    assert path in problem_paths(proc.stderr), output[:2000]
    return next(line for line in proc.stderr.splitlines() if line.strip().startswith(path))


# ---------------------------------------------------------------------------------------
# Whole numbers too long for Python to read
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_seed_of_4301_digits_is_refused_at_run_seed_with_the_seed_range(
    command: str, tmp_path: Path
) -> None:
    scenario = tmp_path / "long-seed.toml"
    scenario.write_text(udp_text().replace("seed = 1\n", f"seed = {LONG}\n"), encoding="utf-8")
    extra = ("--out", tmp_path / "out") if command == "run" else ()
    line = assert_exit_2_at(airqueue_cli(command, scenario, *extra), "run.seed")
    assert SEED_RANGE in line and "4,301 digits" in line, line
    with pytest.raises(airqueue.ScenarioError) as info:
        airqueue.load_scenario(scenario).resolved()
    assert info.value.problems[0][0] == "run.seed"


@pytest.mark.parametrize(
    ("old", "new", "path"),
    [
        ("limit = 100", f"limit = {LONG}", "qdiscs.router.bottleneck.limit"),
        ("size = 1172", f"size = -{LONG}", "flows.cbr.app.size"),
        ("size = 972", "size = 1_" + "0_" * 4300 + "0", "flows.poisson.app.size"),
        ('delay = "1ms"', f"delay = [1, {LONG}]", "links.access.delay[1]"),
    ],
)
def test_a_number_of_4301_digits_in_any_field_is_refused_at_its_path(
    old: str, new: str, path: str, tmp_path: Path
) -> None:
    text = udp_text()
    assert text.count(old) == 1
    scenario = tmp_path / "long.toml"
    scenario.write_text(text.replace(old, new), encoding="utf-8")
    line = assert_exit_2_at(airqueue_cli("validate", scenario), path)
    assert "digits" in line and "18,446,744,073,709,551,615" in line, line


def test_a_huge_number_from_the_api_or_set_is_a_scenario_error_at_its_path() -> None:
    data = udp_data()
    data["run"]["seed"] = 10**5000
    data["links"][0]["rate"] = -(10**5000)
    with pytest.raises(airqueue.ScenarioError) as info:
        airqueue.load_scenario(data).resolved()
    problems = dict(info.value.problems)
    assert SEED_RANGE in problems["run.seed"], problems
    assert "digits" in problems["links.access.rate"], problems
    with pytest.raises(airqueue.ScenarioError) as info:
        airqueue.run(UDP_BOTTLENECK, seed=10**5000)
    assert info.value.problems[0][0] == "seed"
    with pytest.raises(airqueue.ScenarioError) as info:
        airqueue.sweep(UDP_BOTTLENECK, seeds=10**5000)
    assert info.value.problems[0][0] == "--seeds"
    line = assert_exit_2_at(
        airqueue_cli("validate", UDP_BOTTLENECK, "--set", f"run.seed={LONG}"), "run.seed"
    )
    assert SEED_RANGE in line
    assert_exit_2_at(airqueue_cli("validate", UDP_BOTTLENECK, "--max-memory", LONG), "--max-memory")


def test_sweep_seeds_of_4301_digits_are_refused_at_sweep_seeds(tmp_path: Path) -> None:
    scenario = tmp_path / "long-seeds.toml"
    scenario.write_text(udp_text() + f"\n[sweep]\nseeds = {LONG}\n", encoding="utf-8")
    proc = airqueue_cli("sweep", scenario, "--out", tmp_path / "out")
    assert_exit_2_at(proc, "sweep.seeds")


# ---------------------------------------------------------------------------------------
# Nesting too deep in a dict
# ---------------------------------------------------------------------------------------


def nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def test_a_list_nested_1000_deep_in_a_dict_gets_the_toml_files_error(tmp_path: Path) -> None:
    scenario = tmp_path / "deep.toml"
    scenario.write_text(udp_text() + "\n[extra]\nx = " + "[" * 100 + "]" * 100 + "\n")
    with pytest.raises(airqueue.ScenarioError) as from_file:
        airqueue.load_scenario(scenario).resolved()
    data = udp_data()
    data["extra"] = {"x": nested(1000)}
    with pytest.raises(airqueue.ScenarioError) as from_dict:
        airqueue.load_scenario(data).resolved()
    assert from_dict.value.problems == from_file.value.problems
    assert any("nested more than 64" in m for _, m in from_dict.value.problems)


def test_a_dict_scenario_is_copied_with_its_shared_parts_shared() -> None:
    """As copy.deepcopy did: the caller's dict is not changed by overrides, and an entry
    used twice stays one entry."""
    data = udp_data()
    data["flows"][1]["app"] = app = data["flows"][0]["app"]
    before = copy.deepcopy(data)
    scenario = airqueue.load_scenario(data, set={"flows.cbr.app.size": 500})
    assert data == before
    flows = scenario.data["flows"]
    assert flows[1]["app"] is flows[0]["app"] is not app
    assert flows[1]["app"]["size"] == 500


# ---------------------------------------------------------------------------------------
# Files that are not UTF-8
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_file_that_is_not_utf8_is_told_the_line_and_column_and_to_save_as_utf8(
    command: str, tmp_path: Path
) -> None:
    scenario = tmp_path / "latin1.toml"
    text = udp_text().replace('name = "receiver"', 'name = "récepteur"')
    scenario.write_bytes(text.encode("latin-1"))
    line_no = text.splitlines().index('name = "récepteur"') + 1
    extra = ("--out", tmp_path / "out") if command == "run" else ()
    line = assert_exit_2_at(airqueue_cli(command, scenario, *extra), str(scenario))
    assert f"line {line_no}, column 10" in line and "0xE9" in line, line
    assert "save the file as UTF-8" in line, line
    assert "codec" not in line and "position" not in line, line


# ---------------------------------------------------------------------------------------
# A killed sweep leaves no process behind
# ---------------------------------------------------------------------------------------


def proc_stat(pid: int) -> tuple[int, str, int] | None:
    """(parent pid, state, start time) of a process from /proc, None once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (name) "
    return int(fields[1]), fields[0], int(fields[19])


def descendants(pid: int) -> dict[int, int]:
    """The processes below ``pid``, each with its start time (to tell a reused pid)."""
    children: dict[int, list[int]] = {}
    starts: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := proc_stat(int(entry.name))) is not None:
            children.setdefault(stat[0], []).append(int(entry.name))
            starts[int(entry.name)] = stat[2]
    found: dict[int, int] = {}
    todo = list(children.get(pid, []))
    while todo:
        p = todo.pop()
        found[p] = starts[p]
        todo.extend(children.get(p, []))
    return found


def running(processes: dict[int, int]) -> list[int]:
    """Those of ``processes`` that still run (a zombie has ended: it only awaits reaping)."""
    return [
        p
        for p, start in processes.items()
        if (stat := proc_stat(p)) is not None and stat[2] == start and stat[1] != "Z"
    ]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_killing_a_local_sweep_with_sigkill_leaves_no_process_behind(tmp_path: Path) -> None:
    """Measured before workers watched the sweep's process: both workers (busy in runs of
    days), the fork server and the resource tracker still ran minutes later."""
    (tmp_path / "runaway.toml").write_text(RUNAWAY)
    argv = [sys.executable, "-m", "airqueue.cli", "sweep", "runaway.toml", "--seeds", "4"]
    argv += ["--jobs", "2", "--out", "sw", "--quiet"]
    proc = subprocess.Popen(argv, cwd=tmp_path, start_new_session=True)
    below: dict[int, int] = {}
    try:
        deadline = time.monotonic() + 60
        # The workers are the fork server's children: wait until both run.
        while len([p for p in below if (st := proc_stat(p)) and st[0] != proc.pid]) < 2:
            assert time.monotonic() < deadline, f"no workers started: {below}"
            assert proc.poll() is None, "the sweep ended early"
            time.sleep(0.2)
            below = descendants(proc.pid)
        proc.kill()
        proc.wait()
        killed = time.monotonic()
        while (left := running(below)) and time.monotonic() - killed < 10:
            time.sleep(0.2)
        assert not left, f"still running 10 s after the sweep was killed: {left}"
    finally:
        proc.kill()
        for p in running(below):
            os.kill(p, signal.SIGKILL)


# ---------------------------------------------------------------------------------------
# Ctrl-C stops a Dask sweep quietly
# ---------------------------------------------------------------------------------------


def has_a_run(runs: Path, sweep_pid: int) -> bool:
    return any(runs.glob("*/*"))


@pytest.mark.parametrize("group", [True, False], ids=["terminal", "process"])
def test_ctrl_c_stops_a_dask_sweep_without_a_traceback(group: bool, tmp_path: Path) -> None:
    """Ctrl-C as a terminal sends it (to the process group: the workers get it too), and
    SIGINT to the sweep's process alone, each three times, once a run is stored. Measured
    before the workers were shielded from it and the cluster was stopped at once: worker
    tracebacks ("Process Dask Worker process (from Nanny)", failed heartbeats) in about
    half the tries, and 4 s to stop long runs."""
    for attempt in range(3):
        out = tmp_path / f"sw{attempt}"
        argv = [sys.executable, "-m", "airqueue.cli", "sweep", str(UDP_BOTTLENECK)]
        argv += ["--seeds", "400", "--jobs", "2", "--backend", "dask", "--out", str(out), "-q"]
        runs = out / "store" / "runs"
        code, stderr, seconds = interrupt(
            argv, tmp_path, ready=functools.partial(has_a_run, runs), group=group
        )
        assert code == 130, stderr
        for noise in ("Traceback", "Dask Worker", "ERROR", "leaked"):
            assert noise not in stderr, f"try {attempt + 1}:\n{stderr}"
        assert seconds < 10, f"try {attempt + 1}: {seconds:.1f} s to stop"


LEAK_PROGRAM = """
import multiprocessing, os, sys
from airqueue.cli import release_semaphores
queue = multiprocessing.get_context("spawn").Queue()
queue.put(1)
if sys.argv[1] == "release":
    release_semaphores()
sys.stderr.flush()
os._exit(130)
"""


@pytest.mark.parametrize("release", [True, False])
def test_an_interrupted_command_leaves_no_semaphore_to_the_resource_tracker(
    release: bool,
) -> None:
    """The CLI leaves on Ctrl-C with ``os._exit(130)``, which skips multiprocessing's exit
    handler; a queue still alive then (an interrupted Dask sweep's nannies hold three
    semaphores each) made the resource tracker warn of "leaked semaphore objects" (CI, on
    a loaded machine). ``release_semaphores`` runs the handler's finalizers first; without
    it the warning is printed (the second case shows the test can fail)."""
    arg = "release" if release else "keep"
    proc = subprocess.run(
        [sys.executable, "-c", LEAK_PROGRAM, arg], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 130, proc.stderr
    assert ("leaked semaphore" in proc.stderr) is not release, proc.stderr


def dask_workers_busy(sweep_pid: int) -> bool:
    """Whether both Dask worker processes of the sweep ``sweep_pid`` have run for 4 s (to
    start up, take a run and be inside it)."""
    ticks = os.sysconf("SC_CLK_TCK")
    now = float(Path("/proc/uptime").read_text().split()[0])
    started = [t for p, t in descendants(sweep_pid).items() if b"spawn_main" in cmdline(p)]
    return len(started) >= 2 and all(now - t / ticks >= 4 for t in started)


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_ctrl_c_stops_a_dask_sweep_of_long_runs_at_once(tmp_path: Path) -> None:
    """Its workers are busy in runs of days: they are killed, not waited for (that took the
    nannies' 4 s timeout, with the workers' failed heartbeats logged meanwhile)."""
    (tmp_path / "runaway.toml").write_text(RUNAWAY)
    argv = [sys.executable, "-m", "airqueue.cli", "sweep", "runaway.toml", "--seeds", "4"]
    argv += ["--jobs", "2", "--backend", "dask", "--out", "sw", "-q"]
    code, stderr, seconds = interrupt(argv, tmp_path, ready=dask_workers_busy, group=False)
    assert code == 130, stderr
    assert "Traceback" not in stderr and "ERROR" not in stderr, stderr
    assert seconds < 3, f"{seconds:.1f} s to stop"
