"""``airqueue.channel``: the closed forms against their references, and a simulated wired
link with ``ber`` / ``gemodel`` checked against them (docs/channels.md)."""

from __future__ import annotations

import math

import pytest

import airqueue
from airqueue import channel

# Seed 001 (thesis) §3.1.3 parameters and packet sizes.
DH5, DH3 = 2712, 1464
RHO_G, RHO_B = 0.4375, 0.0558


@pytest.mark.parametrize(
    ("bits", "ber", "table"),
    [
        (DH5, 6.8979e-5, 0.1702),
        (DH5, 1.263e-3, 0.96753),
        (DH3, 6.8979e-5, 0.09581),
        (DH3, 1.263e-3, 0.84279),
        (DH5, 6.8979e-6, 0.018483),
        (DH5, 1.263e-4, 0.29004),
        (DH3, 6.8979e-6, 0.01002),
        (DH3, 1.263e-4, 0.168825),
    ],
)
def test_per_matches_thesis_tables_4_1_and_6_1_within_half_a_percent(bits, ber, table):
    assert channel.per(ber, bits) == pytest.approx(table, rel=0.005)
    assert channel.per(ber, bits) == pytest.approx(1 - (1 - ber) ** bits, rel=1e-12)


def test_thesis_table_6_2_segment_success_over_2_and_4_hops():
    """4 DH5 + 1 DH3 and the ACK's DH3, with the Table 6.1 PERs as printed."""
    pg, pb = channel.ge_stationary(RHO_G, RHO_B)
    s5 = (1 - 0.018483) * pg + (1 - 0.29004) * pb
    s3 = (1 - 0.01002) * pg + (1 - 0.168825) * pb
    seg = s5**4 * s3**2
    assert channel.success_over_hops(seg, 2) == pytest.approx(0.59622, rel=5e-6)
    assert channel.success_over_hops(seg, 4) == pytest.approx(0.355478, rel=5e-6)
    exact = (
        channel.ge_packet_success(6.8979e-6, 1.263e-4, RHO_G, RHO_B, DH5) ** 4
        * channel.ge_packet_success(6.8979e-6, 1.263e-4, RHO_G, RHO_B, DH3) ** 2
    )
    assert channel.success_over_hops(exact, 2) == pytest.approx(0.59622, rel=1e-3)


def test_ber_curves_equal_their_formulas():
    for snr_db in (-12, -10, -8, -6, -4):
        snr = 10 ** (snr_db / 10)
        assert channel.ber("dsss1", snr_db) == pytest.approx(0.5 * math.exp(-22 * snr), rel=1e-12)
    for snr_db in (6, 8, 10, 12, 14):
        snr = 10 ** (snr_db / 10)
        assert channel.ber("gfsk", snr_db) == pytest.approx(0.5 * math.exp(-snr / 2), rel=1e-12)
    assert channel.snr_for_ber("ofdm6", 1e-5) == pytest.approx(3.9243446, abs=0.01)
    assert set(channel.MODULATIONS) >= {"dsss1", "cck11", "ofdm54", "gfsk"}
    with pytest.raises(ValueError, match="cck11"):
        channel.ber("qam", 10)


def test_path_loss_and_noise():
    c = 299_792_458.0
    for d in (1.0, 10.0, 100.0):
        expect = 20 * math.log10(4 * math.pi * d * 2.437e9 / c)
        assert channel.friis_loss_db(d, 2.437e9) == pytest.approx(expect, abs=1e-9)
        assert channel.log_distance_loss_db(d, 2.0, frequency_hz=2.437e9) == pytest.approx(
            expect, abs=1e-9
        )
    assert channel.noise_floor_dbm(22e6, 7) == pytest.approx(-93.551, abs=1e-3)
    with pytest.raises(ValueError):
        channel.friis_loss_db(0, 2.4e9)


def test_bluetooth_hops_overlapping_an_802_11b_channel():
    ch1 = channel.wlan_11b_channel(1)
    assert ch1 == (2401.0, 2423.0)
    assert channel.overlap_fraction(channel.bluetooth_hop(10), ch1) == 1.0
    assert channel.overlap_fraction(channel.bluetooth_hop(21), ch1) == 0.5
    assert channel.overlap_fraction(channel.bluetooth_hop(40), ch1) == 0.0
    hits = sum(channel.overlap_fraction(channel.bluetooth_hop(k), ch1) > 0 for k in range(79))
    assert hits == 22  # Golmie et al.: 22 of the 79 hops
    with pytest.raises(ValueError):
        channel.bluetooth_hop(79)


def _lossy_link(impairment: dict) -> dict:
    return {
        "run": {"duration": "10.1s"},
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [
            {
                "name": "wire",
                "between": ["a", "b"],
                "rate": "100Mbit",
                "delay": "1ms",
                "impairment": impairment,
            }
        ],
        "flows": [
            {
                "name": "cbr",
                "from": "a",
                "to": "b",
                "stop": "10s",
                "app": {"kind": "cbr", "size": 972, "interval": "100us"},
            }
        ],
    }


def test_simulated_ber_and_gemodel_losses_match_the_closed_forms():
    """100 000 packets of 1000 B on the wire; 99.9 % bounds (binomial for BER, inflated by
    the chain's autocorrelation (1 + λ)/(1 - λ), λ = 1 - p - r, for gemodel)."""
    res = airqueue.run(_lossy_link({"ber": 1e-5}), seed=7)
    f = res.flows.set_index("flow").loc["cbr"]
    n, k = int(f["tx_packets"]), int(f["drops_impairment"])
    p = channel.per(1e-5, 8000)
    assert abs(k - n * p) <= 3.29 * math.sqrt(n * p * (1 - p))

    res = airqueue.run(_lossy_link({"gemodel": {"p": 0.01, "r": 0.1}}), seed=7)
    f = res.flows.set_index("flow").loc["cbr"]
    n, k = int(f["tx_packets"]), int(f["drops_impairment"])
    g = channel.gemodel_stationary(0.01, 0.1)
    lam = 1 - 0.01 - 0.1
    sd = math.sqrt(g["pi_bad"] * (1 - g["pi_bad"]) * (1 + lam) / (1 - lam) / n)
    assert abs(k / n - g["loss_rate"]) <= 3.29 * sd


def test_loss_and_gemodel_together_are_a_scenario_error():
    with pytest.raises(airqueue.ScenarioError) as e:
        airqueue.run(_lossy_link({"loss": 0.01, "gemodel": {"p": 0.01, "r": 0.1}}))
    assert "links.wire.impairment.gemodel" in str(e.value)
