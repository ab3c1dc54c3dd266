"""Run results as pandas DataFrames, and writing them to a folder."""

from __future__ import annotations

import io
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import tomli_w

#: Keys of the key-value metadata every parquet file of a run carries (bytes, UTF-8).
META_SCENARIO = b"airqueue.scenario"
META_VERSION = b"airqueue.version"
META_SEED = b"airqueue.seed"

#: The tables every run has, in order; media and systems may add more (``Result.more``),
#: each written as ``<name>.parquet`` after these.
CORE_TABLES = ("flows", "queues", "classes", "timeseries")

#: Files `Result.write` produces for every run, in order (plus one parquet file per
#: additional table).
OUTPUT_FILES = (
    "summary.json",
    "flows.csv",
    "flows.parquet",
    "timeseries.parquet",
    "queues.parquet",
    "classes.parquet",
    "scenario.toml",
)


def frame_from_columns(columns: list[tuple[str, Any]]) -> pd.DataFrame:
    """Builds a DataFrame from the core's columns without converting row by row: NumPy
    arrays are used as they are, (codes, categories) pairs become pandas Categoricals."""
    data: dict[str, Any] = {}
    for name, col in columns:
        if isinstance(col, tuple):
            codes, categories = col
            data[name] = pd.Categorical.from_codes(codes.astype(np.int32), categories=categories)
        elif isinstance(col, list):
            # Text stays text when the table is empty (pandas would make it float64), so
            # the files have one schema whatever the scenario.
            data[name] = pd.Series(col, dtype=str)
        else:
            data[name] = col
    return pd.DataFrame(data, copy=False)


def summary_from_native(raw: dict[str, Any]) -> dict[str, Any]:
    """The run's summary dict, with its ``warnings`` (``[{path, message}]``) when it has
    any: summary.json collects what ``validate`` and ``run`` print."""
    summary: dict[str, Any] = json.loads(raw["summary_json"])
    warnings = raw.get("warnings") or []
    if warnings:
        summary["warnings"] = [{"path": p, "message": m} for p, m in warnings]
    return summary


@dataclass
class Result:
    """What one run produced.

    ``summary`` is a dict (version, seed, events, packet conservation, timing), ``flows``
    has one row per flow, ``queues`` one row per egress qdisc, and ``timeseries`` is long
    format (``time_s, kind, name, metric, value``) sampled every ``run.sample_interval``.
    """

    summary: dict[str, Any]
    flows: pd.DataFrame
    queues: pd.DataFrame
    #: One row per class of every classful qdisc (see docs/qdiscs/README.md).
    classes: pd.DataFrame
    timeseries: pd.DataFrame
    scenario: dict[str, Any]
    #: pcap files written by the run (``run(..., pcap=[...])``): link -> (path, packets).
    pcap: dict[str, tuple[Path, int]] = field(default_factory=dict)
    #: Further tables by name, as media and systems add them (e.g. per-station tables).
    more: dict[str, pd.DataFrame] = field(default_factory=dict)

    def __repr__(self) -> str:
        """A line, not pages: seed, simulated time, events, the tables' row counts and
        whether packets were conserved (the tables themselves are the attributes)."""
        s = self.summary
        rows = ", ".join(f"{name}={len(df)}" for name, df in self.tables.items())
        pcap = f", pcap={sorted(self.pcap)}" if self.pcap else ""
        return (
            f"<Result seed={s.get('seed')} sim_seconds={s.get('sim_seconds')} "
            f"events={s.get('events')} conservation_ok={self.conservation_ok} "
            f"rows: {rows}{pcap}>"
        )

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table by name: the core ones (:data:`CORE_TABLES`), then :attr:`more`."""
        core = {
            "flows": self.flows,
            "queues": self.queues,
            "classes": self.classes,
            "timeseries": self.timeseries,
        }
        return {**core, **self.more}

    @classmethod
    def from_native(cls, raw: dict[str, Any]) -> Result:
        tables = {name: frame_from_columns(cols) for name, cols in raw["tables"]}
        return cls(
            summary=summary_from_native(raw),
            flows=tables.pop("flows"),
            queues=tables.pop("queues"),
            classes=tables.pop("classes"),
            timeseries=tables.pop("timeseries"),
            scenario=json.loads(raw["resolved_json"]),
            pcap={link: (Path(path), int(n)) for link, path, n in raw.get("pcap", [])},
            more=tables,
        )

    @classmethod
    def read(cls, run_dir: str | Path) -> Result:
        """Loads a run written by :meth:`write` (or stored by a sweep) from its folder."""
        d = Path(run_dir)
        scenario = tomllib.loads((d / "scenario.toml").read_text(encoding="utf-8"))
        core = {name: f"{name}.parquet" for name in CORE_TABLES}
        more = {
            p.stem: pd.read_parquet(p) for p in sorted(d.glob("*.parquet")) if p.stem not in core
        }
        return cls(
            summary=json.loads((d / "summary.json").read_text(encoding="utf-8")),
            flows=pd.read_parquet(d / "flows.parquet"),
            queues=pd.read_parquet(d / "queues.parquet"),
            classes=pd.read_parquet(d / "classes.parquet"),
            timeseries=pd.read_parquet(d / "timeseries.parquet"),
            scenario=scenario,
            more=more,
        )

    @property
    def conservation_ok(self) -> bool:
        return bool(self.summary.get("conservation_ok"))

    def scenario_toml(self) -> str:
        """The resolved scenario as TOML text (what scenario.toml holds)."""
        return tomli_w.dumps(self.scenario)

    def parquet_metadata(self) -> dict[bytes, bytes]:
        """What every parquet file of this run carries: scenario text, version and seed."""
        return {
            META_SCENARIO: self.scenario_toml().encode(),
            META_VERSION: str(self.summary.get("airqueue_version", "")).encode(),
            META_SEED: str(self.summary.get("seed", "")).encode(),
        }

    def encode(self) -> dict[str, bytes]:
        """Every output file's bytes, by file name (in :data:`OUTPUT_FILES` order). Apart
        from the ``timing`` entry of summary.json, the bytes depend only on scenario and seed."""
        tables = {name: arrow_from_frame(df) for name, df in self.tables.items()}
        return encode_files(tables, self.summary, self.scenario_toml())

    def write(self, out_dir: str | Path) -> Path:
        """Writes every output file into ``out_dir`` (created if needed)."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        for name, data in self.encode().items():
            (out / name).write_bytes(data)
        return out


