"""``airqueue bench --live``: live mode's throughput on this machine (issue 34, "Throughput";
docs/live.md#throughput).

Each measurement makes two real hosts ``a`` (10.0.0.1) and ``b`` (10.0.0.2) as namespaces
with TUNs (:func:`airqueue.live.real_hosts`), runs iperf3 between them through either the
emulator (the core's live loop on a scenario built here) or the bare forwarder (the same
TUNs and read/write calls, no model), reads the kernel's counters of both TUNs before the
namespaces go, and returns plain numbers:

- ``tcp_1g``: iperf3 TCP a→b across an emulated 1 Gbit/s, 1 ms link with fq_codel
  (target ≥ 900 Mbit/s at the receiver; the largest packet written must be ≤ the MTU);
- ``udp_emulator`` / ``udp_bare``: iperf3 UDP with 64-byte payloads, unpaced (``-b 0``),
  through a 10 Gbit/s pfifo link (far faster than the offered load) and through the bare
  forwarder, in alternation, three rounds each (targets: ≥ 100 000 packets/s, ≥ 90 % of
  the bare forwarder's rate, the emulator's own loss 0); also the CPU time each spends per
  packet, which a loaded machine disturbs far less than the rates;
- ``tcp_unshaped`` / ``tcp_bare``: the highest rate sustained with no rate limit, MTU-sized
  TCP through a 10 Gbit/s pfifo link, and through the bare forwarder for reference.

Rates are wall-clock measurements and vary with the machine's load; the report carries the
load average at the start and the end.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import _native
from . import live as livemod
from .scenario import call_native, load_scenario

#: The two real hosts of every measurement: (node, address from the scenario's plan).
HOSTS = [("a", "10.0.0.1"), ("b", "10.0.0.2")]
#: The TUN's MTU (the kernel's default for a TUN): the largest packet "scheduled at MTU size".
MTU = 1500
#: Targets of issue 34 ("Throughput").
TARGET_TCP_1G_MBPS = 900.0
TARGET_UDP_PPS = 100_000.0
TARGET_UDP_RATIO = 0.90
#: The iperf3 server's port.
PORT = 5201


def scenario(rate: str, delay: str, qdisc: dict[str, Any], seconds: float) -> str:
    """Two real hosts across one link of ``rate`` and ``delay``, ``qdisc`` on both ends,
    as core JSON."""
    data = {
        "run": {"duration": f"{seconds:g}s", "seed": 1},
        "nodes": [{"name": n, "real": True} for n, _ in HOSTS],
        "links": [{"name": "wire", "between": ["a", "b"], "rate": rate, "delay": delay}],
        "qdiscs": [{"dev": f"{n}.wire", **qdisc} for n, _ in HOSTS],
    }
    return load_scenario(data).to_json()


def tun_counters(namespace: str) -> dict[str, int]:
    """The kernel's counters of the TUN in ``namespace`` (``ip -s -j link``): packets and
    drops each way. ``tx`` is what the host's stack handed to the TUN (the emulator reads
    it; ``tx_dropped`` are packets the TUN's queue dropped because the reader was behind),
    ``rx`` what the emulator wrote into it."""
    r = livemod._ip("-s", "-j", "-n", namespace, "link", "show", livemod.TUN_NAME, check=False)
    try:
        stats = json.loads(r.stdout)[0]["stats64"]
    except (ValueError, IndexError, KeyError):
        return {}
    return {
        "tx_packets": stats["tx"]["packets"],
        "tx_dropped": stats["tx"]["dropped"],
        "rx_packets": stats["rx"]["packets"],
        "rx_dropped": stats["rx"]["dropped"],
    }


def tun_dropped(tuns: dict[str, dict[str, int]]) -> int:
    """Packets the kernel dropped at the TUNs, both hosts and ways: handed to a TUN whose
    reader was behind (``tx_dropped``) or written and refused by the stack (``rx_dropped``).
    Loss outside the emulator, beside its own."""
    return sum(c.get("tx_dropped", 0) + c.get("rx_dropped", 0) for c in tuns.values())


def iperf_result(log: Path) -> dict[str, Any]:
    """The iperf3 client's JSON report (``-J``), or ``{"error": ...}``."""
    try:
        return json.loads(log.read_text())
    except (OSError, ValueError) as e:
        return {"error": f"{log.name}: {e}"}


