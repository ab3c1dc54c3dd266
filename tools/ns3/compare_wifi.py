#!/usr/bin/env python3
"""airqueue against ns-3 on the 802.11b cells (docs/ns3-wifi-comparison.md).

Two workloads, each run by airqueue (the installed package, through its Python API, in a
fresh interpreter per run) and by the ns-3 programs that tools/ns3/build.sh builds, on
the same machine in the same run:

- the DCF saturation cell (scenarios/validation/dcf-saturation.toml; tools/ns3/
  wifi_saturation.cc): n saturated UDP stations at 11 Mb/s, basic access and RTS/CTS, for
  each n of --n; throughput (UDP payload) and wall time of each;
- the mixed-rate TCP downloads (scenarios/adwiser/mixed-rate-downloads.toml; tools/ns3/
  wifi_mixed_rate.cc): per-flow goodput and wall time.

The cells named in --timed (default: n = 10, both access modes) are run --repeat times with
the two simulators interleaved, so a load change on the shared machine hits both, and the
speed-up is the ratio of medians; every other cell is run once. Prints markdown tables.

``--ns3`` names the ns-3 build: ``debian`` (default) runs tools/ns3/wifi_saturation and
tools/ns3/wifi_mixed_rate, any other name NAME runs wifi_saturation-NAME and
wifi_mixed_rate-NAME (build.sh with NS3_PREFIX writes wifi_saturation-ns3.44). Given more
than once, every build runs in the same interleaved series.

    tools/ns3/build.sh && python3 tools/ns3/compare_wifi.py --repeat 5
    python3 tools/ns3/compare_wifi.py --ns3 debian --ns3 ns3.44 --n 10 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from compare import Sample, load, machine, run_json  # tools/ns3/compare.py

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SATURATION = ROOT / "scenarios" / "validation" / "dcf-saturation.toml"
MIXED = ROOT / "scenarios" / "adwiser" / "mixed-rate-downloads.toml"

#: Runs one airqueue simulation in a fresh interpreter and prints one JSON object: the
#: flows' goodput (bit/s over the measurement window), and the stations' frame counts.
AIRQUEUE_SCRIPT = """
import json, sys
import airqueue
scenario, sets = sys.argv[1], json.loads(sys.argv[2])
r = airqueue.run(scenario, set=sets)
st = r.more["stations"]
print(json.dumps({
    "simulator": "airqueue",
    "version": airqueue.__version__,
    "sim_seconds": r.summary["sim_seconds"],
    "wall_seconds": r.summary["timing"]["wall_seconds"],
    "events": r.summary["events"],
    "flows": {f: float(g) for f, g in zip(r.flows["flow"], r.flows["goodput_bps"])},
    "frames_sent": int(st["frames_sent"].sum()),
    "collisions": int(st["collisions"].sum()),
}))
"""

#: RTS threshold of each access mode (the scenario's `cells.wlan.rts_threshold`).
ACCESS = {"basic": 2347, "rts": 500}


@dataclass(frozen=True)
class Cell:
    """One saturation workload: n stations, one access mode."""

    n: int
    access: str
    #: airqueue's `cells.wlan.capture` ("none": Bianchi's collisions; "sinr": ns-3's
    #: SINR-based reception, the like-for-like setting for ns-3 without preamble detection).
    capture: str = "none"
    #: Each station's CBR rate, Mbit/s, in both simulators: 11 (the validated workload; most
    #: datagrams are dropped at the stations' full queues) or anything above a station's
    #: share (1 for 10 stations: `airqueue bench`'s wifi-saturated-10 cell).
    offered: float = 11.0

    def airqueue_cmd(self, duration: float | None) -> list[str]:
        sets: dict[str, Any] = {
            "nodes.sta{i}.count": self.n,
            "cells.wlan.stations.0.count": self.n,
            "flows.up{i}.count": self.n,
            "cells.wlan.rts_threshold": ACCESS[self.access],
        }
        if self.capture != "none":
            sets["cells.wlan.capture"] = self.capture
        if self.offered != 11.0:
            sets["flows.up{i}.app.rate"] = f"{self.offered:g}Mbit"
        if duration is not None:
            sets["run.duration"] = f"{duration:g}s"
        return [sys.executable, "-c", AIRQUEUE_SCRIPT, str(SATURATION), json.dumps(sets)]

    def ns3_cmd(
        self, binary: Path, duration: float | None, preamble_detection: bool = False
    ) -> list[str]:
        cmd = [
            str(binary),
            "--json=1",
            f"--n={self.n}",
            f"--rts={ACCESS[self.access]}",
            f"--preambleDetection={int(preamble_detection)}",
            f"--offered={self.offered:g}",
        ]
        if duration is not None:
            cmd.append(f"--duration={duration:g}")
        return cmd

    @property
    def name(self) -> str:
        return f"n = {self.n}, {self.access}"


@dataclass
class Runs:
    """Every run of one simulator on one workload."""

    samples: list[Sample] = field(default_factory=list)

    def loop(self) -> float:
        return statistics.median(s.report["wall_seconds"] for s in self.samples)

    def process(self) -> float:
        return statistics.median(s.process_seconds for s in self.samples)

    def loop_range(self) -> str:
        walls = [s.report["wall_seconds"] for s in self.samples]
        return f"{min(walls):.4g}–{max(walls):.4g}"

    @property
    def report(self) -> dict[str, Any]:
        return self.samples[0].report


def airqueue_throughput(report: dict[str, Any]) -> float:
    return sum(report["flows"].values())


def mbit(bps: float) -> str:
    return f"{bps / 1e6:.3f}"


def program(name: str, build: str) -> Path:
    """The ns-3 program `name` of one build: Debian's is plain, the others suffixed."""
    return HERE / (name if build == "debian" else f"{name}-{build}")


