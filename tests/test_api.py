"""The Python API: ``airqueue.run``, ``load_scenario`` and ``ScenarioError``."""

from __future__ import annotations

import copy
import itertools
import threading
import time
import tomllib
from typing import Any

import numpy as np
import pandas as pd
import pytest

import airqueue
from support import UDP_BOTTLENECK

FLOW_COLUMNS = {
    "flow",
    "from",
    "to",
    "transport",
    "app",
    "tx_packets",
    "tx_bytes",
    "rx_packets",
    "rx_bytes",
    "goodput_bps",
    "delay_mean_ms",
    "delay_min_ms",
    "delay_p50_ms",
    "delay_p99_ms",
    "delay_max_ms",
    "ipdv_mean_ms",
    "drops",
}
QUEUE_COLUMNS = {
    "queue",
    "dev",
    "kind",
    "rate_bps",
    "enqueued_packets",
    "enqueued_bytes",
    "dequeued_packets",
    "dequeued_bytes",
    "drops",
    "backlog_mean_packets",
    "backlog_mean_bytes",
    "backlog_max_packets",
    "backlog_max_bytes",
    "backlog_end_packets",
    "sojourn_mean_ms",
}
TIMESERIES_COLUMNS = ["time_s", "kind", "name", "metric", "value"]
FLOW_NAMES = ["cbr0", "cbr1", "cbr2", "poisson0", "poisson1"]


@pytest.fixture(scope="module")
def result() -> airqueue.Result:
    return airqueue.run(UDP_BOTTLENECK)


@pytest.fixture
def scenario_dict() -> dict[str, Any]:
    return tomllib.loads(UDP_BOTTLENECK.read_text())


def test_run_returns_dataframes_with_the_documented_columns(result: airqueue.Result) -> None:
    assert isinstance(result.flows, pd.DataFrame)
    assert set(result.flows.columns) >= FLOW_COLUMNS
    assert list(result.flows["flow"]) == FLOW_NAMES
    assert set(result.queues.columns) >= QUEUE_COLUMNS
    assert "router.bottleneck" in set(result.queues["queue"])
    assert list(result.timeseries.columns) == TIMESERIES_COLUMNS
    # Drops are broken down by reason, one column per reason, summing to the total.
    reasons = [c for c in result.flows.columns if c.startswith("drops_")]
    assert reasons
    assert (result.flows[reasons].sum(axis=1) == result.flows["drops"]).all()


def test_flow_numeric_columns_are_numpy_uint64_or_float64(result: airqueue.Result) -> None:
    flows = result.flows
    for column in ("tx_packets", "tx_bytes", "rx_packets", "rx_bytes", "drops"):
        assert flows[column].dtype == np.uint64, column
    for column in ("goodput_bps", "delay_mean_ms", "delay_p99_ms", "ipdv_mean_ms"):
        assert flows[column].dtype == np.float64, column
    text = {"flow", "from", "to", "transport", "app"}
    for column in set(flows.columns) - text:
        assert flows[column].dtype in (np.uint64, np.float64), column


def test_timeseries_label_columns_are_categorical(result: airqueue.Result) -> None:
    ts = result.timeseries
    for column in ("kind", "name", "metric"):
        assert isinstance(ts[column].dtype, pd.CategoricalDtype), column
    assert set(ts["kind"].cat.categories) == {"flow", "queue", "class", "driver"}
    assert ts["time_s"].dtype == np.float64
    assert ts["value"].dtype == np.float64


def test_set_dict_overrides_values_by_dotted_path() -> None:
    res = airqueue.run(UDP_BOTTLENECK, set={"links.bottleneck.rate": "1Gbit"})
    assert sum(res.summary["packets"]["dropped"].values()) == 0
    assert res.scenario["links"][1]["rate"] == "1Gbit"


def test_seed_argument_overrides_run_seed() -> None:
    res = airqueue.run(UDP_BOTTLENECK, seed=5, set={"run.duration": "3s"})
    assert res.summary["seed"] == 5


def test_a_dict_scenario_runs_like_its_file(
    scenario_dict: dict[str, Any], result: airqueue.Result
) -> None:
    from_dict = airqueue.run(scenario_dict)
    pd.testing.assert_frame_equal(from_dict.flows, result.flows)
    pd.testing.assert_frame_equal(from_dict.queues, result.queues)


def test_load_scenario_resolves_counts_and_defaults(scenario_dict: dict[str, Any]) -> None:
    resolved = airqueue.load_scenario(scenario_dict).resolved()
    assert [f["name"] for f in resolved["flows"]] == FLOW_NAMES
    assert resolved["flows"][1]["start"] == "100ms"  # start + 1 x start_spacing
    assert resolved["links"][0]["mtu"] == 1500


