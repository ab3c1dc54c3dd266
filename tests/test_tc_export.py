"""`airqueue tc export`: a scenario's queues as `tc` commands (docs/tc.md).

References: iproute2 6.1's own printing (lib/json_print.c `print_color_rate`,
lib/json_print_math.c `sprint_size`, lib/utils.c `print_time`) for the units, and the
man pages tc-htb(8), tc-tbf(8), tc-u32(8), tc-stab(8), tc-netem(8), tc-prio(8) for the
commands; the exact lines below are what `tc` 6.1 accepted on this project's kernel
(tests/test_tc_roundtrip.py applies them).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from airqueue import load_scenario
from airqueue.tc.export import NOT_LINUX, ExportError, export_scenario, port_prefixes, render
from airqueue.tc.units import (
    burst_as_read_back,
    tc_rate,
    tc_rate_printed,
    tc_size,
    tc_size_printed,
    tc_time,
)
from support import airqueue_cli

DATA = Path(__file__).parent / "data" / "tc"
ROUND_TRIP = DATA / "round-trip.toml"


def lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln and not ln.startswith("#")]


# ---------------------------------------------------------------------------------------
# Units as tc prints them
# ---------------------------------------------------------------------------------------


def test_rates_print_as_tc_prints_them() -> None:
    # print_color_rate: SI steps while exact (or >= 1000 of the next unit), "bit" suffix.
    assert tc_rate(12_000_000) == "12Mbit"
    assert tc_rate(723_200) == "723200bit"  # `tc qdisc show`: "rate 723200bit"
    assert tc_rate(1_500_000) == "1500Kbit"
    assert tc_rate(9600) == "9600bit"
    # Where tc's printer would truncate (12345678 -> 12Mbit), the export stays exact.
    assert tc_rate(12_345_678) == "12345.678Kbit"
    assert tc_rate_printed(12_345_678 // 8) == "12345Kbit"


def test_sizes_and_times_print_as_tc_prints_them() -> None:
    # sprint_size: Kb/Mb of 1024 within tc's tolerance; the export only when exact.
    assert tc_size(10240) == "10Kb"
    assert tc_size(10000) == "10000b"
    assert tc_size_printed(10239) == "10Kb"  # tbf "burst 10Kb" for a 10240 B bucket
    assert tc_size_printed(1597) == "1597b"
    # print_time: s / ms / us; the export keeps 437.5ms exact (tc's %.3g would say 438ms).
    assert tc_time(50_000_000) == "50ms"
    assert tc_time(437_500_000) == "437.5ms"
    assert tc_time(1_500_000_000) == "1.5s"
    assert tc_time(250_000) == "250us"


def test_burst_read_back_is_within_a_byte() -> None:
    # tc_calc_xmittime then tc_calc_xmitsize (the kernel keeps ticks of 64 ns).
    assert abs(burst_as_read_back(90_400, 10_240) - 10_240) <= 1


def test_port_ranges_are_u32_prefixes() -> None:
    assert port_prefixes(8000, 8015) == [(8000, 0xFFF0)]
    assert port_prefixes(5060, 5060) == [(5060, 0xFFFF)]
    covered = set()
    for v, m in port_prefixes(1000, 1100):
        covered |= {p for p in range(65536) if p & m == v}
    assert covered == set(range(1000, 1101))


# ---------------------------------------------------------------------------------------
# The commands
# ---------------------------------------------------------------------------------------


def test_htb_tree_exports_with_handles_classes_filters_and_stab() -> None:
    res = load_scenario(ROUND_TRIP).resolved()
    text = render(export_scenario(res, "t", node="r", iface_map={"r.down": "eth1"}))
    got = lines(text)
    expected = [
        "tc qdisc replace dev eth1 root handle 1: stab overhead 24 linklayer ethernet mpu 64 "
        "htb default 4 r2q 5 direct_qlen 1000",
        "tc class add dev eth1 parent 1: classid 1:1 htb rate 10Mbit ceil 10Mbit prio 0",
        "tc class add dev eth1 parent 1:1 classid 1:2 htb rate 723200bit ceil 2Mbit "
        "burst 10000b prio 0",
        "tc class add dev eth1 parent 1:1 classid 1:3 htb rate 3Mbit ceil 10Mbit prio 0 "
        "quantum 3000",
        "tc class add dev eth1 parent 1:1 classid 1:4 htb rate 6Mbit ceil 10Mbit prio 2",
        "tc qdisc add dev eth1 parent 1:2 handle 20: bfifo limit 30000b",
        "tc qdisc add dev eth1 parent 1:3 handle 30: tbf rate 2Mbit burst 5000b latency 20ms",
        "tc qdisc add dev eth1 parent 1:4 handle 40: pfifo_head_drop limit 77",
        # dscp = [46, 34] with protocol = "udp": one filter per alternative (tc-u32(8)).
        "tc filter add dev eth1 parent 1: protocol ip prio 1 u32 match ip dsfield 0xb8 0xfc "
        "match ip protocol 17 0xff flowid 1:2",
        "tc filter add dev eth1 parent 1: protocol ip prio 2 u32 match ip dsfield 0x88 0xfc "
        "match ip protocol 17 0xff flowid 1:2",
        "tc filter add dev eth1 parent 1: protocol ip prio 3 u32 match ip dst 10.0.0.3/32 "
        "match ip dport 8000 0xfff0 flowid 1:3",
        "tc filter add dev eth1 parent 1: protocol ip prio 4 u32 match ip src 10.0.0.1/32 "
        "flowid 1:4",
        "tc filter add dev eth1 parent 1: protocol ip prio 5 u32 match ip src 10.0.0.2/32 "
        "flowid 1:4",
    ]
    for e in expected:
        assert e in got, f"missing: {e}\n{text}"
    # pfifo_fast reads its limit from txqueuelen; tbf's peak rate needs its mtu.
    assert "ip link set dev fast txqueuelen 300" in got
    assert "tc qdisc replace dev fast root handle 1: pfifo_fast" in got
    a = lines(render(export_scenario(res, "t", node="a")))
    assert (
        "tc qdisc replace dev fast root handle 1: stab overhead -14 linklayer ethernet "
        "tbf rate 1Mbit burst 3000b latency 40ms peakrate 2Mbit mtu 1514b" in a
    )


def test_an_interface_without_a_tree_gets_airqueues_default_pfifo() -> None:
    res = load_scenario(ROUND_TRIP).resolved()
    got = lines(render(export_scenario(res, "t", node="b")))
    assert "tc qdisc replace dev down root handle 1: pfifo limit 1000" in got
    only = export_scenario(res, "t", node="b", only_trees=True)
    assert only.devs == []


def test_flow_matches_become_the_flows_addresses_protocol_and_port() -> None:
    res = load_scenario("examples/qdisc-zoo").resolved()
    text = render(export_scenario(res, "zoo", node="router"))
    # htb_sfq_voice: phone (10.0.0.2) -> rx_htb_sfq (10.0.0.6), UDP to iperf's 5001.
    assert (
        "u32 match ip src 10.0.0.2/32 match ip dst 10.0.0.6/32 match ip protocol 17 0xff "
        "match ip dport 5001 0xffff flowid 1:2" in text
    )
    # fq_codel: airqueue's defaults are Linux's but for the quantum: airqueue's psched_mtu
    # is the link's MTU + overhead (1500), Linux's MTU + 14 on Ethernet (tc-fq_codel(8)).
    # The stab takes off the 14 B header Linux counts and airqueue (link_header 0) does not.
    assert (
        "root handle 1: stab overhead -14 linklayer ethernet fq_codel limit 10240 flows 1024 "
        "quantum 1500 target 5ms interval 100ms memory_limit 32Mb ecn drop_batch 64" in text
    )


def test_the_stab_makes_linux_charge_the_bytes_airqueue_charges() -> None:
    """airqueue charges a packet its datagram + the link's link_header; Linux its skb->len,
    which on Ethernet includes a 14 B header: the stab overhead is the difference, added
    to the tree's own (tc-stab(8)); fifos that count packets need none."""
    res = load_scenario(ROUND_TRIP).resolved()
    side = next(d for d in export_scenario(res, "t", node="r").devs if d.dev == "r.side")
    assert side.objects[0].stab == [("overhead", "-14"), ("linklayer", "ethernet")]
    # r.down's link has link_header = 14: the tree's own stab (overhead 24) as written.
    down = next(d for d in export_scenario(res, "t", node="r").devs if d.dev == "r.down")
    assert down.objects[0].stab[0] == ("overhead", "24")
    # A raw-IP device (tun, ppp: --device-header 0) needs no correction where link_header is 0.
    raw = export_scenario(res, "t", node="r", device_header=0)
    side = next(d for d in raw.devs if d.dev == "r.side")
    assert side.objects[0].stab == []
    down = next(d for d in raw.devs if d.dev == "r.down")
    assert down.objects[0].stab[0] == ("overhead", "38")
    # pfifo counts packets: no stab.
    up = next(d for d in export_scenario(res, "t", node="r").devs if d.dev == "r.up")
    assert up.objects[0].stab == []