def builds(by_sim: dict[str, Runs]) -> list[str]:
    """The ns-3 builds of one cell's results (keys other than airqueue and the p.d. runs)."""
    return [sim for sim in by_sim if sim != "airqueue" and not sim.endswith(" p.d.")]


def saturation_table(results: dict[Cell, dict[str, Runs]]) -> str:
    """Throughput of airqueue and of ns-3 in its two collision settings (wifi_common.h):
    without preamble detection (receivers lock on and defer EIFS; 2 Mb/s RTS can survive a
    collision) and with it (no frame survives a collision; receivers defer DIFS)."""
    lines = [
        "| cell | ns-3 build | airqueue Mbit/s | ns-3 Mbit/s | diff. | ns-3 with preamble "
        "detection Mbit/s | diff. | collisions per access: airqueue / ns-3 / ns-3 p.d. "
        "| airqueue loop s | ns-3 loop s | speed-up (loop) | airqueue events | ns-3 events |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| ---: |",
    ]
    for cell, by_sim in results.items():
        for build in builds(by_sim):
            aq, ns, pd = by_sim["airqueue"], by_sim[build], by_sim[f"{build} p.d."]
            a = airqueue_throughput(aq.report)
            b = float(ns.report["throughput_bps"])
            c = float(pd.report["throughput_bps"])
            attempts = aq.report["frames_sent"] + aq.report["collisions"]
            p = aq.report["collisions"] / attempts if attempts else float("nan")
            lines.append(
                f"| {cell.name} | {ns.report['version']} ({build}) | {mbit(a)} | {mbit(b)} "
                f"| {(a - b) / b:+.2%} | {mbit(c)} "
                f"| {(a - c) / c:+.2%} | {p:.3f} / {ns.report['collisions_per_access']:.3f} / "
                f"{pd.report['collisions_per_access']:.3f} "
                f"| {aq.loop():.4f} | {ns.loop():.2f} | **{ns.loop() / aq.loop():,.0f}x** "
                f"| {aq.report['events']:,} | {ns.report['events']:,} |"
            )
    return "\n".join(lines)


