"""The ``airqueue`` command line: run, validate and benchmark scenarios, list what exists.

Exit codes: 0 success; 1 an internal error (or a run whose packet conservation check
failed); 2 invalid input (a scenario problem, a bad ``--set``, a usage error). Tracebacks
are shown only with ``AIRQUEUE_DEBUG=1``.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import sys
import tomllib
import traceback
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any

import pandas as pd
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

import airqueue
from airqueue import Result, Scenario, ScenarioError

try:
    import resource
except ImportError:  # pragma: no cover - not on Windows
    resource = None  # type: ignore[assignment]

#: Set to 1 to see tracebacks of internal errors.
DEBUG_ENV = "AIRQUEUE_DEBUG"

# Markup is off: names, paths and messages are printed as written (a "[run]" in a message
# must not be taken for a style); styling is done with Text objects.
out = Console(highlight=False, markup=False)
err = Console(stderr=True, highlight=False, markup=False)

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
SeedOpt = Annotated[
    int | None,
    typer.Option("--seed", min=0, help="Run seed (overrides run.seed).", show_default=False),
]


def load(file: Path, sets: list[str] | None) -> Scenario:
    """Loads a scenario file and applies ``--set`` overrides."""
    return airqueue.load_scenario(file, set=sets or [])


def fmt_num(value: float | None, digits: int = 3) -> str:
    """A float for a table cell; NaN (no samples) shows as a dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{digits}f}"


