"""Run results: the core's columns, as pandas DataFrames on demand, and writing them to a
folder.

A :class:`Result` keeps the tables as the core returned them (NumPy arrays, lists of text,
categorical codes) and builds a table's DataFrame the first time it is asked for, so pandas
is imported only then. Output files are encoded with pyarrow alone (imported when a file is
first encoded), and the console prints from :class:`TableView`: ``airqueue run`` never
imports pandas (issue 37). ``airqueue run`` asks the core for its numbers as
``memoryview`` columns instead of NumPy arrays (see :data:`Columns`) and imports pyarrow
without NumPy (:func:`import_pyarrow`): it never imports NumPy.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import sys
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import pyarrow as pa

#: Keys of the key-value metadata every parquet file of a run carries (bytes, UTF-8): the
#: resolved scenario is not embedded (it made every file of a 100 000-flow run 19 MB
#: larger); the file names the scenario file stored once in the same folder and the SHA-256
#: of that file's bytes. :func:`parquet_metadata` reads the file back.
META_SCENARIO_FILE = b"airqueue.scenario_file"
META_SCENARIO_SHA256 = b"airqueue.scenario_sha256"
META_VERSION = b"airqueue.version"
META_SEED = b"airqueue.seed"
#: The key under which files written before issue 37 embedded the scenario's TOML text;
#: :func:`parquet_metadata` still reads it.
META_SCENARIO = b"airqueue.scenario"

#: The resolved scenario's file in a run's folder (a sweep's folder: its base scenario).
SCENARIO_FILE = "scenario.toml"

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
    SCENARIO_FILE,
)

#: The core's columns of one table: (name, column) pairs, a column being a NumPy array
#: (float64, uint64), a list of str, or categorical (uint32 codes, list of categories).
#: With ``_native.run(..., buffers=True)`` the arrays are ``memoryview`` objects of format
#: ``d``, ``Q`` and ``I`` (native float64, uint64, uint32) holding the same values.
Columns = list[tuple[str, Any]]


def import_pyarrow(hide_numpy: bool = False) -> Any:
    """pyarrow; with ``hide_numpy``, imported without NumPy if neither is imported yet.

    pyarrow imports NumPy when it can (NumPy is optional to it since pyarrow 16), which
    took about a third of a small ``airqueue run`` (issue 37) that needs none: the CLI's
    columns are ``memoryview`` buffers, and the files are encoded from buffers alone. So
    the CLI, which only writes the files and prints, imports pyarrow with NumPy hidden
    (``sys.modules["numpy"] = None`` makes ``import numpy`` fail as if it were not
    installed; the entry is removed again at once). The bytes of the files do not depend
    on it: Arrow's CSV and Parquet writers do not use NumPy. Only the CLI asks for it: a
    pyarrow without NumPy cannot convert to or from pandas, which a program using the
    API may do later in the same process."""
    if hide_numpy and "pyarrow" not in sys.modules and "numpy" not in sys.modules:
        sys.modules["numpy"] = None  # type: ignore[assignment]
        try:
            import pyarrow
            import pyarrow.csv
            import pyarrow.parquet
        finally:
            if sys.modules.get("numpy", 0) is None:
                del sys.modules["numpy"]
    import pyarrow

    return pyarrow


def _numpy_column(col: Any) -> np.ndarray:
    """A column as a NumPy array (a ``memoryview`` column viewed, without a copy)."""
    import numpy as np

    return np.asarray(col)


def frame_from_columns(columns: Columns) -> pd.DataFrame:
    """Builds a DataFrame from the core's columns without converting row by row: NumPy
    arrays are used as they are, (codes, categories) pairs become pandas Categoricals."""
    import numpy as np
    import pandas as pd

    data: dict[str, Any] = {}
    for name, col in columns:
        if isinstance(col, tuple):
            codes, categories = col
            data[name] = pd.Categorical.from_codes(
                _numpy_column(codes).astype(np.int32), categories=categories
            )
        elif isinstance(col, list):
            # Text stays text when the table is empty (pandas would make it float64), so
            # the files have one schema whatever the scenario.
            data[name] = pd.Series(col, dtype=str)
        else:
            data[name] = _numpy_column(col)
    return pd.DataFrame(data, copy=False)


def summary_from_native(raw: dict[str, Any]) -> dict[str, Any]:
    """The run's summary dict, with its ``warnings`` (``[{path, message}]``) when it has
    any: summary.json collects what ``validate`` and ``run`` print."""
    summary: dict[str, Any] = json.loads(raw["summary_json"])
    warnings = raw.get("warnings") or []
    if warnings:
        summary["warnings"] = [{"path": p, "message": m} for p, m in warnings]
    return summary


class TableView:
    """Read-only access to one table's columns without pandas: what the console prints
    from (:mod:`airqueue.cli.render`). Numbers come as NumPy arrays (:meth:`numbers`) or
    Python scalars (:meth:`value`), text as ``str``."""

    def __init__(self, columns: dict[str, Any], rows: int) -> None:
        self._columns = columns
        self._rows = rows

    @classmethod
    def from_columns(cls, columns: Columns) -> TableView:
        """A view of the core's columns (see :data:`Columns`)."""
        cols = dict(columns)
        first = next(iter(cols.values()), [])
        rows = len(first[0]) if isinstance(first, tuple) else len(first)
        return cls(cols, rows)

    @classmethod
    def from_frame(cls, df: pd.DataFrame) -> TableView:
        """A view of a DataFrame (its columns as NumPy arrays; categories as objects)."""
        return cls({name: df[name].to_numpy() for name in df.columns}, len(df))

    def __len__(self) -> int:
        return self._rows

    def __contains__(self, name: object) -> bool:
        return name in self._columns

    def numbers(self, name: str) -> np.ndarray:
        """A numeric column as a NumPy array."""
        return _numpy_column(self._columns[name])

    def rows_where(self, names: Sequence[str], test: Any) -> Sequence[int]:
        """The rows where ``test(value)`` holds for a value of any of the numeric columns
        ``names``, in order (NumPy's answer when the columns are NumPy arrays, plain
        Python's for ``memoryview`` columns, so that the console needs no NumPy)."""
        cols = [self._columns[name] for name in names]
        if any(not isinstance(c, memoryview) for c in cols):
            import numpy as np

            hit = np.zeros(self._rows, dtype=bool)
            for c in cols:
                hit |= test(np.asarray(c))
            return np.flatnonzero(hit)
        return [i for i, values in enumerate(zip(*cols, strict=True)) if any(map(test, values))]

    def value(self, name: str, row: int) -> Any:
        """One cell as a Python value (int, float or str)."""
        col = self._columns[name]
        if isinstance(col, tuple):
            codes, categories = col
            return categories[int(codes[row])]
        value = col[row]
        # A NumPy scalar (np.generic, which np.float64 is beside float) as the Python
        # scalar; text and the cells of memoryview columns already are.
        item = None if type(value) in (str, int, float) else getattr(value, "item", None)
        return item() if item is not None else value

    def records(self, names: Sequence[str], rows: Sequence[int]) -> Iterator[dict[str, Any]]:
        """The cells of ``names`` in each of ``rows``, one dict per row."""
        for row in rows:
            yield {name: self.value(name, row) for name in names}


