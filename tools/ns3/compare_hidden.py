#!/usr/bin/env python3
"""airqueue against ns-3 on the hidden-terminal pair (docs/ns3-wifi-comparison.md).

ns-3's examples/wireless/wifi-hidden-terminal.cc topology, in tools/ns3/wifi_hidden.cc and
as an airqueue scenario written here (the same one crates/airqueue/tests/wifi_hidden.rs
runs): three ad hoc nodes a, b, c; a and c send saturated UDP (1472-byte datagrams at the
PHY rate) to b; a and c hear each other or not (`[propagation] hears`, a matrix loss of
200 dB in ns-3); basic access or RTS/CTS; 802.11b at 11 Mb/s and 802.11a at 54 Mb/s; 10 s
with a 1 s warm-up. Each cell runs with seeds 1 … --seeds in both simulators, the runs
interleaved; prints the mean total UDP goodput of each and their wall times as markdown.

    tools/ns3/build.sh wifi_hidden && python3 tools/ns3/compare_hidden.py --seeds 5
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
NS3 = HERE / "wifi_hidden"

AIRQUEUE_SCRIPT = """
import json, sys
import airqueue
r = airqueue.run(sys.argv[1], set={"run.seed": int(sys.argv[2])})
print(json.dumps({
    "flows_bps": [float(g) for g in r.flows["goodput_bps"]],
    "wall_seconds": r.summary["timing"]["wall_seconds"],
}))
"""

STANDARDS = {"b": ("802.11b", "11Mbit"), "a": ("802.11a", "54Mbit")}


def triangle(standard: str, hidden: bool, rts: bool) -> str:
    """The airqueue scenario (TOML) of one cell of the comparison."""
    name, rate = STANDARDS[standard]
    s = (
        '[run]\nduration = "10s"\nwarmup = "1s"\n'
        + "".join(f'[[nodes]]\nname = "{n}"\n' for n in "abc")
        + f'[[cells]]\nname = "w"\nmode = "adhoc"\nstandard = "{name}"\nrate = "{rate}"\n'
        + 'stations = [{ node = "a" }, { node = "b" }, { node = "c" }]\n'
    )
    if rts:
        s += "rts_threshold = 500\n"
    if hidden:
        s += '[propagation]\nhears = [["a", "b"], ["b", "c"]]\n'
    for f in "ac":
        s += (
            f'[[flows]]\nname = "{f}"\nfrom = "{f}"\nto = "b"\n'
            f'app = {{ kind = "cbr", size = 1472, rate = "{rate}" }}\n'
        )
    return s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=5, help="Seeds (ns-3 RngRun) per cell.")
    ap.add_argument("--standards", default="b,a", help="Comma list of b, a.")
    args = ap.parse_args()
    if not NS3.exists():
        sys.exit(f"{NS3} is missing: run tools/ns3/build.sh wifi_hidden")
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {machine()}; load {load()}\n")
    print(
        "| standard | hearing | access | airqueue Mb/s | ns-3 Mb/s | difference "
        "| wall airqueue / ns-3 s |"
    )
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for std in args.standards.split(","):
            for hidden in (False, True):
                for rts in (False, True):
                    path = Path(tmp) / f"{std}-{hidden}-{rts}.toml"
                    path.write_text(triangle(std, hidden, rts))
                    ours, theirs, wall_a, wall_n = [], [], [], []
                    for seed in range(1, args.seeds + 1):
                        a = run_json([sys.executable, "-c", AIRQUEUE_SCRIPT, str(path), str(seed)])
                        n = run_json(
                            [
                                str(NS3),
                                f"--standard={std}",
                                f"--hidden={int(hidden)}",
                                f"--rts={500 if rts else 2347}",
                                f"--seed={seed}",
                                "--json",
                            ]
                        )
                        ours.append(sum(a.report["flows_bps"]))
                        theirs.append(sum(n.report["flows_bps"]))
                        wall_a.append(a.report["wall_seconds"])
                        wall_n.append(n.report["wall_seconds"])
                    mo, mt = statistics.mean(ours), statistics.mean(theirs)
                    print(
                        f"| {STANDARDS[std][0]} | {'hidden' if hidden else 'all hear'} "
                        f"| {'RTS/CTS' if rts else 'basic'} | {mo / 1e6:.4f} | {mt / 1e6:.4f} "
                        f"| {100 * (mo / mt - 1):+.2f} % "
                        f"| {statistics.median(wall_a):.3f} / {statistics.median(wall_n):.3f} |"
                    )


if __name__ == "__main__":
    main()
