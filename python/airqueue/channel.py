"""Closed forms of the channel models, to check simulations against.

Every function calls the Rust implementation the simulator uses (``airqueue._native``),
so analysis and simulation share one formula. See ``docs/channels.md`` for the models,
their sources and their validation.

    >>> from airqueue import channel
    >>> round(channel.per(6.8979e-5, 2712), 4)        # thesis Table 4.1, DH5 good state
    0.1706
    >>> pg, pb = channel.ge_stationary(0.4375, 0.0558)
    >>> s = channel.ge_packet_success(6.8979e-6, 1.263e-4, 0.4375, 0.0558, 2712)
"""

from __future__ import annotations

from . import _native

__all__ = [
    "MODULATIONS",
    "ber",
    "bluetooth_hop",
    "friis_loss_db",
    "ge_packet_success",
    "ge_stationary",
    "gemodel_stationary",
    "log_distance_loss_db",
    "noise_floor_dbm",
    "overlap_fraction",
    "per",
    "snr_for_ber",
    "success_over_hops",
    "wlan_11b_channel",
]

MODULATIONS: list[str] = _native.channel_modulations()
"""Names accepted by :func:`ber`: 802.11b ``dsss1``, ``dsss2``, ``cck5.5``, ``cck11``;
802.11a/g ``ofdm6`` … ``ofdm54``; Bluetooth ``gfsk``."""


def _probability(name: str, v: float) -> float:
    v = float(v)
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"{name} = {v} is not a probability; give a number in [0, 1]")
    return v


def _nonnegative(name: str, v: float) -> float:
    v = float(v)
    if not v >= 0.0:
        raise ValueError(f"{name} = {v} must be zero or more")
    return v


def _positive(name: str, v: float) -> float:
    v = float(v)
    if not v > 0.0:
        raise ValueError(f"{name} = {v} must be positive")
    return v


def per(ber: float, bits: float) -> float:
    """Packet error rate ``1 - (1 - ber)**bits`` (accurate for tiny BERs)."""
    return _native.channel_per(_probability("ber", ber), _nonnegative("bits", bits))


def success_over_hops(per_hop_success: float, hops: int) -> float:
    """Success over ``hops`` independent hops: ``per_hop_success**hops``."""
    if hops < 0:
        raise ValueError(f"hops = {hops} must be zero or more")
    return _native.channel_success_over_hops(_probability("per_hop_success", per_hop_success), hops)


def ge_stationary(mean_good: float, mean_bad: float) -> tuple[float, float]:
    """Stationary ``(P_good, P_bad)`` of a Gilbert-Elliott chain with mean sojourns
    ``mean_good`` and ``mean_bad`` (any one time unit)."""
    return _native.channel_ge_stationary(
        _nonnegative("mean_good", mean_good), _nonnegative("mean_bad", mean_bad)
    )


def ge_packet_success(
    ber_good: float, ber_bad: float, mean_good: float, mean_bad: float, bits: float
) -> float:
    """Expected success of one packet of ``bits`` bits on a Gilbert-Elliott channel:
    ``(1 - PER_G)·P_good + (1 - PER_B)·P_bad`` (thesis, seed 001, §5)."""
    return _native.channel_ge_success(
        _probability("ber_good", ber_good),
        _probability("ber_bad", ber_bad),
        _nonnegative("mean_good", mean_good),
        _nonnegative("mean_bad", mean_bad),
        _nonnegative("bits", bits),
    )


def gemodel_stationary(
    p: float, r: float, loss_bad: float = 1.0, loss_good: float = 0.0
) -> dict[str, float]:
    """netem ``gemodel p r 1-h 1-k``: the bad state's stationary probability
    ``p/(p + r)``, the long-run loss rate and the mean bad run ``1/r`` (packets)."""
    pi_bad, rate, run = _native.channel_gemodel_stationary(
        _probability("p", p),
        _probability("r", r),
        _probability("loss_bad", loss_bad),
        _probability("loss_good", loss_good),
    )
    return {"pi_bad": pi_bad, "loss_rate": rate, "mean_bad_run": run}


def ber(modulation: str, snr_db: float) -> float:
    """Effective bit error rate of ``modulation`` (see :data:`MODULATIONS`) at ``snr_db``."""
    return _native.channel_ber(modulation, float(snr_db))


def snr_for_ber(modulation: str, target_ber: float) -> float:
    """The SNR in dB at which ``modulation``'s BER falls to ``target_ber``."""
    return _native.channel_snr_for_ber(modulation, _probability("target_ber", target_ber))


def friis_loss_db(distance_m: float, frequency_hz: float) -> float:
    """Free-space path loss ``20·log10(4π d f / c)`` in dB (floored at 0)."""
    return _native.channel_friis_db(
        _positive("distance_m", distance_m), _positive("frequency_hz", frequency_hz)
    )


def log_distance_loss_db(
    distance_m: float,
    exponent: float,
    reference_m: float = 1.0,
    reference_loss_db: float | None = None,
    frequency_hz: float | None = None,
) -> float:
    """Log-distance path loss ``L(d0) + 10·n·log10(d/d0)``; ``L(d0)`` is
    ``reference_loss_db`` or, if omitted, the Friis loss at ``reference_m`` and
    ``frequency_hz``."""
    if reference_loss_db is None:
        if frequency_hz is None:
            raise ValueError("give reference_loss_db, or frequency_hz to use Friis at d0")
        reference_loss_db = friis_loss_db(reference_m, frequency_hz)
    return _native.channel_log_distance_db(
        _positive("distance_m", distance_m),
        _positive("reference_m", reference_m),
        float(reference_loss_db),
        _positive("exponent", exponent),
    )


def noise_floor_dbm(bandwidth_hz: float, noise_figure_db: float = 0.0) -> float:
    """Thermal noise ``kT0·B`` in dBm plus the noise figure (-174 dBm/Hz at 290 K)."""
    return _native.channel_noise_floor_dbm(
        _positive("bandwidth_hz", bandwidth_hz), float(noise_figure_db)
    )


def overlap_fraction(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Fraction of band ``a`` = (low, high) MHz covered by band ``b``: 1 for a Bluetooth
    hop inside an 802.11b channel, 0.5 on its edge, 0 outside (Golmie et al.)."""
    return _native.channel_overlap(float(a[0]), float(a[1]), float(b[0]), float(b[1]))


def bluetooth_hop(k: int) -> tuple[float, float]:
    """Band of Bluetooth hop ``k`` (0–78): 1 MHz centred at 2402 + k MHz."""
    if not 0 <= k <= 78:
        raise ValueError(f"hop {k} is not a Bluetooth channel; use 0 … 78")
    return _native.channel_bluetooth_hop(k)


def wlan_11b_channel(c: int) -> tuple[float, float]:
    """Band of 802.11b channel ``c`` (1–14): 22 MHz centred at 2412 + 5(c - 1) MHz."""
    if not 1 <= c <= 14:
        raise ValueError(f"channel {c} is not an 802.11b channel; use 1 … 14")
    return _native.channel_wlan_11b(c)
