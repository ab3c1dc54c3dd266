"""What every command shares and the fast path (:mod:`airqueue.cli.fast`) needs, without
typer: the consoles, the CLI's own errors, and loading a scenario. The typer options several
commands take are in :mod:`airqueue.cli.common`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from airqueue.values import parse_memory

if TYPE_CHECKING:
    from airqueue import Scenario

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


def memory_budget(text: str | None) -> int | None:
    """``--max-memory`` in bytes (``None``: the core's default)."""
    return None if text is None else parse_memory(text)


def print_warnings(warnings: list[tuple[str, str]]) -> None:
    """Prints each warning as ``warning: path: message`` in yellow on stderr."""
    for path, message in warnings:
        err.print(Text(f"warning: {path}: {message}", style="yellow"), soft_wrap=True)


def load(file: Path, sets: list[str] | None) -> Scenario:
    """Loads a scenario file and applies ``--set`` overrides."""
    import airqueue

    return airqueue.load_scenario(file, set=sets or [])


def plural(n: int, word: str) -> str:
    """``1 flow``, ``2 flows``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