class Result:
    """What one run produced.

    ``summary`` is a dict (version, seed, events, packet conservation, timing), ``flows``
    has one row per flow, ``queues`` one row per egress qdisc, ``classes`` one row per class
    of every classful qdisc (see docs/qdiscs/README.md), and ``timeseries`` is long format
    (``time_s, kind, name, metric, value``) sampled every ``run.sample_interval``: pandas
    DataFrames, each built from the core's columns the first time it is read. ``scenario``
    is the resolved scenario, ``pcap`` the pcap files the run wrote (``run(..., pcap=[...])``:
    link -> (path, packets)), ``more`` further tables by name, as media and systems add them
    (e.g. per-station tables).
    """

    def __init__(
        self,
        summary: dict[str, Any],
        flows: pd.DataFrame | None = None,
        queues: pd.DataFrame | None = None,
        classes: pd.DataFrame | None = None,
        timeseries: pd.DataFrame | None = None,
        scenario: dict[str, Any] | None = None,
        pcap: dict[str, tuple[Path, int]] | None = None,
        more: dict[str, pd.DataFrame] | None = None,
    ) -> None:
        self.summary = summary
        self._scenario: dict[str, Any] | None = scenario if scenario is not None else {}
        #: The core's resolved scenario JSON while :attr:`scenario` was not read: its
        #: TOML text is then made by the core (see :meth:`scenario_toml`).
        self._scenario_json: str | None = None
        self._scenario_toml: str | None = None
        self.pcap: dict[str, tuple[Path, int]] = pcap if pcap is not None else {}
        #: The core's columns of the tables no DataFrame was made of yet, by name.
        self._columns: dict[str, Columns] = {}
        #: The DataFrames of the core tables made (or given) so far.
        self._frames: dict[str, pd.DataFrame] = {}
        #: The further tables' DataFrames, once :attr:`more` was read (or given).
        self._more: dict[str, pd.DataFrame] | None = None
        #: The further tables' names in order while they are columns.
        self._more_names: list[str] = []
        for name, df in zip(CORE_TABLES, (flows, queues, classes, timeseries), strict=True):
            if df is not None:
                self._frames[name] = df
        if more is not None:
            self._more = more

    @classmethod
    def from_native(cls, raw: dict[str, Any]) -> Result:
        """A result from what the core's ``run`` returned; no DataFrame is built yet."""
        result = cls(
            summary=summary_from_native(raw),
            pcap={link: (Path(path), int(n)) for link, path, n in raw.get("pcap", [])},
        )
        # Decoded on first read: 20 000 entries of a large scenario take Python a while,
        # and `airqueue run` only writes them out (as TOML the core makes).
        result._scenario = None
        result._scenario_json = raw["resolved_json"]
        for name, cols in raw["tables"]:
            result._columns[name] = cols
            if name not in CORE_TABLES:
                result._more_names.append(name)
        return result

    def _frame(self, name: str) -> pd.DataFrame:
        frame = self._frames.get(name)
        if frame is None:
            cols = self._columns.pop(name, None)
            frame = frame_from_columns(cols if cols is not None else [])
            self._frames[name] = frame
        return frame

    @property
    def flows(self) -> pd.DataFrame:
        return self._frame("flows")

    @flows.setter
    def flows(self, value: pd.DataFrame) -> None:
        self._columns.pop("flows", None)
        self._frames["flows"] = value

    @property
    def queues(self) -> pd.DataFrame:
        return self._frame("queues")

    @queues.setter
    def queues(self, value: pd.DataFrame) -> None:
        self._columns.pop("queues", None)
        self._frames["queues"] = value

    @property
    def classes(self) -> pd.DataFrame:
        return self._frame("classes")

    @classes.setter
    def classes(self, value: pd.DataFrame) -> None:
        self._columns.pop("classes", None)
        self._frames["classes"] = value

    @property
    def timeseries(self) -> pd.DataFrame:
        return self._frame("timeseries")

    @timeseries.setter
    def timeseries(self, value: pd.DataFrame) -> None:
        self._columns.pop("timeseries", None)
        self._frames["timeseries"] = value

    @property
    def more(self) -> dict[str, pd.DataFrame]:
        """The further tables by name (built as DataFrames on first read; the dict is then
        the result's own: tables put in or taken out of it are written by :meth:`write`)."""
        if self._more is None:
            self._more = {
                name: frame_from_columns(self._columns.pop(name)) for name in self._more_names
            }
            self._more_names = []
        return self._more

    @more.setter
    def more(self, value: dict[str, pd.DataFrame]) -> None:
        for name in self._more_names:
            self._columns.pop(name, None)
        self._more_names = []
        self._more = value

    def table_names(self) -> list[str]:
        """Every table's name: the core ones (:data:`CORE_TABLES`), then the further ones."""
        more = list(self._more) if self._more is not None else self._more_names
        return [*CORE_TABLES, *more]

    def view(self, name: str) -> TableView | None:
        """A :class:`TableView` of table ``name`` that needs no pandas (unless its DataFrame
        was made already), or None if the run has no such table."""
        cols = self._columns.get(name)
        if cols is not None:
            return TableView.from_columns(cols)
        if name in CORE_TABLES:
            return TableView.from_frame(self._frame(name))
        frame = self._more.get(name) if self._more is not None else None
        return None if frame is None else TableView.from_frame(frame)

    def __repr__(self) -> str:
        """A line, not pages: seed, simulated time, events, the tables' row counts and
        whether packets were conserved (the tables themselves are the attributes)."""
        s = self.summary
        rows = ", ".join(f"{name}={len(self.view(name) or ())}" for name in self.table_names())
        pcap = f", pcap={sorted(self.pcap)}" if self.pcap else ""
        return (
            f"<Result seed={s.get('seed')} sim_seconds={s.get('sim_seconds')} "
            f"events={s.get('events')} conservation_ok={self.conservation_ok} "
            f"rows: {rows}{pcap}>"
        )

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table by name: the core ones (:data:`CORE_TABLES`), then :attr:`more`."""
        core = {name: self._frame(name) for name in CORE_TABLES}
        return {**core, **self.more}

    @classmethod
    def read(cls, run_dir: str | Path) -> Result:
        """Loads a run written by :meth:`write` (or stored by a sweep) from its folder."""
        import tomllib

        import pandas as pd

        d = Path(run_dir)
        scenario = tomllib.loads((d / SCENARIO_FILE).read_text(encoding="utf-8"))
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

    @property
    def scenario(self) -> dict[str, Any]:
        """The resolved scenario (counts expanded, defaults filled in)."""
        if self._scenario is None:
            self._scenario = json.loads(self._scenario_json or "{}")
        return self._scenario

    @scenario.setter
    def scenario(self, value: dict[str, Any]) -> None:
        self._scenario = value

    def scenario_toml(self) -> str:
        """The resolved scenario as TOML text (what scenario.toml holds): tomli_w's text,
        made by the core from its JSON while :attr:`scenario` was not read (and so not
        changed); the same bytes (tests/test_core_load.py)."""
        if self._scenario is not None:
            import tomli_w

            return tomli_w.dumps(self._scenario)
        if self._scenario_toml is None:
            from . import _native

            text = _native.resolved_toml(self._scenario_json or "{}")
            if text is None:
                import tomli_w

                text = tomli_w.dumps(self.scenario)
            self._scenario_toml = text
        return self._scenario_toml

    def parquet_metadata(self) -> dict[bytes, bytes]:
        """What every parquet file of this run carries: the scenario file's name and
        SHA-256, version and seed (see :data:`META_SCENARIO_FILE`)."""
        return run_metadata(self.summary, self.scenario_toml().encode())

    def arrow_tables(self) -> dict[str, pa.Table]:
        """Every table as an Arrow table, by name (from the core's columns where no
        DataFrame was made, so pandas is not needed)."""
        tables: dict[str, pa.Table] = {}
        for name in self.table_names():
            cols = self._columns.get(name)
            if cols is not None:
                tables[name] = arrow_from_columns(cols)
            elif name in CORE_TABLES:
                tables[name] = arrow_from_frame(self._frame(name))
            else:
                tables[name] = arrow_from_frame(self.more[name])
        return tables

    def encode(self) -> dict[str, bytes]:
        """Every output file's bytes, by file name (in :data:`OUTPUT_FILES` order). Apart
        from the ``timing`` entry of summary.json, the bytes depend only on scenario and seed."""
        return encode_files(self.arrow_tables(), self.summary, self.scenario_toml())

    def write(self, out_dir: str | Path) -> Path:
        """Writes every output file into ``out_dir`` (created if needed)."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        for name, data in self.encode().items():
            (out / name).write_bytes(data)
        return out


