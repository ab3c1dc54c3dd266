"""What the commands share: the consoles, the CLI's own errors, the options several
commands take, and loading a scenario."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

import airqueue
from airqueue import Scenario
from airqueue.values import parse_memory

# Markup is off: names, paths and messages are printed as written (a "[run]" in a message
# must not be taken for a style); styling is done with Text objects.
#: The width of a console that is not a terminal (a pipe, a file): wide enough that rich
#: never folds or shortens a cell to fit (``134,7…`` for 134,762 in ``| cat``).
PIPE_WIDTH = 100_000


def console(stderr: bool = False) -> Console:
    """A console for stdout or stderr; piped, it never truncates (see :data:`PIPE_WIDTH`)."""
    c = Console(stderr=stderr, highlight=False, markup=False)
    if not c.is_terminal:
        c.width = PIPE_WIDTH
    return c


out = console()
err = console(stderr=True)


class Interrupted(Exception):
    """Ctrl-C stopped a run or a sweep; raised past typer (which would turn a
    KeyboardInterrupt into its own exit) so that main() exits with 130."""


class InputError(Exception):
    """Invalid input found by the CLI itself (not by the scenario loader): exit code 2."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.problems = [(path, message)]


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


def memory_budget(text: str | None) -> int | None:
    """``--max-memory`` in bytes (``None``: the core's default)."""
    return None if text is None else parse_memory(text)


def print_warnings(warnings: list[tuple[str, str]]) -> None:
    """Prints each warning as ``warning: path: message`` in yellow on stderr."""
    for path, message in warnings:
        err.print(Text(f"warning: {path}: {message}", style="yellow"), soft_wrap=True)


def load(file: Path, sets: list[str] | None) -> Scenario:
    """Loads a scenario file and applies ``--set`` overrides."""
    return airqueue.load_scenario(file, set=sets or [])


def plural(n: int, word: str) -> str:
    """``1 flow``, ``2 flows``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
