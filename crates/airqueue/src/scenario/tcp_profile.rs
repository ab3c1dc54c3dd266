//! TCP stack profiles: one key (`transport.profile`) that sets a whole stack's defaults as a
//! named kernel ran them. A profile fills in every TCP key the flow does not write itself, so
//! each field stays overridable: `{ kind = "tcp", profile = "linux-6.1", min_rto = "1s" }` is
//! Linux 6.1 with a 1 s minimum RTO. The profile is applied to the scenario's table before it
//! is read, so the resolved scenario written with the results lists every value it set, and
//! the flow table names the profile in its `transport` column.
//!
//! Each profile's values are the kernel's compiled-in defaults and default sysctls (the
//! sources are in each variant's doc comment). What a kernel did that airqueue does not model
//! is said there too, with the nearest model chosen.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// A named TCP stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum TcpProfile {
    /// Linux 6.1 (Debian 12's kernel, the kernel reference of docs/kernel-reference.md) with
    /// its default sysctls: CUBIC (`tcp_congestion_control`), IW 10 (`TCP_INIT_CWND`), initial
    /// RTO 1 s (`TCP_TIMEOUT_INIT`), RTO in [200 ms, 120 s] (`TCP_RTO_MIN`, `TCP_RTO_MAX`),
    /// SACK, timestamps with PAWS, window scaling, receive buffer 128 KiB autotuned up to
    /// 6 MiB (`tcp_rmem` = 4096 131072 6291456) of which half is advertised
    /// (`tcp_adv_win_scale` = 1: a 64 KiB window growing to 3 MiB), send buffer 16 KiB
    /// autotuned up to 4 MiB (`tcp_wmem` = 4096 16384 4194304, `tcp_sndbuf_expand`),
    /// RACK-TLP (`tcp_recovery` = 1,
    /// `tcp_early_retrans` = 3), PRR, F-RTO (`tcp_frto` = 2), ECN only when the peer asks
    /// (`tcp_ecn` = 2: a Linux sender does not), cwnd validation (`tcp_is_cwnd_limited`),
    /// CWR on a local qdisc drop (`tcp_enter_cwr`). Not modelled, nearest model chosen:
    /// Linux's CUBIC leaves slow start by its own HyStart (ACK trains and delay), here RFC
    /// 9406 HyStart++; Linux adapts the delayed-ACK timeout between `TCP_ATO_MIN` (40 ms) and
    /// `TCP_DELACK_MAX` (200 ms), here fixed at 40 ms, its starting value; quick-ACK mode and
    /// TCP small queues are not modelled.
    #[serde(rename = "linux-6.1")]
    Linux6_1,
    /// Linux 2.6.23 (the ADWISER testbed, seed 002): CUBIC (the default since 2.6.19), IW 3
    /// (RFC 3390 at a 1448 B MSS, `tcp_init_cwnd`), initial RTO 3 s (`TCP_TIMEOUT_INIT` =
    /// `3*HZ`), RTO in [200 ms, 120 s], SACK, timestamps with PAWS, window scaling, receive
    /// buffer 85.3 KiB (`tcp_rmem[1]` = 87380) autotuned up to 4 MiB by 2.6.7's dynamic
    /// right-sizing (twice the bytes of the last RTT), of which ¾ is advertised
    /// (`tcp_adv_win_scale` = 2: a 65 535 B window growing to 3 MiB), no F-RTO (`tcp_frto`
    /// became 2 in 2.6.24), no RACK, TLP or PRR (3.2 to 4.18), no HyStart (2.6.29).
    /// Not modelled: its rate-halving fast recovery, here RFC 6675 SACK recovery.
    #[serde(rename = "linux-2.6.23")]
    Linux2_6_23,
    /// Linux 2.4 (the DFQ gateway's era, seed 003): NewReno loss recovery with SACK (no
    /// pluggable congestion control yet), IW 2 (`tcp_init_cwnd` for an MSS above 1095 B),
    /// initial RTO 3 s, RTO in [200 ms, 120 s], timestamps with PAWS, window scaling, a
    /// fixed receive buffer of 85.3 KiB (no autotuning before 2.6.7) advertising 65 535 B
    /// (`tcp_adv_win_scale` = 2), cwnd validation (RFC
    /// 2861, `tcp_cwnd_validate`), no F-RTO (2.6.10). Not modelled: FACK and rate halving,
    /// here RFC 6675 SACK recovery.
    #[serde(rename = "linux-2.4")]
    Linux2_4,
    /// FreeBSD 4.8 (the kernel NCTUns 1.0 ran, the striping paper, seed 004): NewReno
    /// (`net.inet.tcp.newreno` = 1), no SACK (FreeBSD 5.3), IW 1
    /// (`net.inet.tcp.slowstart_flightsize`), initial RTO 3 s (`TCPTV_RTOBASE`), RTO in
    /// [1 s, 64 s] (`TCPTV_MIN`, `TCPTV_REXMTMAX`), delayed ACK 100 ms
    /// (`net.inet.tcp.delacktime`), timestamps with PAWS and window scaling
    /// (`net.inet.tcp.rfc1323`), a fixed 64 KiB receive buffer (`net.inet.tcp.recvspace`),
    /// no cwnd validation, `tcp_quench` on ENOBUFS from its own interface.
    #[serde(rename = "freebsd-4.8")]
    Freebsd4_8,
}

