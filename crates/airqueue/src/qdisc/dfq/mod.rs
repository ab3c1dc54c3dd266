//! `dfq`: Dynamic Fair Queuing (Shieh, Miao, Shieh and Hwang, seed 003), a gateway
//! scheduler for hybrid wired/wireless LANs, installed on the gateway's downlink (§3,
//! Fig. 2).
//!
//! The components of Fig. 3, as built here:
//!
//! - **Classifier**: one queue per destination host (its IP address), [`HostQueues`].
//! - **Server**: serves the host queues "by means of a round robin principle", one packet
//!   per turn.
//! - **RTT detector**: a node hook on the gateway ([`crate::qdisc::dfq::rtt_detector`]) reading the
//!   replies to the gateway's periodic pings; a host is **wireless** when its RTT (windowed
//!   minimum) exceeds `rtt_threshold`, **wired** otherwise. A host that never replied is
//!   *unclassified*: never dropped and not counted in either class (a real box knows
//!   nothing about it yet).
//! - **Monitor**: bytes the server shot per class, turned into the rates `B_wired` and
//!   `B_wireless` every `monitor_interval`.
//! - **Controller**: at each monitor report,
//!   `P_d = 1 − (B_wireless / B_wired) · (RTT_wireless / RTT_wired)`, clamped to
//!   `[0, p_max]` (§3), where a class's RTT is the mean RTT of its hosts that were served
//!   in the interval.
//! - **Dropper / Shooter**: each packet the server takes for a wired host is dropped with
//!   probability `P_d` (reason `aqm`), else sent; the server then moves on.
//!
//! Where the paper is silent (each choice is a parameter):
//!
//! - `monitor_interval` (default 500 ms): "at regular intervals". The monitor is evaluated
//!   at the first enqueue or dequeue at or after each boundary (a kernel timer's effect:
//!   `P_d` matters only when a packet is served), over the time since the last report.
//! - `rtt_threshold` (default 1 ms): between the paper's wired (300 µs) and wireless (3 ms)
//!   RTTs, near their geometric mean.
//! - `p_max` (default 1, the formula's own range): the clamp's upper end.
//! - **Idle class**: when no host of one class was served in the interval (no wireless
//!   traffic to protect, or no wired traffic to drop), `P_d = 0`; the formula would give 1
//!   (or divide by zero) and starve the wired hosts for nobody's benefit.
//! - **Probes**: ICMP packets (the detector's own pings) wait in a priority band served
//!   ahead of the host queues and are never dropped by the dropper ("for each packet of
//!   wired *connection*"): a probe that waited behind a host's backlog in this very queue
//!   would measure DFQ's queue, not the host's link, and a loaded wired host would look
//!   wireless (the paper's RTTs, 300 µs and 3 ms, are those of unloaded links). They are
//!   84 B per host per probe period.
//! - **Buffer**: `limit` packets shared by all host queues (default 1000, Linux's
//!   txqueuelen); when full, the head packet of the longest host queue is dropped
//!   (reason `overflow`), as Linux's `sfq` of the paper's era drops from its longest slot,
//!   so that the buffer does not become one host's.

use super::fifo_queue::PacketFifo;
use super::host_queues::HostQueues;
use super::peek_stash::PeekStash;
use super::{BuildCtx, Qdisc, QdiscCtx, Verdict};
use crate::engine::{SimRng, SimTime};
pub mod rtt_detector;

use crate::conf::{Duration, ScenarioError};
use crate::hook::NodeHook;
use crate::packet::{DropReason, PacketId, Protocol};
use rand::Rng;
use rtt_detector::{RttBoard, RttDetector, RttTable};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

/// Parameters of `dfq` (seed 003 §3; defaults where the paper is silent, see the module
/// documentation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DfqConf {
    /// Packets queued over all hosts; when full the longest host queue loses its head.
    /// Default 1000 (txqueuelen).
    #[serde(default = "super::pfifo::default_limit")]
    pub limit: u32,
    /// How often the monitor reports B_wired and B_wireless to the controller, which
    /// recomputes P_d. Default 500ms.
    #[serde(default = "default_monitor_interval")]
    pub monitor_interval: Duration,
    /// A host whose measured RTT exceeds this is wireless. Default 1ms (the paper: wired
    /// 300 µs, wireless 3 ms).
    #[serde(default = "default_rtt_threshold")]
    pub rtt_threshold: Duration,
    /// The RTT detector keeps each host's minimum RTT over this window. Default 10s.
    #[serde(default = "default_rtt_window")]
    pub rtt_window: Duration,
    /// Upper end of the drop probability. Default 1.
    #[serde(default = "default_p_max")]
    pub p_max: f64,
}

