"""TCP stack profiles (`transport.profile`): a profile fills in every TCP key the flow does not
write, written keys win, the flow table names the profile, and a misspelt profile is refused
with the names it accepts. The profiles' values and their sources: docs/tcp-profiles.md
(checked against the core's table by the Rust test `tcp_profile::tests`)."""

from __future__ import annotations

import pytest

import airqueue
from support import DUMBBELL

SHORT = {"run.duration": "3s", "run.warmup": "0s"}


def test_a_profile_sets_the_stack_and_the_flow_table_names_it() -> None:
    r = airqueue.run(
        DUMBBELL,
        set={**SHORT, "flows.bulk.transport": {"kind": "tcp", "profile": "linux-6.1"}},
    )
    assert set(r.flows.query("flow.str.startswith('bulk')")["transport"]) == {"tcp/linux-6.1"}
    tcp = r.scenario["flows"][0]["transport"]
    # Linux 6.1's compiled-in defaults: TCP_INIT_CWND, TCP_RTO_MIN, TCP_RTO_MAX, tcp_rmem.
    assert tcp["variant"] == "cubic"
    assert tcp["initial_window"] == 10
    assert tcp["min_rto"] == "200ms"
    assert tcp["max_rto"] == "120s"
    assert tcp["sack"] is True and tcp["timestamps"] is True
    assert tcp["rcv_buffer"] == 131072 and tcp["rcv_buffer_max"] == 6291456
    # tcp_adv_win_scale = 1: half of that memory is advertised (tcp_win_from_space).
    assert tcp["adv_win_scale"] == 1
    # tcp_recovery = 1 (RACK), tcp_early_retrans = 3 (TLP), PRR, tcp_frto = 2.
    assert all(tcp[k] is True for k in ("rack", "tlp", "prr", "frto"))


def test_written_keys_win_over_the_profile() -> None:
    r = airqueue.run(
        DUMBBELL,
        set={
            **SHORT,
            "flows.bulk.transport": {"kind": "tcp", "profile": "freebsd-4.8", "min_rto": "2s"},
        },
    )
    tcp = r.scenario["flows"][0]["transport"]
    assert tcp["min_rto"] == "2s"
    # FreeBSD 4.8: no SACK, IW 1, tcp_quench on ENOBUFS.
    assert tcp["sack"] is False
    assert tcp["initial_window"] == 1
    assert tcp["local_congestion"] == "quench"


def test_an_unknown_profile_is_refused_with_the_names_it_accepts() -> None:
    with pytest.raises(airqueue.ScenarioError) as e:
        airqueue.run(
            DUMBBELL,
            set={**SHORT, "flows.bulk.transport": {"kind": "tcp", "profile": "linux-5.4"}},
        )
    text = str(e.value)
    assert "flows.bulk.transport.profile" in text
    assert "linux-6.1" in text and "freebsd-4.8" in text
