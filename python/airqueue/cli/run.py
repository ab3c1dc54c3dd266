"""``airqueue run``, ``validate`` and ``bench``: one scenario, run once, checked, or timed."""

from __future__ import annotations

import json
import os
import statistics
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.text import Text

import airqueue

from . import publish
from .common import (
    FileArg,
    InputError,
    Interrupted,
    MemoryOpt,
    SeedOpt,
    SetOpt,
    err,
    load,
    memory_budget,
    out,
    out_option,
    plural,
    print_warnings,
)
from .progress import RunProgress
from .render import bench_table, print_run_summary

if TYPE_CHECKING:
    from airqueue import Result

try:
    import resource
except ImportError:  # pragma: no cover - not on Windows
    resource = None  # type: ignore[assignment]

#: What ``airqueue run`` writes into its folder, besides ``LINK.pcap`` files; ``plot``
#: and ``report`` add ``plots/`` and ``report.html`` (made from the files of a run).
RUN_OUTPUTS = (
    "summary.json",
    "flows.csv",
    "flows.parquet",
    "timeseries.parquet",
    "queues.parquet",
    "classes.parquet",
    "scenario.toml",
    "report.html",
)


def run(
    file: FileArg,
    out_dir: Annotated[Path | None, out_option("results/FILE-STEM")] = None,
    seed: SeedOpt = None,
    sets: SetOpt = None,
    pcap: Annotated[
        list[str] | None,
        typer.Option(
            "--pcap",
            metavar="LINK[,LINK]",
            help="Write DIR/LINK.pcap: both directions of the link as tcpdump would see "
            "them leave (repeatable).",
            show_default=False,
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")] = False,
    max_memory: MemoryOpt = None,
) -> None:
    """Run a scenario, print a summary and write the results.

    Writes summary.json, flows.csv, {flows,timeseries,queues,classes}.parquet, the resolved
    scenario.toml.

    Exits 1 if the packet conservation check fails (after writing the results).
    """
    scenario = load(file, sets)
    target_dir = out_dir if out_dir is not None else Path("results") / file.stem
    if scenario.sweep is not None and not quiet:
        out.print(
            "the [sweep] table is not used by run (this is the base point); use airqueue sweep",
            style="dim",
        )
    progress = RunProgress(enabled=not quiet)
    kept = (
        f"; the previous results in {target_dir} are intact"
        if publish.is_run_folder(target_dir)
        else ""
    )
    with publish.staged(target_dir) as staging:
        try:
            result = airqueue.run(
                scenario,
                seed=seed,
                pcap=pcap,
                pcap_dir=staging,
                max_memory=memory_budget(max_memory),
                progress=progress,
            )
        except KeyboardInterrupt:
            raise Interrupted(f"interrupted; no results were written{kept}") from None
        finally:
            progress.close()
        if not quiet:
            print_warnings([(w["path"], w["message"]) for w in result.summary.get("warnings", [])])
        try:
            result.write(staging)
            publish.publish(staging, target_dir, RUN_OUTPUTS)
        except KeyboardInterrupt:
            raise Interrupted(
                f"interrupted while writing the results; nothing was written{kept}"
            ) from None
    result.pcap = {
        link: (target_dir / path.name, packets) for link, (path, packets) in result.pcap.items()
    }
    target = target_dir
    if not quiet:
        print_run_summary(result)
        for link, (path, packets) in result.pcap.items():
            out.print(f"pcap {link}: {packets:,} packets in {path}")
        out.print(f"wrote {target}{os.sep}")
    if not result.summary["conservation_ok"]:
        err.print(Text("packet conservation failed:", style="bold red"))
        for line in result.summary["packets"].get("errors", []):
            err.print(Text(f"  {line}", style="red"), soft_wrap=True)
        raise typer.Exit(1)


def validate(file: FileArg, sets: SetOpt = None, max_memory: MemoryOpt = None) -> None:
    """Check a scenario without running it; print what it contains or every problem, and
    its warnings."""
    found, warnings = load(file, sets).counts(memory_budget(max_memory))
    print_warnings(warnings)
    counts = [
        plural(found.get(section, 0), word)
        for section, word in (
            ("nodes", "node"),
            ("links", "link"),
            ("flows", "flow"),
            ("qdiscs", "qdisc"),
        )
    ]
    for section, word in (
        ("segments", "segment"),
        ("cells", "802.11 cell"),
        ("piconets", "piconet"),
        ("bridges", "scatternet bridge"),
        ("virtual_devs", "virtual device"),
        ("trunks", "trunk"),
    ):
        if found.get(section):
            counts.append(plural(found[section], word))
    out.print("OK: " + ", ".join(counts))


# ---------------------------------------------------------------------------------------
# airqueue bench
# ---------------------------------------------------------------------------------------


def process_peak_rss_mib() -> float | None:
    """The peak resident set size of this whole process so far, in MiB."""
    if resource is None:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS bytes.
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def cell_frames(result: Result) -> int | None:
    """802.11 frame attempts of every cell in a run (sent, collided or corrupted), or None.

    The stations table counts after the warm-up, so this is None unless the warm-up is 0
    (the events are counted over the whole run).
    """
    stations = result.more.get("stations")
    if stations is None or len(stations) == 0 or result.summary["warmup_seconds"] != 0:
        return None
    cols = ["frames_sent", "collisions", "channel_errors"]
    return int(stations[cols].to_numpy().sum())


def bench_report(
    file: Path, summaries: list[dict[str, Any]], frames: int | None = None
) -> dict[str, Any]:
    walls = [s["timing"]["wall_seconds"] for s in summaries]
    median = statistics.median(walls)
    first = summaries[0]
    return {
        "scenario": str(file),
        "airqueue_version": first["airqueue_version"],
        "seed": first["seed"],
        "repeat": len(summaries),
        "wall_seconds": walls,
        "wall_seconds_median": median,
        "sim_seconds": first["sim_seconds"],
        "events": first["events"],
        "events_per_second": first["events"] / median if median > 0 else None,
        "process_peak_rss_mib": process_peak_rss_mib(),
        "peak_live_packets": first["peak_live_packets"],
        # 802.11 cells (warm-up 0): frame attempts, and all events of the run per attempt.
        "wifi_frames": frames,
        "events_per_wifi_frame": first["events"] / frames if frames else None,
    }


def bench(
    file: Annotated[
        Path | None,
        typer.Argument(metavar="FILE", help="A scenario TOML file.", show_default=False),
    ] = None,
    repeat: Annotated[
        int, typer.Option("--repeat", "-n", min=1, help="How many runs to time.")
    ] = 5,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of the table.")
    ] = False,
    seed: SeedOpt = None,
    sets: SetOpt = None,
    live: Annotated[
        bool,
        typer.Option(
            "--live",
            help="Instead of a scenario, measure live mode's throughput here (root): iperf3 "
            "TCP across 1 Gbit/s fq_codel, 64-byte UDP through the emulator and through a "
            "bare forwarder, TCP with no rate limit; each beside its target.",
        ),
    ] = False,
    quick: Annotated[
        bool, typer.Option("--quick", help="With --live: 1 s of traffic per measurement.")
    ] = False,
    json_out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="FILE",
            help="With --live: also write the numbers as JSON to FILE.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run a scenario several times and report the median wall time and events per second.

    Memory is the peak RSS of the whole process (Python included), not of one run. With
    802.11 cells and a warm-up of 0, also the frames attempted and events per frame.
    With --live (no FILE), measure live mode's throughput instead (docs/live.md).
    """
    if live:
        if file is not None:
            raise InputError("FILE", "bench --live measures built-in scenarios; give no FILE")
        from .bench_live import bench_live

        bench_live(quick, json_out, as_json)
        return
    if quick or json_out is not None:
        raise InputError("--quick/--out", "only with --live")
    if file is None:
        raise InputError("FILE", "a scenario file is needed (or --live)")
    scenario = load(file, sets)
    first = airqueue.run(scenario, seed=seed)
    frames = cell_frames(first)
    summaries = [first.summary] + [
        airqueue.run(scenario, seed=seed).summary for _ in range(repeat - 1)
    ]
    report = bench_report(file, summaries, frames)
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        out.print(bench_table(report))
