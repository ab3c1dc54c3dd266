"""Classful qdiscs and virtual devices end to end: the ``classes`` table through the
binding, ``classes.parquet``, the virtual device's row, and ``airqueue list qdiscs``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import airqueue
from support import EXAMPLES, airqueue_cli

NAP = EXAMPLES / "nap-imq-htb.toml"

CLASS_COLUMNS = [
    "queue", "class", "parent", "kind", "qdisc", "rate_bps", "ceil_bps",
    "enqueued_packets", "enqueued_bytes", "dequeued_packets", "dequeued_bytes", "drops",
]  # fmt: skip


@pytest.fixture(scope="module")
def nap() -> airqueue.Result:
    return airqueue.run(NAP)


def test_classes_table_lists_every_class_with_its_tree(nap: airqueue.Result) -> None:
    classes = nap.classes
    assert list(classes.columns[: len(CLASS_COLUMNS)]) == CLASS_COLUMNS
    for col in ("drops_qdisc_overflow", "drops_overlimit", "drops_flow_limit", "marks"):
        assert col in classes.columns
    for col in ("lends", "borrows", "backlog_end_packets", "sojourn_p50_ms", "sojourn_p99_ms"):
        assert col in classes.columns
    rows = classes.set_index("class")
    # Without `default`, HTB's direct queue exists (tc's default 0); nothing reaches it
    # here because every packet matches a class by its interface.
    assert list(rows.index) == ["(direct)", "all", "wlan", "wlan/voice", "wlan/data", "bt"]
    assert rows.loc["(direct)", "enqueued_packets"] == 0
    assert rows.loc["wlan/voice", "parent"] == "wlan"
    assert rows.loc["wlan", "parent"] == "all"
    assert (rows.loc["wlan", "kind"], rows.loc["wlan", "qdisc"]) == ("htb", "prio")
    assert rows.loc["all", "rate_bps"] == 12_000_000
    # An inner class reports the sum of its subtree.
    assert rows.loc["all", "dequeued_packets"] == (
        rows.loc["wlan", "dequeued_packets"] + rows.loc["bt", "dequeued_packets"]
    )
    assert (classes["queue"] == "nap.imq0").all()


def test_every_class_has_backlog_throughput_and_drop_series(nap: airqueue.Result) -> None:
    series = nap.timeseries
    cls = series[series["kind"] == "class"]
    classes = nap.classes
    expected = {f"{q}/{c}" for q, c in zip(classes["queue"], classes["class"], strict=True)}
    assert set(cls["name"].astype(str)) == expected
    metrics = set(cls["metric"].astype(str))
    assert metrics == {"backlog_packets", "backlog_bytes", "throughput_bps", "drops"}
    # Samples every run.sample_interval for each class and metric.
    per = cls.groupby(["name", "metric"], observed=True).size()
    assert per.nunique() == 1 and per.iloc[0] > 10


def test_the_virtual_device_is_a_queue_row_and_its_members_are_not(
    nap: airqueue.Result,
) -> None:
    queues = nap.queues.set_index("dev")
    assert "nap.imq0" in queues.index
    assert "nap.wlan" not in queues.index and "nap.bt" not in queues.index
    assert queues.loc["nap.imq0", "kind"] == "htb"
    assert queues.loc["nap.imq0", "rate_bps"] == 11_000_000 + 723_200
    assert nap.conservation_ok
    series = nap.timeseries
    assert ((series["kind"] == "queue") & (series["name"] == "nap.imq0")).any()


def test_queue_table_reports_sojourn_percentiles(nap: airqueue.Result) -> None:
    q = nap.queues.set_index("dev").loc["nap.imq0"]
    assert 0 < q["sojourn_p50_ms"] <= q["sojourn_p99_ms"]


def test_results_write_classes_parquet(nap: airqueue.Result, tmp_path: Path) -> None:
    nap.write(tmp_path)
    back = pd.read_parquet(tmp_path / "classes.parquet")
    pd.testing.assert_frame_equal(back, nap.classes)


def test_classless_runs_have_an_empty_classes_table(tmp_path: Path) -> None:
    result = airqueue.run(EXAMPLES / "udp-bottleneck.toml")
    assert len(result.classes) == 0
    assert "class" in result.classes.columns
    result.write(tmp_path)
    assert len(pd.read_parquet(tmp_path / "classes.parquet")) == 0


def test_run_prints_the_classes_that_saw_traffic(tmp_path: Path) -> None:
    proc = airqueue_cli("run", NAP, "--out", tmp_path / "out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "classes that saw traffic" in proc.stdout
    assert "wlan/voice" in proc.stdout


def test_list_qdiscs_shows_classful_disciplines_with_their_class_keys() -> None:
    proc = airqueue_cli("list", "qdiscs")
    assert proc.returncode == 0, proc.stderr
    for kind in ("pfifo_fast", "prio", "drr", "htb"):
        assert f" {kind} " in proc.stdout
    assert "list of class tables" in proc.stdout
    assert "each entry:" in proc.stdout
    for key in ("ceil = optional (Rate)", "prio = 0 (integer)", "r2q = 10 (integer)"):
        assert key in proc.stdout
    assert "qdisc table (any kind)" in proc.stdout