def plural(n: int, word: str) -> str:
    """``1 flow``, ``2 flows``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def one_line(text: str) -> str:
    """Collapses a (multi-line) schema description into one line."""
    return " ".join(text.split())


# ---------------------------------------------------------------------------------------
# airqueue run
# ---------------------------------------------------------------------------------------


def flow_table(flows: pd.DataFrame) -> Table:
    table = Table(title="flows", title_justify="left")
    table.add_column("flow", no_wrap=True)
    for name in ("tx pkts", "rx pkts", "goodput Mbit/s", "mean delay ms", "p99 delay ms", "drops"):
        table.add_column(name, justify="right")
    for row in flows.itertuples(index=False):
        table.add_row(
            str(row.flow),
            f"{row.tx_packets:,}",
            f"{row.rx_packets:,}",
            fmt_num(row.goodput_bps / 1e6),
            fmt_num(row.delay_mean_ms),
            fmt_num(row.delay_p99_ms),
            f"{row.drops:,}",
        )
    return table


def queue_table(queues: pd.DataFrame) -> Table:
    """Queues that saw traffic (something was enqueued or dropped)."""
    busy = queues[(queues["enqueued_packets"] > 0) | (queues["drops"] > 0)]
    table = Table(title="queues that saw traffic (packets)", title_justify="left")
    table.add_column("queue", no_wrap=True)
    table.add_column("kind")
    for name in ("enqueued", "drops", "mean backlog", "max backlog", "sojourn ms"):
        table.add_column(name, justify="right")
    for row in busy.itertuples(index=False):
        table.add_row(
            str(row.queue),
            str(row.kind),
            f"{row.enqueued_packets:,}",
            f"{row.drops:,}",
            fmt_num(row.backlog_mean_packets, 1),
            f"{row.backlog_max_packets:,}",
            fmt_num(row.sojourn_mean_ms),
        )
    return table


def class_table(classes: pd.DataFrame) -> Table:
    """Classes of classful qdiscs that saw traffic (something was enqueued or dropped)."""
    busy = classes[(classes["enqueued_packets"] > 0) | (classes["drops"] > 0)]
    table = Table(title="classes that saw traffic (packets)", title_justify="left")
    table.add_column("queue", no_wrap=True)
    table.add_column("class", no_wrap=True)
    table.add_column("qdisc")
    for name in ("enqueued", "dequeued", "drops", "borrowed", "p99 sojourn ms"):
        table.add_column(name, justify="right")
    # ``class`` is a Python keyword, so rows are read as records, not named tuples.
    for row in busy.to_dict("records"):
        table.add_row(
            str(row["queue"]),
            str(row["class"]),
            f"{row['kind']}: {row['qdisc']}" if row["qdisc"] else str(row["kind"]),
            f"{row['enqueued_packets']:,}",
            f"{row['dequeued_packets']:,}",
            f"{row['drops']:,}",
            f"{row['borrows']:,}" if row["kind"] == "htb" else "-",
            fmt_num(row["sojourn_p99_ms"]),
        )
    return table


def packets_line(summary: Mapping[str, Any]) -> Text:
    """Sent/delivered/dropped/in flight over the whole run, and the conservation verdict."""
    p = summary["packets"]
    dropped: dict[str, int] = p["dropped"]
    reasons = ", ".join(f"{k} {v:,}" for k, v in dropped.items() if v)
    line = Text(
        f"packets (whole run): sent {p['sent']:,}, delivered {p['delivered']:,}, "
        f"dropped {sum(dropped.values()):,}{f' ({reasons})' if reasons else ''}, "
        f"in flight {p['in_flight']:,}; conservation "
    )
    if summary["conservation_ok"]:
        line.append("holds", style="green")
    else:
        line.append("FAILS", style="bold red")
    return line


def timing_line(summary: Mapping[str, Any]) -> str:
    wall = summary["timing"]["wall_seconds"]
    return (
        f"{summary['events']:,} events, {summary['sim_seconds']:g} s simulated "
        f"in {wall:.3f} s wall (seed {summary['seed']})"
    )


def print_run_summary(result: Result) -> None:
    warmup = result.summary.get("warmup_seconds", 0)
    if warmup:
        out.print(
            f"flow and queue tables count from the end of the {warmup:g} s warm-up", style="dim"
        )
    out.print(flow_table(result.flows))
    out.print(queue_table(result.queues))
    if len(result.classes):
        out.print(class_table(result.classes))
    out.print(packets_line(result.summary))
    out.print(timing_line(result.summary))


@app.command()
def run(
    file: FileArg,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help="Output folder (default: results/FILE-STEM).",
            show_default=False,
        ),
    ] = None,
    seed: SeedOpt = None,
    sets: SetOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")] = False,
) -> None:
    """Run a scenario, print a summary and write the results.

    Writes summary.json, flows.csv, {flows,timeseries,queues,classes}.parquet, the resolved
    scenario.toml.

    Exits 1 if the packet conservation check fails (after writing the results).
    """
    result = airqueue.run(load(file, sets), seed=seed)
    target = result.write(out_dir if out_dir is not None else Path("results") / file.stem)
    if not quiet:
        print_run_summary(result)
        out.print(f"wrote {target}{os.sep}")
    if not result.summary["conservation_ok"]:
        err.print(Text("packet conservation failed:", style="bold red"))
        for line in result.summary["packets"].get("errors", []):
            err.print(Text(f"  {line}", style="red"), soft_wrap=True)
        raise typer.Exit(1)


# ---------------------------------------------------------------------------------------
# airqueue validate / schema
# ---------------------------------------------------------------------------------------


@app.command()
def validate(file: FileArg, sets: SetOpt = None) -> None:
    """Check a scenario without running it; print what it contains or every problem."""
    resolved = load(file, sets).resolved()
    counts = [
        plural(len(resolved.get(section) or []), word)
        for section, word in (
            ("nodes", "node"),
            ("links", "link"),
            ("flows", "flow"),
            ("qdiscs", "qdisc"),
        )
    ]
    if resolved.get("virtual_devs"):
        counts.append(plural(len(resolved["virtual_devs"]), "virtual device"))
    out.print("OK: " + ", ".join(counts))


@app.command()
def schema() -> None:
    """Print the JSON Schema (draft 2020-12) of the scenario format."""
    sys.stdout.write(airqueue.schema().rstrip("\n") + "\n")


# ---------------------------------------------------------------------------------------
# airqueue list qdiscs / scenarios
# ---------------------------------------------------------------------------------------

#: Keys every qdisc entry takes; listed once in the table caption.
COMMON_QDISC_KEYS = ("kind", "dev", "name")


def definition(schema_doc: Mapping[str, Any], prop: Mapping[str, Any]) -> Mapping[str, Any]:
    """The definition a ``$ref`` (possibly inside ``anyOf`` with null) points to, else {}."""
    refs = [prop] + [p for p in prop.get("anyOf", []) if isinstance(p, Mapping)]
    for p in refs:
        ref = p.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return schema_doc.get("$defs", {}).get(ref.removeprefix("#/$defs/"), {})
    return {}


#: How definitions that are whole tables read in a parameter's type.
TABLE_TYPES = {"QdiscConf": "qdisc table (any kind)", "MatchSpec": "match table"}


def type_label(prop: Mapping[str, Any]) -> str:
    """A short type for a schema property: ``integer``, ``Bytes``, ``Duration | null``,
    ``list of HtbClassConf``."""
    if "$ref" in prop:
        name = str(prop["$ref"]).rsplit("/", 1)[-1]
        if name.endswith("ClassConf"):
            return "class table"
        return TABLE_TYPES.get(name, name)
    if "anyOf" in prop:
        return " | ".join(type_label(p) for p in prop["anyOf"] if p.get("type") != "null")
    kind = prop.get("type", "any")
    if kind == "array" and isinstance(prop.get("items"), Mapping):
        item = type_label(prop["items"])
        return f"list of {item}s" if item.endswith("table") else f"list of {item}"
    return " | ".join(t for t in kind if t != "null") if isinstance(kind, list) else str(kind)


def qdisc_kind(variant: Mapping[str, Any]) -> str:
    spec = variant.get("properties", {}).get("kind", {})
    if "const" in spec:
        return str(spec["const"])
    return " | ".join(str(k) for k in spec.get("enum", ["?"]))


def parameter_lines(
    text: Text,
    schema_doc: Mapping[str, Any],
    table: Mapping[str, Any],
    indent: str,
    skip: tuple[str, ...] = (),
) -> int:
    """Appends ``name = default (type)`` and its description for each key of ``table``; a
    list of class tables gets its keys listed below it, indented. Returns the count."""
    required = set(table.get("required", []))
    params = {k: v for k, v in table.get("properties", {}).items() if k not in skip}
    # Required keys first (a class's name, rate), then the rest alphabetically.
    for name, prop in sorted(params.items(), key=lambda kv: (kv[0] not in required, kv[0])):
        if text.plain:
            text.append("\n")
        default = (
            json.dumps(prop["default"])
            if "default" in prop
            else ("required" if name in required else "optional")
        )
        text.append(f"{indent}{name} = {default}", style="bold")
        text.append(f" ({type_label(prop)})", style="dim")
        if prop.get("description"):
            text.append(f"\n{indent}  {one_line(prop['description'])}", style="dim")
        items = prop.get("items")
        inner = definition(schema_doc, items) if isinstance(items, Mapping) else {}
        if inner.get("properties"):
            text.append(f"\n{indent}  each entry:", style="italic")
            parameter_lines(text, schema_doc, inner, indent + "    ")
    return len(params)


def qdisc_parameters(variant: Mapping[str, Any], schema_doc: Mapping[str, Any]) -> Text:
    """One line per parameter: ``name = default (type)``, then its description; class
    lists are expanded one level (their ``qdisc`` is any qdisc, listed in its own row)."""
    text = Text()
    count = parameter_lines(text, schema_doc, variant, "", skip=COMMON_QDISC_KEYS)
    return text if count else Text("-")


def qdisc_variants(schema_doc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The variants of ``$defs.QdiscSpec.oneOf``, one per queueing discipline."""
    spec = schema_doc.get("$defs", {}).get("QdiscSpec", {})
    return list(spec.get("oneOf", []))


