"""``airqueue sweep``: a scenario over a grid of parameter values x seeds, in parallel
(docs/experiments.md)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

import airqueue

from .common import (
    FileArg,
    InputError,
    Interrupted,
    JobsOpt,
    SetOpt,
    err,
    load,
    memory_budget,
    out,
    out_option,
)
from .progress import SweepProgress
from .render import points_table


def check_ranges(grid: list[str]) -> None:
    """A ``--grid PATH=START:STOP`` without its step (or with an empty part) is a range
    missing a part, not a value: say so before the value is read as a rate or a time."""
    for spec in grid:
        path, sep, raw = spec.partition("=")
        if not sep or "," in raw or ":" not in raw:
            continue
        parts = raw.split(":")
        if len(parts) == 2 or (len(parts) == 3 and not all(p.strip() for p in parts)):
            start, stop = parts[0].strip() or "START", parts[1].strip() or "STOP"
            raise InputError(
                f"--grid {spec}",
                f"a range needs a step: write {path.strip()}=START:STOP:STEP "
                f"(STOP included), e.g. {path.strip()}={start}:{stop}:{start}",
            )


def sweep(
    file: FileArg,
    grid: Annotated[
        list[str] | None,
        typer.Option(
            "--grid",
            "-g",
            metavar="PATH=V1,V2|PATH=START:STOP:STEP",
            help="A swept parameter (repeatable; points are all combinations). Ranges include "
            "STOP; units allowed: 2Mbit:10Mbit:2Mbit.",
            show_default=False,
        ),
    ] = None,
    seeds: Annotated[
        int | None,
        typer.Option(
            "--seeds",
            min=1,
            help="Seeds per point, from run.seed on (default: [sweep] seeds, else 1).",
            show_default=False,
        ),
    ] = None,
    jobs: JobsOpt = None,
    out_dir: Annotated[Path | None, out_option("results/FILE-STEM-sweep")] = None,
    store: Annotated[
        Path | None,
        typer.Option(
            "--store",
            metavar="DIR",
            help="Result store (default: DIR/store); share one between sweeps to reuse runs.",
            show_default=False,
        ),
    ] = None,
    backend: Annotated[
        str, typer.Option("--backend", help="local (worker processes) or dask.")
    ] = "local",
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            metavar="tcp://HOST:PORT",
            help="Dask scheduler address (implies --backend dask; without it, dask "
            "starts a LocalCluster).",
            show_default=False,
        ),
    ] = None,
    sets: SetOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")] = False,
    max_memory: Annotated[
        str | None,
        typer.Option(
            "--max-memory",
            metavar="SIZE",
            help="Memory budget of the whole sweep, e.g. 8GB (default: half of what the "
            "tightest of this machine's memory, its cgroup's limit and ulimit -v leaves); "
            "each of the --jobs workers gets an equal share, and a run "
            "estimated above its share is refused.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run a scenario over a grid of parameter values x seeds, in parallel.

    Writes runs.parquet/.csv (one row per run x flow), points.parquet/.csv (mean and 95 % CI
    per point), sweep.json and scenario.toml; each run's files go to the result store, and
    runs found there are not run again.
    """
    check_ranges(grid or [])
    target = out_dir if out_dir is not None else Path("results") / f"{file.stem}-sweep"
    bar = SweepProgress(enabled=not quiet)
    try:
        with bar.bar:
            result = airqueue.sweep(
                load(file, sets),
                grid=grid or [],
                seeds=seeds,
                jobs=jobs,
                out=target,
                store=store,
                backend=backend,
                scheduler=scheduler,
                progress=bar,
                max_memory=memory_budget(max_memory),
            )
    except KeyboardInterrupt:
        # Stored runs are complete (the store writes each atomically); a rerun resumes.
        raise Interrupted("interrupted; finished runs are in the store, a rerun resumes") from None
    info = result.info
    if not quiet:
        out.print(points_table(result))
        rate = info["runs_per_second"]
        out.print(
            f"{info['runs']} runs ({info['points']} points x {len(info['seeds'])} seeds): "
            f"{info['executed']} executed, {info['skipped']} from the store"
            + (f"; {rate:.1f} runs/s on {info['jobs']} jobs ({info['backend']})" if rate else "")
        )
        out.print(f"wrote {target}{os.sep}")
    if info["conservation_failed"]:
        err.print(
            Text(
                f"packet conservation failed in {len(info['conservation_failed'])} "
                "run(s); see the stored summary.json files",
                style="bold red",
            )
        )
        raise typer.Exit(1)
