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
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

import airqueue
from airqueue import Scenario, ScenarioError, shipped
from airqueue.values import parse_memory

if TYPE_CHECKING:  # imported only by the commands that need them (`validate` stays fast)
    import pandas as pd
    from matplotlib.figure import Figure

    from airqueue import Result
    from airqueue.sweep import SweepResult

try:
    import resource
except ImportError:  # pragma: no cover - not on Windows
    resource = None  # type: ignore[assignment]

#: Set to 1 to see tracebacks of internal errors.
DEBUG_ENV = "AIRQUEUE_DEBUG"

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

#: Piped, tables of prose (lists of qdiscs, scenarios, reproductions) wrap at this width:
#: they hold no number to truncate, and a line per description would be unreadable.
PROSE_WIDTH = 120


def print_prose(table: Table) -> None:
    """Prints a table of descriptions: terminal width, or :data:`PROSE_WIDTH` piped."""
    out.print(table, width=None if out.is_terminal else PROSE_WIDTH)


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
        help="Memory budget for the run, e.g. 2GB (default: half of this machine's memory); "
        "a scenario estimated to need more is refused.",
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


class RunProgress:
    """A progress line for one run (simulated time, events/s, ETA) on stderr, shown once
    the run has taken a second and only on a terminal; called by the core about every
    200 ms."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and err.is_terminal
        self.bar = Progress(
            TextColumn("run"),
            BarColumn(),
            TextColumn("{task.fields[sim]}"),
            TextColumn("{task.fields[rate]}", style="cyan"),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=err,
            transient=True,
            disable=not self.enabled,
        )
        self.task: TaskID | None = None

    def __call__(self, sim_s: float, stop_s: float, events: int, wall_s: float) -> None:
        if not self.enabled or wall_s < 1.0:
            return
        fields = {
            "sim": f"{sim_s:,.1f} / {stop_s:,.1f} s simulated",
            "rate": f"{events / max(wall_s, 1e-9) / 1e6:,.1f} M events/s",
        }
        if self.task is None:
            self.bar.start()
            self.task = self.bar.add_task("run", total=stop_s, **fields)
        self.bar.update(self.task, completed=sim_s, **fields)

    def close(self) -> None:
        if self.task is not None:
            self.bar.stop()


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
    # Striping trunks' control packets and retransmissions (absent when there are none).
    made = f", created {p['created']:,}" if p.get("created") else ""
    taken = f", consumed {p['consumed']:,}" if p.get("consumed") else ""
    line = Text(
        f"packets (whole run): sent {p['sent']:,}{made}, delivered {p['delivered']:,}{taken}, "
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


def rwnd_warnings(flows: Any) -> list[str]:
    """One line per TCP flow that spent most of its time receive-window-limited."""
    if "rwnd_limited_warning" not in flows:
        return []
    hit = flows[flows["rwnd_limited_warning"] == 1]
    return [
        f"warning: flow {row.flow} was receive-window-limited "
        f"{row.rwnd_limited_frac:.0%} of the time: its rate was at most its receive "
        "window / RTT; if that is below the path's capacity, raise transport.rcv_buffer "
        "(or set rcv_buffer_max)"
        for row in hit.itertuples()
    ]


def print_run_summary(result: Result) -> None:
    warmup = result.summary.get("warmup_seconds", 0)
    if warmup:
        out.print(
            f"flow and queue tables count from the end of the {warmup:g} s warm-up", style="dim"
        )
    out.print(flow_table(result.flows))
    for line in rwnd_warnings(result.flows):
        out.print(line, style="yellow")
    out.print(queue_table(result.queues))
    if len(result.classes):
        out.print(class_table(result.classes))
    out.print(packets_line(result.summary))
    out.print(timing_line(result.summary))


#: What ``airqueue run`` writes into its folder, besides ``LINK.pcap`` files; ``plot``
#: and ``report`` add ``plots/`` and ``report.html`` (made from the files of a run).
RUN_OUTPUTS = (
    "summary.json",
    "flows.csv",
    "flows.parquet",
    "timeseries.parquet",
    "queues.parquet",
    "classes.parquet",
    "scenario.toml",
    "report.html",
)


def clear_run_folder(folder: Path, keep: set[str]) -> None:
    """Removes what an earlier run left in ``folder`` and this one would not overwrite:
    its result files, its pcaps (except the links in ``keep``, just written), plots and
    report made from them. Only a run folder (one with a summary.json) is cleared, and
    nothing else in it is touched."""
    if not (folder / "summary.json").is_file():
        return
    for name in RUN_OUTPUTS:
        (folder / name).unlink(missing_ok=True)
    for pcap in folder.glob("*.pcap"):
        if pcap.stem not in keep:
            pcap.unlink()
    plots_dir = folder / "plots"
    if plots_dir.is_dir():
        for f in plots_dir.iterdir():
            if f.suffix in (".png", ".svg", ".pdf") and f.is_file():
                f.unlink()


@app.command()
def run(
    file: FileArg,
    out_dir: Annotated[Path | None, out_option("results/FILE-STEM")] = None,
    seed: SeedOpt = None,
    sets: SetOpt = None,
    pcap: Annotated[
        list[str] | None,
        typer.Option(
            "--pcap",
            metavar="LINK[,LINK]",
            help="Write DIR/LINK.pcap: both directions of the link as tcpdump would see "
            "them leave (repeatable).",
            show_default=False,
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")] = False,
    max_memory: MemoryOpt = None,
) -> None:
    """Run a scenario, print a summary and write the results.

    Writes summary.json, flows.csv, {flows,timeseries,queues,classes}.parquet, the resolved
    scenario.toml.

    Exits 1 if the packet conservation check fails (after writing the results).
    """
    scenario = load(file, sets)
    target_dir = out_dir if out_dir is not None else Path("results") / file.stem
    if scenario.sweep is not None and not quiet:
        out.print(
            "the [sweep] table is not used by run (this is the base point); use airqueue sweep",
            style="dim",
        )
    progress = RunProgress(enabled=not quiet)
    try:
        result = airqueue.run(
            scenario,
            seed=seed,
            pcap=pcap,
            pcap_dir=target_dir,
            max_memory=memory_budget(max_memory),
            progress=progress,
        )
    except KeyboardInterrupt:
        raise Interrupted("interrupted; no results were written") from None
    finally:
        progress.close()
    if not quiet:
        print_warnings([(w["path"], w["message"]) for w in result.summary.get("warnings", [])])
    clear_run_folder(target_dir, keep=set(result.pcap))
    target = result.write(target_dir)
    if not quiet:
        print_run_summary(result)
        for link, (path, packets) in result.pcap.items():
            out.print(f"pcap {link}: {packets:,} packets in {path}")
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
def validate(file: FileArg, sets: SetOpt = None, max_memory: MemoryOpt = None) -> None:
    """Check a scenario without running it; print what it contains or every problem, and
    its warnings."""
    found, warnings = load(file, sets).counts(memory_budget(max_memory))
    print_warnings(warnings)
    counts = [
        plural(found.get(section, 0), word)
        for section, word in (
            ("nodes", "node"),
            ("links", "link"),
            ("flows", "flow"),
            ("qdiscs", "qdisc"),
        )
    ]
    for section, word in (
        ("segments", "segment"),
        ("cells", "802.11 cell"),
        ("piconets", "piconet"),
        ("virtual_devs", "virtual device"),
        ("trunks", "trunk"),
    ):
        if found.get(section):
            counts.append(plural(found[section], word))
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
    print_prose(table)


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


def cell_frames(result: Any) -> int | None:
    """802.11 frame attempts of every cell in a run (sent, collided or corrupted), or None.

    The stations table counts after the warm-up, so this is None unless the warm-up is 0
    (the events are counted over the whole run).
    """
    stations = result.more.get("stations")
    if stations is None or len(stations) == 0 or result.summary["warmup_seconds"] != 0:
        return None
    cols = ["frames_sent", "collisions", "channel_errors"]
    return int(stations[cols].to_numpy().sum())


def bench_report(
    file: Path, summaries: list[dict[str, Any]], frames: int | None = None
) -> dict[str, Any]:
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
        # 802.11 cells (warm-up 0): frame attempts, and all events of the run per attempt.
        "wifi_frames": frames,
        "events_per_wifi_frame": first["events"] / frames if frames else None,
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
    if report.get("wifi_frames"):
        rows += [
            ("802.11 frames (attempts)", f"{report['wifi_frames']:,}"),
            ("events per 802.11 frame", f"{report['events_per_wifi_frame']:.2f}"),
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

    Memory is the peak RSS of the whole process (Python included), not of one run. With
    802.11 cells and a warm-up of 0, also the frames attempted and events per frame.
    """
    scenario = load(file, sets)
    first = airqueue.run(scenario, seed=seed)
    frames = cell_frames(first)
    summaries = [first.summary] + [
        airqueue.run(scenario, seed=seed).summary for _ in range(repeat - 1)
    ]
    report = bench_report(file, summaries, frames)
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        out.print(bench_table(report))


