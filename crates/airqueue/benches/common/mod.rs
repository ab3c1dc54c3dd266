//! Scenarios shared by the whole-scenario benches (`scenario.rs`, `instructions.rs`).

pub const UDP_BOTTLENECK: &str = include_str!("../../../../scenarios/examples/udp-bottleneck.toml");
pub const DUMBBELL: &str = include_str!("../../../../scenarios/examples/dumbbell.toml");
/// Seed 001's piconet: 2 slaves, TCP NewReno through the master, 480 s (issue 13 target:
/// ≤ 0.1 s wall).
pub const PICONET_2: &str = include_str!("../../../../scenarios/bluetooth-tcp/piconet-2-ppl.toml");
/// Seed 001's scatternet: two piconets of one slave each joined by a walk-in bridge, TCP
/// both ways across it, 480 s.
pub const SCATTERNET_1: &str =
    include_str!("../../../../scenarios/bluetooth-tcp/scatternet-1-ppl.toml");
/// An 802.11b cell of 10 saturated stations (issue 12 target: `airqueue bench` ≥ 1 000×
/// real time) and of 100 (events per frame flat in n): 10 Mbit offered in all, 20 s.
pub const WIFI_SATURATED_10: &str =
    include_str!("../../../../scenarios/bench/wifi-saturated-10.toml");
pub const WIFI_SATURATED_100: &str =
    include_str!("../../../../scenarios/bench/wifi-saturated-100.toml");

/// The dumbbell with a Linux-like sender: CUBIC, SACK, timestamps, and with `rack` also
/// RACK-TLP, PRR and F-RTO (issue 38: the per-ACK cost of the RACK recovery, like for like).
pub fn dumbbell_linux(rack: bool) -> String {
    let old = "transport = { kind = \"tcp\", variant = \"newreno\", mss = 1448 }";
    let r = rack;
    let new = format!(
        "transport = {{ kind = \"tcp\", variant = \"cubic\", mss = 1448, sack = true, timestamps = true, rack = {r}, tlp = {r}, prr = {r}, frto = {r} }}"
    );
    let with = DUMBBELL.replace(old, &new);
    assert_ne!(with, DUMBBELL, "the dumbbell's transport line moved");
    with
}

/// The 10-station cell with SINR-based reception and capture (`capture = "sinr"`: the
/// per-station medium, every frame's chunks through the BER(SINR) curves).
pub fn wifi_capture() -> String {
    let with = WIFI_SATURATED_10.replace(
        "rate = \"11Mbit\"\n",
        "rate = \"11Mbit\"\ncapture = \"sinr\"\n",
    );
    assert_ne!(with, WIFI_SATURATED_10, "the cell's rate line moved");
    with
}

/// The saturated cell with `n` stations instead of 10, offering 10 Mbit in all (10/n Mbit
/// each): the station-count scaling of a cell's per-frame cost (issue 37 item 3).
pub fn wifi_saturated(n: u32) -> String {
    let mut text = WIFI_SATURATED_10.to_string();
    for (from, to) in [
        ("count = 10\n".to_string(), format!("count = {n}\n")),
        ("count = 10 }".to_string(), format!("count = {n} }}")),
        (
            "rate = \"1Mbit\" }".to_string(),
            format!("rate = \"{}kbit\" }}", 10_000 / n),
        ),
    ] {
        assert!(
            text.contains(&from),
            "wifi-saturated-10.toml changed: {from}"
        );
        text = text.replace(&from, &to);
    }
    text
}

/// The dumbbell with every rate scaled up: `airqueue bench … --set
/// links.bottleneck.rate=1Gbit --set links.access.rate=10Gbit --set
/// qdiscs.router.bottleneck.limit=1000 --set flows.bulk.transport.rcv_buffer=8MiB`, with
/// `flows` bulk flows (`--set flows.bulk.count=…`; the shipped file has 10).
pub fn dumbbell_1gbit(flows: u32) -> String {
    let count = format!("count = {flows} ");
    let edits = [
        ("duration = \"60s\"", "duration = \"10s\""),
        ("rate = \"100Mbit\"", "rate = \"10Gbit\""),
        ("rate = \"10Mbit\"", "rate = \"1Gbit\""),
        ("limit = 100\n", "limit = 1000\n"),
        ("mss = 1448 }", "mss = 1448, rcv_buffer = \"8MiB\" }"),
        ("count = 10 ", &count),
    ];
    let mut text = DUMBBELL.to_string();
    for (from, to) in edits {
        assert_eq!(
            text.matches(from).count(),
            1,
            "dumbbell.toml changed: {from}"
        );
        text = text.replace(from, to);
    }
    text
}

/// 50 flows from `src` to `dst` over src —1G— r0 —100M— r1 —100M— r2 —1G— dst.
/// 25 CBR flows at 2.4 Mbit and 25 Poisson flows at 2.4 Mbit offer 120 Mbit to a 100 Mbit
/// core, so r0's 1000-packet pfifo fills and tail-drops, as in a loaded network.
pub const CHAIN_50_FLOWS: &str = r#"
description = "Benchmark: 50 UDP flows through a 3-router chain with a 100 Mbit core."

[run]
duration = "10s"
warmup = "1s"
seed = 1
sample_interval = "100ms"

[[nodes]]
name = "src"
[[nodes]]
name = "r{i}"
count = 3
kind = "router"
[[nodes]]
name = "dst"

[[links]]
name = "edge_in"
between = ["src", "r0"]
rate = "1Gbit"
delay = "100us"

[[links]]
name = "core0"
between = ["r0", "r1"]
rate = "100Mbit"
delay = "5ms"

[[links]]
name = "core1"
between = ["r1", "r2"]
rate = "100Mbit"
delay = "5ms"

[[links]]
name = "edge_out"
between = ["r2", "dst"]
rate = "1Gbit"
delay = "100us"

[[qdiscs]]
dev = "r0.core0"
kind = "pfifo"
limit = 1000

[[flows]]
name = "cbr{i}"
count = 25
from = "src"
to = "dst"
start_spacing = "1ms"
app = { kind = "cbr", size = 1172, rate = "2.4Mbit" }

[[flows]]
name = "poisson{i}"
count = 25
from = "src"
to = "dst"
start = "500us"
start_spacing = "1ms"
app = { kind = "poisson", size = 972, rate = "2.4Mbit" }
"#;

/// Every bench scenario by name, as the benches report it.
pub fn all() -> Vec<(&'static str, String)> {
    vec![
        ("udp_bottleneck", UDP_BOTTLENECK.to_string()),
        ("chain_50_flows", CHAIN_50_FLOWS.to_string()),
        ("tcp_dumbbell", DUMBBELL.to_string()),
        ("tcp_dumbbell_1gbit", dumbbell_1gbit(10)),
        ("tcp_dumbbell_sack", dumbbell_linux(false)),
        ("tcp_dumbbell_rack", dumbbell_linux(true)),
        ("tcp_dumbbell_1gbit_1000_flows", dumbbell_1gbit(1000)),
        ("bluetooth_piconet_2", PICONET_2.to_string()),
        ("bluetooth_scatternet_1", SCATTERNET_1.to_string()),
        ("wifi_saturated_10", WIFI_SATURATED_10.to_string()),
        ("wifi_saturated_10_capture", wifi_capture()),
        ("wifi_saturated_5", wifi_saturated(5)),
        ("wifi_saturated_20", wifi_saturated(20)),
        ("wifi_saturated_50", wifi_saturated(50)),
        ("wifi_saturated_100", WIFI_SATURATED_100.to_string()),
    ]
}