# Output files are encoded from Arrow tables built column by column (a categorical becomes
# a dictionary array of int32 codes and string categories), without pandas: a sweep of
# short runs encodes hundreds of runs a second, and `airqueue run` does not import pandas.
# The arrays are made from buffers (`pa.Array.from_buffers`), not with `pa.array`, which
# imports pandas to ask whether its argument is a pandas object. The core's columns and a
# Result's DataFrames give the same tables, so `airqueue run` and a sweep's store write the
# same bytes for the same run.


#: The Arrow type of each ``memoryview`` format the core's buffer columns have.
_BUFFER_TYPES = {"d": "float64", "Q": "uint64", "I": "uint32"}


def _arrow_numbers(values: Any) -> pa.Array:
    """A 1-D column of numbers (a NumPy array, or a ``memoryview`` of the core's) as an
    Arrow array of the same type, without a copy and without nulls (NaN stays a value, as
    ``pa.array`` leaves it)."""
    pa = import_pyarrow()

    if isinstance(values, memoryview):
        kind = getattr(pa, _BUFFER_TYPES[values.format])()
        return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])
    import numpy as np

    values = np.ascontiguousarray(values)
    if values.ndim != 1 or values.dtype.kind not in "iuf" or not values.dtype.isnative:
        return pa.array(values)  # anything else a DataFrame may hold: pyarrow's conversion
    return pa.Array.from_buffers(
        pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)]
    )


