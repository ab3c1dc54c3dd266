"""pcap capture, read back with Debian's tshark (installed by .ci/run)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pandas as pd

import airqueue
from support import DUMBBELL, UDP_BOTTLENECK, airqueue_cli, problem_paths, require_binary


def tshark(*args: str | Path) -> str:
    exe = require_binary("tshark", "tshark")
    proc = subprocess.run(
        [exe, *(str(a) for a in args)], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def count(pcap: Path, display_filter: str | None = None) -> int:
    args: list[str | Path] = ["-r", pcap, "-T", "fields", "-e", "frame.number"]
    if display_filter:
        args += ["-Y", display_filter]
    return len(tshark(*args).split())


def test_dumbbell_pcap_opens_in_tshark_with_every_transmitted_packet(tmp_path: Path) -> None:
    """Done-when: the TCP dumbbell's pcap opens in tshark with the right number of packets
    (reference: every packet the two bottleneck transmitters started, as counted by the
    queues table) and no malformed packets, and tshark shows the ten TCP conversations."""
    out = tmp_path / "run"
    proc = airqueue_cli(
        "run", DUMBBELL, "--set", "run.duration=5s", "--pcap", "bottleneck", "--out", out
    )
    assert proc.returncode == 0, proc.stderr
    pcap = out / "bottleneck.pcap"
    queues = pd.read_parquet(out / "queues.parquet").set_index("queue")
    data = int(queues.loc["router.bottleneck", "dequeued_packets"])
    acks = int(queues.loc["receiver.bottleneck", "dequeued_packets"])
    assert data > 3000 and acks > 1000
    assert f"{data + acks:,} packets" in proc.stdout
    assert count(pcap) == data + acks
    assert count(pcap, "tcp.len > 0 && ip.src == 10.0.0.1") == data
    assert count(pcap, "tcp.len == 0 && ip.src == 10.0.0.3") == acks
    assert count(pcap, "_ws.malformed || _ws.expert.severity == error") == 0
    conv = tshark("-r", pcap, "-q", "-z", "conv,tcp")
    ports = [f"10.0.0.1:{49152 + i}" for i in range(10)]
    assert all(p in conv for p in ports), conv
    # Nanosecond timestamps: flow i starts at exactly i x 10 ms (start_spacing).
    first = tshark("-r", pcap, "-T", "fields", "-e", "frame.time_relative", "-c", "3")
    assert first.split() == ["0.000000000", "0.010000000", "0.020000000"]
    # Full lengths on the wire, headers only in the file (snaplen).
    lengths = tshark(
        "-r", pcap, "-T", "fields", "-e", "frame.len", "-e", "frame.cap_len", "-c", "1"
    )
    assert lengths.split() == ["1500", "52"]


def test_sequence_numbers_follow_the_connection(tmp_path: Path) -> None:
    res = airqueue.run(
        DUMBBELL,
        set={"run.duration": "2s", "flows.bulk.count": 1},
        pcap="bottleneck",
        pcap_dir=tmp_path,
    )
    fields = tshark(
        "-r",
        tmp_path / "bottleneck.pcap",
        "-Y",
        "tcp.len > 0",
        "-T",
        "fields",
        "-e",
        "tcp.seq",
        "-e",
        "tcp.len",
    )
    rows = [tuple(map(int, line.split())) for line in fields.strip().splitlines()[:3]]
    assert rows == [(1, 1448), (1449, 1448), (2897, 1448)]
    assert res.pcap["bottleneck"][1] == count(tmp_path / "bottleneck.pcap")


def test_udp_pcap_holds_every_datagram_of_the_access_link(tmp_path: Path) -> None:
    res = airqueue.run(UDP_BOTTLENECK, pcap=["access"], pcap_dir=tmp_path)
    sent = int(res.queues.set_index("queue").loc["sender.access", "dequeued_packets"])
    pcap = tmp_path / "access.pcap"
    # The queue table counts from the end of the warm-up; the capture covers the whole run.
    assert count(pcap) == res.pcap["access"][1] >= sent
    assert count(pcap, "udp") == count(pcap)
    assert count(pcap, "_ws.malformed") == 0


def test_an_unknown_pcap_link_is_an_input_error(tmp_path: Path) -> None:
    proc = airqueue_cli("run", UDP_BOTTLENECK, "--pcap", "nope", "--out", tmp_path / "o")
    assert proc.returncode == 2
    assert problem_paths(proc.stderr) == ["pcap.nope"]
    assert "access, bottleneck" in proc.stderr
