"""The bare forwarder and ``airqueue bench --live`` (docs/live.md#throughput): that they
carry packets and report every field, never how fast (rates are benchmarks, not tests).
Needs root and /dev/net/tun; skipped otherwise, with the reason."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.skipif(not Path("/dev/net/tun").exists(), reason="no /dev/net/tun"),
    pytest.mark.skipif(os.geteuid() != 0, reason="live mode needs root (CAP_NET_ADMIN)"),
]


def our_namespaces(pid: int) -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [n for n in (line.split()[0] for line in out.splitlines() if line.strip())
            if n.startswith(f"aq-{pid}-")]  # fmt: skip


def test_the_bare_forwarder_carries_a_ping_and_loses_nothing(tmp_path: Path) -> None:
    from airqueue import _native
    from airqueue import live as livemod

    hosts = [("a", "10.0.0.1"), ("b", "10.0.0.2")]
    with livemod.real_hosts(hosts) as made:
        by_node = {h.node: h for h in made}
        # The TUN's ring is sized so that a loop descheduled for a while loses nothing.
        link = subprocess.run(
            ["ip", "-j", "-n", by_node["a"].namespace, "link", "show", "aq0"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert json.loads(link.stdout)[0]["txqlen"] == livemod.TUN_TXQUEUELEN
        ping = livemod.start_exec(
            by_node["a"], "ping -c 10 -i 0.05 -W 1 10.0.0.2", tmp_path / "ping.log"
        )
        result: dict = {}
        # The forwarder releases the GIL; the ping runs meanwhile and ends before it.
        t = threading.Thread(
            target=lambda: result.update(
                _native.live_bare_forward([(h.address, h.fd) for h in made], 2.0)
            )
        )
        t.start()
        t.join(30)
        code = livemod.stop_exec(ping)
    text = (tmp_path / "ping.log").read_text()
    assert code == 0, text
    assert len(re.findall(r"bytes from 10\.0\.0\.2", text)) == 10, text
    # Conservation: every packet read is written or counted as having no real host.
    assert result["read"] == result["written"] + result["unrouted"] + result["write_errors"]
    assert result["write_errors"] == 0, result
    assert result["written"] >= 20, result  # 10 requests and 10 replies
    assert result["max_bytes"] == 84, result  # a 56-byte echo: 20 + 8 + 56
    assert not result["stopped"]
    assert our_namespaces(os.getpid()) == []


def test_the_bare_forwarder_refuses_a_bad_address() -> None:
    from airqueue import _native

    with pytest.raises(ValueError, match="not an IPv4 address"):
        _native.live_bare_forward([("10.0.0.300", 0)], 0.1)


def test_bench_live_quick_writes_every_field(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    env = dict(os.environ)  # the installed airqueue, as the other CLI tests
    p = subprocess.Popen(
        [sys.executable, "-m", "airqueue", "bench", "--live", "--quick", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    stdout, stderr = p.communicate(timeout=180)
    assert p.returncode == 0, stderr + stdout
    assert "emulator / bare forwarder" in stdout
    assert our_namespaces(p.pid) == []
    report = json.loads(out.read_text())
    for key in ["tcp_1g", "udp_emulator", "udp_bare", "tcp_unshaped", "tcp_bare", "udp_ratio",
                "udp_cpu_ratio", "targets", "loadavg_start", "loadavg_end", "cpus"]:  # fmt: skip
        assert key in report, key
    for key in ["tcp_1g", "tcp_unshaped", "tcp_bare"]:
        m = report[key]
        assert m["iperf_error"] is None, m
        assert m["mbps"] is not None and m["mbps"] > 0, m
        assert m["retransmits"] is not None, m
        assert m["tun_dropped"] >= 0, m
    for key in ["udp_emulator", "udp_bare"]:
        m = report[key]
        assert m["iperf_error"] is None, m
        assert m["pps"] > 0 and m["offered_pps"] > 0, m
        assert m["cpu_us_per_packet"] > 0, m
        assert m["pps_rounds"] == [m["pps"]], m  # --quick: one round
        assert m["tun_dropped"] >= 0, m
    ue = report["udp_emulator"]
    # Every packet the emulator read is accounted for (written, dropped with a reason, in
    # flight): its own loss is 0 whatever the rate.
    assert ue["own_loss"] == 0 and ue["own_loss_rounds"] == [0], ue
    for key in ["tcp_1g", "udp_emulator", "tcp_unshaped"]:
        live = report[key]["live"]
        assert live["injected"] == live["written"] + live["dropped"] + live["in_flight"], live
    # Scheduled at MTU size: TCP's largest packet is a full 1 500-byte MTU, never larger.
    assert report["tcp_1g"]["live"]["max_written_bytes"] == 1500
    assert report["tcp_bare"]["bare"]["max_bytes"] == 1500
    # 64-byte payloads: the largest UDP packet is iperf3's control traffic, far below the MTU.
    assert report["udp_emulator"]["live"]["max_written_bytes"] <= 1500
    assert report["udp_ratio"] == pytest.approx(ue["pps"] / report["udp_bare"]["pps"])


def test_bench_live_refuses_a_file(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "airqueue", "bench", "--live", "x.toml"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 2, r.stderr + r.stdout
    assert "give no FILE" in r.stderr
