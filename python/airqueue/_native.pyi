"""Type stubs of the private native module built from crates/airqueue-py."""

from collections.abc import Callable
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
def source_id() -> str:
    """A hash of the core's sources and locked dependencies (16 hex digits)."""

def default_max_memory() -> int:
    """Half of this machine's memory (MemTotal), the budget of a run without max_memory."""

def schema() -> str: ...
def validate(scenario_json: str, max_memory: int | None = None) -> str: ...
def check(scenario_json: str, max_memory: int | None = None) -> tuple[str, list[tuple[str, str]]]:
    """(resolved scenario JSON, warnings as (path, message) pairs)."""

def check_counts(
    scenario_json: str, max_memory: int | None = None
) -> tuple[list[tuple[str, int]], list[tuple[str, str]]]:
    """As :func:`check`, with the number of entries per list section (after ``count``
    expansion; empty sections left out) instead of the resolved scenario."""

def prepare_toml(text: str, overrides_json: str) -> tuple[str, bool] | None:
    """A scenario file's TOML ``text`` with overrides (``overrides_json``: a JSON list of
    [dotted path, value] pairs) applied, as (scenario JSON for the other functions, whether
    it has a ``[sweep]`` table, taken out); None where Python's loader must read it (TOML
    1.1 syntax, dates, NaN, an override path Python refuses)."""

def resolved_toml(resolved_json: str) -> str | None:
    """``tomli_w.dumps(json.loads(resolved_json))``'s text, made by the core; None where
    tomli_w would raise (a null)."""

def run(
    scenario_json: str,
    seed: int | None = None,
    pcap_links: list[str] | None = None,
    pcap_dir: str | None = None,
    max_memory: int | None = None,
    progress: Callable[[float, float, int, float], None] | None = None,
    buffers: bool = False,
) -> dict[str, Any]:
    """``summary_json``, ``resolved_json``, ``warnings`` ((path, message) pairs),
    ``tables`` (a list of (name, columns): flows, queues, classes, timeseries, then any
    tables media and systems add) and ``pcap``. Ctrl-C raises KeyboardInterrupt; ``progress``
    is called as (sim seconds, stop seconds, events, wall seconds) about every 200 ms.
    ``buffers``: numeric columns as ``memoryview`` (formats d, Q, I), not NumPy arrays."""

def live_open_tun(netns: str, name: str) -> int:
    """Opens TUN ``name`` inside the namespace at path ``netns``; returns its (non-blocking)
    descriptor, which the caller closes. Raises OSError."""

def live_hosts(scenario_json: str) -> list[tuple[str, str]]:
    """The scenario's real hosts as (node, IPv4 address); ScenarioError if none is real."""

def live_run(
    scenario_json: str,
    tuns: list[tuple[str, int]],
    seed: int | None = None,
    spin_us: int | None = None,
    priority: int | None = None,
    pcap_dir: str | None = None,
) -> dict[str, Any]:
    """Runs in real time with the real hosts' TUN descriptors until ``run.duration`` or
    Ctrl-C; what ``run`` returns (with a ``timing`` table: ``node``, ``flow``, ``bytes``,
    ``released_ns``, ``written_ns`` per packet written to a real host; ``pcap``: (node,
    path, packets)) plus ``live``: the conservation of real packets (``read``,
    ``unsupported``, ``injected``, ``written``, ``dropped``, ``in_flight``, ``answers``,
    ``absorbed``, ``probes``, ``errors``, ``errors_limited``; ``hosts``: node → ``read``,
    ``written``;
    ``max_written_bytes``), the release timing (``packets``, ``p50_ns``, ``p99_ns``,
    ``max_ns``, ``behind``, ``write_errors``, ``timing_rows_dropped``), what ran behind
    real time (``events_behind``, ``max_event_late_ns``, ``episodes``), ``priority``,
    ``scheduling``, ``origin_unix_ns``, ``stopped``, ``ended_s``, ``wall_s``, ``cpu_s`` (the
    loop thread's CPU time). ``spin_us``: how close to an event the loop stops sleeping and
    spins (default 50); ``priority``: the loop thread's SCHED_FIFO priority (default 50; 0 =
    normal scheduling; ValueError above 99); ``pcap_dir``: write ``<pcap_dir>/<node>.pcap``
    per real host."""

def live_bare_forward(tuns: list[tuple[str, int]], duration_s: float) -> dict[str, Any]:
    """The bare forwarder (no model: each packet read from a TUN is written to the TUN owning
    its destination address) over (IPv4 address, fd) pairs for ``duration_s`` or until
    Ctrl-C: ``read``, ``written``, ``unrouted``, ``write_errors``, ``max_bytes``,
    ``stopped``, ``wall_s``, ``cpu_s`` (the forwarding thread's CPU time). Raises OSError."""

def channel_per(ber: float, bits: float) -> float: ...
def wifi_tcp_rate(
    standard: str,
    rate_kbps: int,
    data_bytes: int,
    ack_bytes: int,
    segments_per_ack: int,
    rts_data: bool,
    rts_ack: bool,
    short_preamble: bool,
    basic_kbps: list[int] | None,
    slot_ns: int | None,
    sifs_ns: int | None,
    cw_min: int | None,
    cw_max: int | None,
) -> float: ...
def wifi_duration_ns(standard: str, bytes: int, rate_kbps: int, short_preamble: bool) -> int: ...
def channel_success_over_hops(per_hop_success: float, hops: int) -> float: ...
def channel_ge_stationary(mean_good: float, mean_bad: float) -> tuple[float, float]: ...
def channel_ge_success(
    ber_good: float, ber_bad: float, mean_good: float, mean_bad: float, bits: float
) -> float: ...
def channel_gemodel_stationary(
    p: float, r: float, loss_bad: float, loss_good: float
) -> tuple[float, float, float]: ...
def channel_ber(modulation_name: str, snr_db: float) -> float: ...
def channel_snr_for_ber(modulation_name: str, ber: float) -> float: ...
def channel_modulations() -> list[str]: ...
def channel_friis_db(distance_m: float, frequency_hz: float) -> float: ...
def channel_log_distance_db(
    distance_m: float, reference_m: float, reference_loss_db: float, exponent: float
) -> float: ...
def channel_noise_floor_dbm(bandwidth_hz: float, noise_figure_db: float) -> float: ...
def channel_overlap(a_low: float, a_high: float, b_low: float, b_high: float) -> float: ...
def channel_bluetooth_hop(k: int) -> tuple[float, float]: ...
def channel_wlan_11b(c: int) -> tuple[float, float]: ...
