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
