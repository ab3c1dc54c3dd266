"""Live mode end to end (docs/live.md): real namespaces with TUNs across an emulated
10 Mbit/s, 20 ms link. Needs root and /dev/net/tun; skipped otherwise."""

from __future__ import annotations

import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "live" / "two-hosts.toml"

pytestmark = [
    pytest.mark.skipif(not Path("/dev/net/tun").exists(), reason="no /dev/net/tun"),
    pytest.mark.skipif(os.geteuid() != 0, reason="live mode needs root (CAP_NET_ADMIN)"),
]


def our_namespaces() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith("aq-")]


def live(tmp_path: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)  # the installed airqueue, as the other CLI tests
    return subprocess.run(
        [sys.executable, "-m", "airqueue", "live", str(SCENARIO), "--out", str(tmp_path), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def conserved(live: dict) -> bool:
    return (
        live["read"] == live["unsupported"] + live["injected"]
        and live["injected"] == live["written"] + live["dropped"] + live["in_flight"]
    )


def test_ping_rtt_is_twice_the_delay_plus_serialisation(tmp_path: Path) -> None:
    r = live(tmp_path, "--duration", "3s", "--exec", "a=ping -c 20 -i 0.05 10.0.0.2")
    assert r.returncode == 0, r.stderr + r.stdout
    text = (tmp_path / "exec-a-0.log").read_text()
    rtts = [float(x) for x in re.findall(r"time=([\d.]+) ms", text)]
    assert len(rtts) == 20, text
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["conservation_ok"]
    assert conserved(summary["live"]), summary["live"]
    assert summary["live"]["written"] >= 40
    assert our_namespaces() == []
    if summary["live"]["behind"]:
        # The run itself says this machine could not keep real time (a packet handed
        # over more than 1 ms late: descheduled by other jobs); timing is not judged then.
        pytest.skip(f"fell behind real time: {summary['live']} (RTTs {rtts})")
    # Closed form: the request and the reply each cross the 20 ms wire after an 84-byte
    # serialisation at 10 Mbit/s (67.2 us): 2 * (20 ms + 0.0672 ms) = 40.134 ms.
    expected = 2 * (20 + 84 * 8 / 10e6 * 1e3)
    assert abs(statistics.median(rtts) - expected) < 0.3, (rtts, summary["live"])


def test_udp_flood_is_cut_to_the_link_rate_with_drops_counted(tmp_path: Path) -> None:
    # 20 Mbit/s of 1 200-byte datagrams (1 228 bytes on the wire) for 2 s into a 10 Mbit/s link.
    sender = (
        'python3 -c "import socket,time\n'
        "s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\n"
        "t=time.monotonic();n=0\n"
        "while time.monotonic()-t<2.0:\n"
        "  s.sendto(b'x'*1200,('10.0.0.2',9));n+=1\n"
        '  time.sleep(max(0,t+n*1228*8/20e6-time.monotonic()))"'
    )
    r = live(tmp_path, "--duration", "3s", "--exec", f"a={sender}")
    assert r.returncode == 0, r.stderr + r.stdout
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["conservation_ok"]
    assert conserved(summary["live"]), summary["live"]
    import pandas as pd

    flows = pd.read_parquet(tmp_path / "flows.parquet")
    udp = flows[flows["flow"].astype(str).str.startswith("udp 10.0.0.1")]
    assert len(udp) == 1, flows
    row = udp.iloc[0]
    # Goodput while the queue is backlogged (0.3-1.9 s, 100 ms samples): the link's
    # 10 Mbit/s times the payload's share of each 1 228-byte datagram, 1200/1228.
    series = pd.read_parquet(tmp_path / "timeseries.parquet")
    tput = series[
        (series["name"].astype(str) == row["flow"])
        & (series["metric"].astype(str) == "throughput_bps")
        & series["time_s"].between(0.3, 1.9)
    ]["value"]
    expected = 10e6 * 1200 / 1228
    assert abs(tput.median() - expected) < 0.015 * expected, tput.describe()
    drops = row["drops_qdisc_overflow"]
    assert drops > 1000, row
    # The sender stops a second before the end: nothing is left in flight.
    assert row["tx_packets"] == row["rx_packets"] + drops
    assert our_namespaces() == []


def test_sigterm_removes_the_namespaces(tmp_path: Path) -> None:
    env = dict(os.environ)  # the installed airqueue, as the other CLI tests
    p = subprocess.Popen(
        [sys.executable, "-m", "airqueue", "live", str(SCENARIO), "--out", str(tmp_path),
         "--duration", "30s", "--exec", "a=ping -i 0.2 10.0.0.2"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not any(
        n.startswith(f"aq-{p.pid}-") for n in our_namespaces()
    ):
        time.sleep(0.1)
    assert any(n.startswith(f"aq-{p.pid}-") for n in our_namespaces())
    time.sleep(1.0)
    p.send_signal(signal.SIGTERM)
    p.wait(20)
    assert not [n for n in our_namespaces() if n.startswith(f"aq-{p.pid}-")]


def test_cleanup_removes_namespaces_of_dead_runs(tmp_path: Path) -> None:
    # A namespace named for a pid that cannot be running (pid_max is at most 2^22).
    stale = "aq-9999999-a"
    subprocess.run(["ip", "netns", "add", stale], check=True)
    env = dict(os.environ)  # the installed airqueue, as the other CLI tests
    r = subprocess.run(
        [sys.executable, "-m", "airqueue", "live", "--cleanup"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert stale not in our_namespaces()


def test_a_flow_from_a_real_host_is_refused(tmp_path: Path) -> None:
    r = live(
        tmp_path, "--set",
        'flows=[{name="f",from="a",to="b",app={kind="cbr",size=100,rate="1Mbit"}}]',
    )  # fmt: skip
    assert r.returncode == 2, r.stderr + r.stdout
    assert "flows.f.from" in r.stderr + r.stdout


def test_an_exec_on_a_node_that_is_not_real_is_invalid_input(tmp_path: Path) -> None:
    r = live(tmp_path, "--exec", "x=true")
    assert r.returncode == 2, r.stderr + r.stdout
    assert "'x' is not a real host; real hosts: a, b" in r.stderr
    assert our_namespaces() == []