def _arrow_strings(values: Sequence[str | None]) -> pa.Array:
    """Text (``None`` is null) as an Arrow string array (int32 offsets)."""
    pa = import_pyarrow()

    encoded = [b"" if v is None else v.encode() for v in values]
    offsets = array("i", itertools.accumulate(map(len, encoded), initial=0))
    nulls = [i for i, v in enumerate(values) if v is None]
    validity = None
    if nulls:
        import numpy as np

        valid = np.ones(len(encoded), dtype=bool)
        valid[nulls] = False
        validity = pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(
        pa.string(),
        len(encoded),
        [validity, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))],
        null_count=len(nulls),
    )


def _arrow_dictionary(codes: Any, categories: Sequence[str]) -> pa.Array:
    """Categorical codes (uint32 from the core, NumPy or ``memoryview``; any integers from
    a DataFrame) and their categories as a dictionary array with int32 indices."""
    pa = import_pyarrow()

    if isinstance(codes, memoryview):
        # The core's uint32 codes index a list far shorter than 2**31: as int32 they are
        # the same bytes.
        indices = pa.Array.from_buffers(pa.int32(), len(codes), [None, pa.py_buffer(codes)])
    else:
        import numpy as np

        indices = _arrow_numbers(np.asarray(codes).astype(np.int32))
    return pa.DictionaryArray.from_arrays(indices, _arrow_strings(list(categories)))


