"""The console tables and lines the commands print: a run's flows, queues, driver queues,
classes and totals, a benchmark, a sweep's points, the qdiscs, scenarios and reproductions
that exist."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich import box
from rich.table import Table
from rich.text import Text

from .console import out

if TYPE_CHECKING:  # imported only by the commands that need them (`run` needs no pandas)
    import pandas as pd

    from airqueue import Result
    from airqueue.catalog import Reproduction
    from airqueue.result import TableView
    from airqueue.sweep import SweepResult

#: Piped, tables of prose (lists of qdiscs, scenarios, reproductions) wrap at this width:
#: they hold no number to truncate, and a line per description would be unreadable.
PROSE_WIDTH = 120


def print_prose(table: Table) -> None:
    """Prints a table of descriptions: terminal width, or :data:`PROSE_WIDTH` piped."""
    out.print(table, width=None if out.is_terminal else PROSE_WIDTH)


def fmt_num(value: float | None, digits: int = 3) -> str:
    """A float for a table cell; NaN (no samples) shows as a dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{digits}f}"


def one_line(text: str) -> str:
    """Collapses a (multi-line) schema description into one line."""
    return " ".join(text.split())


# ---------------------------------------------------------------------------------------
# airqueue run
# ---------------------------------------------------------------------------------------


#: A run's tables print at most this many rows; a line under the table says how many more
#: there are and in which file (a run of 100 000 flows printed for most of a minute).
MAX_ROWS = 20


def as_view(table: TableView | pd.DataFrame) -> TableView:
    """A table to print: a :class:`~airqueue.result.TableView`, or a DataFrame viewed."""
    from airqueue.result import TableView

    return table if isinstance(table, TableView) else TableView.from_frame(table)


def busy_rows(view: TableView) -> Sequence[int]:
    """The rows of a queue-like table where something was enqueued or dropped."""
    return view.rows_where(("enqueued_packets", "drops"), _positive)


def _positive(value: Any) -> Any:
    return value > 0


def _one(value: Any) -> Any:
    return value == 1


def more_rows(left: int, what: str, file: str) -> Text | None:
    """``... 99,980 more flows in flows.parquet``: the line under a table that printed
    :data:`MAX_ROWS` of its rows (None if it printed all)."""
    if left <= 0:
        return None
    return Text(f"... {left:,} more {what} in {file}", style="dim")


def print_table(table: Table, left: int, what: str, file: str) -> None:
    """Prints a table and, if rows were left out, the line saying how many (:func:`more_rows`)."""
    out.print(table)
    line = more_rows(left, what, file)
    if line is not None:
        out.print(line)


def flow_table(flows: TableView | pd.DataFrame, limit: int | None = None) -> Table:
    """The flows (the first ``limit`` of them, if given)."""
    view = as_view(flows)
    table = Table(title="flows", title_justify="left")
    table.add_column("flow", no_wrap=True)
    for name in ("tx pkts", "rx pkts", "goodput Mbit/s", "mean delay ms", "p99 delay ms", "drops"):
        table.add_column(name, justify="right")
    names = ("flow", "tx_packets", "rx_packets", "goodput_bps", "delay_mean_ms")
    names += ("delay_p99_ms", "drops")
    rows = range(len(view) if limit is None else min(limit, len(view)))
    for row in view.records(names, rows):
        table.add_row(
            str(row["flow"]),
            f"{row['tx_packets']:,}",
            f"{row['rx_packets']:,}",
            fmt_num(row["goodput_bps"] / 1e6),
            fmt_num(row["delay_mean_ms"]),
            fmt_num(row["delay_p99_ms"]),
            f"{row['drops']:,}",
        )
    return table


