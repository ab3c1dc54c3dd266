"""What every command shares and the fast path (:mod:`airqueue.cli.fast`) needs, without
typer: the consoles, the CLI's own errors, and loading a scenario. The typer options several
commands take are in :mod:`airqueue.cli.common`."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from airqueue.values import parse_memory

if TYPE_CHECKING:
    from rich.console import Console

    from airqueue import Scenario

# Markup is off: names, paths and messages are printed as written (a "[run]" in a message
# must not be taken for a style); styling is done with Text objects.
#: The width of a console that is not a terminal (a pipe, a file): wide enough that rich
#: never folds or shortens a cell to fit (``134,7…`` for 134,762 in ``| cat``).
PIPE_WIDTH = 100_000


def console(stderr: bool = False) -> Console:
    """A console for stdout or stderr; piped, it never truncates (see :data:`PIPE_WIDTH`)."""
    from rich.console import Console

    c = Console(stderr=stderr, highlight=False, markup=False)
    if not c.is_terminal:
        c.width = PIPE_WIDTH
    return c


class LazyConsole:
    """:func:`console`, made (and rich imported) on first use: rich's import is a fifth
    of ``airqueue validate``'s time (issue 37), which prints one plain line when all is
    well (:meth:`line`). Every attribute is the console's."""

    def __init__(self, stderr: bool) -> None:
        self._stderr = stderr
        self._console: Console | None = None

    def get(self) -> Console:
        """The console (made now if it was not yet)."""
        if self._console is None:
            self._console = console(self._stderr)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.get(), name)

    def line(self, text: str) -> None:
        """Prints ``text`` as ``print(text)`` on the console does. Into a pipe or a file,
        where rich writes such a line as it is (no style, no wrapping below
        :data:`PIPE_WIDTH`), it is written without making the console; rich is still used
        for a terminal (which it wraps for) or when its environment variables force one,
        and for text it would change (tabs, control characters, ``:emoji:`` codes)."""
        stream = sys.stderr if self._stderr else sys.stdout
        plain = (
            self._console is None
            and not any(os.environ.get(v) for v in ("FORCE_COLOR", "TTY_COMPATIBLE"))
            and text.isascii()
            and text.isprintable()
            and text.count(":") < 2
            and len(text) < PIPE_WIDTH
        )
        if plain:
            try:
                plain = not stream.isatty()
            except (AttributeError, ValueError):
                plain = False
        if plain:
            stream.write(text + "\n")
            stream.flush()
        else:
            self.get().print(text)


out = LazyConsole(stderr=False)
err = LazyConsole(stderr=True)


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
    if not warnings:
        return
    from rich.text import Text

    for path, message in warnings:
        err.print(Text(f"warning: {path}: {message}", style="yellow"), soft_wrap=True)


def load(file: Path, sets: list[str] | None) -> Scenario:
    """Loads a scenario file and applies ``--set`` overrides."""
    import airqueue

    return airqueue.load_scenario(file, set=sets or [])


def plural(n: int, word: str) -> str:
    """``1 flow``, ``2 flows``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