def timing_table(results: dict[Cell, dict[str, Runs]]) -> str:
    lines = [
        "| cell | ns-3 build | runs | airqueue loop s (min–max) | ns-3 loop s (min–max) "
        "| speed-up (loop) | airqueue process s | ns-3 process s | speed-up (process) |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for cell, by_sim in results.items():
        for build in builds(by_sim):
            aq, ns = by_sim["airqueue"], by_sim[build]
            if len(aq.samples) < 2:
                continue
            lines.append(
                f"| {cell.name} | {ns.report['version']} ({build}) | {len(aq.samples)} "
                f"| {aq.loop():.4f} ({aq.loop_range()}) "
                f"| {ns.loop():.3f} ({ns.loop_range()}) | **{ns.loop() / aq.loop():,.0f}x** "
                f"| {aq.process():.3f} | {ns.process():.3f} | {ns.process() / aq.process():.1f}x |"
            )
    return "\n".join(lines)


def mixed_table(aq: Runs, ns: Runs, build: str) -> str:
    lines = [
        f"| flow | PHY rate | airqueue Mbit/s | ns-3 {ns.report['version']} ({build}) Mbit/s "
        "| difference |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for f in ns.report["flows"]:
        a = float(aq.report["flows"][f["flow"]])
        b = float(f["goodput_bps"])
        rate = f"{f['rate_mbps']:g} Mb/s"
        lines.append(f"| {f['flow']} | {rate} | {mbit(a)} | {mbit(b)} | {(a - b) / b:+.2%} |")
    a = airqueue_throughput(aq.report)
    b = float(ns.report["total_goodput_bps"])
    lines.append(f"| total | | {mbit(a)} | {mbit(b)} | {(a - b) / b:+.2%} |")
    lines.append(
        f"| wall time (loop), {aq.report['sim_seconds']:g} s simulated | "
        f"| {aq.loop():.4f} s | {ns.loop():.3f} s | **{ns.loop() / aq.loop():,.0f}x** faster |"
    )
    return "\n".join(lines)


def parse_cells(ns: str, timed: str) -> tuple[list[Cell], set[Cell]]:
    def cells(text: str) -> list[Cell]:
        out = []
        for tok in text.split(","):
            tok = tok.strip()
            if not tok:
                continue
            if not tok.isdigit() or int(tok) < 1:
                raise SystemExit(f"--n/--timed: {tok!r} is not a number of stations (e.g. 10)")
            out += [Cell(int(tok), access) for access in ACCESS]
        return out

    return cells(ns), set(cells(timed))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", default="2,5,10,20,50", help="Numbers of stations, comma-separated.")
    ap.add_argument("--timed", default="10", help="Cells run --repeat times (numbers of stations).")
    ap.add_argument("--repeat", type=int, default=5, help="Runs of each timed cell.")
    ap.add_argument("--duration", type=float, help="Simulated seconds (default: the scenario's).")
    ap.add_argument("--no-mixed", action="store_true", help="Skip the mixed-rate TCP cell.")
    ap.add_argument("--json", type=Path, help="Also write every run's report here.")
    ap.add_argument(
        "--capture",
        choices=["none", "sinr"],
        default="none",
        help="airqueue's reception of overlapping frames (cells.wlan.capture).",
    )
    ap.add_argument(
        "--offered",
        type=float,
        default=11.0,
        help="Each station's CBR rate, Mbit/s, in both simulators (default 11; 1 is "
        "airqueue bench's wifi-saturated-10 cell, still saturated at 10 stations).",
    )
    ap.add_argument(
        "--ns3",
        action="append",
        help="ns-3 build: debian (default; tools/ns3/wifi_saturation) or NAME "
        "(tools/ns3/wifi_saturation-NAME, e.g. ns3.44); again for several side by side.",
    )
    args = ap.parse_args()

    build_names: list[str] = args.ns3 or ["debian"]
    for build in build_names:
        for name in ("wifi_saturation", *(() if args.no_mixed else ("wifi_mixed_rate",))):
            if not program(name, build).exists():
                raise SystemExit(f"{program(name, build)} not found: run tools/ns3/build.sh first")
    cells, timed = parse_cells(args.n, args.timed)
    if args.capture != "none" or args.offered != 11.0:
        cells = [Cell(c.n, c.access, args.capture, args.offered) for c in cells]
        timed = {Cell(c.n, c.access, args.capture, args.offered) for c in timed}

    load_before = load()
    results: dict[Cell, dict[str, Runs]] = {}
    sims = ["airqueue", *build_names]
    for cell in cells:
        results[cell] = {sim: Runs() for sim in sims}
        for build in build_names:
            # ns-3 with preamble detection once, untimed: for the behaviour only.
            results[cell][f"{build} p.d."] = Runs(
                [
                    run_json(
                        cell.ns3_cmd(
                            program("wifi_saturation", build),
                            args.duration,
                            preamble_detection=True,
                        )
                    )
                ]
            )
        repeat = args.repeat if cell in timed else 1
        for i in range(repeat):
            # Take turns to go first, so none always runs on a warmer (or busier) machine.
            for sim in sims[i % len(sims) :] + sims[: i % len(sims)]:
                cmd = (
                    cell.airqueue_cmd(args.duration)
                    if sim == "airqueue"
                    else cell.ns3_cmd(program("wifi_saturation", sim), args.duration)
                )
                sample = run_json(cmd)
                results[cell][sim].samples.append(sample)
                print(
                    f"{cell.name:16} run {i + 1}/{repeat} {sim:8} loop "
                    f"{sample.report['wall_seconds']:.4f} s",
                    file=sys.stderr,
                )
    mixed: dict[str, Runs] = {sim: Runs() for sim in sims}
    if not args.no_mixed:
        mixed["airqueue"].samples.append(
            run_json([sys.executable, "-c", AIRQUEUE_SCRIPT, str(MIXED), "{}"])
        )
        for build in build_names:
            mixed[build].samples.append(
                run_json([str(program("wifi_mixed_rate", build)), "--json=1"])
            )
    load_after = load()

    version = next(iter(results.values()))["airqueue"].report["version"]
    ns3_versions = ", ".join(
        f"ns-3 {next(iter(results.values()))[b].report['version']} ({b})" for b in build_names
    )
    print(f"## airqueue {version} against {ns3_versions}, 802.11b cells\n")
    print(f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    print(f"- machine: {machine()}")
    print(f"- load average (1, 5, 15 min) before: {load_before}; after: {load_after}")
    print(
        "- 'loop' is the event loop alone as each simulator times it (airqueue's "
        "`wall_seconds`, ns-3's `Simulator::Run()`); 'process' the whole process from "
        "outside (airqueue's includes starting Python and importing pandas)."
    )
    print()
    print("### DCF saturation (UDP payload throughput)\n")
    print(
        "'ns-3' runs without a preamble detection model, 'ns-3 p.d.' with ns-3's default "
        "one (4 dB); loop times and events are those of 'ns-3'.\n"
    )
    print(
        f'airqueue\'s `cells.wlan.capture`: "{args.capture}"; each station offers '
        f"{args.offered:g} Mbit/s.\n"
    )
    print(saturation_table(results))
    if timed:
        print()
        print("### Wall time, repeated cells (medians)\n")
        print(timing_table(results))
    if not args.no_mixed:
        print()
        print("### Mixed-rate TCP downloads (goodput)\n")
        for build in build_names:
            print()
            print(mixed_table(mixed["airqueue"], mixed[build], build))

    if args.json is not None:
        dump = {
            "saturation": [
                {
                    "n": cell.n,
                    "access": cell.access,
                    **{
                        sim: [{"process_seconds": s.process_seconds, **s.report} for s in r.samples]
                        for sim, r in by_sim.items()
                    },
                }
                for cell, by_sim in results.items()
            ],
            "mixed": {sim: [s.report for s in r.samples] for sim, r in mixed.items()},
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(dump, indent=1) + "\n")


if __name__ == "__main__":
    main()