def test_netem_carries_the_link_impairment() -> None:
    res = load_scenario(ROUND_TRIP).resolved()
    res["links"][1]["impairment"] = {
        "delay": "10ms",
        "jitter": "2ms",
        "loss": 0.01,
        "duplicate": "0.5%",
        "rate": "5Mbit",
        "slot": {"min": "1ms", "max": "3ms", "packets": 4},
    }
    text = render(export_scenario(res, "t", node="b"))
    assert (
        "tc qdisc replace dev down root handle 1: netem limit 1000 delay 10ms 2ms "
        "loss random 1% duplicate 0.5% rate 5Mbit -14 0 0 slot 1ms 3ms packets 4" in text
    )  # netem charges skb->len (with the 14 B header), airqueue the datagram: -14
    # With a tree, netem is the root and the tree its child; the tree's stab goes on the
    # netem (Linux 6.1: "STAB not supported on a non root", seen in the kernel VM).
    r = export_scenario(res, "t", node="r")
    down = next(d for d in r.devs if d.dev == "r.down")
    words = [" ".join(o.words()) for o in down.objects]
    assert words[0].startswith("qdisc replace dev down root handle fff0: stab overhead")
    assert " netem " in words[0]
    assert words[1].startswith("qdisc add dev down parent fff0:1 handle 1: htb")
    # reorder without a gap: tc writes (and prints back) gap 1, airqueue's default too.
    res["links"][1]["impairment"] = {"delay": "1ms", "reorder": 0.25}
    text = render(export_scenario(res, "t", node="b"))
    assert "netem limit 1000 delay 1ms reorder 25% gap 1" in text


