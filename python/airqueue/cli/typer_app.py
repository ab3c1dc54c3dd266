"""The typer app of the ``airqueue`` command: every command and its ``--help``. Built on
first use (``airqueue.cli.app``): ``airqueue run FILE`` and ``airqueue validate FILE`` with
plain options take the fast path of :mod:`airqueue.cli.fast` and never import typer."""

from __future__ import annotations

from typing import Annotated

import typer

import airqueue

from . import listing, live, plot, reproduce, run, sweep
from .common import out
from .tc import tc_app

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