def queue_table(queues: TableView | pd.DataFrame, limit: int | None = None) -> Table:
    """Queues that saw traffic (something was enqueued or dropped); the first ``limit``."""
    view = as_view(queues)
    busy = busy_rows(view)[:limit]
    table = Table(title="queues that saw traffic (packets)", title_justify="left")
    table.add_column("queue", no_wrap=True)
    table.add_column("kind")
    for name in ("enqueued", "drops", "mean backlog", "max backlog", "sojourn ms"):
        table.add_column(name, justify="right")
    names = ("queue", "kind", "enqueued_packets", "drops", "backlog_mean_packets")
    names += ("backlog_max_packets", "sojourn_mean_ms")
    for row in view.records(names, busy):
        table.add_row(
            str(row["queue"]),
            str(row["kind"]),
            f"{row['enqueued_packets']:,}",
            f"{row['drops']:,}",
            fmt_num(row["backlog_mean_packets"], 1),
            f"{row['backlog_max_packets']:,}",
            fmt_num(row["sojourn_mean_ms"]),
        )
    return table


def driver_table(drivers: TableView | pd.DataFrame, limit: int | None = None) -> Table:
    """Driver (hardware) queues below the qdiscs (``driver_queues.parquet``) that saw
    traffic: what ``ethtool -S`` or mac80211's debugfs shows beside ``tc -s qdisc``."""
    view = as_view(drivers)
    busy = busy_rows(view)[:limit]
    table = Table(title="driver queues below the qdiscs (packets)", title_justify="left")
    table.add_column("interface", no_wrap=True)
    table.add_column("kind")
    for name in (
        "limit",
        "enqueued",
        "drops",
        "mean backlog",
        "max backlog",
        "sojourn ms",
        "p99 ms",
    ):
        table.add_column(name, justify="right")
    names = ("interface", "kind", "limit_packets", "enqueued_packets", "drops")
    names += ("backlog_mean_packets", "backlog_max_packets", "sojourn_mean_ms", "sojourn_p99_ms")
    for row in view.records(names, busy):
        table.add_row(
            str(row["interface"]),
            str(row["kind"]),
            f"{row['limit_packets']:,}",
            f"{row['enqueued_packets']:,}",
            f"{row['drops']:,}",
            fmt_num(row["backlog_mean_packets"], 1),
            f"{row['backlog_max_packets']:,}",
            fmt_num(row["sojourn_mean_ms"]),
            fmt_num(row["sojourn_p99_ms"]),
        )
    return table


def class_table(classes: TableView | pd.DataFrame, limit: int | None = None) -> Table:
    """Classes of classful qdiscs that saw traffic (something was enqueued or dropped)."""
    view = as_view(classes)
    busy = busy_rows(view)[:limit]
    table = Table(title="classes that saw traffic (packets)", title_justify="left")
    table.add_column("queue", no_wrap=True)
    table.add_column("class", no_wrap=True)
    table.add_column("qdisc")
    for name in ("enqueued", "dequeued", "drops", "borrowed", "p99 sojourn ms"):
        table.add_column(name, justify="right")
    names = ("queue", "class", "kind", "qdisc", "enqueued_packets", "dequeued_packets")
    names += ("drops", "borrows", "sojourn_p99_ms")
    for row in view.records(names, busy):
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


