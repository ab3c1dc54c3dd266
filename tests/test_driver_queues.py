"""Driver (hardware) queues below the qdiscs (issue 33 item 12): a Wi-Fi AP with fq_codel
above its 100-packet driver buffer. The console, the time series, the report and the
warning show the queue the qdisc's own table does not (docs/qdiscs/fq_codel.md)."""

from __future__ import annotations

from pathlib import Path

import airqueue
from support import EXAMPLES, airqueue_cli

WIFI_FQ_CODEL = EXAMPLES / "wifi-fq-codel.toml"


def test_the_driver_queue_holds_the_downloads_queue_and_the_run_warns(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = airqueue_cli("run", WIFI_FQ_CODEL, "--set", "run.duration=8s", "--out", out)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout + proc.stderr
    assert "driver queues below the qdiscs" in text
    assert "driver buffer of 100 packets" in text and "ap.wlan" in text
    res = airqueue.Result.read(out)
    drivers = res.more["driver_queues"].set_index("interface")
    ap = drivers.loc["ap.wlan"]
    assert ap["kind"] == "fifo" and ap["limit_packets"] == 100
    # The buffer holds the queue; fq_codel above it holds almost nothing.
    assert ap["backlog_mean_packets"] > 80
    assert ap["sojourn_mean_ms"] > 100
    qdisc = res.queues.set_index("queue").loc["ap.wlan"]
    assert qdisc["backlog_mean_packets"] < 0.05 * ap["backlog_mean_packets"]
    assert qdisc["sojourn_mean_ms"] < 0.1 * ap["sojourn_mean_ms"]
    # Little's law over the 6 s after the warm-up, within 5 % (the buffer's contents at
    # the window's ends are the error).
    little = ap["dequeued_packets"] / 6.0 * ap["sojourn_mean_ms"] / 1e3
    assert abs(little / ap["backlog_mean_packets"] - 1) < 0.05
    ts = res.timeseries
    rows = ts[(ts["kind"] == "driver") & (ts["name"] == "ap.wlan")]
    assert set(rows["metric"].astype(str)) == {"backlog_packets", "backlog_bytes", "drops"}
    assert rows[rows["metric"] == "backlog_packets"]["value"].max() <= 100
    assert [w["path"] for w in res.summary["warnings"]] == ["qdiscs.ap.wlan"]

    assert airqueue_cli("report", out).returncode == 0
    page = (out / "report.html").read_text()
    assert "Driver queues below the qdiscs" in page and 'id="drivers"' in page
    assert "driver buffer of 100 packets" in page
    svg = out / "ts.svg"
    assert airqueue_cli("plot", out, "--out", svg).returncode == 0
    assert "driver queue backlog" in svg.read_text()


def test_a_shallow_driver_buffer_is_not_warned_about() -> None:
    scenario = airqueue.load_scenario(WIFI_FQ_CODEL, set={"cells.wlan.buffer": 2})
    _, warnings = scenario.check()
    assert warnings == []
    _, warnings = airqueue.load_scenario(WIFI_FQ_CODEL).check()
    assert [p for p, _ in warnings] == ["qdiscs.ap.wlan"]


def test_a_piconets_ports_report_their_l2cap_and_baseband_queues(tmp_path: Path) -> None:
    """The thesis's 2-slave piconet (TCP s1 → s2 and s2 → s1 through the master): the
    master's downlink queues and each slave's S + L are driver queues, in the console, the
    table and the time series (docs/bluetooth.md, "Driver queues")."""
    scenario = EXAMPLES.parent / "bluetooth-tcp" / "piconet-2-ppl.toml"
    out = tmp_path / "out"
    proc = airqueue_cli(
        "run", scenario, "--set", "run.duration=20s", "--set", "run.warmup=5s", "--out", out
    )
    assert proc.returncode == 0, proc.stderr
    assert "driver queues below the qdiscs" in proc.stdout + proc.stderr
    res = airqueue.Result.read(out)
    drivers = res.more["driver_queues"].set_index("interface")
    assert list(drivers["kind"]) == ["downlink", "l2cap", "l2cap"]
    assert drivers.loc["master.bt", "limit_packets"] == 1000
    for iface in ("master.bt", "s1.bt", "s2.bt"):
        assert drivers.loc[iface, "dequeued_packets"] > 0
    # Little's law on the master's queues. Not on the slaves' here: an IP packet one of
    # whose baseband packets the bucket passes into a full L while the packet is still
    # being segmented is never released by the model (a known bug, docs/bluetooth.md
    # "Not yet"), and stays in the slave's driver queue to the end of the run.
    m = drivers.loc["master.bt"]
    little = m["dequeued_packets"] / 15.0 * m["sojourn_mean_ms"] / 1e3
    assert abs(little / m["backlog_mean_packets"] - 1) < 0.05
    ts = res.timeseries
    assert set(ts[ts["kind"] == "driver"]["name"].astype(str)) == {"master.bt", "s1.bt", "s2.bt"}
    assert not res.summary.get("warnings")