fn default_monitor_interval() -> Duration {
    Duration(SimTime::from_millis(500))
}
fn default_rtt_threshold() -> Duration {
    Duration(SimTime::from_millis(1))
}
fn default_rtt_window() -> Duration {
    Duration(SimTime::from_secs(10))
}
fn default_p_max() -> f64 {
    1.0
}

/// What the detector says a host is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum HostKind {
    /// No probe reply yet.
    #[default]
    Unknown,
    Wired,
    Wireless,
}

/// Per host: its class, its RTT and the bytes shot to it since the last report.
#[derive(Copy, Clone, Debug, Default)]
struct HostState {
    kind: HostKind,
    rtt: SimTime,
    shot: u64,
}

/// One monitor report: the class rates and RTTs the controller used.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct MonitorReport {
    pub b_wired_bps: f64,
    pub b_wireless_bps: f64,
    pub rtt_wired: f64,
    pub rtt_wireless: f64,
    pub p_d: f64,
}

/// The controller's rule (§3): `P_d = 1 − (B_wireless/B_wired)·(RTT_wireless/RTT_wired)`
/// clamped to `[0, p_max]`; 0 when a class is idle (no rate or no RTT).
pub fn drop_probability(
    b_wired: f64,
    b_wireless: f64,
    rtt_wired: f64,
    rtt_wireless: f64,
    p_max: f64,
) -> f64 {
    if b_wired <= 0.0 || b_wireless <= 0.0 || rtt_wired <= 0.0 || rtt_wireless <= 0.0 {
        return 0.0;
    }
    (1.0 - (b_wireless / b_wired) * (rtt_wireless / rtt_wired)).clamp(0.0, p_max)
}

pub struct Dfq {
    conf: DfqConf,
    queues: HostQueues,
    /// The priority band of ICMP probes and its bytes.
    probes: PacketFifo,
    probe_bytes: u64,
    state: Vec<HostState>,
    board: RttBoard,
    stash: PeekStash,
    rng: SimRng,
    /// The current drop probability for wired hosts' packets.
    p_d: f64,
    last_report: SimTime,
    next_report: SimTime,
    /// The last report (for tests and inspection).
    pub report: MonitorReport,
    /// Packets the dropper dropped.
    pub dropped: u64,
}

impl Dfq {
    pub fn from_conf(c: &DfqConf, b: &BuildCtx, errs: &mut ScenarioError) -> Option<Self> {
        let before = errs.problems.len();
        if c.limit == 0 {
            errs.push(format!("{}.limit", b.path), "must be at least 1 packet");
        }
        if c.monitor_interval.time() == SimTime::ZERO {
            errs.push(
                format!("{}.monitor_interval", b.path),
                "must be positive; write e.g. \"500ms\"",
            );
        }
        if !(0.0..=1.0).contains(&c.p_max) {
            errs.push(
                format!("{}.p_max", b.path),
                format!("{} is not a probability; give a value in [0, 1]", c.p_max),
            );
        }
        if errs.problems.len() > before {
            return None;
        }
        Some(Dfq {
            conf: c.clone(),
            queues: HostQueues::default(),
            probes: PacketFifo::default(),
            probe_bytes: 0,
            state: Vec::new(),
            board: Arc::new(Mutex::new(RttTable::new(c.rtt_window.time()))),
            stash: PeekStash::default(),
            rng: b.rng("dropper"),
            p_d: 0.0,
            last_report: SimTime::ZERO,
            next_report: c.monitor_interval.time(),
            report: MonitorReport::default(),
            dropped: 0,
        })
    }

    /// The current drop probability.
    pub fn p_d(&self) -> f64 {
        self.p_d
    }

    /// The board the RTT detector writes (tests feed it directly).
    pub fn board(&self) -> &RttBoard {
        &self.board
    }