def station_table(stations: TableView | pd.DataFrame, limit: int | None = None) -> Table:
    """802.11 stations (``stations.parquet``): airtime share, frames, retries and drops."""
    view = as_view(stations)
    table = Table(title="802.11 stations", title_justify="left")
    table.add_column("station", no_wrap=True)
    table.add_column("role")
    for name in (
        "PHY Mbit/s",
        "frames sent",
        "retries",
        "collisions",
        "drops",
        "airtime %",
        "access delay ms",
    ):
        table.add_column(name, justify="right")
    names = ("cell", "station", "role", "phy_rate_bps", "frames_sent", "retries", "collisions")
    names += ("drops_collision", "drops_channel_error", "drops_retry_limit", "airtime_share")
    names += ("mean_access_delay_ms",)
    rows = range(len(view) if limit is None else min(limit, len(view)))
    for row in view.records(names, rows):
        drops = (
            int(row["drops_collision"])
            + int(row["drops_channel_error"])
            + int(row["drops_retry_limit"])
        )
        table.add_row(
            f"{row['cell']}/{row['station']}",
            str(row["role"]),
            fmt_num(row["phy_rate_bps"] / 1e6, 1),
            f"{row['frames_sent']:,}",
            f"{row['retries']:,}",
            f"{row['collisions']:,}",
            f"{drops:,}",
            fmt_num(row["airtime_share"] * 100, 1),
            fmt_num(row["mean_access_delay_ms"], 2),
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


def rwnd_limited_rows(flows: TableView) -> Sequence[int]:
    """The rows of the TCP flows that spent most of their time receive-window-limited."""
    if "rwnd_limited_warning" not in flows:
        return []
    return flows.rows_where(("rwnd_limited_warning",), _one)


def rwnd_warnings(flows: TableView | pd.DataFrame, limit: int | None = None) -> list[str]:
    """One line per TCP flow that spent most of its time receive-window-limited (the
    first ``limit`` of them)."""
    view = as_view(flows)
    hit = rwnd_limited_rows(view)[:limit]
    return [
        f"warning: flow {row['flow']} was receive-window-limited "
        f"{row['rwnd_limited_frac']:.0%} of the time: its rate was at most its receive "
        "window / RTT; if that is below the path's capacity, raise transport.rcv_buffer "
        "(or set rcv_buffer_max)"
        for row in view.records(("flow", "rwnd_limited_frac"), hit)
    ]


def print_run_summary(result: Result) -> None:
    """The tables of a run (at most :data:`MAX_ROWS` rows each), its warnings, its packets
    and its timing. Printed from the result's columns: no pandas."""
    warmup = result.summary.get("warmup_seconds", 0)
    if warmup:
        out.print(
            f"the tables count from the end of the {warmup:g} s warm-up; the packets line "
            "below counts the whole run",
            style="dim",
        )
    flows = result.view("flows")
    assert flows is not None
    print_table(flow_table(flows, MAX_ROWS), len(flows) - MAX_ROWS, "flows", "flows.parquet")
    warnings = rwnd_warnings(flows, MAX_ROWS)
    for line in warnings:
        out.print(line, style="yellow")
    left = len(rwnd_limited_rows(flows)) - len(warnings)
    if left > 0:
        out.print(
            f"... {left:,} more receive-window-limited flows "
            "(rwnd_limited_warning in flows.parquet)",
            style="yellow",
        )
    queues = result.view("queues")
    assert queues is not None
    busy = len(busy_rows(queues))
    print_table(
        queue_table(queues, MAX_ROWS),
        busy - MAX_ROWS,
        "queues that saw traffic",
        "queues.parquet",
    )
    drivers = result.view("driver_queues")
    if drivers is not None and len(drivers):
        print_table(
            driver_table(drivers, MAX_ROWS),
            len(busy_rows(drivers)) - MAX_ROWS,
            "driver queues that saw traffic",
            "driver_queues.parquet",
        )
    classes = result.view("classes")
    if classes is not None and len(classes):
        print_table(
            class_table(classes, MAX_ROWS),
            len(busy_rows(classes)) - MAX_ROWS,
            "classes that saw traffic",
            "classes.parquet",
        )
    stations = result.view("stations")
    if stations is not None and len(stations):
        print_table(
            station_table(stations, MAX_ROWS),
            len(stations) - MAX_ROWS,
            "stations",
            "stations.parquet",
        )
    out.print(packets_line(result.summary))
    out.print(timing_line(result.summary))


# ---------------------------------------------------------------------------------------
# airqueue bench
# ---------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------
# airqueue sweep
# ---------------------------------------------------------------------------------------

#: Run totals the sweep command prints, with their column headings and scale.
POINT_COLUMNS = (
    ("goodput_bps", "goodput Mbit/s", 1e6),
    ("delay_mean_ms", "delay ms", 1.0),
    ("drops", "drops", 1.0),
    ("jain_index", "Jain", 1.0),
)


def fixed(value: float, decimals: int) -> str:
    """``value`` rounded to ``decimals`` places (negative: tens, hundreds, ...), never in
    exponent notation."""
    return f"{round(value, decimals):.{max(decimals, 0)}f}"


def decimals_for(value: float, significant: int) -> int:
    """The decimal places that show ``value`` to ``significant`` significant digits."""
    return significant - 1 - math.floor(math.log10(abs(value))) if value else 0


def mean_ci(mean: float, half: float) -> str:
    """``mean±half`` in fixed notation: the CI half-width to 2 significant digits and the
    mean to the same decimal place (``15260±310``, ``4830±310``, ``0.0412±0.0031``); no
    CI (one seed), or a zero one, shows the mean to 4 significant digits."""
    if math.isnan(mean):
        return "-"
    if math.isnan(half) or half == 0:
        return fixed(mean, decimals_for(mean, 4))
    places = decimals_for(half, 2)
    return f"{fixed(mean, places)}±{fixed(half, places)}"


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
            row.append(mean_ci(r["mean"] / scale, half))
        table.add_row(*row)
    return table


# ---------------------------------------------------------------------------------------
# airqueue list qdiscs / scenarios, airqueue reproduce --list
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


def qdisc_parameters(
    variant: Mapping[str, Any], schema_doc: Mapping[str, Any], skip: tuple[str, ...] = ()
) -> Text:
    """One line per parameter: ``name = default (type)``, then its description; class
    lists are expanded one level (their ``qdisc`` is any qdisc, listed in its own row)."""
    text = Text()
    count = parameter_lines(text, schema_doc, variant, "", skip=COMMON_QDISC_KEYS + skip)
    return text if count else Text("-")


def qdisc_variants(schema_doc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The variants of ``$defs.QdiscSpec.oneOf``, one per queueing discipline."""
    spec = schema_doc.get("$defs", {}).get("QdiscSpec", {})
    return list(spec.get("oneOf", []))


def shared_qdisc_keys(variants: list[Mapping[str, Any]]) -> tuple[str, ...]:
    """Keys (besides :data:`COMMON_QDISC_KEYS`) that every qdisc takes with the same
    meaning, such as ``stab``: described once, not in every row."""
    if not variants:
        return ()
    first = variants[0].get("properties", {})
    return tuple(
        key
        for key, spec in first.items()
        if key not in COMMON_QDISC_KEYS
        and all(v.get("properties", {}).get(key) == spec for v in variants[1:])
    )


def qdiscs_table(schema_doc: Mapping[str, Any], kind: str | None = None) -> Table:
    """``airqueue list qdiscs [NAME]``: a row per queueing discipline of the scenario schema
    (or the one named), with its parameters (:func:`qdisc_parameters`) and its one-line
    description; keys every qdisc takes (:func:`shared_qdisc_keys`) are left to
    :func:`shared_keys_table`."""
    variants = qdisc_variants(schema_doc)
    shared = shared_qdisc_keys(variants)
    also = "".join(f", {key}" for key in shared)
    table = Table(
        title="queueing disciplines ([[qdiscs]] kind = …)",
        title_justify="left",
        caption=(
            'every entry also takes dev = "<node>.<link>" or a virtual device (required), '
            f"name{also} (below); "
            "a class's match table takes flow, src, dst, dscp, priority, protocol and dev"
        ),
        caption_justify="left",
        show_lines=True,
    )
    table.add_column("kind", style="bold cyan", no_wrap=True)
    table.add_column("parameters (default)")
    table.add_column("description")
    for variant in variants:
        if kind is not None and kind not in qdisc_kind(variant).split(" | "):
            continue
        table.add_row(
            qdisc_kind(variant),
            qdisc_parameters(variant, schema_doc, skip=shared),
            Text(one_line(variant.get("description", ""))),
        )
    return table


def shared_keys_table(schema_doc: Mapping[str, Any]) -> Table | None:
    """The keys every qdisc takes (``stab``), each once: its entries and description."""
    variants = qdisc_variants(schema_doc)
    shared = shared_qdisc_keys(variants)
    if not shared:
        return None
    table = Table(title="keys every qdisc takes", title_justify="left", show_lines=True)
    table.add_column("key", style="bold cyan", no_wrap=True)
    table.add_column("entries (default)")
    table.add_column("description")
    for key in shared:
        prop = variants[0]["properties"][key]
        inner = definition(schema_doc, prop)
        text = Text()
        count = parameter_lines(text, schema_doc, inner, "")
        table.add_row(
            f"{key} ({type_label(prop)})",
            text if count else Text("-"),
            Text(one_line(prop.get("description", ""))),
        )
    return table


def qdisc_kinds(schema_doc: Mapping[str, Any]) -> list[str]:
    """Every qdisc kind the schema knows, in its order."""
    return [k for v in qdisc_variants(schema_doc) for k in qdisc_kind(v).split(" | ")]


def scenario_description(path: Path) -> Text:
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return Text("(not a readable TOML file)", style="red")
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        return Text("(no description)", style="dim")
    return Text(one_line(description))


def scenarios_table(title: str, directory: Path, files: Iterable[Path]) -> Table:
    """``airqueue list scenarios``: a row per scenario file under ``directory`` (its path
    relative to it) with its description."""
    table = Table(title=title, title_justify="left", show_lines=True)
    table.add_column("file", style="bold cyan", overflow="fold")
    table.add_column("description")
    for path in files:
        table.add_row(str(path.relative_to(directory)), scenario_description(path))
    return table


def span(seconds: float) -> str:
    """A simulated time as ``50 s``, ``25 min``, ``1.8 h``."""
    if math.isnan(seconds):
        return "?"
    if seconds < 120:
        return f"{seconds:g} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def cost_cells(rep: Reproduction) -> tuple[str, str, str]:
    """``runs x duration`` and the simulated total of a reproduction (full, not --quick),
    from the catalog's data, and its measured wall time (``catalog/timings.py``)."""
    from airqueue.catalog import cost, timings

    c = cost(rep)
    about = "≈" if c.approximate else ""
    wall = timings.WALL_SECONDS.get(rep.name)
    return (
        f"{about}{c.runs} x {span(c.run_seconds)}",
        f"{about}{span(c.simulated_seconds)}",
        "?" if wall is None else span(round(wall)),
    )


def cost_note() -> str:
    """What the cost columns of ``reproduce --list`` mean (stated under the list)."""
    from airqueue.catalog import timings

    return (
        "runs: grid points x seeds of the simulated duration; simulated: their total (both "
        "from the catalog's data). ≈: the entry runs its own set of scenarios, counted as "
        "values x seeds. wall: measured with --jobs 1 on "
        f"{timings.MEASURED_ON} (catalog/timings.py, tools/time_reproductions.py); more "
        "--jobs shorten it."
    )


def reproductions_table(papers: list[tuple[str, str, list[Reproduction]]]) -> Table:
    """``airqueue reproduce --list [PAPER]``: one line per reproduction, grouped by paper
    (a heading line with the paper's id, for ``--list PAPER``), with its runs, simulated
    and measured wall time (:func:`cost_note`) and what it reproduces (cut to the line)."""
    table = Table(
        title="reproductions (airqueue reproduce NAME; --list PAPER for one paper)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        caption=cost_note(),
        caption_justify="left",
    )
    widest = max((len(r.name) for _, _, es in papers for r in es), default=4) + 2
    table.add_column("name", style="bold cyan", no_wrap=True, min_width=widest)
    table.add_column("runs", justify="right", no_wrap=True, min_width=12)
    table.add_column("simulated", justify="right", no_wrap=True, min_width=9)
    table.add_column("wall", justify="right", no_wrap=True, min_width=6)
    # Every cell keeps to one line: the description gets what the other columns leave.
    width = out.width if out.is_terminal else PROSE_WIDTH
    rest = max(width - widest - 12 - 9 - 6 - 10, 20)
    table.add_column("reproduces", no_wrap=True, overflow="ellipsis", max_width=rest)
    for pid, title, entries in papers:
        count = f"{len(entries)} {'entry' if len(entries) == 1 else 'entries'}"
        table.add_row(Text(pid, style="bold"), "", "", "", Text(f"{title} ({count})"))
        for r in entries:
            table.add_row(f"  {r.name}", *cost_cells(r), Text(one_line(r.title)))
    return table
