"""Run results as pandas DataFrames, and writing them to a folder."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import tomli_w

#: Files `Result.write` produces, in order.
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
        else:
            data[name] = col
    return pd.DataFrame(data, copy=False)


@dataclass
class Result:
    """What one run produced.

    ``summary`` is a dict (version, seed, events, packet conservation, timing), ``flows``
    has one row per flow, ``queues`` one row per root qdisc (egress interfaces, then virtual
    devices), ``classes`` one row per class of every classful qdisc (``queue, class, parent,
    kind, qdisc``, counters; nested classes are named ``outer/inner``), and ``timeseries``
    is long format (``time_s, kind, name, metric, value``) sampled every
    ``run.sample_interval``.
    """

    summary: dict[str, Any]
    flows: pd.DataFrame
    queues: pd.DataFrame
    classes: pd.DataFrame
    timeseries: pd.DataFrame
    scenario: dict[str, Any]

    @classmethod
    def from_native(cls, raw: dict[str, Any]) -> Result:
        return cls(
            summary=json.loads(raw["summary_json"]),
            flows=frame_from_columns(raw["flows"]),
            queues=frame_from_columns(raw["queues"]),
            classes=frame_from_columns(raw["classes"]),
            timeseries=frame_from_columns(raw["timeseries"]),
            scenario=json.loads(raw["resolved_json"]),
        )

    @property
    def conservation_ok(self) -> bool:
        return bool(self.summary.get("conservation_ok"))

    def write(self, out_dir: str | Path) -> Path:
        """Writes every output file into ``out_dir`` (created if needed). Apart from the
        ``timing`` entry of summary.json, the bytes depend only on scenario and seed."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(self.summary, indent=2) + "\n")
        self.flows.to_csv(out / "flows.csv", index=False)
        self.flows.to_parquet(out / "flows.parquet", index=False)
        self.timeseries.to_parquet(out / "timeseries.parquet", index=False)
        self.queues.to_parquet(out / "queues.parquet", index=False)
        self.classes.to_parquet(out / "classes.parquet", index=False)
        (out / "scenario.toml").write_text(tomli_w.dumps(self.scenario))
        return out