    /// The monitor reports if a boundary has passed: class rates over the time since the
    /// last report, the hosts' classes and RTTs from the detector, then the controller's
    /// new `P_d`.
    fn monitor(&mut self, now: SimTime) {
        if now < self.next_report {
            return;
        }
        let span = now.saturating_sub(self.last_report).as_secs_f64();
        let table = self.board.lock().expect("the RTT board is never poisoned");
        let (mut bytes, mut rtt_sum, mut n) = ([0u64; 2], [0.0f64; 2], [0u32; 2]);
        for (h, s) in self.state.iter_mut().enumerate() {
            if let Some(r) = table.get(self.queues.hosts[h].addr) {
                s.rtt = r.min;
                s.kind = if r.min > self.conf.rtt_threshold.time() {
                    HostKind::Wireless
                } else {
                    HostKind::Wired
                };
            }
            let c = match s.kind {
                HostKind::Unknown => None,
                HostKind::Wired => Some(0),
                HostKind::Wireless => Some(1),
            };
            if let (Some(c), true) = (c, s.shot > 0) {
                bytes[c] += s.shot;
                rtt_sum[c] += s.rtt.as_secs_f64();
                n[c] += 1;
            }
            s.shot = 0;
        }
        drop(table);
        let rate = |c: usize| bytes[c] as f64 * 8.0 / span.max(1e-9);
        let rtt = |c: usize| {
            if n[c] == 0 {
                0.0
            } else {
                rtt_sum[c] / n[c] as f64
            }
        };
        self.p_d = drop_probability(rate(0), rate(1), rtt(0), rtt(1), self.conf.p_max);
        self.report = MonitorReport {
            b_wired_bps: rate(0),
            b_wireless_bps: rate(1),
            rtt_wired: rtt(0),
            rtt_wireless: rtt(1),
            p_d: self.p_d,
        };
        self.last_report = now;
        self.next_report = now + self.conf.monitor_interval.time();
    }

    /// The server: round robin over the backlogged hosts, one packet a turn; a wired
    /// host's packet goes to the dropper with probability `P_d`.
    fn serve(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(p) = self.probes.pop_front() {
            self.probe_bytes -= ctx.len_of(p) as u64;
            return Some(p);
        }
        loop {
            let &h = self.queues.active.front()?;
            let p = self.queues.pop(h, |p| ctx.len_of(p))?;
            if !self.queues.retire_if_empty(h) {
                self.queues.active.rotate_left(1);
            }
            let len = ctx.len_of(p) as u64;
            let pk = ctx.packets.get(p);
            let droppable =
                self.state[h].kind == HostKind::Wired && pk.tuple.protocol != Protocol::Icmp;
            if droppable && self.p_d > 0.0 && self.rng.random::<f64>() < self.p_d {
                ctx.drop_packet(p, DropReason::Aqm);
                self.dropped += 1;
                continue;
            }
            self.state[h].shot += len;
            return Some(p);
        }
    }
}

