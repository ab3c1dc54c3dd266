"""``airqueue list qdiscs``, ``list scenarios`` and ``schema``: what exists."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

import airqueue
from airqueue import shipped

from .common import InputError
from .render import (
    one_line,
    print_prose,
    qdisc_kind,
    qdisc_parameters,
    qdisc_variants,
    scenario_description,
)


def schema() -> None:
    """Print the JSON Schema (draft 2020-12) of the scenario format."""
    sys.stdout.write(airqueue.schema().rstrip("\n") + "\n")


def list_qdiscs() -> None:
    """Every queueing discipline with its parameters, defaults and a one-line description."""
    table = Table(
        title="queueing disciplines ([[qdiscs]] kind = …)",
        title_justify="left",
        caption=(
            'every entry also takes dev = "<node>.<link>" or a virtual device (required) and name; '
            "a class's match table takes flow, src, dst, dscp, priority, protocol and dev"
        ),
        caption_justify="left",
        show_lines=True,
    )
    table.add_column("kind", style="bold cyan", no_wrap=True)
    table.add_column("parameters (default)")
    table.add_column("description")
    schema_doc = json.loads(airqueue.schema())
    for variant in qdisc_variants(schema_doc):
        table.add_row(
            qdisc_kind(variant),
            qdisc_parameters(variant, schema_doc),
            Text(one_line(variant.get("description", ""))),
        )
    print_prose(table)


def scenario_files(root: Path) -> Iterator[Path]:
    return iter(sorted(p for p in root.rglob("*.toml") if p.is_file()))


def list_scenarios(
    directory: Annotated[
        Path | None,
        typer.Argument(
            metavar="DIR",
            help="Folder searched recursively for *.toml (default: the scenarios shipped "
            "with airqueue, which `airqueue run examples/udp-bottleneck` finds by name).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Every scenario (*.toml, recursively) under DIR with its description."""
    if directory is None:
        directory = shipped.scenarios_dir()
        title = "scenarios shipped with airqueue (run one by name: airqueue run examples/dumbbell)"
    elif not directory.is_dir():
        raise InputError(f"DIR {directory}", "is not a folder; give a folder of *.toml files")
    else:
        title = f"scenarios in {directory}"
    table = Table(title=title, title_justify="left", show_lines=True)
    table.add_column("file", style="bold cyan", overflow="fold")
    table.add_column("description")
    for path in scenario_files(directory):
        table.add_row(str(path.relative_to(directory)), scenario_description(path))
    print_prose(table)