# ---------------------------------------------------------------------------------------
# airqueue sweep / plot / report / reproduce (experiments: docs/experiments.md)
# ---------------------------------------------------------------------------------------


def runs_per_second(task: Task) -> float | None:
    """Runs finished per second of wall time since the runs started (the bar's task is
    added when they start): the sweep summary's ``runs_per_second``, not rich's moving
    estimate, which chunked runs (many finishing at once) made disagree with it."""
    elapsed = task.finished_time if task.finished_time is not None else task.elapsed
    if not elapsed or not task.completed:
        return None
    return task.completed / elapsed


class RateColumn(ProgressColumn):
    """Finished runs per second since the runs started (:func:`runs_per_second`)."""

    def render(self, task: Task) -> Text:
        speed = runs_per_second(task)
        return Text("-- runs/s" if speed is None else f"{speed:.1f} runs/s", style="cyan")


class SweepProgress:
    """A rich progress bar (done/total, rate, ETA) driven by the sweep's progress hook."""

    def __init__(self, enabled: bool) -> None:
        self.bar = Progress(
            TextColumn("sweep"),
            BarColumn(),
            MofNCompleteColumn(),
            RateColumn(),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=err,
            disable=not enabled,
        )
        self.task: TaskID | None = None

    def __call__(self, done: int, total: int, skipped: int) -> None:
        if self.task is None:
            self.task = self.bar.add_task("sweep", total=total)
            if skipped:
                self.bar.console.print(f"{skipped} of {total} runs are in the store already")
            # Runs from the store do not count towards the rate.
            self.bar.update(self.task, completed=0, total=total - skipped)
            return
        self.bar.update(self.task, completed=done - skipped)