impl Qdisc for Dfq {
    fn kind(&self) -> &'static str {
        "dfq"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        self.monitor(ctx.now);
        let (addr, proto) = {
            let p = ctx.packets.get(pkt);
            (p.tuple.dst_addr, p.tuple.protocol)
        };
        if proto == Protocol::Icmp {
            if self.len() >= self.conf.limit as usize && self.queues.len == 0 {
                ctx.drop_packet(pkt, DropReason::QdiscOverflow);
                return Verdict::Dropped;
            }
            self.probes.push_back(pkt);
            self.probe_bytes += ctx.len_of(pkt) as u64;
            if self.len() <= self.conf.limit as usize {
                return Verdict::Queued;
            }
            let fat = self.queues.fattest().expect("host packets are queued");
            let victim = self
                .queues
                .pop_anywhere(fat, |p| ctx.len_of(p))
                .expect("fattest");
            ctx.drop_packet(victim, DropReason::QdiscOverflow);
            return Verdict::Congested;
        }
        let h = self.queues.host(addr);
        if h == self.state.len() {
            self.state.push(HostState::default());
        }
        self.queues.push(h, pkt, ctx.len_of(pkt));
        if self.len() <= self.conf.limit as usize {
            return Verdict::Queued;
        }
        let fat = self.queues.fattest().expect("a packet was just queued");
        let victim = self
            .queues
            .pop_anywhere(fat, |p| ctx.len_of(p))
            .expect("the fattest host has a packet");
        ctx.drop_packet(victim, DropReason::QdiscOverflow);
        if victim == pkt {
            Verdict::Dropped
        } else {
            Verdict::Congested
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(p) = self.stash.take(ctx.member) {
            return Some(p);
        }
        self.monitor(ctx.now);
        self.serve(ctx)
    }

    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(p) = self.stash.peeked(ctx.member) {
            return Some(p);
        }
        self.monitor(ctx.now);
        let p = self.serve(ctx);
        let member = ctx.member;
        self.stash.keep(member, p, |p| ctx.len_of(p))
    }

    fn len(&self) -> usize {
        self.queues.len + self.probes.len() + self.stash.len()
    }

    fn backlog_bytes(&self) -> u64 {
        self.queues.bytes + self.probe_bytes + self.stash.bytes()
    }

    /// The RTT detector on the gateway, sharing this discipline's board.
    fn node_hook(&self, node: &str, node_addr: u32, _iface: u32) -> Option<Box<dyn NodeHook>> {
        Some(Box::new(RttDetector::new(
            format!("dfq-rtt-detector:{node}"),
            node_addr,
            self.board.clone(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::super::classify::NameTable;
    use super::super::testing::Harness;
    use super::*;
    use crate::qdisc::QdiscConf;

    fn dfq(h: &Harness, extra: &str) -> Dfq {
        let conf: QdiscConf = toml::from_str(&format!("kind = \"dfq\"\n{extra}")).unwrap();
        let QdiscConf::Dfq(c) = conf else { panic!() };
        let names = NameTable::default();
        Dfq::from_conf(&c, &h.build_ctx(&names), &mut ScenarioError::default()).unwrap()
    }

    fn to_host(h: &mut Harness, host: u32, size: u32) -> PacketId {
        h.packet_with(host, size, |p| p.tuple.dst_addr = host)
    }

    #[test]
    fn the_controller_follows_the_formula_of_section_3() {
        // Reference: seed 003 §3, P_d = 1 − (B_wl/B_wd)·(RTT_wl/RTT_wd), clamped.
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        // 90 Mb/s wired, 0.5 Mb/s wireless, RTT 300 µs vs 3 ms: 1 − (0.5/90)·10.
        assert!(close(
            drop_probability(90e6, 0.5e6, 300e-6, 3e-3, 1.0),
            1.0 - 0.5 / 90.0 * 10.0
        ));
        // At the RTT-proportional share (B_wd/B_wl = RTT_wl/RTT_wd) nothing is dropped.
        assert!(close(drop_probability(40e6, 4e6, 300e-6, 3e-3, 1.0), 0.0));
        // Beyond it (wireless above its share) the formula is negative: clamped to 0.
        assert!(close(drop_probability(20e6, 4e6, 300e-6, 3e-3, 1.0), 0.0));
        // Clamped to p_max.
        assert!(close(drop_probability(90e6, 0.1e6, 300e-6, 3e-3, 0.3), 0.3));
        // Idle classes: no drops.
        assert_eq!(drop_probability(90e6, 0.0, 300e-6, 3e-3, 1.0), 0.0);
        assert_eq!(drop_probability(0.0, 1e6, 300e-6, 3e-3, 1.0), 0.0);
    }

    /// Offers `wired` packets to host 1 and `wireless` to host 2 (1000 B), drains the
    /// queue 1 µs a packet, and leaves the clock at the end of a 100 ms interval. Returns
    /// the packets served per host.
    fn interval(h: &mut Harness, q: &mut Dfq, wired: u32, wireless: u32) -> [u32; 3] {
        let start = h.now;
        for i in 0..(wired + wireless) {
            let p = to_host(h, if i < wired { 1 } else { 2 }, 1000);
            h.enqueue(q, p);
        }
        let mut served = [0u32; 3];
        let mut steps = 0;
        while let Some(p) = h.dequeue(q) {
            served[h.packets.get(p).tuple.dst_addr as usize] += 1;
            steps += 1;
            h.now = start + SimTime::from_micros(steps);
        }
        h.now = start + SimTime::from_millis(100);
        served
    }

    #[test]
    fn the_monitor_reports_measured_rates_and_the_controller_follows_them() {
        // Reference: seed 003 §3 with constructed traffic. Host 1 (wired, RTT 300 µs from
        // the detector's board) is served 95 packets of 1000 B and host 2 (wireless, 3 ms)
        // 5 in a 100 ms interval: B_wd = 7.6 Mb/s, B_wl = 0.4 Mb/s, and the controller
        // sets P_d = 1 − (0.4/7.6)·10 = 0.4737. With 90 and 10 the formula is negative:
        // P_d = 0.
        let mut h = Harness::new();
        let mut q = dfq(&h, "monitor_interval = \"100ms\"\nlimit = 100000");
        {
            let mut b = q.board().lock().unwrap();
            b.record(1, SimTime::from_micros(300), SimTime::ZERO);
            b.record(2, SimTime::from_millis(3), SimTime::ZERO);
        }
        interval(&mut h, &mut q, 95, 5);
        assert_eq!(q.p_d(), 0.0);
        interval(&mut h, &mut q, 0, 0);
        let r = q.report;
        println!("{r:?}");
        assert!((r.b_wired_bps - 7.6e6).abs() < 1.0, "{r:?}");
        assert!((r.b_wireless_bps - 0.4e6).abs() < 1.0, "{r:?}");
        assert!((r.rtt_wired - 300e-6).abs() < 1e-12 && (r.rtt_wireless - 3e-3).abs() < 1e-12);
        assert!((q.p_d() - (1.0 - 0.4 / 7.6 * 10.0)).abs() < 1e-9);
        // The next interval is idle: P_d falls to 0 (no class active).
        interval(&mut h, &mut q, 0, 0);
        interval(&mut h, &mut q, 0, 0);
        assert_eq!(q.p_d(), 0.0);
        interval(&mut h, &mut q, 90, 10);
        interval(&mut h, &mut q, 0, 0);
        assert_eq!(q.p_d(), 0.0, "{:?}", q.report);
    }

    #[test]
    fn the_dropper_drops_wired_packets_with_probability_p_d_and_spares_wireless_ones() {
        // Reference: Bernoulli drops at P_d (3 σ of the binomial); wireless hosts and ICMP
        // probes are never dropped (module documentation).
        let mut h = Harness::new();
        let mut q = dfq(&h, "monitor_interval = \"1000s\"\nlimit = 100000");
        {
            let mut b = q.board().lock().unwrap();
            b.record(1, SimTime::from_micros(300), SimTime::ZERO);
            b.record(2, SimTime::from_millis(3), SimTime::ZERO);
        }
        interval(&mut h, &mut q, 1, 1);
        q.next_report = SimTime::ZERO;
        q.monitor(h.now); // classifies hosts 1 and 2
        q.next_report = SimTime::MAX;
        q.p_d = 0.4;
        let (mut wired, mut wireless) = (0u32, 0u32);
        for _ in 0..50 {
            let s = interval(&mut h, &mut q, 100, 10);
            wired += s[1];
            wireless += s[2];
        }
        let probe = h.packet_with(9, 84, |p| {
            p.tuple.dst_addr = 1;
            p.tuple.protocol = Protocol::Icmp;
        });
        let data = to_host(&mut h, 1, 1000);
        h.enqueue(&mut q, data);
        h.enqueue(&mut q, probe);
        assert_eq!(h.dequeue(&mut q), Some(probe), "probes go first");
        h.dequeue(&mut q);
        let n = 5000.0;
        let frac = 1.0 - wired as f64 / n;
        let sigma = (0.4 * 0.6 / n).sqrt();
        println!(
            "dropped {frac:.4} of wired packets, want 0.4 ± {:.4}",
            3.0 * sigma
        );
        assert!((frac - 0.4).abs() < 3.0 * sigma);
        assert_eq!(wireless, 500);
        assert_eq!(q.dropped, 5000 - wired as u64);
    }

    #[test]
    fn the_server_is_round_robin_over_hosts_and_overflow_drops_from_the_longest() {
        // Reference: seed 003 §3 ("the Server takes packet from each queue by means of a
        // round robin principle"); overflow as Linux sfq (longest queue loses).
        let mut h = Harness::new();
        let mut q = dfq(&h, "limit = 6");
        for host in [1, 1, 1, 1, 2, 3] {
            let p = to_host(&mut h, host, 500);
            assert_eq!(h.enqueue(&mut q, p), Verdict::Queued);
        }
        let p = to_host(&mut h, 3, 500);
        assert_eq!(h.enqueue(&mut q, p), Verdict::Congested);
        assert_eq!(h.dropped().len(), 1);
        let mut order = Vec::new();
        while let Some(p) = h.dequeue(&mut q) {
            order.push(h.packets.get(p).tuple.dst_addr);
        }
        assert_eq!(order, [1, 2, 3, 1, 3, 1]);
        assert_eq!((q.len(), q.backlog_bytes()), (0, 0));
    }
}
