"""airqueue: a laboratory for packet scheduling over wireless and hybrid networks.

The simulation core is Rust (``airqueue._native``); this package loads scenarios, runs
them and hands back pandas DataFrames::

    import airqueue
    res = airqueue.run("scenarios/examples/udp-bottleneck.toml", seed=3,
                       set={"links.bottleneck.rate": "20Mbit"})
    res.flows[["flow", "goodput_bps", "delay_p99_ms"]]
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _native, channel
from .errors import InternalError, ScenarioError
from .scenario import Scenario, call_native, load_scenario
from .values import check_seed, parse_memory

if TYPE_CHECKING:
    from .result import Result
    from .store import ResultStore
    from .sweep import SweepResult, sweep

#: Names whose modules import NumPy (a sweep's: pandas and pyarrow too): loaded on first use
#: (PEP 562), so that `airqueue validate` and scripts that only load scenarios start
#: quickly. A Result imports pandas only when a DataFrame of it is read.
_LAZY = {"Result": "result", "ResultStore": "store", "SweepResult": "sweep"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'airqueue' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


class _Package(types.ModuleType):
    """The package's module type: ``airqueue.sweep`` is the function
    :func:`airqueue.sweep.sweep`, loaded on first use, even after the submodule
    ``airqueue.sweep`` has been imported (which binds the package attribute of that name
    to the module)."""

    @property
    def sweep(self) -> Callable[..., SweepResult]:
        return importlib.import_module(".sweep", __name__).sweep  # type: ignore[no-any-return]

    @sweep.setter
    def sweep(self, value: object) -> None:
        pass  # the import system binding the submodule: `airqueue.sweep` stays the function


sys.modules[__name__].__class__ = _Package

__version__: str = _native.version()

__all__ = [
    "InternalError",
    "Result",
    "ResultStore",
    "Scenario",
    "ScenarioError",
    "SweepResult",
    "__version__",
    "channel",
    "load_scenario",
    "run",
    "schema",
    "sweep",
]


def run(
    scenario: str | Path | Mapping[str, Any] | Scenario,
    seed: int | None = None,
    set: Mapping[str, Any] | Iterable[str] | None = None,
    pcap: str | Iterable[str] | None = None,
    pcap_dir: str | Path = ".",
    max_memory: int | str | None = None,
    progress: Callable[[float, float, int, float], None] | None = None,
) -> Result:
    """Runs a scenario (a TOML path, a dict, or a :class:`Scenario`) and returns its results.

    ``seed`` overrides ``run.seed``; ``set`` overrides any value by dotted path (see
    :func:`load_scenario`). ``pcap`` names links (``"bottleneck"`` or a list) to capture into
    ``<pcap_dir>/<link>.pcap`` (see docs/experiments.md); ``Result.pcap`` lists them. A
    ``[sweep]`` table in the scenario is ignored (this runs the base point). The simulation
    runs without holding the GIL; Ctrl-C (SIGINT) stops it within milliseconds and raises
    :class:`KeyboardInterrupt`. ``max_memory`` (bytes, or text such as ``"2GB"``; default
    half of what the tightest of this machine's memory, its cgroup's memory limit and
    ``ulimit -v`` leaves; docs/limits.md) is the budget the run's estimated memory must fit in,
    else :class:`ScenarioError` names the key to change. ``progress``, if given, is called
    about every 200 ms of wall time as ``progress(sim_seconds, stop_seconds, events,
    wall_seconds)``. Raises :class:`ScenarioError` (naming every bad field) for invalid
    input. The result's ``summary["warnings"]`` lists what the scenario probably did not
    mean (see ``airqueue validate``).
    """
    return _run(scenario, seed, set, pcap, pcap_dir, max_memory, progress)


def _run(
    scenario: str | Path | Mapping[str, Any] | Scenario,
    seed: int | None = None,
    set: Mapping[str, Any] | Iterable[str] | None = None,
    pcap: str | Iterable[str] | None = None,
    pcap_dir: str | Path = ".",
    max_memory: int | str | None = None,
    progress: Callable[[float, float, int, float], None] | None = None,
    buffers: bool = False,
) -> Result:
    """:func:`run`; with ``buffers`` the result's columns are ``memoryview`` buffers, not
    NumPy arrays (``airqueue run`` then never imports NumPy; DataFrames and files are the
    same, see :mod:`airqueue.result`)."""
    if seed is not None:
        seed = check_seed(seed, "seed")
    sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario, set=set)
    if isinstance(scenario, Scenario) and set is not None:
        sc = load_scenario(scenario.data, set=set)
    links = [pcap] if isinstance(pcap, str) else (list(pcap) if pcap is not None else None)
    if links is not None:
        links = [name.strip() for item in links for name in item.split(",") if name.strip()]
        Path(pcap_dir).mkdir(parents=True, exist_ok=True)
    budget = parse_memory(max_memory) if max_memory is not None else None
    raw = call_native(
        _native.run,
        sc.to_json(),
        seed,
        links,
        str(pcap_dir) if links else None,
        budget,
        progress,
        buffers,
    )
    from .result import Result

    return Result.from_native(raw)


def schema() -> str:
    """The JSON Schema of the scenario format (generated from the core's types)."""
    return str(_native.schema())
