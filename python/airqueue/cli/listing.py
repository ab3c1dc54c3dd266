"""``airqueue list qdiscs``, ``list scenarios`` and ``schema``: what exists."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

import airqueue
from airqueue import shipped

from .common import InputError
from .render import print_prose, qdiscs_table, scenarios_table


def schema() -> None:
    """Print the JSON Schema (draft 2020-12) of the scenario format."""
    sys.stdout.write(airqueue.schema().rstrip("\n") + "\n")


def list_qdiscs() -> None:
    """Every queueing discipline with its parameters, defaults and a one-line description."""
    schema_doc = json.loads(airqueue.schema())
    print_prose(qdiscs_table(schema_doc))


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
    print_prose(scenarios_table(title, directory, scenario_files(directory)))
