"""The 802.11 seed boxes of live mode (docs/live.md "## The seeds as real boxes"): each
box runs briefly (``tools/live_boxes_wifi.py BOX --quick``: the live run with its real
programs, then its simulated twin) and is checked for function, not numbers: the real
packets are conserved, the real programs' flows are there and carried traffic, the twin
ran, and no namespace is left. Needs root and /dev/net/tun; skipped otherwise."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "live_boxes_wifi.py"

pytestmark = [
    pytest.mark.skipif(not Path("/dev/net/tun").exists(), reason="no /dev/net/tun"),
    pytest.mark.skipif(os.geteuid() != 0, reason="live mode needs root (CAP_NET_ADMIN)"),
]


def our_namespaces() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith("aq-")]


def run_box(box: str, out: Path) -> dict:
    r = subprocess.run(
        [sys.executable, str(TOOL), box, "--quick", "--out", str(out)],
        capture_output=True, text=True, timeout=300, env=dict(os.environ),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr + r.stdout
    assert "| quantity | live | twin |" in r.stdout
    res = json.loads((out / "comparison.json").read_text())
    # The live run's namespaces (aq-<its pid>-<node>) are gone; others' are not ours.
    pid = res["load"]["live_pid"]
    assert not [n for n in our_namespaces() if n.startswith(f"aq-{pid}-")], our_namespaces()
    return res


def conserved(live: dict) -> bool:
    return (
        live["read"] == live["unsupported"] + live["injected"]
        and live["injected"] == live["written"] + live["dropped"] + live["in_flight"]
    )


def data_bytes(flows: pd.DataFrame, src: str, dst: str) -> int:
    sel = flows[(flows["from"].astype(str) == src) & (flows["to"].astype(str) == dst)]
    assert (sel["app"].astype(str) == "real").all(), sel
    return int(sel["rx_bytes"].sum())


def test_rtt_fair_box_runs_four_real_downloads_and_its_twin(tmp_path: Path) -> None:
    res = run_box("rtt-fair", tmp_path)
    summary = json.loads((tmp_path / "live" / "summary.json").read_text())
    assert summary["conservation_ok"]
    assert conserved(summary["live"]), summary["live"]
    assert all(e["exit_code"] == 0 for e in summary["live"]["exec"]), summary["live"]["exec"]
    flows = pd.read_parquet(tmp_path / "live" / "flows.parquet")
    txqs = pd.read_parquet(tmp_path / "live" / "txqs.parquet")
    for i in range(1, 5):
        # Each station's download (iperf3 -R: its server sends) crossed the cell, and
        # mac80211's scheduler charged the station air time.
        assert data_bytes(flows, f"srv{i}", f"sta{i}") > 100_000, flows
        assert float(txqs[txqs["station"] == f"sta{i}.wlan"]["airtime_s"].sum()) > 0
    twin = json.loads((tmp_path / "twin" / "summary.json").read_text())
    assert twin["conservation_ok"]
    assert all(g > 0 for g in res["columns"]["twin"]["goodput_bps"])
    assert all(g > 0 for g in res["columns"]["live"]["goodput_bps"])
    assert all("bits/sec" in x for x in res["iperf3_receiver"]), res["iperf3_receiver"]


def test_adwiser_box_loads_pages_beside_a_real_upload_and_its_twin(tmp_path: Path) -> None:
    res = run_box("adwiser-g", tmp_path)
    summary = json.loads((tmp_path / "live" / "summary.json").read_text())
    assert summary["conservation_ok"]
    assert conserved(summary["live"]), summary["live"]
    flows = pd.read_parquet(tmp_path / "live" / "flows.parquet")
    # The real upload (iperf3, sta2 -> server) and the pages (inet -> sta1, one flow per
    # object's connection) crossed the box and the cell.
    assert data_bytes(flows, "sta2", "server") > 100_000, flows
    assert data_bytes(flows, "inet", "sta1") > 0, flows
    web = flows[(flows["from"].astype(str) == "inet") & (flows["to"].astype(str) == "sta1")]
    assert len(web) >= 2  # at least a page: a main object and an auxiliary one
    # The simulated stations' own flows ran beside the real hosts.
    sim = flows[flows["flow"].astype(str).isin(["sim-down", "sim-up"])]
    assert len(sim) == 2 and (sim["rx_bytes"] > 0).all(), sim
    live = res["columns"]["live"]
    assert live["pages"] >= 1, (tmp_path / "live").glob("exec-sta1-*.log")
    # The box ran: it learned the AP's stations (C* > 0) and serves at a rate C.
    assert live["c_star_bps"] > 0 and 0 < live["c_bps"] <= live["c_star_bps"]
    twin = res["columns"]["twin"]
    assert twin["pages"] >= 1 and twin["upload_bps"] > 0
    assert json.loads((tmp_path / "twin" / "summary.json").read_text())["conservation_ok"]