@list_app.command("qdiscs")
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
    out.print(table)


def scenario_files(root: Path) -> Iterator[Path]:
    return iter(sorted(p for p in root.rglob("*.toml") if p.is_file()))


def scenario_description(path: Path) -> Text:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return Text("(not a readable TOML file)", style="red")
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        return Text("(no description)", style="dim")
    return Text(one_line(description))


@list_app.command("scenarios")
def list_scenarios(
    directory: Annotated[
        Path,
        typer.Argument(metavar="DIR", help="Folder searched recursively for *.toml."),
    ] = Path("scenarios"),
) -> None:
    """Every scenario (*.toml, recursively) under DIR with its description."""
    if not directory.is_dir():
        raise InputError(str(directory), "is not a folder")
    table = Table(title=f"scenarios in {directory}", title_justify="left", show_lines=True)
    table.add_column("file", style="bold cyan", overflow="fold")
    table.add_column("description")
    for path in scenario_files(directory):
        table.add_row(str(path.relative_to(directory)), scenario_description(path))
    out.print(table)


# ---------------------------------------------------------------------------------------
# airqueue bench
# ---------------------------------------------------------------------------------------


def process_peak_rss_mib() -> float | None:
    """The peak resident set size of this whole process so far, in MiB."""
    if resource is None:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS bytes.
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def bench_report(file: Path, summaries: list[dict[str, Any]]) -> dict[str, Any]:
    walls = [s["timing"]["wall_seconds"] for s in summaries]
    median = statistics.median(walls)
    first = summaries[0]
    return {
        "scenario": str(file),
        "airqueue_version": first["airqueue_version"],
        "seed": first["seed"],
        "repeat": len(summaries),
        "wall_seconds": walls,
        "wall_seconds_median": median,
        "sim_seconds": first["sim_seconds"],
        "events": first["events"],
        "events_per_second": first["events"] / median if median > 0 else None,
        "process_peak_rss_mib": process_peak_rss_mib(),
        "peak_live_packets": first["peak_live_packets"],
    }


