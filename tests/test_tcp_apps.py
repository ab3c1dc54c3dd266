"""End to end: the TCP and application examples run from Python and report their metrics
in the flow table (the Rust reference tests check the values against their references)."""

from __future__ import annotations

import math

import airqueue
from support import EXAMPLES


def test_web_example_reports_page_response_times_that_grow_under_a_bulk_download() -> None:
    # web-wan.toml: web alone until 300 s, then beside a bulk download of the same link.
    alone = airqueue.run(EXAMPLES / "web-wan.toml", set={"flows.bulk.start": "599s"})
    shared = airqueue.run(EXAMPLES / "web-wan.toml", set={"run.warmup": "310s"})
    web_alone = alone.flows.set_index("flow").loc["web"]
    web_shared = shared.flows.set_index("flow").loc["web"]
    assert web_alone["pages_completed"] > 50
    assert web_alone["connections"] >= 2 * web_alone["pages_completed"]
    # Five round trips of 300 ms at least per page (seed 002: "approximately five RTTs").
    assert 1.5 < web_alone["page_response_mean_s"] < web_shared["page_response_mean_s"]
    assert web_alone["page_response_p95_s"] >= web_alone["page_response_p50_s"]
    ping = shared.flows.set_index("flow").loc["ping"]
    assert ping["transport"] == "icmp"
    assert ping["rtt_mean_ms"] > 300.0
    assert shared.summary["conservation_ok"]


def test_ditg_mix_runs_voice_video_and_ftp_side_by_side() -> None:
    res = airqueue.run(EXAMPLES / "ditg-mix.toml", set={"run.duration": "20s"})
    flows = res.flows.set_index("flow")
    assert list(flows["app"]) == ["video", "voice", "bulk"]
    assert list(flows["transport"]) == ["udp", "udp", "tcp"]
    # Voice: 100 packets/s of 92 B of UDP payload (seed 000's 120-B packets).
    voice = flows.loc["voice"]
    assert abs(voice["tx_packets"] - 15 * 100) <= 1
    assert voice["tx_bytes"] == voice["tx_packets"] * 92
    assert math.isnan(voice["rtt_mean_ms"])
    ftp = flows.loc["ftp"]
    # The FTP server fills its own host's 100-packet FIFO: Linux (the default
    # `local_congestion = "cwr"`) keeps the refused segments unsent, so they count as the
    # queue's drops but are never retransmitted.
    assert ftp["local_drops"] == ftp["drops"] > 0
    assert ftp["retransmits"] == 0
    assert ftp["cwnd_mean_bytes"] > 0
    assert res.summary["conservation_ok"]


def test_tcp_trace_appears_in_the_time_series_on_request() -> None:
    res = airqueue.run(EXAMPLES / "rtt-unfairness.toml", set={"run.duration": "20s"})
    metrics = set(res.timeseries["metric"].astype(str))
    assert {"cwnd_bytes", "ssthresh_bytes", "srtt_ms"} <= metrics
    cwnd = res.timeseries.query("metric == 'cwnd_bytes' and name == 'short-rtt'")
    assert len(cwnd) == 200
    assert (cwnd["value"] >= 1448).all()
