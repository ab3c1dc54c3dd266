"""The fast path of ``airqueue run`` and ``airqueue validate`` (issue 37): their command
lines are parsed here, without typer, click and pydantic (about 0.1 s to import and to
build the app's commands, more than validating a scenario takes), and the same functions
the typer commands call (:mod:`airqueue.cli.actions`) are called.

Only plain, well-formed command lines take this path: the subcommand first, then the file
and the options of that command spelt out (``--out DIR``, ``--out=DIR``, ``-o DIR``,
``--quiet``/``-q``, repeated ``--set``/``--pcap``). Anything else (``--help``, an unknown or
repeated option, a missing or extra argument, a value that is empty or starts with ``-``, a
seed that is not a plain decimal, ``--``, short options run together) returns None and
is left to the typer app, so help, usage errors and their exit codes stay typer's own.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Opt:
    """An option of a fast command: its parameter, whether it takes a value, whether it may
    be repeated (a list), and how its value is converted (None: the text)."""

    param: str
    takes_value: bool = True
    multiple: bool = False
    convert: Callable[[str], Any] | None = None


def _seed(text: str) -> int:
    """``--seed``: a plain decimal (typer's own check, min 0, handles anything else)."""
    if not (text.isascii() and text.isdigit()):
        raise ValueError(text)
    return int(text)


RUN_OPTIONS = {
    "--out": Opt("out_dir", convert=Path),
    "-o": Opt("out_dir", convert=Path),
    "--seed": Opt("seed", convert=_seed),
    "--set": Opt("sets", multiple=True),
    "-s": Opt("sets", multiple=True),
    "--pcap": Opt("pcap", multiple=True),
    "--quiet": Opt("quiet", takes_value=False),
    "-q": Opt("quiet", takes_value=False),
    "--max-memory": Opt("max_memory"),
}
VALIDATE_OPTIONS = {
    "--set": Opt("sets", multiple=True),
    "-s": Opt("sets", multiple=True),
    "--max-memory": Opt("max_memory"),
}
COMMANDS = {"run": RUN_OPTIONS, "validate": VALIDATE_OPTIONS}


def parse(args: list[str]) -> tuple[str, Path, dict[str, Any]] | None:
    """``(command, FILE, keyword arguments)`` of a plain ``run``/``validate`` command line
    (``args`` without the program name), or None to leave it to typer."""
    if not args or args[0] not in COMMANDS:
        return None
    options = COMMANDS[args[0]]
    file: Path | None = None
    kwargs: dict[str, Any] = {}
    rest = args[1:]
    i = 0
    while i < len(rest):
        token = rest[i]
        i += 1
        if not token.startswith("-"):
            if file is not None or not token:
                return None  # an extra argument, or an empty one: typer's message
            file = Path(token)
            continue
        name, eq, value = token.partition("=")
        opt = options.get(name)
        if opt is None or (eq and (not opt.takes_value or not name.startswith("--"))):
            return None  # --help, --, unknown, -oDIR, -qs, --quiet=...
        if opt.param in kwargs and not opt.multiple:
            return None  # given twice
        if not opt.takes_value:
            kwargs[opt.param] = True
            continue
        if not eq:
            if i >= len(rest):
                return None  # the value is missing
            value = rest[i]
            i += 1
        if not value or value.startswith("-"):
            return None
        try:
            converted = opt.convert(value) if opt.convert is not None else value
        except ValueError:
            return None
        if opt.multiple:
            kwargs.setdefault(opt.param, []).append(converted)
        else:
            kwargs[opt.param] = converted
    if file is None:
        return None
    return args[0], file, kwargs


def fast_command(args: list[str]) -> Callable[[], None] | None:
    """The command ``args`` asks for, ready to call, if it takes the fast path, else None."""
    parsed = parse(args)
    if parsed is None:
        return None
    command, file, kwargs = parsed

    def call() -> None:
        # pyarrow's default allocator (mimalloc) takes 15-25 ms to start, more than
        # writing a small run's files takes; this process writes a few tables and ends.
        if "pyarrow" not in sys.modules:
            os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
        from . import actions

        action = actions.run_scenario if command == "run" else actions.validate_scenario
        try:
            action(file, **kwargs)
        except OSError as e:
            if e.errno != errno.EPIPE:
                raise
            # The reader of stdout went away (`airqueue run … | head`): as click does,
            # exit 1 quietly, with stdout sent nowhere so that its flush at exit is silent.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(1)

    return call
