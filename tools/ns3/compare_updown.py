#!/usr/bin/env python3
"""airqueue against ns-3 on uploads beside downloads through one AP (seed 002 §II-B, Figs. 22
and 23 without the box; docs/reproductions/hegde-2013.md, docs/ns3-wifi-comparison.md).

The cell of tools/ns3/wifi_updown.cc, and the same as an airqueue scenario written here:
server —100 Mbit, 150 µs— AP ))) 802.11a at 54 Mb/s (control frames at 24 Mb/s), driver
buffers of 100 packets, a 1-packet pfifo at the AP; one bulk TCP transfer per station
(airqueue's default NewReno, the scenarios' 8 MiB receive buffer, and, as ns-3's TCP, not
told when its own station's queue refuses a segment: `local_congestion = "loss"`; Linux's
"cwr", airqueue's default, keeps such segments unsent), downloads and uploads
from time 0; goodput over 20–60 s. Two cells (one download beside one upload: Fig. 22; two
uploads: Fig. 23), each with basic access and with RTS/CTS above 500 bytes (the paper's
§IV-B setting: data frames protected, TCP ACK frames not), seeds 1 … --seeds in both
simulators, interleaved. Prints each flow's mean goodput and the ratio the figures are
about (download ÷ upload; smaller ÷ larger upload) as markdown.

    tools/ns3/build.sh wifi_updown && python3 tools/ns3/compare_updown.py --seeds 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from compare import load, machine, run_json  # tools/ns3/compare.py

HERE = Path(__file__).resolve().parent
NS3 = HERE / "wifi_updown"

AIRQUEUE_SCRIPT = """
import json, sys
import airqueue
r = airqueue.run(sys.argv[1], set={"run.seed": int(sys.argv[2])})
print(json.dumps({
    "flows": {str(f): float(g) for f, g in zip(r.flows["flow"], r.flows["goodput_bps"])},
    "wall_seconds": r.summary["timing"]["wall_seconds"],
}))
"""

#: (label, uploads, downloads)
CELLS = [("1 download + 1 upload (Fig. 22)", 1, 1), ("2 uploads (Fig. 23)", 2, 0)]


def cell(up: int, down: int, rts: bool, window: str, duration: int = 60, warmup: int = 20) -> str:
    """The airqueue scenario (TOML) of one cell of the comparison: goodput over
    [warmup, duration] s, as wifi_updown's --from and --duration."""
    stations = [f"down{i}" for i in range(down)] + [f"up{i}" for i in range(up)]
    s = f'[run]\nduration = "{duration}s"\nwarmup = "{warmup}s"\n'
    s += '[[nodes]]\nname = "server"\n[[nodes]]\nname = "ap"\nkind = "router"\n'
    s += "".join(f'[[nodes]]\nname = "{n}"\n' for n in stations)
    s += '[[links]]\nname = "lan"\nbetween = ["server", "ap"]\nrate = "100Mbit"\ndelay = "150us"\n'
    s += (
        '[[cells]]\nname = "wlan"\nstandard = "802.11a"\nap = "ap"\nrate = "54Mbit"\n'
        "ap_buffer = 100\n"
    )
    if rts:
        s += "rts_threshold = 500\n"
    s += "stations = [" + ", ".join(f'{{ node = "{n}" }}' for n in stations) + "]\n"
    s += '[[qdiscs]]\ndev = "ap.wlan"\nkind = "pfifo"\nlimit = 1\n'
    for n in stations:
        src, dst = ("server", n) if n.startswith("down") else (n, "server")
        s += (
            f'[[flows]]\nname = "{n}"\nfrom = "{src}"\nto = "{dst}"\n'
            f'transport = {{ kind = "tcp", rcv_buffer = "{window}", local_congestion = "loss" }}\n'
            'app = { kind = "bulk" }\n'
        )
    return s


def ratio(flows: dict[str, float]) -> float:
    """Download ÷ upload, or the smaller upload ÷ the larger."""
    if "down0" in flows:
        return flows["down0"] / flows["up0"]
    ups = sorted(v for k, v in flows.items() if k.startswith("up"))
    return ups[0] / ups[-1]


def mean_flows(runs: list[dict[str, float]]) -> str:
    """Each flow's mean goodput over the seeds, Mb/s: ``down0 8.11 / up0 15.70``."""
    names = sorted(runs[0])
    return " / ".join(f"{k} {statistics.mean(r[k] for r in runs) / 1e6:.2f}" for k in names)


def window_bytes(window: str) -> int:
    units = {"KiB": 1 << 10, "MiB": 1 << 20}
    for u, k in units.items():
        if window.endswith(u):
            return int(window[: -len(u)]) * k
    return int(window)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3, help="Seeds (ns-3 RngRun) per cell.")
    ap.add_argument("--window", default="8MiB", help="TCP receive (and ns-3 send) buffer.")
    args = ap.parse_args()
    if not NS3.exists():
        sys.exit(f"{NS3} is missing: run tools/ns3/build.sh wifi_updown")
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {machine()}; load {load()}\n")
    print(
        "| cell | access | airqueue Mb/s | ns-3 Mb/s | ratio airqueue / ns-3 "
        "| wall airqueue / ns-3 s |"
    )
    print("| --- | --- | --- | --- | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for label, up, down in CELLS:
            for rts in (False, True):
                path = Path(tmp) / f"{up}-{down}-{rts}.toml"
                path.write_text(cell(up, down, rts, args.window))
                ours: list[dict[str, float]] = []
                theirs: list[dict[str, float]] = []
                wall_a, wall_n = [], []
                for seed in range(1, args.seeds + 1):
                    a = run_json([sys.executable, "-c", AIRQUEUE_SCRIPT, str(path), str(seed)])
                    n = run_json(
                        [
                            str(NS3),
                            "--duration=60",
                            "--from=20",
                            f"--up={up}",
                            f"--down={down}",
                            f"--rts={500 if rts else 2347}",
                            f"--window={window_bytes(args.window)}",
                            f"--seed={seed}",
                            "--json",
                        ]
                    )
                    ours.append(a.report["flows"])
                    theirs.append({f["flow"]: f["goodput_bps"] for f in n.report["flows"]})
                    wall_a.append(a.report["wall_seconds"])
                    wall_n.append(n.report["wall_seconds"])

                ra = statistics.mean(ratio(r) for r in ours)
                rn = statistics.mean(ratio(r) for r in theirs)
                print(
                    f"| {label} | {'RTS/CTS > 500 B' if rts else 'basic'} | {mean_flows(ours)} "
                    f"| {mean_flows(theirs)} | {ra:.2f} / {rn:.2f} "
                    f"| {statistics.median(wall_a):.3f} / {statistics.median(wall_n):.3f} |"
                )


if __name__ == "__main__":
    main()