def _arrow_table(arrays: dict[str, pa.Array]) -> pa.Table:
    pa = import_pyarrow()

    return pa.Table.from_arrays(list(arrays.values()), names=list(arrays))


def arrow_from_columns(columns: Columns) -> pa.Table:
    """An Arrow table from the core's columns (see :func:`frame_from_columns`)."""
    arrays: dict[str, pa.Array] = {}
    for name, col in columns:
        if isinstance(col, tuple):
            codes, categories = col
            arrays[name] = _arrow_dictionary(codes, categories)
        elif isinstance(col, list):
            arrays[name] = _arrow_strings(col)
        else:
            arrays[name] = _arrow_numbers(col)
    return _arrow_table(arrays)


def arrow_from_frame(df: pd.DataFrame) -> pa.Table:
    """The Arrow table of a result DataFrame (the same as :func:`arrow_from_columns` gives
    for the core's columns of that table)."""
    import pandas as pd

    arrays: dict[str, pa.Array] = {}
    for name in df.columns:
        s = df[name]
        if isinstance(s.dtype, pd.CategoricalDtype):
            arrays[name] = _arrow_dictionary(
                s.cat.codes.to_numpy(), [str(c) for c in s.cat.categories]
            )
        elif pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
            arrays[name] = _arrow_numbers(s.to_numpy())
        else:
            arrays[name] = _arrow_strings([None if v is None else str(v) for v in s.tolist()])
    return _arrow_table(arrays)