def bench_table(report: Mapping[str, Any]) -> Table:
    table = Table(title=f"bench {report['scenario']}", title_justify="left", show_header=False)
    table.add_column("measure")
    table.add_column("value", justify="right")
    eps = report["events_per_second"]
    rss = report["process_peak_rss_mib"]
    median = report["wall_seconds_median"]
    rows = [
        ("runs", str(report["repeat"])),
        ("wall seconds (median)", f"{median:.4f}"),
        (
            "wall seconds (min … max)",
            f"{min(report['wall_seconds']):.4f} … {max(report['wall_seconds']):.4f}",
        ),
        ("simulated seconds", f"{report['sim_seconds']:g}"),
        ("speed (simulated / wall)", f"{report['sim_seconds'] / median:,.0f}x" if median else "-"),
        ("events", f"{report['events']:,}"),
        ("events per second", f"{eps:,.0f}" if eps else "-"),
        ("peak memory (process peak RSS)", f"{rss:.1f} MiB" if rss is not None else "-"),
        ("peak live packets", f"{report['peak_live_packets']:,}"),
    ]
    for name, value in rows:
        table.add_row(name, value)
    return table


@app.command()
def bench(
    file: FileArg,
    repeat: Annotated[
        int, typer.Option("--repeat", "-n", min=1, help="How many runs to time.")
    ] = 5,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of the table.")
    ] = False,
    seed: SeedOpt = None,
    sets: SetOpt = None,
) -> None:
    """Run a scenario several times and report the median wall time and events per second.

    Memory is the peak RSS of the whole process (Python included), not of one run.
    """
    scenario = load(file, sets)
    summaries = [airqueue.run(scenario, seed=seed).summary for _ in range(repeat)]
    report = bench_report(file, summaries)
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        out.print(bench_table(report))


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
    except Exception as e:
        report_unexpected(e)
        sys.exit(1)


if __name__ == "__main__":
    main()
