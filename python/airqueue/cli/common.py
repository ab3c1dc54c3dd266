"""What the commands share: the options several commands take (typer), and, from
:mod:`airqueue.cli.console` (which the fast path imports without typer), the consoles, the
CLI's own errors and loading a scenario."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from .console import (
    PIPE_WIDTH,
    InputError,
    Interrupted,
    console,
    err,
    load,
    memory_budget,
    out,
    plural,
    print_warnings,
)

# ---------------------------------------------------------------------------------------
# Shared options and helpers
# ---------------------------------------------------------------------------------------

FileArg = Annotated[
    Path, typer.Argument(metavar="FILE", help="A scenario TOML file.", show_default=False)
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        "-s",
        metavar="PATH=VALUE",
        help="Override a value by dotted path, e.g. links.bottleneck.rate=1Gbit (repeatable).",
        show_default=False,
    ),
]
JobsOpt = Annotated[
    int | None,
    typer.Option("--jobs", "-j", min=1, help="Parallel runs (default: cores).", show_default=False),
]


def out_option(default: str) -> Any:
    """The ``--out DIR`` option of a command, saying where output goes by default."""
    return typer.Option(
        "--out",
        "-o",
        metavar="DIR",
        help=f"Output folder (default: {default}).",
        show_default=False,
    )


SeedOpt = Annotated[
    int | None,
    typer.Option("--seed", min=0, help="Run seed (overrides run.seed).", show_default=False),
]


MemoryOpt = Annotated[
    str | None,
    typer.Option(
        "--max-memory",
        metavar="SIZE",
        help="Memory budget for the run, e.g. 2GB (default: half of what the "
        "tightest of this machine's memory, its cgroup's limit and ulimit -v leaves); a "
        "scenario estimated to need more is refused.",
        show_default=False,
    ),
]


__all__ = [
    "PIPE_WIDTH",
    "FileArg",
    "InputError",
    "Interrupted",
    "JobsOpt",
    "MemoryOpt",
    "SeedOpt",
    "SetOpt",
    "console",
    "err",
    "load",
    "memory_budget",
    "out",
    "out_option",
    "plural",
    "print_warnings",
]