def run_metadata(summary: dict[str, Any], scenario: bytes) -> dict[bytes, bytes]:
    """The metadata of a run's parquet files: the scenario file (:data:`SCENARIO_FILE`)
    and the SHA-256 of its bytes ``scenario``, the version and the seed."""
    return {
        META_SCENARIO_FILE: SCENARIO_FILE.encode(),
        META_SCENARIO_SHA256: hashlib.sha256(scenario).hexdigest().encode(),
        META_VERSION: str(summary.get("airqueue_version", "")).encode(),
        META_SEED: str(summary.get("seed", "")).encode(),
    }


def encode_files(
    tables: dict[str, pa.Table], summary: dict[str, Any], scenario_toml: str
) -> dict[str, bytes]:
    """The bytes of every file of :data:`OUTPUT_FILES` from a run's tables (``flows``,
    ``queues``, ``classes``, ``timeseries``, and any further ones as ``<name>.parquet``),
    summary and resolved scenario text. Parquet files name the scenario file and carry its
    SHA-256, the version and the seed as metadata (:func:`run_metadata`)."""
    import_pyarrow()
    import pyarrow.csv as pa_csv

    scenario = scenario_toml.encode()
    meta = run_metadata(summary, scenario)
    csv = io.BytesIO()
    pa_csv.write_csv(tables["flows"], csv)
    files = {
        "summary.json": (json.dumps(summary, indent=2) + "\n").encode(),
        "flows.csv": csv.getvalue(),
        "flows.parquet": parquet_bytes(tables["flows"], meta),
        "timeseries.parquet": parquet_bytes(tables["timeseries"], meta),
        "queues.parquet": parquet_bytes(tables["queues"], meta),
        "classes.parquet": parquet_bytes(tables["classes"], meta),
        SCENARIO_FILE: scenario,
    }
    for name, table in tables.items():
        if name not in CORE_TABLES:
            files[f"{name}.parquet"] = parquet_bytes(table, meta)
    return files


def parquet_bytes(data: pd.DataFrame | pa.Table, metadata: dict[bytes, bytes]) -> bytes:
    """A table as a parquet file whose schema metadata also holds ``metadata``."""
    pa = import_pyarrow()
    import pyarrow.parquet as pq

    table = data if isinstance(data, pa.Table) else pa.Table.from_pandas(data, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), **metadata})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def parquet_metadata(path: str | Path) -> dict[str, str]:
    """The airqueue entries of a parquet file's metadata, without the ``airqueue.`` prefix:
    ``version`` and ``seed`` (a sweep's tables: ``seeds`` and ``grid``), ``scenario_file``
    and ``scenario_sha256`` (the scenario file in the parquet file's folder and the SHA-256
    of its bytes), and ``scenario``: that file's text, read from beside ``path``, when its
    bytes still have that hash (absent when the file is missing or has changed). Files
    written before the reference embedded the text under ``airqueue.scenario``: it is
    ``scenario`` then."""
    import pyarrow.parquet as pq

    meta = pq.read_schema(path).metadata or {}
    found = {
        k.decode().removeprefix("airqueue."): v.decode()
        for k, v in meta.items()
        if k.startswith(b"airqueue.")
    }
    name = found.get("scenario_file")
    if name and "scenario" not in found:
        try:
            data = (Path(path).parent / Path(name).name).read_bytes()
        except OSError:
            data = None
        if data is not None and hashlib.sha256(data).hexdigest() == found.get("scenario_sha256"):
            found["scenario"] = data.decode()
    return found
