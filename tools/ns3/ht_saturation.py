#!/usr/bin/env python3
"""Runs tools/ns3/wifi_ht_saturation (ns-3 >= 3.44) over the HT/VHT/HE cells and writes the
ns-3 reference for airqueue's A-MPDU model: tools/ns3/results/wifi_ht_saturation.json.

Each cell is one run (ns-3 is deterministic for a seed): --standards x --n, every cell's
exact command, the ns-3 version the program reports, date, machine and load averages.

    NS3_PREFIX=$(echo /tmp/ns3-344/lib/python3*/site-packages/ns3) \\
        tools/ns3/build.sh wifi_ht_saturation
    nice -n 5 python3 tools/ns3/ht_saturation.py --duration 5
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from compare import load, machine, run_json  # tools/ns3/compare.py

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ns3", type=Path, default=HERE / "wifi_ht_saturation-ns3.44")
    ap.add_argument("--standards", default="ht,vht,he", help="Comma-separated: ht, vht, he.")
    ap.add_argument("--n", default="1,5,10,20,50", help="Numbers of stations, comma-separated.")
    ap.add_argument("--duration", type=float, default=10.0, help="Simulated seconds of traffic.")
    ap.add_argument("--warmup", type=float, default=1.0, help="Seconds before measuring.")
    ap.add_argument(
        "--out", type=Path, default=HERE / "results" / "wifi_ht_saturation.json", help="JSON."
    )
    args = ap.parse_args()
    if not args.ns3.exists():
        raise SystemExit(f"{args.ns3} not found: run NS3_PREFIX=... tools/ns3/build.sh first")

    started = datetime.now(UTC)
    load_before = load()
    cells: list[dict] = []

    def write() -> None:
        """The document so far: rewritten after every cell, so a long sweep that is stopped
        keeps the cells it finished."""
        doc = {
            "what": "ns-3 saturated uplink UDP, HT/VHT/HE single user, A-MPDU at ns-3's "
            "defaults (tools/ns3/wifi_ht_saturation.cc explains every setting)",
            "ns3_version": cells[0]["version"] if cells else None,
            "ns3_build": "PyPI wheel ns3==3.44.post0 (release profile, NS_LOG/NS_ASSERT "
            "compiled in)",
            "driver": "nice -n 5 python3 tools/ns3/ht_saturation.py " + " ".join(sys.argv[1:]),
            "date_utc": f"{started:%Y-%m-%d %H:%M}",
            "machine": machine(),
            "load_average_before": load_before,
            "load_average_after": load(),
            "cells": cells,
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(doc, indent=1) + "\n")

    for standard in [s.strip() for s in args.standards.split(",") if s.strip()]:
        for n in [int(x) for x in args.n.split(",") if x.strip()]:
            cmd = [
                str(args.ns3),
                "--json=1",
                f"--standard={standard}",
                f"--n={n}",
                f"--duration={args.duration:g}",
                f"--warmup={args.warmup:g}",
            ]
            sample = run_json(cmd)
            r = sample.report
            shown = " ".join([f"tools/ns3/{args.ns3.name}", *cmd[1:]])
            cells.append({"command": shown, "process_seconds": sample.process_seconds, **r})
            write()
            print(
                f"{standard:3} n={n:2}: {r['goodput_bps'] / 1e6:8.3f} Mbit/s, failed "
                f"{r['failed_ppdu_rate']:.4f}, {r['mpdus_per_ppdu']:.2f} MPDUs/PPDU, "
                f"loop {r['wall_seconds']:.2f} s, {r['events']:,} events "
                f"(traffic from {r['traffic_start_seconds']:.3f} s, "
                f"{r['associated_at_traffic_start']}/{n} associated, "
                f"{r['deassoc_events']} de-associations)",
                file=sys.stderr,
            )
    write()
    print(f"wrote {args.out.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