# Output files are encoded from Arrow tables built column by column (a categorical becomes
# a dictionary array of int32 codes and string categories), without pandas' conversion
# machinery: a sweep of short runs encodes hundreds of runs a second. The core's columns
# and a Result's DataFrames give the same tables, so `airqueue run` and a sweep's store
# write the same bytes for the same run.


def arrow_from_columns(columns: list[tuple[str, Any]]) -> pa.Table:
    """An Arrow table from the core's columns (see :func:`frame_from_columns`)."""
    arrays: dict[str, pa.Array] = {}
    for name, col in columns:
        if isinstance(col, tuple):
            codes, categories = col
            arrays[name] = pa.DictionaryArray.from_arrays(
                pa.array(codes.astype(np.int32)), pa.array(categories, pa.string())
            )
        elif isinstance(col, list):
            arrays[name] = pa.array(col, pa.string())
        else:
            arrays[name] = pa.array(col)
    return pa.table(arrays)


def arrow_from_frame(df: pd.DataFrame) -> pa.Table:
    """The Arrow table of a result DataFrame (the same as :func:`arrow_from_columns` gives
    for the core's columns of that table)."""
    arrays: dict[str, pa.Array] = {}
    for name in df.columns:
        s = df[name]
        if isinstance(s.dtype, pd.CategoricalDtype):
            arrays[name] = pa.DictionaryArray.from_arrays(
                pa.array(s.cat.codes.to_numpy().astype(np.int32)),
                pa.array([str(c) for c in s.cat.categories], pa.string()),
            )
        elif pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
            arrays[name] = pa.array(s.to_numpy())
        else:
            arrays[name] = pa.array(
                [None if v is None else str(v) for v in s.tolist()], pa.string()
            )
    return pa.table(arrays)


def encode_files(
    tables: dict[str, pa.Table], summary: dict[str, Any], scenario_toml: str
) -> dict[str, bytes]:
    """The bytes of every file of :data:`OUTPUT_FILES` from a run's tables (``flows``,
    ``queues``, ``classes``, ``timeseries``, and any further ones as ``<name>.parquet``),
    summary and resolved scenario text. Parquet files carry the scenario text, version and
    seed as metadata (:data:`META_SCENARIO`, ...)."""
    meta = {
        META_SCENARIO: scenario_toml.encode(),
        META_VERSION: str(summary.get("airqueue_version", "")).encode(),
        META_SEED: str(summary.get("seed", "")).encode(),
    }
    csv = io.BytesIO()
    pa_csv.write_csv(tables["flows"], csv)
    files = {
        "summary.json": (json.dumps(summary, indent=2) + "\n").encode(),
        "flows.csv": csv.getvalue(),
        "flows.parquet": parquet_bytes(tables["flows"], meta),
        "timeseries.parquet": parquet_bytes(tables["timeseries"], meta),
        "queues.parquet": parquet_bytes(tables["queues"], meta),
        "classes.parquet": parquet_bytes(tables["classes"], meta),
        "scenario.toml": scenario_toml.encode(),
    }
    for name, table in tables.items():
        if name not in CORE_TABLES:
            files[f"{name}.parquet"] = parquet_bytes(table, meta)
    return files


def parquet_bytes(data: pd.DataFrame | pa.Table, metadata: dict[bytes, bytes]) -> bytes:
    """A table as a parquet file whose schema metadata also holds ``metadata``."""
    table = data if isinstance(data, pa.Table) else pa.Table.from_pandas(data, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), **metadata})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def parquet_metadata(path: str | Path) -> dict[str, str]:
    """The airqueue entries of a parquet file's metadata: ``scenario``, ``version``, ``seed``."""
    meta = pq.read_schema(path).metadata or {}
    return {
        k.decode().removeprefix("airqueue."): v.decode()
        for k, v in meta.items()
        if k.startswith(b"airqueue.")
    }