impl TcpProfile {
    /// Every profile, in the order the documentation lists them.
    pub const ALL: [TcpProfile; 4] = [
        TcpProfile::Linux6_1,
        TcpProfile::Linux2_6_23,
        TcpProfile::Linux2_4,
        TcpProfile::Freebsd4_8,
    ];

    /// The profile's name as scenarios write it.
    pub fn name(self) -> &'static str {
        match self {
            TcpProfile::Linux6_1 => "linux-6.1",
            TcpProfile::Linux2_6_23 => "linux-2.6.23",
            TcpProfile::Linux2_4 => "linux-2.4",
            TcpProfile::Freebsd4_8 => "freebsd-4.8",
        }
    }

    /// The flow table's `transport` value for a TCP flow of this profile.
    pub fn transport_label(self) -> &'static str {
        match self {
            TcpProfile::Linux6_1 => "tcp/linux-6.1",
            TcpProfile::Linux2_6_23 => "tcp/linux-2.6.23",
            TcpProfile::Linux2_4 => "tcp/linux-2.4",
            TcpProfile::Freebsd4_8 => "tcp/freebsd-4.8",
        }
    }

    /// The profile named `name`, if there is one.
    pub fn from_name(name: &str) -> Option<TcpProfile> {
        TcpProfile::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The TCP keys the profile sets, as a scenario would write them.
    pub fn keys(self) -> Map<String, Value> {
        let v = match self {
            TcpProfile::Linux6_1 => json!({
                "variant": "cubic", "mss": 1448, "initial_window": 10,
                "initial_rto": "1s", "min_rto": "200ms", "max_rto": "120s", "rto": "linux",
                "dupack_threshold": 3, "delayed_ack": true, "delayed_ack_timeout": "40ms",
                "rcv_buffer": 131072, "rcv_buffer_max": 6291456, "adv_win_scale": 1,
                "rcv_space_adjust": "linux-6.1",
                "snd_buffer": 16384, "snd_buffer_max": 4194304,
                "cwnd_validation": true, "ecn": false, "window_scaling": true,
                "sack": true, "timestamps": true, "paws": true, "hystart": true,
                "local_congestion": "cwr",
            }),
            TcpProfile::Linux2_6_23 => json!({
                "variant": "cubic", "mss": 1448, "initial_window": 3,
                "initial_rto": "3s", "min_rto": "200ms", "max_rto": "120s", "rto": "linux",
                "dupack_threshold": 3, "delayed_ack": true, "delayed_ack_timeout": "40ms",
                "rcv_buffer": 87380, "rcv_buffer_max": 4194304, "adv_win_scale": 2,
                "rcv_space_adjust": "linux-2.6.23",
                "cwnd_validation": true, "ecn": false, "window_scaling": true,
                "sack": true, "timestamps": true, "paws": true, "hystart": false,
                "local_congestion": "cwr",
            }),
            TcpProfile::Linux2_4 => json!({
                "variant": "newreno", "mss": 1448, "initial_window": 2,
                "initial_rto": "3s", "min_rto": "200ms", "max_rto": "120s", "rto": "linux",
                "dupack_threshold": 3, "delayed_ack": true, "delayed_ack_timeout": "40ms",
                "rcv_buffer": 87380, "adv_win_scale": 2,
                "cwnd_validation": true, "ecn": false, "window_scaling": true,
                "sack": true, "timestamps": true, "paws": true, "hystart": false,
                "local_congestion": "cwr",
            }),
            TcpProfile::Freebsd4_8 => json!({
                "variant": "newreno", "mss": 1448, "initial_window": 1,
                "initial_rto": "3s", "min_rto": "1s", "max_rto": "64s", "rto": "rfc6298",
                "dupack_threshold": 3, "delayed_ack": true, "delayed_ack_timeout": "100ms",
                "rcv_buffer": 65536,
                "cwnd_validation": false, "ecn": false, "window_scaling": true,
                "sack": false, "timestamps": true, "paws": true, "hystart": false,
                "local_congestion": "quench",
            }),
        };
        let Value::Object(mut m) = v else {
            unreachable!("a profile is a table")
        };
        for (k, on) in self.recovery() {
            m.insert(k.to_string(), Value::Bool(on));
        }
        m
    }

    /// RACK-TLP, PRR and F-RTO as the kernel ran them (keys `rack`, `tlp`, `prr`, `frto`).
    fn recovery(self) -> [(&'static str, bool); 4] {
        let modern = self == TcpProfile::Linux6_1;
        RECOVERY_KEYS.map(|k| (k, modern))
    }
}

/// Fills in a flow's TCP keys from its `transport.profile`, where the flow does not write
/// them. A `profile` that names no profile is left for the parser to report (with the names
/// it accepts); a transport that is not a table is left alone likewise.
pub fn apply(flow: &mut Value) {
    let Some(Value::Object(t)) = flow.get_mut("transport") else {
        return;
    };
    let Some(profile) = t
        .get("profile")
        .and_then(Value::as_str)
        .and_then(TcpProfile::from_name)
    else {
        return;
    };
    // Linux runs RACK and TLP only with SACK (`tcp_identify_packet_loss` falls back to
    // NewReno marking, `tcp_schedule_loss_probe` needs `tcp_is_sack`), and this model's PRR
    // and F-RTO live in RACK's recovery: a flow that writes `sack = false` keeps the rest of
    // the profile without them, as a Linux host with `tcp_sack = 0` would.
    let no_sack = t.get("sack") == Some(&Value::Bool(false));
    for (k, v) in profile.keys() {
        if no_sack && RECOVERY_KEYS.contains(&k.as_str()) {
            continue;
        }
        t.entry(k).or_insert(v);
    }
}

/// The keys of [`TcpProfile::recovery`].
const RECOVERY_KEYS: [&str; 4] = ["rack", "tlp", "prr", "frto"];

/// The profiles side by side as the markdown table of docs/tcp-profiles.md: one row per key,
/// one column per profile, values as a scenario writes them.
pub fn markdown_table() -> String {
    let tables: Vec<Map<String, Value>> = TcpProfile::ALL.iter().map(|p| p.keys()).collect();
    let mut keys: Vec<&String> = tables.iter().flat_map(|t| t.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut out = String::from("| key |");
    for p in TcpProfile::ALL {
        out += &format!(" `{}` |", p.name());
    }
    out += "\n| --- |";
    out += &" --- |".repeat(TcpProfile::ALL.len());
    out += "\n";
    for k in keys {
        out += &format!("| `{k}` |");
        for t in &tables {
            out += &match t.get(k) {
                Some(Value::String(s)) => format!(" \"{s}\" |"),
                Some(v) => format!(" {v} |"),
                None if k.starts_with("snd_buffer") => " (absent: not modelled) |".to_string(),
                None if k == "adv_win_scale" => " (absent: the buffer is the window) |".to_string(),
                None => " (absent: fixed buffer) |".to_string(),
            };
        }
        out += "\n";
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/tcp-profiles.md shows the table the core applies (regenerate it from this test's
    /// message when a profile changes).
    #[test]
    fn the_documented_table_is_the_one_applied() {
        let doc = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/tcp-profiles.md"),
        )
        .expect("docs/tcp-profiles.md");
        let table = markdown_table();
        assert!(
            doc.contains(&table),
            "docs/tcp-profiles.md must contain this table:\n{table}"
        );
    }

    #[test]
    fn names_round_trip_through_serde() {
        for p in TcpProfile::ALL {
            let v = serde_json::to_value(p).unwrap();
            assert_eq!(v, Value::String(p.name().into()));
            assert_eq!(TcpProfile::from_name(p.name()), Some(p));
        }
        assert_eq!(TcpProfile::from_name("linux-5.4"), None);
    }

    #[test]
    fn written_keys_win_over_the_profile() {
        let mut flow =
            json!({"transport": {"kind": "tcp", "profile": "linux-6.1", "min_rto": "1s"}});
        apply(&mut flow);
        let t = &flow["transport"];
        assert_eq!(t["min_rto"], "1s");
        assert_eq!(t["initial_window"], 10);
        assert_eq!(t["rack"], true);
        assert_eq!(t["frto"], true);
    }

    /// A Linux host with `tcp_sack = 0` runs neither RACK nor TLP.
    #[test]
    fn sack_off_leaves_out_the_recovery_that_needs_it() {
        let mut flow = json!({"transport": {"kind": "tcp", "profile": "linux-6.1", "sack": false}});
        apply(&mut flow);
        let t = flow["transport"].as_object().unwrap();
        assert!(RECOVERY_KEYS.iter().all(|k| !t.contains_key(*k)));
        assert_eq!(t["initial_window"], 10);
    }

    #[test]
    fn unknown_profiles_and_udp_are_left_for_the_parser() {
        let mut flow = json!({"transport": {"kind": "tcp", "profile": "linux-9"}});
        apply(&mut flow);
        assert_eq!(flow["transport"].as_object().unwrap().len(), 2);
        let mut udp = json!({"transport": {"kind": "udp"}});
        apply(&mut udp);
        assert_eq!(udp["transport"].as_object().unwrap().len(), 1);
    }

    /// The Linux profiles' windows are `tcp_win_from_space` of their `tcp_rmem`: 2.6.23 and
    /// 2.4 (`tcp_adv_win_scale` = 2) advertise 87 380 − 87 380/4 = 65 535 B at first, 6.1
    /// (scale 1) 131 072/2 = 65 536 B; FreeBSD's `recvspace` is the window itself.
    #[test]
    fn linux_profiles_advertise_tcp_win_from_space_of_tcp_rmem() {
        let window = |p: TcpProfile| {
            let mut flow = json!({"transport": {"kind": "tcp", "profile": p.name()}});
            apply(&mut flow);
            let crate::scenario::TransportSpec::Tcp(t) =
                serde_json::from_value(flow["transport"].clone()).unwrap()
            else {
                unreachable!("a TCP transport")
            };
            let win = |b: crate::conf::units::Bytes| match t.adv_win_scale {
                Some(s) => crate::transport::tcp::tcp_win_from_space(b.0 as u32, s),
                None => b.0 as u32,
            };
            (
                win(t.rcv_buffer),
                t.rcv_buffer_max.map(win),
                t.rcv_space_adjust,
            )
        };
        use crate::scenario::RcvSpaceAdjustKind::*;
        assert_eq!(
            window(TcpProfile::Linux2_6_23),
            (65_535, Some(3 << 20), Linux2_6_23)
        );
        assert_eq!(window(TcpProfile::Linux2_4), (65_535, None, Linux6_1));
        assert_eq!(
            window(TcpProfile::Linux6_1),
            (65_536, Some(3 << 20), Linux6_1)
        );
        assert_eq!(window(TcpProfile::Freebsd4_8), (65_536, None, Linux6_1));
    }
}