def test_invalid_dict_raises_scenario_error_naming_the_field(
    scenario_dict: dict[str, Any],
) -> None:
    broken = copy.deepcopy(scenario_dict)
    broken["links"][1]["rate"] = "10 mbps"
    with pytest.raises(airqueue.ScenarioError) as info:
        airqueue.run(broken)
    paths = [path for path, _ in info.value.problems]
    assert paths == ["links.bottleneck.rate"]
    assert "10 mbps" in info.value.problems[0][1]
    assert isinstance(info.value, ValueError)


def test_toml_text_or_an_unreadable_name_is_a_scenario_error_not_an_os_error(
    scenario_dict: dict[str, Any],
) -> None:
    with pytest.raises(airqueue.ScenarioError) as info:
        airqueue.run('[run]\nduration = "1s"\n')
    assert info.value.problems[0][0] == "scenario"
    assert "tomllib.loads" in info.value.problems[0][1]
    with pytest.raises(airqueue.ScenarioError) as info:
        airqueue.run("x" * 5000 + ".toml")
    assert "cannot be read" in info.value.problems[0][1]


def test_bad_override_path_raises_scenario_error(scenario_dict: dict[str, Any]) -> None:
    with pytest.raises(airqueue.ScenarioError) as info:
        airqueue.run(scenario_dict, set={"links.nosuch.rate": "1Gbit"})
    assert "links.nosuch.rate" in info.value.problems[0][0]


def test_run_releases_the_gil_while_simulating() -> None:
    """Two long simulations run in two threads while a third, pure-Python thread counts.

    If the native run held the GIL, the counting thread would stall for a whole run (about
    a second). This checks progress, not speed: the longest pause of the counter while the
    simulations run must be well under the length of one simulation.
    """
    long_run = {"run.duration": "2000s", "run.sample_interval": "10s"}
    stop = threading.Event()
    ticks: list[float] = []

    def count() -> None:
        last = time.monotonic()
        while not stop.is_set():
            now = time.monotonic()
            if now - last >= 0.001:
                ticks.append(now)
                last = now

    results: list[airqueue.Result] = []
    windows: list[tuple[float, float]] = []

    def simulate() -> None:
        start = time.monotonic()
        results.append(airqueue.run(UDP_BOTTLENECK, set=long_run))
        windows.append((start, time.monotonic()))

    counter = threading.Thread(target=count)
    sims = [threading.Thread(target=simulate) for _ in range(2)]
    counter.start()
    for t in sims:
        t.start()
    for t in sims:
        t.join()
    stop.set()
    counter.join()

    assert len(results) == 2
    native = min(r.summary["timing"]["wall_seconds"] for r in results)
    assert native > 0.2, "the simulation is too short to show anything; lengthen it"
    begin = min(w[0] for w in windows)
    end = max(w[1] for w in windows)
    inside = [begin, *(t for t in ticks if begin <= t <= end), end]
    longest_pause = max(b - a for a, b in itertools.pairwise(inside))
    assert len(inside) > 20, "the counting thread made no progress during the runs"
    assert longest_pause < native / 2, (
        f"the counter stalled for {longest_pause:.3f} s during a {native:.3f} s native run"
    )
    # Running concurrently changes nothing in the results.
    pd.testing.assert_frame_equal(results[0].flows, results[1].flows)


def test_importing_airqueue_leaves_pandas_unloaded_until_a_result_is_needed() -> None:
    """Issue 18 (scale): `airqueue validate` of 100 000 flows within 2 s. Importing pandas and
    pyarrow was most of it, so the package loads them on first use of Result, ResultStore
    or sweep; `airqueue.sweep` stays the function whatever was imported first."""
    code = (
        "import sys, airqueue\n"
        "assert 'pandas' not in sys.modules and 'pyarrow' not in sys.modules\n"
        "from airqueue import catalog\n"  # imports the submodule airqueue.sweep
        "assert callable(airqueue.sweep) and airqueue.sweep.__name__ == 'sweep'\n"
        "import airqueue.sweep as s\n"
        "assert s is airqueue.sweep\n"
        "assert airqueue.Result.__name__ == 'Result'\n"
        "assert airqueue.ResultStore.__name__ == 'ResultStore'\n"
        "assert airqueue.SweepResult.__name__ == 'SweepResult'\n"
    )
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_counts_give_each_section_after_count_expansion() -> None:
    counts, warnings = airqueue.load_scenario(UDP_BOTTLENECK, set={"flows.cbr.count": 7}).counts()
    assert counts == {"nodes": 3, "links": 2, "qdiscs": 1, "flows": 9}
    assert warnings == []
