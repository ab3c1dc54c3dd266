"""``airqueue bench --live``: live mode's throughput on this machine, each number beside
the target of issue 34 (docs/live.md#throughput). The measurements are in
:mod:`airqueue.live_bench`; this module prints them and writes the JSON."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from .. import live as livemod
from .. import live_bench
from .common import err, out


def _fmt(v: Any, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def _mark(ok: bool | None) -> str:
    return "" if ok is None else ("yes" if ok else "NO")


def live_bench_table(r: dict[str, Any]) -> Table:
    """The measurements, each with its target and whether it is met."""
    t = r["targets"]
    table = Table(
        title=f"bench --live ({r['cpus']} CPUs, load average {r['loadavg_start'][0]:.2f} "
        f"→ {r['loadavg_end'][0]:.2f}, {r['traffic_seconds']:g} s of traffic each)",
        title_justify="left",
    )
    for name, justify in [("measure", "left"), ("value", "right"), ("target", "right")]:
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    table.add_column("met")
    g, ue, ub = r["tcp_1g"], r["udp_emulator"], r["udp_bare"]
    un, tb = r["tcp_unshaped"], r["tcp_bare"]

    def rounds(m: dict[str, Any]) -> str:
        pps = m["pps_rounds"]
        return "" if len(pps) < 2 else f" ({min(pps):,.0f} … {max(pps):,.0f})"

    def ge(v: float | None, target: float) -> bool | None:
        return None if v is None else v >= target

    size = g["live"]["max_written_bytes"]
    rows: list[tuple[str, str, str, bool | None]] = [
        ("TCP a→b, 1 Gbit/s 1 ms fq_codel: Mbit/s at the receiver",
         _fmt(g["mbps"], ",.0f"), f"≥ {t['tcp_1g_mbps']:,.0f}", ge(g["mbps"], t["tcp_1g_mbps"])),
        ("  retransmits", _fmt(g["retransmits"], ","), "", None),
        ("  dropped by the kernel at the TUNs", _fmt(g["tun_dropped"], ","), "", None),
        ("  largest packet written (bytes)", _fmt(size, ","), f"≤ {t['max_packet_bytes']}",
         None if size is None else size <= t["max_packet_bytes"]),
        ("  release error p50 / p99 (µs)",
         f"{g['live']['p50_ns'] / 1e3:,.0f} / {g['live']['p99_ns'] / 1e3:,.0f}", "", None),
        ("UDP 64 B through the emulator (10 Gbit/s pfifo): packets/s",
         _fmt(ue["pps"], ",.0f") + rounds(ue), f"≥ {t['udp_pps']:,.0f}",
         ge(ue["pps"], t["udp_pps"])),
        ("  offered by iperf3 (packets/s)", _fmt(ue["offered_pps"], ",.0f"), "", None),
        ("  loop CPU time per packet (µs)", _fmt(ue["cpu_us_per_packet"], ".2f"), "", None),
        ("  emulator's own loss, every round (read - written - model drops - in flight)",
         _fmt(max(ue["own_loss_rounds"]), ","), "0", max(ue["own_loss_rounds"]) == 0),
        ("  dropped by the model", _fmt(ue["model_drops"], ","), "", None),
        ("  dropped by the kernel at the TUNs (reader behind the sender)",
         _fmt(ue["tun_dropped"], ","), "", None),
        ("UDP 64 B through the bare forwarder: packets/s", _fmt(ub["pps"], ",.0f") + rounds(ub),
         "", None),
        ("  offered by iperf3 (packets/s)", _fmt(ub["offered_pps"], ",.0f"), "", None),
        ("  forwarder CPU time per packet (µs)", _fmt(ub["cpu_us_per_packet"], ".2f"), "",
         None),
        ("  dropped by the kernel at the TUNs", _fmt(ub["tun_dropped"], ","), "", None),
        ("emulator / bare forwarder (UDP packets/s, median rounds)", _fmt(r["udp_ratio"], ".1%"),
         f"≥ {t['udp_ratio']:.0%}", ge(r["udp_ratio"], t["udp_ratio"])),
        ("  same, CPU time per packet (bare / emulator)", _fmt(r["udp_cpu_ratio"], ".1%"), "",
         None),
        ("TCP through 10 Gbit/s pfifo, no rate limit: Mbit/s (highest sustained)",
         _fmt(un["mbps"], ",.0f"), "", None),
        ("  retransmits", _fmt(un["retransmits"], ","), "", None),
        ("  dropped by the kernel at the TUNs", _fmt(un["tun_dropped"], ","), "", None),
        ("TCP through the bare forwarder: Mbit/s", _fmt(tb["mbps"], ",.0f"), "", None),
        ("  retransmits", _fmt(tb["retransmits"], ","), "", None),
        ("  dropped by the kernel at the TUNs", _fmt(tb["tun_dropped"], ","), "", None),
    ]  # fmt: skip
    for name, value, target, ok in rows:
        table.add_row(name, value, target, _mark(ok))
    return table


def bench_live(quick: bool, out_path: Path | None, as_json: bool = False) -> None:
    """Runs the live throughput measurements, prints the table (or, ``as_json``, the JSON)
    and writes the JSON to ``out_path``."""

    def progress(what: str) -> None:
        err.print(Text(f"measuring: {what} …", style="dim"))

    try:
        with tempfile.TemporaryDirectory(prefix="airqueue-bench-live-") as tmp:
            report = live_bench.run_bench(Path(tmp), quick=quick, progress=progress)
    except livemod.LiveError as e:
        err.print(Text(f"bench --live: {e}", style="red"))
        raise typer.Exit(1) from None
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        out.print(live_bench_table(report))
    if out_path is not None:
        out_path.parent.mkdir(parents=True, exist_ok=True)
        out_path.write_text(json.dumps(report, indent=2) + "\n")
        out.print(f"wrote {out_path}")
