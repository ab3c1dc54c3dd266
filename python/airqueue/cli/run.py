"""``airqueue run``, ``validate`` and ``bench``: one scenario, run once, checked, or timed."""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

import airqueue

from .actions import RUN_OUTPUTS, run_scenario, validate_scenario
from .common import (
    FileArg,
    InputError,
    MemoryOpt,
    SeedOpt,
    SetOpt,
    load,
    out,
    out_option,
)
from .render import bench_table

if TYPE_CHECKING:
    from airqueue import Result

try:
    import resource
except ImportError:  # pragma: no cover - not on Windows
    resource = None  # type: ignore[assignment]


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
    run_scenario(file, out_dir, seed, sets, pcap, quiet, max_memory)


def validate(file: FileArg, sets: SetOpt = None, max_memory: MemoryOpt = None) -> None:
    """Check a scenario without running it; print what it contains or every problem, and
    its warnings."""
    validate_scenario(file, sets, max_memory)


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


__all__ = ["RUN_OUTPUTS", "bench", "run", "validate"]