#: Run totals the sweep command prints, with their column headings and scale.
POINT_COLUMNS = (
    ("goodput_bps", "goodput Mbit/s", 1e6),
    ("delay_mean_ms", "delay ms", 1.0),
    ("drops", "drops", 1.0),
    ("jain_index", "Jain", 1.0),
)


def points_table(result: SweepResult) -> Table:
    """One row per grid point: run totals as mean ± 95 % CI half-width."""
    table = Table(
        title="run totals per point (mean ± 95 % CI over seeds)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        caption="columns: " + ", ".join(result.params),
        caption_justify="left",
    )
    for p in result.params:
        table.add_column(p.rsplit(".", 1)[-1], no_wrap=True)
    from airqueue.sweep import ALL_FLOWS

    pts = result.points[result.points["flow"] == ALL_FLOWS]
    present = [c for c in POINT_COLUMNS if c[0] in set(pts["metric"])]
    for _, heading, _ in present:
        table.add_column(heading, justify="right", no_wrap=True)
    for _, g in pts.groupby("point", sort=True):
        row = [str(g[p].iloc[0]) for p in result.params]
        for metric, _, scale in present:
            r = g[g["metric"] == metric].iloc[0]
            half = (r["ci95_high"] - r["ci95_low"]) / 2 / scale
            row.append(
                f"{r['mean'] / scale:.4g}±{half:.1g}"
                if half == half
                else f"{r['mean'] / scale:.4g}"
            )
        table.add_row(*row)
    return table


