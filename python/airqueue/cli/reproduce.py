"""``airqueue reproduce``: a registered paper-figure reproduction, or the list of them
(docs/experiments.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from .common import InputError, JobsOpt, err, out, out_option
from .progress import SweepProgress
from .render import print_prose, reproductions_table


def reproduce(
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="NAME",
            help="A reproduction (see --list); with --list, a paper (e.g. hegde-2013).",
            show_default=False,
        ),
    ] = None,
    list_all: Annotated[
        bool,
        typer.Option(
            "--list", help="List the reproductions, one line each by paper (--list PAPER: one)."
        ),
    ] = False,
    out_dir: Annotated[Path | None, out_option("results/reproduce/NAME")] = None,
    jobs: JobsOpt = None,
    quick: Annotated[
        bool,
        typer.Option(
            "--quick",
            help="Fewer seeds and shorter runs (a smoke test; the tolerances are not checked).",
        ),
    ] = False,
    runs: Annotated[
        Path | None,
        typer.Option(
            "--runs",
            metavar="DIR",
            help="Keep and reuse the runs in DIR (default OUT/sweep): reproductions of one "
            "scenario given the same DIR run it once.",
        ),
    ] = None,
) -> None:
    """Run a registered paper-figure reproduction: its sweep, its figure, and a table of our
    numbers beside the reference's. Exits 1 if a point is outside its stated tolerance."""
    from airqueue import catalog

    if list_all or name is None:
        papers = catalog.PAPERS if name is None else catalog.find_papers(name)
        if not papers:
            raise InputError(
                f"--list {name}", "no such paper; known: " + ", ".join(catalog.PAPER_IDS)
            )
        print_prose(
            reproductions_table(
                [(catalog.paper_id(m), catalog.paper_title(m), list(m.ENTRIES)) for m in papers]
            )
        )
        return
    if name not in catalog.REGISTRY:
        raise InputError(name, "no such reproduction; known: " + ", ".join(catalog.REGISTRY))
    target = out_dir if out_dir is not None else Path("results") / "reproduce" / name
    bar = SweepProgress(enabled=True)
    with bar.bar:
        rep = catalog.reproduce(name, target, jobs=jobs, quick=quick, progress=bar, runs=runs)
    out.print(catalog.comparison_table(rep))
    if quick:  # the table's caption says that nothing is checked; this says what to do
        out.print(Text("run without --quick to check the tolerances", style="yellow"))
    out.print(f"wrote {rep.figure} and {rep.table_path}")
    if not quick and not rep.passed:
        err.print(Text("some points are outside the stated tolerance", style="bold red"))
        raise typer.Exit(1)
