"""IEEE 802.11 closed forms, from the PHY timing the simulator's cells use.

Every function calls the Rust implementation (``airqueue._native``), so analysis and
simulation share one formula. See ``docs/wifi.md``.

    >>> from airqueue import wifi
    >>> round(wifi.tcp_rate("802.11b", 11, short_preamble=True) / 1e6, 2)  # seed 002: 4.89
    5.02
    >>> wifi.frame_duration_us("802.11a", 1536, 54)
    248.0
"""

from __future__ import annotations

from collections.abc import Iterable

from . import _native

__all__ = ["frame_duration_us", "harmonic_rate", "tcp_rate"]


def _kbps(rate_mbps: float) -> int:
    kbps = round(float(rate_mbps) * 1000)
    if kbps <= 0 or abs(kbps - float(rate_mbps) * 1000) > 1e-6:
        raise ValueError(f"{rate_mbps} Mb/s is not a PHY rate; write e.g. 11, 5.5 or 54")
    return kbps


def tcp_rate(
    standard: str,
    rate_mbps: float,
    *,
    data_bytes: int = 1500,
    ack_bytes: int = 40,
    segments_per_ack: int = 2,
    rts_data: bool = True,
    rts_ack: bool = False,
    short_preamble: bool = False,
    basic_rates_mbps: Iterable[float] | None = None,
    slot_us: float | None = None,
    sifs_us: float | None = None,
    cw_min: int | None = None,
    cw_max: int | None = None,
) -> float:
    """C_i of seed 002 (ADWISER, §III-C.1a, eq. 1): the TCP rate, bit/s of IP packets, of
    a station alone in a cell at ``rate_mbps``, with one mean back-off (CWmin/2 slots) per
    frame, RTS/CTS for data (``rts_data``), basic access for TCP ACKs, ``segments_per_ack``
    segments per ACK (2: delayed ACKs). Keyword overrides are the ``[[cells]]`` keys."""
    basic = None if basic_rates_mbps is None else [_kbps(r) for r in basic_rates_mbps]
    return _native.wifi_tcp_rate(
        standard,
        _kbps(rate_mbps),
        int(data_bytes),
        int(ack_bytes),
        int(segments_per_ack),
        bool(rts_data),
        bool(rts_ack),
        bool(short_preamble),
        basic,
        None if slot_us is None else round(slot_us * 1000),
        None if sifs_us is None else round(sifs_us * 1000),
        cw_min,
        cw_max,
    )


def frame_duration_us(
    standard: str, mpdu_bytes: int, rate_mbps: float, *, short_preamble: bool = False
) -> float:
    """Air time of a PPDU carrying ``mpdu_bytes`` at ``rate_mbps``, µs (PLCP included,
    OFDM symbols rounded up, 802.11g's signal extension added)."""
    ns = _native.wifi_duration_ns(standard, int(mpdu_bytes), _kbps(rate_mbps), short_preamble)
    return ns / 1000.0


def harmonic_rate(rates: Iterable[float]) -> float:
    """Aggregate throughput of stations that each get the same number of frames (the
    performance anomaly, Heusse et al. 2003): n / Σ 1/C_i, with C_i their rates alone."""
    rs = [float(r) for r in rates]
    if not rs or any(r <= 0 for r in rs):
        raise ValueError("rates must be a non-empty list of positive rates")
    return len(rs) / sum(1.0 / r for r in rs)