def _with_hosts(
    log_dir: Path,
    client: str,
    forwarder: Callable[[list[tuple[str, int]], list[tuple[str, int]]], dict[str, Any]],
) -> tuple[dict[str, Any], dict[str, Any], dict[str, dict[str, int]]]:
    """Makes the two hosts, starts ``iperf3 -s -1`` in b and ``client`` in a (after 0.3 s),
    runs ``forwarder(tuns by node, tuns by address)`` in this thread, reads both TUNs'
    counters and removes the hosts. Returns (forwarder's result, client JSON, counters)."""
    log_dir.mkdir(parents=True, exist_ok=True)
    with livemod.sigterm_raises(), livemod.real_hosts(HOSTS) as made:
        by_node = {h.node: h for h in made}
        server = livemod.start_exec(
            by_node["b"], f"exec iperf3 -s -1 -p {PORT}", log_dir / "server.log"
        )
        cli = livemod.start_exec(by_node["a"], f"sleep 0.3; exec {client}", log_dir / "client.json")
        try:
            raw = forwarder([(h.node, h.fd) for h in made], [(h.address, h.fd) for h in made])
        finally:
            livemod.stop_exec(cli)
            livemod.stop_exec(server)
        counters = {h.node: tun_counters(h.namespace) for h in made}
    return raw, iperf_result(log_dir / "client.json"), counters


def through_emulator(
    log_dir: Path, scenario_json: str, client: str
) -> tuple[dict[str, Any], dict[str, Any], dict[str, dict[str, int]]]:
    """iperf3 through the emulator (the live loop on ``scenario_json``)."""

    def forward(by_node: list[tuple[str, int]], _: list[tuple[str, int]]) -> dict[str, Any]:
        raw = call_native(_native.live_run, scenario_json, by_node)
        return dict(raw["live"])

    return _with_hosts(log_dir, client, forward)


def through_bare(
    log_dir: Path, seconds: float, client: str
) -> tuple[dict[str, Any], dict[str, Any], dict[str, dict[str, int]]]:
    """iperf3 through the bare forwarder for ``seconds``."""

    def forward(_: list[tuple[str, int]], by_addr: list[tuple[str, int]]) -> dict[str, Any]:
        return dict(_native.live_bare_forward(by_addr, seconds))

    return _with_hosts(log_dir, client, forward)


def tcp_numbers(client: dict[str, Any]) -> dict[str, Any]:
    """Receiver Mbit/s and retransmits from an iperf3 TCP client's JSON."""
    end = client.get("end", {})
    received = end.get("sum_received", {})
    sent = end.get("sum_sent", {})
    bps = received.get("bits_per_second")
    return {
        "mbps": bps / 1e6 if bps is not None else None,
        "retransmits": sent.get("retransmits"),
        "iperf_error": client.get("error"),
    }


def udp_numbers(client: dict[str, Any], seconds: float) -> dict[str, Any]:
    """Offered packets/s and the server's loss from an iperf3 UDP client's JSON."""
    s = client.get("end", {}).get("sum", {})
    packets = s.get("packets")
    return {
        "offered_packets": packets,
        "offered_pps": packets / seconds if packets else None,
        "receiver_lost_packets": s.get("lost_packets"),
        "iperf_error": client.get("error"),
    }


def own_loss(live: dict[str, Any]) -> int:
    """Packets the emulator read and neither wrote, nor dropped in the model, nor still
    holds: its own loss (0 when every read packet is accounted for)."""
    return int(
        live["read"] - live["unsupported"] - live["written"] - live["dropped"] - live["in_flight"]
    )


def cpu_per_packet(cpu_s: float, written: int) -> float | None:
    """Microseconds of the forwarding thread's CPU time (user and system, the whole run) per
    packet written: what a packet costs, whatever share of the CPUs the thread was given."""
    return cpu_s / written * 1e6 if written else None


