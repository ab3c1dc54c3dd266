"""Sweeps: grids, seeds, the local and Dask backends, aggregates, the [sweep] table."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import airqueue
from airqueue.sweep import ALL_FLOWS, Axis, mean_ci, parse_grid, parse_range
from support import UDP_BOTTLENECK, airqueue_cli, problem_paths

RATES = "links.bottleneck.rate=5Mbit,10Mbit,20Mbit"


def test_ranges_include_stop_and_keep_units_and_exact_decimals() -> None:
    assert parse_range("5:25:5", "g") == (5, 10, 15, 20, 25)
    assert parse_range("0.1:0.3:0.1", "g") == (0.1, 0.2, 0.3)
    assert parse_range("2Mbit:10Mbit:4Mbit", "g") == ("2Mbit", "6Mbit", "10Mbit")
    assert parse_range("1:10:4", "g") == (1, 5, 9)
    assert parse_range("10Mbit", "g") is None
    assert parse_grid("run.seed=1,2,3") == Axis("run.seed", (1, 2, 3))
    assert parse_grid("flows.x.app.rate=1Mbit, 2Mbit") == Axis(
        "flows.x.app.rate", ("1Mbit", "2Mbit")
    )


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("x=1Mbit:2kbit:1Mbit", "same unit"),
        ("x=5:1:1", "lead from start to stop"),
        ("x=0:1e9:1", "at most"),
        ("x", "PATH=v1,v2"),
    ],
)
def test_bad_grids_say_how_to_write_them(spec: str, fragment: str) -> None:
    with pytest.raises(airqueue.ScenarioError) as e:
        parse_grid(spec)
    assert fragment in str(e.value.problems)


def test_student_t_interval_matches_the_table_value() -> None:
    # Reference: t(0.975, 4) = 2.776 (any Student-t table); 95 % CI = mean ± t·s/√n.
    v = np.array([1.0, 2.0, 3.0, 4.0, 6.0])
    n, mean, sd, lo, hi = mean_ci(v)
    assert (n, mean) == (5, 3.2)
    assert sd == pytest.approx(1.923538, rel=1e-6)
    assert hi - mean == pytest.approx(2.776445 * sd / math.sqrt(5), rel=1e-6)
    assert mean - lo == pytest.approx(hi - mean)
    assert math.isnan(mean_ci(np.array([1.0]))[3])


def test_local_and_dask_sweeps_give_identical_tables(tmp_path: Path) -> None:
    """Done-when: 3 grid values x 5 seeds over udp-bottleneck, locally and on a Dask
    LocalCluster: the two result tables are identical."""
    local = airqueue.sweep(UDP_BOTTLENECK, grid=[RATES], seeds=5, jobs=2, out=tmp_path / "local")
    dask = airqueue.sweep(
        UDP_BOTTLENECK, grid=[RATES], seeds=5, jobs=2, out=tmp_path / "dask", backend="dask"
    )
    assert (local.executed, dask.executed) == (15, 15)
    assert len(local.runs) == 15 * 5  # runs x flows
    assert list(local.runs["seed"].unique()) == [1, 2, 3, 4, 5]
    assert list(local.runs["links.bottleneck.rate"].unique()) == ["5Mbit", "10Mbit", "20Mbit"]
    pd.testing.assert_frame_equal(local.runs, dask.runs)
    pd.testing.assert_frame_equal(local.points, dask.points)
    assert (tmp_path / "local/runs.parquet").read_bytes() == (
        tmp_path / "dask/runs.parquet"
    ).read_bytes()


def test_a_sweep_run_equals_the_single_run_of_that_point_and_seed(tmp_path: Path) -> None:
    sw = airqueue.sweep(UDP_BOTTLENECK, grid=[RATES], seeds=2, jobs=2)
    one = airqueue.run(UDP_BOTTLENECK, seed=2, set={"links.bottleneck.rate": "10Mbit"})
    rows = sw.runs[(sw.runs["seed"] == 2) & (sw.runs["links.bottleneck.rate"] == "10Mbit")]
    flows = rows.drop(columns=["point", "links.bottleneck.rate", "seed", "key"])
    expected = one.flows.assign(
        **{c: one.flows[c].astype(str) for c in ("flow", "from", "to", "transport", "app")}
    )
    pd.testing.assert_frame_equal(flows.reset_index(drop=True), expected, check_dtype=False)


def test_point_aggregates_are_the_mean_over_seeds(tmp_path: Path) -> None:
    sw = airqueue.sweep(UDP_BOTTLENECK, grid=[RATES], seeds=3, jobs=1)
    pts = sw.points
    cbr0 = pts[(pts["point"] == 0) & (pts["flow"] == "cbr0") & (pts["metric"] == "goodput_bps")]
    raw = sw.runs[(sw.runs["point"] == 0) & (sw.runs["flow"] == "cbr0")]["goodput_bps"]
    assert cbr0["mean"].item() == pytest.approx(raw.mean())
    assert cbr0["n"].item() == 3
    _, _, sd, lo, hi = mean_ci(raw.to_numpy(dtype=float))
    assert (cbr0["std"].item(), cbr0["ci95_low"].item(), cbr0["ci95_high"].item()) == (
        pytest.approx(sd),
        pytest.approx(lo),
        pytest.approx(hi),
    )
    total = pts[(pts["point"] == 0) & (pts["flow"] == ALL_FLOWS) & (pts["metric"] == "goodput_bps")]
    per_seed = sw.runs[sw.runs["point"] == 0].groupby("seed")["goodput_bps"].sum()
    assert total["mean"].item() == pytest.approx(per_seed.mean())
    jain = pts[(pts["point"] == 0) & (pts["flow"] == ALL_FLOWS) & (pts["metric"] == "jain_index")]
    assert 0.2 <= jain["mean"].item() <= 1.0


def test_rerun_skips_stored_runs_and_a_changed_scenario_recomputes(tmp_path: Path) -> None:
    store = tmp_path / "store"
    first = airqueue.sweep(UDP_BOTTLENECK, grid=[RATES], seeds=2, jobs=2, store=store)
    again = airqueue.sweep(UDP_BOTTLENECK, grid=[RATES], seeds=3, jobs=2, store=store)
    assert (first.executed, again.executed, again.skipped) == (6, 3, 6)
    changed = airqueue.sweep(
        UDP_BOTTLENECK, grid=[RATES], seeds=2, jobs=2, store=store, set=["run.duration=5s"]
    )
    assert (changed.executed, changed.skipped) == (6, 0)
    pd.testing.assert_frame_equal(
        first.runs, again.runs[again.runs["seed"] < 3].reset_index(drop=True)
    )


def test_the_sweep_table_of_a_scenario_file_drives_the_sweep(tmp_path: Path) -> None:
    text = UDP_BOTTLENECK.read_text() + (
        '\n[sweep]\ngrid = { "links.bottleneck.rate" = ["5Mbit", "10Mbit"], '
        '"qdiscs.router.bottleneck.limit" = "50:100:50" }\nseeds = 2\n'
    )
    path = tmp_path / "swept.toml"
    path.write_text(text)
    sw = airqueue.sweep(path, jobs=2)
    assert sw.info["runs"] == 2 * 2 * 2
    assert sw.params == ["links.bottleneck.rate", "qdiscs.router.bottleneck.limit"]
    # --grid replaces the file's axis of the same path.
    sw2 = airqueue.sweep(path, grid=["links.bottleneck.rate=20Mbit"], seeds=1, jobs=1)
    assert sorted(sw2.runs["links.bottleneck.rate"].unique()) == ["20Mbit"]
    # run and validate use the base point and ignore the table.
    assert airqueue.run(path).summary["conservation_ok"]
    proc = airqueue_cli("validate", path)
    assert proc.returncode == 0, proc.stderr


def test_a_bad_sweep_table_names_its_key(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(UDP_BOTTLENECK.read_text() + "\n[sweep]\ngird = {}\nseeds = 0\n")
    proc = airqueue_cli("sweep", path, "--out", tmp_path / "o")
    assert proc.returncode == 2
    assert "sweep.gird" in problem_paths(proc.stderr)


def test_an_invalid_grid_point_is_reported_with_its_values(tmp_path: Path) -> None:
    proc = airqueue_cli(
        "sweep",
        UDP_BOTTLENECK,
        "--grid",
        "links.bottleneck.rate=10Mbit,10 mbps",
        "--out",
        tmp_path / "o",
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "links.bottleneck.rate (at links.bottleneck.rate=10 mbps)" in problem_paths(proc.stderr)


def test_cli_sweep_writes_tables_and_prints_the_points(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    proc = airqueue_cli(
        "sweep",
        UDP_BOTTLENECK,
        "--grid",
        "links.bottleneck.rate=5Mbit:15Mbit:5Mbit",
        "--seeds",
        "2",
        "--jobs",
        "2",
        "--out",
        out,
    )
    assert proc.returncode == 0, proc.stderr
    for name in ("runs.parquet", "runs.csv", "points.parquet", "points.csv", "sweep.json"):
        assert (out / name).is_file(), name
    info = json.loads((out / "sweep.json").read_text())
    assert info["grid"] == {"links.bottleneck.rate": ["5Mbit", "10Mbit", "15Mbit"]}
    assert (info["runs"], info["executed"]) == (6, 6)
    assert "15Mbit" in proc.stdout and "6 executed" in proc.stdout
    assert pd.read_csv(out / "runs.csv").shape[0] == 6 * 5


def test_a_sweep_runs_on_a_dask_scheduler_given_by_address(tmp_path: Path) -> None:
    from dask.distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        proc = airqueue_cli(
            "sweep",
            UDP_BOTTLENECK,
            "--grid",
            "links.bottleneck.rate=5Mbit,10Mbit",
            "--seeds",
            "2",
            "--scheduler",
            cluster.scheduler_address,
            "--quiet",
            "--out",
            tmp_path / "remote",
        )
    assert proc.returncode == 0, proc.stderr
    info = json.loads((tmp_path / "remote" / "sweep.json").read_text())
    assert (info["backend"], info["executed"]) == ("dask", 4)
    local = airqueue.sweep(UDP_BOTTLENECK, grid=["links.bottleneck.rate=5Mbit,10Mbit"], seeds=2)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "remote" / "runs.parquet"), local.runs)


def test_a_changed_build_recomputes_what_the_store_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The package version stays 0.1.0 from commit to commit: the store keys runs by the
    core's source id as well, so a sweep resumed after a model change runs again."""
    import importlib

    from airqueue import _native
    from airqueue import store as store_mod

    sweep_mod = importlib.import_module("airqueue.sweep")  # the module, not airqueue.sweep()

    sid = _native.source_id()
    assert len(sid) == 16 and int(sid, 16) >= 0
    assert store_mod.code_version() == f"{airqueue.__version__}+{sid}"
    store = tmp_path / "store"
    first = airqueue.sweep(UDP_BOTTLENECK, grid=[RATES], seeds=1, jobs=1, store=store)
    same = airqueue.sweep(UDP_BOTTLENECK, grid=[RATES], seeds=1, jobs=1, store=store)
    assert (first.executed, same.executed, same.skipped) == (3, 0, 3)
    info = json.loads(next((store / "runs").glob("*/*/run.json")).read_text())
    assert info["version"] == store_mod.code_version()
    monkeypatch.setattr(sweep_mod, "code_version", lambda: f"{airqueue.__version__}+{'0' * 16}")
    rebuilt = airqueue.sweep(UDP_BOTTLENECK, grid=[RATES], seeds=1, jobs=1, store=store)
    assert (rebuilt.executed, rebuilt.skipped) == (3, 0)
