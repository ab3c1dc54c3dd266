"""The ``airqueue`` command line: run, validate and benchmark scenarios, list what exists.

Exit codes: 0 success; 1 an internal error (or a run whose packet conservation check
failed); 2 invalid input (a scenario problem, a bad ``--set``, a usage error, a run that
ran out of memory). Tracebacks
are shown only with ``AIRQUEUE_DEBUG=1``.

The commands are in one module per family (``run``: run, validate, bench; ``sweep``;
``plot``: plot, report; ``reproduce``; ``listing``: list, schema), the console tables they
print in ``render``; this module builds the typer app from them and is the entry point.
"""

from __future__ import annotations

import os
import sys
import traceback
from typing import Annotated

import typer
from rich.text import Text

import airqueue
from airqueue import ScenarioError

from . import listing, live, plot, reproduce, run, sweep
from .common import InputError, Interrupted, err, out, plural
from .plot import draw
from .progress import SweepProgress, runs_per_second
from .run import RUN_OUTPUTS
from .tc import tc_app

#: Set to 1 to see tracebacks of internal errors.
DEBUG_ENV = "AIRQUEUE_DEBUG"

app = typer.Typer(
    name="airqueue",
    help="A deterministic laboratory for packet scheduling: run, check and benchmark scenarios.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
list_app = typer.Typer(
    help="List the queueing disciplines or the scenarios that exist.", no_args_is_help=True
)
app.add_typer(list_app, name="list")

# The commands, in the order `airqueue --help` lists them.
app.command()(run.run)
app.command()(run.validate)
app.command()(listing.schema)
list_app.command("qdiscs")(listing.list_qdiscs)
list_app.command("scenarios")(listing.list_scenarios)
app.command()(run.bench)
app.command()(live.live)
app.command()(sweep.sweep)
app.command()(plot.plot)
app.command("report")(plot.report_cmd)
app.command()(reproduce.reproduce)
app.add_typer(tc_app, name="tc")

# ---------------------------------------------------------------------------------------
# Entry point and error handling
# ---------------------------------------------------------------------------------------


def version_callback(value: bool) -> None:
    """``--version``: print and stop before any command runs."""
    if value:
        out.print(f"airqueue {airqueue.__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=version_callback,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """A deterministic laboratory for packet scheduling: run, check and benchmark scenarios."""


def report_problems(problems: list[tuple[str, str]], header: str) -> None:
    """Prints a header and each problem as ``path: message`` in red on stderr."""
    err.print(Text(header, style="bold red"))
    for path, message in problems:
        err.print(Text(f"  {path}: {message}", style="red"), soft_wrap=True)


def report_unexpected(exc: BaseException) -> None:
    """One line about an exception that is not the input's fault; the traceback only with
    AIRQUEUE_DEBUG=1."""
    lines = str(exc).strip().splitlines()
    detail = lines[0] if lines else ""
    if isinstance(exc, airqueue.InternalError):
        line = detail or "internal error in the airqueue core"
    elif isinstance(exc, OSError):
        line = f"error: {detail or type(exc).__name__}"
    else:
        line = f"internal error: {type(exc).__name__}{': ' + detail if detail else ''}"
    err.print(Text(line, style="red"), soft_wrap=True)
    if os.environ.get(DEBUG_ENV) == "1":
        traceback.print_exception(exc)
    else:
        err.print(f"re-run with {DEBUG_ENV}=1 for a traceback", soft_wrap=True)


def main() -> None:
    """The ``airqueue`` console script."""
    try:
        app(prog_name="airqueue")
    except ScenarioError as e:
        problems = e.problems or [("(scenario)", str(e))]
        report_problems(problems, f"error: the scenario has {plural(len(problems), 'problem')}:")
        sys.exit(2)
    except InputError as e:
        report_problems(e.problems, "error:")
        sys.exit(2)
    except (Interrupted, KeyboardInterrupt) as e:
        err.print(Text(str(e) or "interrupted", style="red"))
        # Nothing is pending (results are written only after a run ends), so skip the
        # interpreter's teardown (hundreds of ms with pandas and pyarrow loaded).
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    except MemoryError as e:
        # Python, NumPy or Arrow could not allocate (the core's own failures exit 2 in
        # its allocator, crates/airqueue-py/src/oom.rs): the run did not fit this
        # process's memory limit, which is the input's size, not a bug.
        detail = str(e).strip().splitlines()[0] if str(e).strip() else "an allocation failed"
        err.print(
            Text(
                f"error: out of memory ({detail}); make the run smaller (run.duration, a "
                "longer run.sample_interval, fewer flows) or pass a smaller --max-memory",
                style="red",
            ),
            soft_wrap=True,
        )
        sys.exit(2)
    except Exception as e:
        report_unexpected(e)
        sys.exit(1)


__all__ = [
    "RUN_OUTPUTS",
    "InputError",
    "Interrupted",
    "SweepProgress",
    "app",
    "draw",
    "list_app",
    "main",
    "runs_per_second",
]