def median_round(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run with the median packet rate (the lower middle one of an even number)."""
    return sorted(runs, key=lambda r: r["pps"])[(len(runs) - 1) // 2]


def load_average() -> list[float]:
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]


def run_bench(log_dir: Path, quick: bool = False, progress: Callable[[str], None] = print) -> dict:
    """Runs every measurement (``quick``: 1 s of traffic each instead of 5 s) and returns the
    report: each measurement's numbers, the targets, and the load average before and after."""
    livemod.check_can_run()
    if shutil.which("iperf3") is None:
        raise livemod.LiveError("iperf3 is not installed (it runs in the namespaces)")
    livemod.remove_namespaces(livemod.stale_namespaces())
    t = 1.0 if quick else 5.0
    rounds = 1 if quick else 3
    run_s = t + 1.5  # the client starts after 0.3 s; iperf3 needs ~0.5 s to connect and end
    report: dict[str, Any] = {
        "quick": quick,
        "traffic_seconds": t,
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "kernel": platform.release(),
        "loadavg_start": load_average(),
        "targets": {
            "tcp_1g_mbps": TARGET_TCP_1G_MBPS,
            "udp_pps": TARGET_UDP_PPS,
            "udp_ratio": TARGET_UDP_RATIO,
            "max_packet_bytes": MTU,
        },
    }
    tcp = f"iperf3 -c 10.0.0.2 -p {PORT} -t {t:g} -J"
    udp = f"iperf3 -c 10.0.0.2 -p {PORT} -t {t:g} -u -l 64 -b 0 -J"
    fq = {"kind": "fq_codel"}
    fast = {"kind": "pfifo", "limit": 100_000}

    progress("tcp through 1 Gbit/s fq_codel")
    live, client, tuns = through_emulator(
        log_dir / "tcp_1g", scenario("1Gbit", "1ms", fq, run_s), tcp
    )
    report["tcp_1g"] = {
        **tcp_numbers(client),
        "tun_dropped": tun_dropped(tuns),
        "live": live,
        "tuns": tuns,
    }

    # The emulator and the bare forwarder take turns (three rounds each, one with --quick)
    # so that both see the same machine; each is reported by its median round.
    emulator: list[dict[str, Any]] = []
    bare_runs: list[dict[str, Any]] = []
    for i in range(rounds):
        progress(f"udp 64 B through the emulator (10 Gbit/s pfifo), round {i + 1}/{rounds}")
        live, client, tuns = through_emulator(
            log_dir / f"udp_emulator_{i}", scenario("10Gbit", "0ms", fast, run_s), udp
        )
        emulator.append({
            **udp_numbers(client, t),
            "pps": live["written"] / t,
            "cpu_us_per_packet": cpu_per_packet(live["cpu_s"], live["written"]),
            "own_loss": own_loss(live),
            "model_drops": live["dropped"],
            "tun_dropped": tun_dropped(tuns),
            "live": live,
            "tuns": tuns,
        })  # fmt: skip
        progress(f"udp 64 B through the bare forwarder, round {i + 1}/{rounds}")
        bare, client, tuns = through_bare(log_dir / f"udp_bare_{i}", run_s, udp)
        bare_runs.append({
            **udp_numbers(client, t),
            "pps": bare["written"] / t,
            "cpu_us_per_packet": cpu_per_packet(bare["cpu_s"], bare["written"]),
            "tun_dropped": tun_dropped(tuns),
            "bare": bare,
            "tuns": tuns,
        })  # fmt: skip
    report["udp_emulator"] = {
        **median_round(emulator),
        "pps_rounds": [r["pps"] for r in emulator],
        # The emulator's own loss must be 0 in every round, not only the median one.
        "own_loss_rounds": [r["own_loss"] for r in emulator],
    }
    report["udp_bare"] = {**median_round(bare_runs), "pps_rounds": [r["pps"] for r in bare_runs]}
    b = report["udp_bare"]["pps"]
    report["udp_ratio"] = report["udp_emulator"]["pps"] / b if b else None
    ce, cb = report["udp_emulator"]["cpu_us_per_packet"], report["udp_bare"]["cpu_us_per_packet"]
    # What a packet costs the bare forwarder over what it costs the emulator: the share of
    # the bare forwarder's rate the emulator would reach with the same CPU time.
    report["udp_cpu_ratio"] = cb / ce if ce and cb else None

    progress("tcp through 10 Gbit/s, no rate limit")
    live, client, tuns = through_emulator(
        log_dir / "tcp_unshaped", scenario("10Gbit", "0ms", fast, run_s), tcp
    )
    report["tcp_unshaped"] = {
        **tcp_numbers(client),
        "tun_dropped": tun_dropped(tuns),
        "live": live,
        "tuns": tuns,
    }

    progress("tcp through the bare forwarder")
    bare, client, tuns = through_bare(log_dir / "tcp_bare", run_s, tcp)
    report["tcp_bare"] = {
        **tcp_numbers(client),
        "tun_dropped": tun_dropped(tuns),
        "bare": bare,
        "tuns": tuns,
    }

    report["loadavg_end"] = load_average()
    return report
