"""Type stubs of the private native module built from crates/airqueue-py."""

from typing import Any

import numpy as np
import numpy.typing as npt

Column = (
    npt.NDArray[np.float64]
    | npt.NDArray[np.uint64]
    | list[str]
    | tuple[npt.NDArray[np.uint32], list[str]]
)
"""A result column: a NumPy array, a list of str, or categorical (codes, categories)."""

class ScenarioError(ValueError):
    """A scenario has problems; ``args == (message, [(path, problem), ...])``."""

class InternalError(RuntimeError):
    """A bug inside airqueue (not a problem with the input)."""

def version() -> str: ...
def schema() -> str: ...
def validate(scenario_json: str) -> str: ...
def run(
    scenario_json: str,
    seed: int | None = None,
    pcap_links: list[str] | None = None,
    pcap_dir: str | None = None,
) -> dict[str, Any]:
    """``summary_json``, ``resolved_json``, ``tables`` (a list of (name, columns): flows,
    queues, classes, timeseries, then any tables media and systems add) and ``pcap``."""