@app.command()
def sweep(
    file: FileArg,
    grid: Annotated[
        list[str] | None,
        typer.Option(
            "--grid",
            "-g",
            metavar="PATH=V1,V2|PATH=START:STOP:STEP",
            help="A swept parameter (repeatable; points are all combinations). Ranges include "
            "STOP; units allowed: 2Mbit:10Mbit:2Mbit.",
            show_default=False,
        ),
    ] = None,
    seeds: Annotated[
        int | None,
        typer.Option(
            "--seeds",
            min=1,
            help="Seeds per point, from run.seed on (default: [sweep] seeds, else 1).",
            show_default=False,
        ),
    ] = None,
    jobs: JobsOpt = None,
    out_dir: Annotated[Path | None, out_option("results/FILE-STEM-sweep")] = None,
    store: Annotated[
        Path | None,
        typer.Option(
            "--store",
            metavar="DIR",
            help="Result store (default: DIR/store); share one between sweeps to reuse runs.",
            show_default=False,
        ),
    ] = None,
    backend: Annotated[
        str, typer.Option("--backend", help="local (worker processes) or dask.")
    ] = "local",
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            metavar="tcp://HOST:PORT",
            help="Dask scheduler address (implies --backend dask; without it, dask "
            "starts a LocalCluster).",
            show_default=False,
        ),
    ] = None,
    sets: SetOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")] = False,
    max_memory: Annotated[
        str | None,
        typer.Option(
            "--max-memory",
            metavar="SIZE",
            help="Memory budget of the whole sweep, e.g. 8GB (default: half of this "
            "machine's memory); each of the --jobs workers gets an equal share, and a run "
            "estimated above its share is refused.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run a scenario over a grid of parameter values x seeds, in parallel.

    Writes runs.parquet/.csv (one row per run x flow), points.parquet/.csv (mean and 95 % CI
    per point), sweep.json and scenario.toml; each run's files go to the result store, and
    runs found there are not run again.
    """
    target = out_dir if out_dir is not None else Path("results") / f"{file.stem}-sweep"
    bar = SweepProgress(enabled=not quiet)
    try:
        with bar.bar:
            result = airqueue.sweep(
                load(file, sets),
                grid=grid or [],
                seeds=seeds,
                jobs=jobs,
                out=target,
                store=store,
                backend=backend,
                scheduler=scheduler,
                progress=bar,
                max_memory=memory_budget(max_memory),
            )
    except KeyboardInterrupt:
        # Stored runs are complete (the store writes each atomically); a rerun resumes.
        raise Interrupted("interrupted; finished runs are in the store, a rerun resumes") from None
    info = result.info
    if not quiet:
        out.print(points_table(result))
        rate = info["runs_per_second"]
        out.print(
            f"{info['runs']} runs ({info['points']} points x {len(info['seeds'])} seeds): "
            f"{info['executed']} executed, {info['skipped']} from the store"
            + (f"; {rate:.1f} runs/s on {info['jobs']} jobs ({info['backend']})" if rate else "")
        )
        out.print(f"wrote {target}{os.sep}")
    if info["conservation_failed"]:
        err.print(
            Text(
                f"packet conservation failed in {len(info['conservation_failed'])} "
                "run(s); see the stored summary.json files",
                style="bold red",
            )
        )
        raise typer.Exit(1)


@app.command()
def plot(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="A run or sweep folder.")],
    kind: Annotated[
        str, typer.Option("--kind", "-k", help="timeseries | box | cdf | line | surface.")
    ] = "timeseries",
    metric: Annotated[
        str,
        typer.Option(
            "--metric",
            "-m",
            help="A flow metric (column of flows.csv) or run total (jain_index, ...).",
        ),
    ] = "goodput_bps",
    x: Annotated[
        str | None, typer.Option("--x", help="Swept parameter on the x axis.", show_default=False)
    ] = None,
    y: Annotated[
        str | None,
        typer.Option("--y", help="Second swept parameter (surface).", show_default=False),
    ] = None,
    flow: Annotated[
        str | None,
        typer.Option(
            "--flow",
            help='A flow name, or "(all)" for run totals (default for '
            "box/line/surface; cdf defaults to every flow; timeseries: that flow's panels).",
            show_default=False,
        ),
    ] = None,
    run_key: Annotated[
        str | None,
        typer.Option(
            "--run",
            metavar="KEY",
            help="timeseries of a sweep: the stored run (key or prefix; default the first).",
            show_default=False,
        ),
    ] = None,
    target: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="FILE",
            help="Image file; .png, .svg or .pdf (default DIR/plots/KIND-METRIC.png).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Draw a figure of a run or sweep folder (matplotlib, headless)."""
    from airqueue import plots

    fig = draw(directory, kind, metric, x, y, flow, run_key)
    name = kind if kind == "timeseries" else f"{kind}-{metric}"
    path = plots.save(fig, target if target is not None else directory / "plots" / f"{name}.png")
    out.print(f"wrote {path}")


def sweep_run_title(sw: SweepResult, key: str) -> str:
    """A sweep run's title by what it is: its grid values and seed
    (``rate=10Mbit, delay=20ms, seed 3``), not its store key."""
    row = sw.runs[sw.runs["key"] == key].iloc[0]
    values = [f"{p.rsplit('.', 1)[-1]}={row[p]}" for p in sw.params]
    return ", ".join([*values, f"seed {row['seed']}"])


def draw(
    directory: Path,
    kind: str,
    metric: str,
    x: str | None,
    y: str | None,
    flow: str | None,
    run_key: str | None,
) -> Figure:
    """The figure `airqueue plot` asked for; bad requests raise InputError (exit 2)."""
    from airqueue import Result, plots
    from airqueue.store import ResultStore
    from airqueue.sweep import ALL_FLOWS, is_sweep_dir, load_sweep

    if kind not in plots.KINDS:
        raise InputError("--kind", f'"{kind}" is not a plot; use one of {", ".join(plots.KINDS)}')
    sweep_dir = is_sweep_dir(directory)
    if not sweep_dir and not (directory / "summary.json").is_file():
        raise InputError(
            str(directory),
            "is not a run folder (airqueue run --out) or a sweep folder (airqueue sweep --out)",
        )
    try:
        if kind == "timeseries":
            if not sweep_dir:
                return plots.timeseries(Result.read(directory), directory.name, flow)
            sw = load_sweep(directory)
            keys = list(dict.fromkeys(sw.runs["key"]))
            chosen = [k for k in keys if k.startswith(run_key or "")]
            if not chosen:
                raise InputError("--run", f'no stored run "{run_key}" in this sweep')
            store = ResultStore(sw.info["store"])
            return plots.timeseries(store.result(chosen[0]), sweep_run_title(sw, chosen[0]), flow)
        if not sweep_dir:
            raise InputError(str(directory), f"--kind {kind} needs a sweep folder")
        sw = load_sweep(directory)
        if kind == "box":
            return plots.box(sw, metric, flow if flow is not None else ALL_FLOWS)
        if kind == "cdf":
            return plots.cdf(sw, metric, flow if flow is not None else "")
        if kind == "line":
            return plots.line(sw, metric, x, flow if flow is not None else ALL_FLOWS, y)
        return plots.surface(sw, metric, x, y, flow if flow is not None else ALL_FLOWS)
    except plots.PlotError as e:
        raise InputError(f"--kind {kind}", str(e)) from None


@app.command("report")
def report_cmd(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="A run or sweep folder.")],
    target: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="FILE",
            help="HTML file (default DIR/report.html).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Write a self-contained HTML page (summary, figures, tables, scenario) for a folder."""
    from airqueue.report import report as report_html
    from airqueue.sweep import is_sweep_dir

    if not is_sweep_dir(directory) and not (directory / "summary.json").is_file():
        raise InputError(str(directory), "is not a run folder or a sweep folder")
    path = report_html(directory, target)
    out.print(f"wrote {path}")


@app.command()
def reproduce(
    name: Annotated[
        str | None,
        typer.Argument(metavar="NAME", help="A reproduction (see --list).", show_default=False),
    ] = None,
    list_all: Annotated[bool, typer.Option("--list", help="List the reproductions.")] = False,
    out_dir: Annotated[Path | None, out_option("results/reproduce/NAME")] = None,
    jobs: JobsOpt = None,
    quick: Annotated[
        bool,
        typer.Option(
            "--quick",
            help="Fewer seeds and shorter runs (a smoke test; the tolerances are not checked).",
        ),
    ] = False,
    runs: Annotated[
        Path | None,
        typer.Option(
            "--runs",
            metavar="DIR",
            help="Keep and reuse the runs in DIR (default OUT/sweep): reproductions of one "
            "scenario given the same DIR run it once.",
        ),
    ] = None,
) -> None:
    """Run a registered paper-figure reproduction: its sweep, its figure, and a table of our
    numbers beside the reference's. Exits 1 if a point is outside its stated tolerance."""
    from airqueue import catalog

    if list_all or name is None:
        table = Table(
            title="reproductions (airqueue reproduce NAME)", title_justify="left", show_lines=True
        )
        table.add_column("name", style="bold cyan", no_wrap=True)
        table.add_column("reproduces")
        table.add_column("reference")
        for r in catalog.REGISTRY.values():
            table.add_row(r.name, Text(r.title), Text(r.reference))
        print_prose(table)
        return
    if name not in catalog.REGISTRY:
        raise InputError(name, "no such reproduction; known: " + ", ".join(catalog.REGISTRY))
    target = out_dir if out_dir is not None else Path("results") / "reproduce" / name
    bar = SweepProgress(enabled=True)
    with bar.bar:
        rep = catalog.reproduce(name, target, jobs=jobs, quick=quick, progress=bar, runs=runs)
    out.print(catalog.comparison_table(rep))
    if quick:
        out.print(
            Text(
                f"{catalog.QUICK_NOTE}: run without --quick to check the tolerances",
                style="yellow",
            )
        )
    out.print(f"wrote {rep.figure} and {rep.table_path}")
    if not quick and not rep.passed:
        err.print(Text("some points are outside the stated tolerance", style="bold red"))
        raise typer.Exit(1)


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
    except Exception as e:
        report_unexpected(e)
        sys.exit(1)


if __name__ == "__main__":
    main()
