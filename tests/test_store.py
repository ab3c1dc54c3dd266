"""The result store: keys, atomic writes, parquet metadata, and resuming a killed sweep."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pandas as pd

import airqueue
from airqueue.result import parquet_metadata
from airqueue.store import ResultStore, run_key
from support import REPO, UDP_BOTTLENECK, airqueue_cli


def resolved() -> dict:
    return airqueue.load_scenario(UDP_BOTTLENECK).resolved()


def test_keys_change_with_scenario_seed_and_version_but_not_description() -> None:
    base = resolved()
    key = run_key(base, 1, "0.1.0")
    assert key == run_key(resolved(), 1, "0.1.0")
    assert key != run_key(base, 2, "0.1.0")
    assert key != run_key(base, 1, "0.2.0")
    other = resolved()
    other["links"][1]["rate"] = "20Mbit"
    assert key != run_key(other, 1, "0.1.0")
    described = resolved()
    described["description"] = "another text"
    assert key == run_key(described, 1, "0.1.0")


def test_puts_are_atomic_and_abandoned_temporaries_are_removed(tmp_path: Path) -> None:
    store = ResultStore(tmp_path)
    # A writer that died (pid 999999999 cannot exist) left half a run behind.
    dead = tmp_path / "tmp" / "abc.999999999.deadbeef"
    dead.mkdir()
    (dead / "flows.parquet").write_bytes(b"half")
    res = airqueue.run(UDP_BOTTLENECK)
    path = store.put("ab" + "0" * 62, res.encode(), {"seed": 1})
    assert store.has("ab" + "0" * 62) and path.parent.name == "ab"
    assert not store.has("abc")
    ResultStore(tmp_path)
    assert not dead.exists()
    assert list((tmp_path / "tmp").iterdir()) == []
    pd.testing.assert_frame_equal(store.result("ab" + "0" * 62).flows, res.flows)


def test_parquet_files_carry_scenario_version_and_seed(tmp_path: Path) -> None:
    res = airqueue.run(UDP_BOTTLENECK, seed=7)
    res.write(tmp_path / "run")
    for name in ("flows.parquet", "queues.parquet", "timeseries.parquet"):
        meta = parquet_metadata(tmp_path / "run" / name)
        assert meta["version"] == airqueue.__version__
        assert meta["seed"] == "7"
        assert tomllib.loads(meta["scenario"])["run"]["seed"] == 7
    sw = airqueue.sweep(UDP_BOTTLENECK, seeds=1, jobs=1, out=tmp_path / "sw")
    stored = ResultStore(tmp_path / "sw" / "store").path(sw.runs["key"].iloc[0])
    assert parquet_metadata(stored / "flows.parquet")["seed"] == "1"
    assert "[sweep]" not in parquet_metadata(tmp_path / "sw" / "runs.parquet")["scenario"]


def stored_runs(store: Path) -> dict[str, tuple[int, int]]:
    """Key -> (inode, mtime) of every complete stored run."""
    out = {}
    for info in (store / "runs").glob("*/*/run.json"):
        st = info.stat()
        out[info.parent.name] = (st.st_ino, st.st_mtime_ns)
    return out


def test_a_sweep_killed_half_way_resumes_without_redoing_finished_runs(tmp_path: Path) -> None:
    """Done-when: SIGKILL a sweep half-way, rerun it: it runs only the missing runs (counted
    by sweep.json's `executed`), keeps the finished ones untouched, and gives the same table
    as a sweep that was never interrupted."""
    out = tmp_path / "sweep"
    args = [
        sys.executable,
        "-m",
        "airqueue.cli",
        "sweep",
        str(UDP_BOTTLENECK),
        "--grid",
        "links.bottleneck.rate=5Mbit,10Mbit,15Mbit,20Mbit",
        "--seeds",
        "4",
        "--set",
        "run.duration=600s",
        "--jobs",
        "1",
        "--quiet",
        "--out",
        str(out),
    ]
    total = 16
    proc = subprocess.Popen(args, cwd=REPO, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not (out / "store").exists() or len(stored_runs(out / "store")) < 4:
            assert proc.poll() is None, "the sweep ended before it could be killed"
            assert time.monotonic() < deadline, "the sweep stored nothing in 120 s"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    before = stored_runs(out / "store")
    assert 4 <= len(before) < total, f"{len(before)} runs finished before the kill"
    assert not (out / "sweep.json").exists()

    resumed = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    info = json.loads((out / "sweep.json").read_text())
    assert (info["executed"], info["skipped"]) == (total - len(before), len(before))
    after = stored_runs(out / "store")
    assert len(after) == total
    assert all(after[k] == v for k, v in before.items()), "a finished run was rewritten"
    assert list((out / "store" / "tmp").iterdir()) == []

    clean = airqueue_cli(*args[3:-1], str(tmp_path / "clean"))
    assert clean.returncode == 0, clean.stderr
    pd.testing.assert_frame_equal(
        pd.read_parquet(out / "runs.parquet"), pd.read_parquet(tmp_path / "clean/runs.parquet")
    )
