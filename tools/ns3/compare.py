#!/usr/bin/env python3
"""airqueue against ns-3 on the reference dumbbell (scenarios/examples/dumbbell.toml).

Runs airqueue (the installed package, through its Python API, in a fresh interpreter per
run) and the ns-3 program that tools/ns3/build.sh builds, on the 10 Mbit scenario and its
1 Gbit variant, several times each with the two simulators interleaved (so a load change on
a shared machine hits both), and prints markdown tables: median wall times and the speed-up,
then goodput, fairness and losses. With ``--callgrind`` it also counts the instructions of
each simulator's event loop under valgrind on a shortened run, a measure that does not
depend on the machine's load. ``--cc cubic`` runs both with CUBIC and SACK (airqueue's
``variant = "cubic"``, ``sack = true``, ``timestamps = true``; ns-3's ``TcpCubic`` with
``Sack`` on). ``--ns3`` names the ns-3 program; given more than once, every build named runs
in the same interleaved series (e.g. Debian's 3.37 and the PyPI wheel's 3.44, side by side).
See docs/ns3-comparison.md.

    tools/ns3/build.sh && python3 tools/ns3/compare.py --repeat 5 --callgrind
    python3 tools/ns3/compare.py --repeat 5 --cc cubic
    python3 tools/ns3/compare.py --ns3 tools/ns3/dumbbell --ns3 tools/ns3/dumbbell-ns3.44
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "examples" / "dumbbell.toml"
NS3_BINARY = Path(__file__).resolve().parent / "dumbbell"

#: Runs one airqueue simulation in a fresh interpreter and prints one JSON object.
AIRQUEUE_SCRIPT = """
import json, sys
import airqueue
scenario, sets = sys.argv[1], json.loads(sys.argv[2])
r = airqueue.run(scenario, set=sets)
q = r.queues.set_index("queue").loc["router.bottleneck"]
flows = [
    {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
    for row in r.flows[
        ["flow", "goodput_bps", "rx_bytes", "retransmits", "fast_retransmits", "timeouts"]
    ].to_dict("records")
]
print(json.dumps({
    "simulator": "airqueue",
    "version": airqueue.__version__,
    "sim_seconds": r.summary["sim_seconds"],
    "wall_seconds": r.summary["timing"]["wall_seconds"],
    "events": r.summary["events"],
    "bottleneck_drops": int(q["drops"]),
    "bottleneck_sent_bytes": int(q["dequeued_bytes"]),
    "flows": flows,
}))
"""

#: The event loop each simulator's instructions are counted in (callgrind --toggle-collect).
AIRQUEUE_LOOP = "airqueue::sim::Simulation::run*"
NS3_LOOP = "ns3::Simulator::Run()"


@dataclass(frozen=True)
class Variant:
    """One workload: the scenario with overrides, and the same for the ns-3 program."""

    name: str
    rate_bps: float
    airqueue_set: dict[str, str]
    ns3_args: tuple[str, ...]


VARIANTS = {
    "10Mbit": Variant("10 Mbit", 10e6, {}, ("--rate=10Mbps",)),
    "1Gbit": Variant("1 Gbit", 1e9, {"links.bottleneck.rate": "1Gbit"}, ("--rate=1Gbps",)),
}


@dataclass(frozen=True)
class CongestionControl:
    """The TCP both simulators run: airqueue's overrides, and the ns-3 program's options.

    ``matched`` is the ns-3 configuration that matches airqueue's (the timed one);
    ``others`` are run once more each, untimed, for the behaviour table only.
    """

    airqueue_set: dict[str, Any]
    matched: tuple[str, tuple[str, ...]]
    others: tuple[tuple[str, tuple[str, ...]], ...]


CONGESTION_CONTROLS = {
    # RFC 5681/6582 NewReno without SACK; TcpLinuxReno shows Linux's window growth.
    "newreno": CongestionControl(
        {},
        ("ns-3 TcpNewReno", ("--tcp=TcpNewReno",)),
        (("ns-3 TcpLinuxReno", ("--tcp=TcpLinuxReno",)),),
    ),
    # RFC 9438 CUBIC with SACK (RFC 2018) and RFC 6675 recovery. ns-3's TcpCubic with
    # HyStart off (dumbbell.cc's default, as airqueue has none) and classic recovery (cwnd =
    # ssthresh, sending by the scoreboard's pipe: RFC 6675); then ns-3 3.37's own defaults,
    # HyStart on and PRR (RFC 6937) recovery, to show what they change.
    "cubic": CongestionControl(
        {
            "flows.bulk.transport.variant": "cubic",
            "flows.bulk.transport.sack": True,
            # ns-3 takes an RTT sample from TSecr on every ACK (Timestamp on): so does
            # airqueue with RFC 7323 timestamps.
            "flows.bulk.transport.timestamps": True,
        },
        ("ns-3 TcpCubic + SACK", ("--tcp=TcpCubic", "--sack=1")),
        (
            (
                "ns-3 TcpCubic + SACK, HyStart on",
                ("--tcp=TcpCubic", "--sack=1", "--ns3::TcpCubic::HyStart=true"),
            ),
            (
                "ns-3 TcpCubic + SACK, PRR",
                (
                    "--tcp=TcpCubic",
                    "--sack=1",
                    "--ns3::TcpL4Protocol::RecoveryType=ns3::TcpPrrRecovery",
                ),
            ),
        ),
    ),
}


@dataclass
class Sample:
    """One run: what the simulator reported, and the wall time of its whole process."""

    report: dict[str, Any]
    process_seconds: float


@dataclass
class Runs:
    """The timed runs of one simulator on one variant, and one run with its counters."""

    timed: list[Sample] = field(default_factory=list)
    counted: Sample | None = None

    def loop_median(self) -> float:
        return statistics.median(s.report["wall_seconds"] for s in self.timed)

    def loop_range(self) -> tuple[float, float]:
        walls = [s.report["wall_seconds"] for s in self.timed]
        return min(walls), max(walls)

    def process_median(self) -> float:
        return statistics.median(s.process_seconds for s in self.timed)


def run_json(cmd: list[str]) -> Sample:
    """Runs a command whose last line of output is a JSON object; times the whole process."""
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"failed ({done.returncode}): {' '.join(cmd)}")
    last = done.stdout.strip().splitlines()[-1]
    return Sample(json.loads(last), elapsed)


def airqueue_cmd(
    variant: Variant, duration: float | None, cc: CongestionControl = CONGESTION_CONTROLS["newreno"]
) -> list[str]:
    sets: dict[str, Any] = {**variant.airqueue_set, **cc.airqueue_set}
    if duration is not None:
        sets["run.duration"] = f"{duration:g}s"
    return [sys.executable, "-c", AIRQUEUE_SCRIPT, str(SCENARIO), json.dumps(sets)]


def ns3_cmd(
    binary: Path,
    variant: Variant,
    duration: float | None,
    stats: bool,
    tcp_args: tuple[str, ...] = ("--tcp=TcpNewReno",),
) -> list[str]:
    cmd = [str(binary), "--json=1", f"--stats={int(stats)}", *tcp_args, *variant.ns3_args]
    if duration is not None:
        cmd.append(f"--duration={duration:g}")
    return cmd


def callgrind_instructions(cmd: list[str], toggle: str, workdir: Path) -> int | None:
    """Instructions executed inside `toggle` (and what it calls), counted by callgrind.

    None (with the reason on stderr) when valgrind cannot run the program, e.g. a build with
    ``-march=native`` using AVX-512, which valgrind 3.19 does not decode.
    """
    out = workdir / f"callgrind.{len(list(workdir.iterdir()))}.out"
    full = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out}",
        f"--toggle-collect={toggle}",
        *cmd,
    ]
    done = subprocess.run(full, capture_output=True, text=True, check=False)
    match = (
        re.search(r"^(?:summary|totals):\s*(\d+)", out.read_text(), re.MULTILINE)
        if done.returncode == 0 and out.exists()
        else None
    )
    if match is None:
        unhandled = [line for line in done.stderr.splitlines() if "unhandled instruction" in line]
        reason = unhandled[0] if unhandled else done.stderr.strip().splitlines()[-1:]
        print(f"callgrind failed ({reason}): {' '.join(full)}", file=sys.stderr)
        return None
    return int(match.group(1))


# ---------------------------------------------------------------------------------------
# Summaries and tables
# ---------------------------------------------------------------------------------------


def goodputs(report: dict[str, Any]) -> list[float]:
    return [float(f["goodput_bps"]) for f in report["flows"]]


def jain(values: list[float]) -> float:
    squares = sum(v * v for v in values)
    return sum(values) ** 2 / (len(values) * squares) if squares > 0 else float("nan")


def total(report: dict[str, Any], key: str) -> int:
    return sum(int(f[key]) for f in report["flows"])


def mbit(bps: float) -> str:
    return f"{bps / 1e6:.3f}"


def builds(by_sim: dict[str, Runs]) -> list[str]:
    """The ns-3 builds of one workload's results (every simulator but airqueue)."""
    return [sim for sim in by_sim if sim != "airqueue"]


def build_label(binary: Path, report: dict[str, Any]) -> str:
    """ns-3 <version> (<program file>): one build's name in the tables."""
    return f"ns-3 {report['version']} ({binary.name})"


def speed_table(results: dict[str, dict[str, Runs]]) -> str:
    lines = [
        "| workload | ns-3 build | simulated s | airqueue loop s | ns-3 loop s | speed-up (loop) "
        "| airqueue process s | ns-3 process s | speed-up (process) "
        "| airqueue events | ns-3 events |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for key, by_sim in results.items():
        for build in builds(by_sim):
            aq, ns = by_sim["airqueue"], by_sim[build]
            aq_lo, aq_hi = aq.loop_range()
            ns_lo, ns_hi = ns.loop_range()
            lines.append(
                f"| {VARIANTS[key].name} | {build} | {aq.timed[0].report['sim_seconds']:g} "
                f"| {aq.loop_median():.4f} ({aq_lo:.4f}–{aq_hi:.4f}) "
                f"| {ns.loop_median():.3f} ({ns_lo:.3f}–{ns_hi:.3f}) "
                f"| **{ns.loop_median() / aq.loop_median():.0f}x** "
                f"| {aq.process_median():.3f} | {ns.process_median():.3f} "
                f"| {ns.process_median() / aq.process_median():.1f}x "
                f"| {aq.timed[0].report['events']:,} | {ns.timed[0].report['events']:,} |"
            )
    return "\n".join(lines)


def behaviour_table(rows: list[tuple[str, str, dict[str, Any]]]) -> str:
    """One row per (workload, simulator) report."""
    lines = [
        "| workload | simulator | total goodput Mbit/s | Jain | per-flow Mbit/s min–max "
        "| bottleneck busy | bottleneck drops | retransmits | fast retransmits | timeouts |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for key, sim, rep in rows:
        variant = VARIANTS[key]
        g = goodputs(rep)
        busy = rep["bottleneck_sent_bytes"] * 8 / rep["sim_seconds"] / variant.rate_bps
        lines.append(
            f"| {variant.name} | {sim} | {mbit(sum(g))} | {jain(g):.3f} "
            f"| {mbit(min(g))}–{mbit(max(g))} | {busy:.2%} | {rep['bottleneck_drops']} "
            f"| {total(rep, 'retransmits')} | {total(rep, 'fast_retransmits')} "
            f"| {total(rep, 'timeouts')} |"
        )
    return "\n".join(lines)


def goodput_table(results: dict[str, dict[str, Runs]], label: str) -> str:
    """airqueue's total goodput against the matched ns-3 configuration's, each build."""
    lines = [
        f"| workload | ns-3 build | airqueue Mbit/s | {label} Mbit/s | difference |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for key, by_sim in results.items():
        aq = sum(goodputs(by_sim["airqueue"].timed[0].report))
        for build in builds(by_sim):
            ns = sum(goodputs(by_sim[build].timed[0].report))
            lines.append(
                f"| {VARIANTS[key].name} | {build} | {mbit(aq)} | {mbit(ns)} "
                f"| {(aq - ns) / ns:+.2%} |"
            )
    return "\n".join(lines)


def callgrind_table(counts: dict[str, dict[str, int | None]], duration: float) -> str:
    lines = [
        f"| workload ({duration:g} s simulated) | ns-3 build | airqueue instructions "
        "| ns-3 instructions | ratio |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for key, c in counts.items():
        aq = c["airqueue"]
        for build, ns in c.items():
            if build == "airqueue":
                continue
            ratio = f"**{ns / aq:.0f}x**" if aq and ns else "-"
            lines.append(
                f"| {VARIANTS[key].name} | {build} | {f'{aq:,}' if aq else '-'} "
                f"| {f'{ns:,}' if ns else '-'} | {ratio} |"
            )
    return "\n".join(lines)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}"


def load() -> str:
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


# ---------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", "-n", type=int, default=5, help="Timed runs per simulator.")
    ap.add_argument(
        "--variants",
        default=",".join(VARIANTS),
        help=f"Comma-separated workloads among {', '.join(VARIANTS)}.",
    )
    ap.add_argument("--duration", type=float, help="Simulated seconds (default: the 60 s).")
    ap.add_argument(
        "--ns3",
        type=Path,
        action="append",
        help="An ns-3 dumbbell program (default tools/ns3/dumbbell); give it again to run "
        "several builds side by side, e.g. tools/ns3/dumbbell-ns3.44 (build.sh with "
        "NS3_PREFIX).",
    )
    ap.add_argument(
        "--cc",
        choices=list(CONGESTION_CONTROLS),
        default="newreno",
        help="Congestion control of both: NewReno without SACK, or CUBIC with SACK.",
    )
    ap.add_argument(
        "--callgrind",
        action="store_true",
        help="Also count each event loop's instructions under valgrind (slow).",
    )
    ap.add_argument(
        "--callgrind-duration",
        type=float,
        default=5.0,
        help="Simulated seconds of the callgrind runs.",
    )
    ap.add_argument("--json", type=Path, help="Also write every run's report here.")
    args = ap.parse_args()

    binaries: list[Path] = args.ns3 or [NS3_BINARY]
    for binary in binaries:
        if not binary.exists():
            raise SystemExit(f"{binary} not found: run tools/ns3/build.sh first")
    keys = [k.strip() for k in args.variants.split(",") if k.strip()]
    unknown = [k for k in keys if k not in VARIANTS]
    if unknown:
        raise SystemExit(f"unknown variant(s) {unknown}: choose among {list(VARIANTS)}")

    cc = CONGESTION_CONTROLS[args.cc]
    load_before = load()
    # Each build's label comes from the version its program reports (one short run).
    labels = {
        build_label(b, run_json(ns3_cmd(b, VARIANTS[keys[0]], 0.2, False)).report): b
        for b in binaries
    }
    if len(labels) != len(binaries):
        raise SystemExit("two --ns3 programs have the same name and version")
    sims = ["airqueue", *labels]
    results: dict[str, dict[str, Runs]] = {k: {sim: Runs() for sim in sims} for k in keys}
    for i in range(args.repeat):
        for key in keys:
            variant = VARIANTS[key]
            # Take turns to go first, so none always runs on a warmer (or busier) machine.
            order = sims[i % len(sims) :] + sims[: i % len(sims)]
            for sim in order:
                cmd = (
                    airqueue_cmd(variant, args.duration, cc)
                    if sim == "airqueue"
                    else ns3_cmd(labels[sim], variant, args.duration, False, cc.matched[1])
                )
                sample = run_json(cmd)
                results[key][sim].timed.append(sample)
                print(
                    f"run {i + 1}/{args.repeat} {variant.name:8} {sim:8} "
                    f"loop {sample.report['wall_seconds']:.4f} s, "
                    f"process {sample.process_seconds:.3f} s",
                    file=sys.stderr,
                )
    # ns-3 counts retransmissions from socket traces only when asked: one more run each,
    # not timed. The other configurations (TcpLinuxReno, ns-3's CUBIC defaults) are there
    # for the behaviour only.
    rows: list[tuple[str, str, dict[str, Any]]] = []
    for key in keys:
        variant = VARIANTS[key]
        rows.append((key, "airqueue", results[key]["airqueue"].timed[0].report))
        for build, binary in labels.items():
            counted = run_json(ns3_cmd(binary, variant, args.duration, True, cc.matched[1]))
            results[key][build].counted = counted
            version = counted.report["version"]
            rows.append((key, f"{cc.matched[0]} {version} ({binary.name})", counted.report))
            for label, tcp_args in cc.others:
                other = run_json(ns3_cmd(binary, variant, args.duration, True, tcp_args))
                rows.append((key, f"{label} {version} ({binary.name})", other.report))
    load_after = load()

    counts: dict[str, dict[str, int | None]] = {}
    if args.callgrind:
        with tempfile.TemporaryDirectory() as tmp:
            for key in keys:
                variant = VARIANTS[key]
                print(f"callgrind {variant.name} …", file=sys.stderr)
                counts[key] = {
                    "airqueue": callgrind_instructions(
                        airqueue_cmd(variant, args.callgrind_duration, cc),
                        AIRQUEUE_LOOP,
                        Path(tmp),
                    ),
                    **{
                        build: callgrind_instructions(
                            ns3_cmd(binary, variant, args.callgrind_duration, False, cc.matched[1]),
                            NS3_LOOP,
                            Path(tmp),
                        )
                        for build, binary in labels.items()
                    },
                }

    first = results[keys[0]]["airqueue"].timed[0].report
    print(
        f"## airqueue {first['version']} against {', '.join(labels)}, reference dumbbell, "
        f"{args.cc}\n"
    )
    print(f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    print(f"- machine: {machine()}")
    print(f"- load average (1, 5, 15 min) before: {load_before}; after: {load_after}")
    print(
        f"- {args.repeat} timed runs per simulator (and ns-3 build) and workload, interleaved; "
        "medians "
        "(min–max). 'loop' is the event loop alone, as each simulator times it "
        "(airqueue's `wall_seconds`, ns-3's `Simulator::Run()`); 'process' is the whole "
        "process from the outside (for airqueue: Python start, imports, scenario load)."
    )
    print()
    print(speed_table(results))
    print()
    print(behaviour_table(rows))
    print()
    print(goodput_table(results, cc.matched[0]))
    if counts:
        print()
        print(callgrind_table(counts, args.callgrind_duration))

    if args.json is not None:
        dump = {
            key: {
                sim: {
                    "timed": [{"process_seconds": s.process_seconds, **s.report} for s in r.timed],
                    "counted": r.counted.report if r.counted else None,
                }
                for sim, r in by_sim.items()
            }
            for key, by_sim in results.items()
        }
        behaviour = [{"workload": k, "simulator": sim, **rep} for k, sim, rep in rows]
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps(
                {"cc": args.cc, "runs": dump, "behaviour": behaviour, "callgrind": counts},
                indent=1,
            )
            + "\n"
        )


if __name__ == "__main__":
    main()
