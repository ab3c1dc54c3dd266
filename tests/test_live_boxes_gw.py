"""The DFQ gateway and the NAP with CAWN as real boxes (issue 34 item 4, docs/live.md "The
seeds as real boxes"): tools/live_boxes_gw.py runs each box briefly (--quick, 10 s) live
with its programs (iperf3 in the real hosts' namespaces), then its simulated twin. Checked:
both runs conserve packets, the real packets are conserved, the real downloads are in the
flows table and carried traffic, the programs ran to their end, DFQ's pings reached the real
station and its kernel's replies came back, and no namespace is left.
No timing or goodput is judged here (the numbers are in docs/live.md). Needs root,
/dev/net/tun and iperf3; skipped otherwise."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "tools" / "live_boxes_gw.py"

pytestmark = [
    pytest.mark.skipif(not Path("/dev/net/tun").exists(), reason="no /dev/net/tun"),
    pytest.mark.skipif(os.geteuid() != 0, reason="live mode needs root (CAP_NET_ADMIN)"),
    pytest.mark.skipif(shutil.which("iperf3") is None, reason="the boxes' programs need iperf3"),
]


def our_namespaces() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith("aq-")]


def left_behind(before: set[str]) -> list[str]:
    """Namespaces made since `before` whose run's process is gone (`aq-<pid>-<node>`): a
    finished run's own would be these; other runs on this machine still have their pid."""
    return [
        n
        for n in our_namespaces()
        if n not in before and not Path(f"/proc/{n.split('-')[1]}").exists()
    ]


def run_box(box: str, out: Path) -> dict:
    before = set(our_namespaces())
    r = subprocess.run(
        [sys.executable, str(RUNNER), box, "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        env=dict(os.environ),  # the installed airqueue, as the other CLI tests
        timeout=400,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    # The run's own namespaces are gone (others' runs on this machine may be under way).
    assert left_behind(before) == []
    return json.loads((out / "results.json").read_text())


def real_flows(folder: Path, src: str, dst: str) -> list[dict]:
    """The real TCP connections from `src` to `dst` (named by their 5-tuples)."""
    with (folder / "flows.csv").open() as f:
        return [
            row
            for row in csv.DictReader(f)
            if row["app"] == "real" and row["from"] == src and row["to"] == dst
        ]


def check(res: dict, downloads: list[tuple[str, str]], sim_clients: list[str]) -> None:
    rep = res["live_report"]
    assert res["live_conservation_ok"] and res["twin_conservation_ok"]
    assert rep["read"] == rep["unsupported"] + rep["injected"] + rep["answers"], rep
    assert (
        rep["injected"] == rep["written"] + rep["dropped"] + rep["absorbed"] + rep["in_flight"]
    ), rep
    assert rep["written"] > 1000, rep
    # iperf3 client and servers ended by themselves (a test of 8 s in a 10 s run).
    assert [e["exit_code"] for e in rep["exec"]] == [0] * len(rep["exec"]), rep["exec"]
    live = Path(res["live_dir"])
    for src, dst in downloads:
        flows = real_flows(live, src, dst)
        # iperf3's control connection and its data connection, both kernel TCP.
        assert len(flows) >= 2, flows
        assert max(int(f["rx_bytes"]) for f in flows) > 100_000, flows
        assert res["live"][dst] > 0 and res["twin"][dst] > 0
    for c in sim_clients:
        assert res["live"][c] > 0 and res["twin"][c] > 0


def test_dfq_gateway_box(tmp_path: Path) -> None:
    res = run_box("dfq-gateway", tmp_path)["box"]
    check(res, [("snake", "ms1")], ["dragon", "rabbit", "ms2"])
    # DFQ's RTT detector pinged the real station: airqueue wrote the echo requests into its
    # TUN, and its kernel's replies came back to the probe flow (one a second).
    rep = res["live_report"]
    assert rep["probes"] >= 5 and rep["answers"] >= 5, rep
    with (Path(res["live_dir"]) / "flows.csv").open() as f:
        rows = list(csv.DictReader(f))
    probe = next(r for r in rows if r["flow"] == "probe-ms1")
    assert int(probe["rtt_samples"]) >= 5, probe
    # DFQ dropped wired hosts' packets (reason aqm) in the live run too, never the real
    # station's (wireless).
    wired = [r for r in rows if r["to"] in ("dragon", "rabbit") and r["transport"] == "tcp"]
    assert sum(int(r["drops_aqm"]) for r in wired) > 0, wired
    assert all(int(r["drops"]) == 0 for r in rows if r["app"] == "real"), rows


def test_nap_cawn_box(tmp_path: Path) -> None:
    res = run_box("nap-cawn", tmp_path)["box"]
    # A real download over the emulated Bluetooth piconet and one over the 802.11b cell.
    check(res, [("server", "btc1"), ("server", "wlc1")], ["btc2", "wlc2"])


def test_pings_between_a_real_host_and_emulated_nodes(tmp_path: Path) -> None:
    # The real snake pings the emulated gateway (answered with its own request's bytes,
    # swapped), while the gateway's probes ping the real ms1 (its kernel answers).
    before = set(our_namespaces())
    r = subprocess.run(
        [sys.executable, "-m", "airqueue", "live", str(ROOT / "scenarios/live/dfq-gateway.toml"),
         "--duration", "4s", "--out", str(tmp_path),
         "--exec", "snake=ping -c 3 -i 0.2 -W 1 10.0.0.1"],
        capture_output=True, text=True, env=dict(os.environ), timeout=60,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    log = (tmp_path / "exec-snake-0.log").read_text()
    assert "3 packets transmitted, 3 received" in log, log
    rep = json.loads((tmp_path / "summary.json").read_text())["live"]
    # Every probe answered but perhaps one written as the run stopped.
    assert rep["probes"] >= 3 and rep["answers"] >= rep["probes"] - 1, rep
    assert rep["injected"] == rep["written"] + rep["dropped"] + rep["absorbed"] + rep["in_flight"]
    assert rep["read"] == rep["unsupported"] + rep["injected"] + rep["answers"], rep
    assert left_behind(before) == []
