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
from .render import print_prose, qdisc_kinds, qdiscs_table, scenarios_table, shared_keys_table


def schema() -> None:
    """Print the JSON Schema (draft 2020-12) of the scenario format."""
    sys.stdout.write(airqueue.schema().rstrip("\n") + "\n")


def list_qdiscs(
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="NAME", help="Show only this qdisc (e.g. fq_codel).", show_default=False
        ),
    ] = None,
) -> None:
    """Every queueing discipline (or the one NAME) with its parameters, defaults and a
    one-line description; the keys every qdisc takes (stab) are listed once, after them."""
    schema_doc = json.loads(airqueue.schema())
    if name is not None and name not in (kinds := qdisc_kinds(schema_doc)):
        raise InputError(f"NAME {name}", "is not a qdisc; one of " + ", ".join(kinds))
    print_prose(qdiscs_table(schema_doc, name))
    shared = shared_keys_table(schema_doc)
    if shared is not None:
        print_prose(shared)


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
    """Every scenario (*.toml, recursively) under DIR with its description. DIR is a
    folder, a shipped folder by name (``examples``), or one scenario file or shipped name
    (``examples/dumbbell``), as ``airqueue run`` takes them."""
    if directory is None:
        directory = shipped.scenarios_dir()
        title = "scenarios shipped with airqueue (run one by name: airqueue run examples/dumbbell)"
        files = scenario_files(directory)
    elif directory.is_dir():
        title = f"scenarios in {directory}"
        files = scenario_files(directory)
    elif directory.is_file():
        title = f"scenario {directory}"
        files, directory = iter([directory]), directory.parent
    elif (found := shipped.find_dir(directory)) is not None:
        title = (
            f"scenarios shipped with airqueue in {directory.as_posix()}/ "
            f"(run one by name: airqueue run {directory.as_posix()}/NAME)"
        )
        files, directory = scenario_files(found), shipped.scenarios_dir()
    elif (found := shipped.find(directory)) is not None:
        title = "scenario shipped with airqueue"
        files, directory = iter([found]), shipped.scenarios_dir()
    else:
        folders = sorted({n.split("/")[0] for n in shipped.names() if "/" in n})
        raise InputError(
            f"DIR {directory}",
            "is not a folder, a scenario file or the name of one shipped with airqueue; "
            "shipped folders: " + ", ".join(folders),
        )
    print_prose(scenarios_table(title, directory, files))