def test_kinds_linux_lacks_are_refused_by_name_with_the_pointer_to_live() -> None:
    r = airqueue_cli("tc", "export", "examples/qdisc-zoo", "--node", "router")
    assert r.returncode == 2
    assert "qdiscs.router.stfq" in r.stderr and 'kind "stfq"' in r.stderr
    assert "airqueue live" in r.stderr
    assert "fq_codel limit 10240" in r.stdout  # the rest is still written
    assert "# not exported: qdiscs.router.stfq" in r.stdout


def test_virtual_device_trees_use_fw_marks_per_member() -> None:
    res = load_scenario("nap/ftp-bt-first-prio-tbf").resolved()
    text = render(export_scenario(res, "nap", node="nap", only_trees=True))
    assert "iptables -t mangle -A POSTROUTING -o wlan -j MARK --set-mark 1" in text
    assert "tc filter add dev imq0 parent 1: protocol ip prio 1 handle 1 fw flowid 1:1" in text
    assert "prio bands 2 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1" in text


def test_every_shipped_scenario_exports_or_refuses_by_name() -> None:
    from airqueue import shipped

    root = shipped.scenarios_dir()
    for p in sorted(root.rglob("*.toml")):
        res = load_scenario(p).resolved()
        exp = export_scenario(res, str(p))
        for r in exp.refused:
            assert any(f'kind "{k}"' in r.reason for k in NOT_LINUX), (p, r)


def test_batch_form_and_map() -> None:
    r = airqueue_cli(
        "tc", "export", str(ROUND_TRIP), "--node", "r", "--map", "r.side=eth9", "--batch"
    )
    assert r.returncode == 0, r.stderr
    assert (
        "qdisc replace dev eth9 root handle 1: stab overhead -14 linklayer ethernet "
        "tbf rate 5Mbit burst 6000b limit 40000b" in r.stdout.splitlines()
    )
    assert "#!/bin/sh" not in r.stdout
    assert "# ip link set dev fast txqueuelen 300" in r.stdout


@pytest.mark.parametrize(
    ("args", "where"),
    [
        (["--map", "r.nowhere=eth0"], "--map r.nowhere"),
        (["--map", "r.down=a-name-too-long-for-linux"], "r.down"),
        (["--node", "nobody"], "--node"),
    ],
)
def test_bad_options_exit_2_naming_them(args: list[str], where: str) -> None:
    r = airqueue_cli("tc", "export", str(ROUND_TRIP), *args)
    assert r.returncode == 2
    assert where in r.stderr


def test_priority_match_is_refused() -> None:
    res = load_scenario(ROUND_TRIP).resolved()
    res["qdiscs"][0]["classes"][1]["match"] = {"priority": [6]}
    exp = export_scenario(res, "t", node="r")
    assert any("match.priority" in r.where for r in exp.refused)
    with pytest.raises(ExportError):
        export_scenario(res, "t", node="r", iface_map={"r.nowhere": "x"})


def test_cake_length_accounting_is_noted_as_having_no_tc_counterpart() -> None:
    # sch_cake.c counts memlimit in skb->truesize, always; airqueue's
    # memory_accounting = "length" cannot be asked of the kernel, so the export says so.
    res = load_scenario(DATA / "every-kind.toml").resolved()
    notes = {d.dev: d.notes for d in export_scenario(res, "t", node="r").devs}
    assert not any("memory_accounting" in n for n in notes["r.l3"])
    cake = next(q for q in res["qdiscs"] if q.get("kind") == "cake")
    cake["memory_accounting"] = "length"
    notes = {d.dev: d.notes for d in export_scenario(res, "t", node="r").devs}
    assert any("memory_accounting = 'length' has no tc counterpart" in n for n in notes["r.l3"])
