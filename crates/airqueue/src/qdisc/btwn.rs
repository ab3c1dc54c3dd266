//! `btwn`: BoTh-WiN, "BlueTooth and WlaN Both Win" (Yip & Kwok, seed 000 §3.1,
//! Algorithms 1–2, Fig. 5): one qdisc on the IMQ-like virtual device in front of a
//! Bluetooth and a WLAN interface, with dynamic priorities between the two.
//!
//! # Enqueue (Algorithm 1)
//!
//! Per-flow FIFOs with jiffies-based virtual times, voice and video flows given lower
//! virtual times ([`super::jiffy_flows`]). A packet that leaves by neither configured
//! interface is dropped (`policy`): BoTh-WiN knows only these two.
//!
//! # Dequeue (Algorithm 2)
//!
//! 1. **Interference** (lines 4–7): if either interface's interference count exceeds
//!    `threshold` (3: "three consecutive samples … lower than the MA" confirm it, so the
//!    fourth triggers), BoTh-WiN does "a *no dequeue* for one packet time at the IMQ
//!    interface … no transmission for both Bluetooth and WLAN at the same time". One packet
//!    time is the transmission time of the packet that would have gone, at its interface's
//!    PHY rate (the link view; the device rate without one). *Choice*: the count that
//!    triggered is then cleared (the interference is handled); taken literally, lines 4–7
//!    return NULL before the rate update of lines 30–41 and would never dequeue again.
//! 2. Each side's candidate is its backlogged flow with the lowest `vt` (lines 8–10). If one
//!    side has none, the other is served (lines 11–16).
//! 3. **Two of three** (lines 17–28), both sides backlogged: Bluetooth is served if two or
//!    more of these hold, else WLAN:
//!    1. bandwidth balancing: WLAN rate ≥ `ratio` (10) × Bluetooth rate (§3.1: 700 vs
//!       70 kB/s alone);
//!    2. round-robin balancing: WLAN was served last (the text, §3.1: "the WLAN interface
//!       got service last time"; Algorithm 1 stamps `lastdeq` at enqueue, which would
//!       make it "WLAN received last" — the text's reading is kept);
//!    3. interference consideration: WLAN's interference count > Bluetooth's.
//! 4. The served flow's `vt += len/100`; then **rate update** of both interfaces (lines
//!    30–41): "not so frequent" sampling, *choice*: a sample when `sample_period` (100 ms,
//!    ten jiffies) has passed since the last one, rate = bytes dequeued for that interface
//!    / time since the last sample; the moving average is the mean of the last
//!    `ma_window` (10, one second) samples including this one. A sample below it
//!    increments the interface's interference count, one at or above it resets the count
//!    to 0.
//!
//! **On the virtual device** the member interfaces pull (see `qdisc`). When a member asks
//! and the rule chooses the other side: if that interface is idle (its driver reports an
//! empty hardware queue towards the packet's next hop, [`crate::link::LinkView::hw_backlog`]),
//! the asker gets nothing and the other side takes its packet in the same round (the
//! simulator asks the idle members again after every dequeue), after which the asker is
//! asked again; if the other interface is busy, the asker is served. This is what Linux
//! IMQ does: its dequeue hands the chosen packet to the other interface's own queue at
//! once and the next dequeue serves the asker, so the rule orders packets but never holds
//! one interface idle behind the other's transmission. On a real interface (both sides'
//! packets on one device, as in the unit tests) the rule picks the packet directly, and
//! so it does on a virtual device in IMQ mode (`dequeue = "imq"`, the kernel's IMQ:
//! imq0 is dequeued for no member, each packet re-injected into its interface's own
//! queue); there the "no dequeue for one packet time" stops imq0's single dequeue path —
//! both interfaces' packets wait at imq0 — while the radios keep sending what their own
//! queues hold.

use super::jiffy_flows::JiffyFlows;
use super::{BuildCtx, Qdisc, QdiscCtx, Verdict};
use crate::conf::{Duration, ScenarioError};
use crate::engine::SimTime;
use crate::packet::{DropReason, PacketId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Most samples the moving average may span.
const MAX_WINDOW: usize = 64;

/// Parameters of `btwn` (BoTh-WiN).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BtwnConf {
    /// The Bluetooth interface, `<node>.<link>` (e.g. `nap.bt`).
    pub bluetooth: String,
    /// The WLAN interface, `<node>.<link>` (e.g. `nap.wlan`).
    pub wlan: String,
    /// Rate sampling period. Default 100 ms.
    #[serde(default = "default_period")]
    pub sample_period: Duration,
    /// Samples in the moving average, 1 to 64. Default 10.
    #[serde(default = "default_window")]
    pub ma_window: u32,
    /// Interference is confirmed when a count exceeds this. Default 3.
    #[serde(default = "default_threshold")]
    pub threshold: u32,
    /// Bandwidth-balancing ratio WLAN / Bluetooth. Default 10.
    #[serde(default = "default_ratio")]
    pub ratio: u32,
    /// Packets the qdisc may hold. Default 1000.
    #[serde(default = "super::stfq::default_limit")]
    #[schemars(range(min = 1))]
    pub limit: u32,
}

fn default_period() -> Duration {
    Duration(SimTime::from_millis(100))
}
fn default_window() -> u32 {
    10
}
fn default_threshold() -> u32 {
    3
}
fn default_ratio() -> u32 {
    10
}

const BT: usize = 0;
const WLAN: usize = 1;

/// One interface's rate measurement (`struct btwn_flow_data flowtype[2]`).
struct Side {
    iface: u32,
    /// Bytes dequeued since the last sample.
    bytes: u64,
    last_sample: SimTime,
    /// Last sampled rate, bytes/s.
    rate: u64,
    hist: [u64; MAX_WINDOW],
    n: usize,
    pos: usize,
    interference: u32,
    /// Dequeue sequence number of its last packet (0: never).
    lastdeq: u64,
}

impl Side {
    fn new(iface: u32) -> Self {
        Side {
            iface,
            bytes: 0,
            last_sample: SimTime::ZERO,
            rate: 0,
            hist: [0; MAX_WINDOW],
            n: 0,
            pos: 0,
            interference: 0,
            lastdeq: 0,
        }
    }

    /// `rate-update` and lines 32–41: a sample if the period has passed.
    fn rate_update(&mut self, now: SimTime, period: SimTime, window: usize) {
        let dt = now.saturating_sub(self.last_sample).as_nanos();
        if dt < period.as_nanos() {
            return;
        }
        self.rate = (self.bytes as u128 * 1_000_000_000 / dt as u128) as u64;
        self.bytes = 0;
        self.last_sample = now;
        self.hist[self.pos] = self.rate;
        self.pos = (self.pos + 1) % window;
        self.n = (self.n + 1).min(window);
        let ma = self.hist[..self.n].iter().sum::<u64>() as f64 / self.n as f64;
        if (self.rate as f64) < ma {
            self.interference += 1;
        } else {
            self.interference = 0;
        }
    }
}

pub struct Btwn {
    flows: JiffyFlows,
    sides: [Side; 2],
    period: SimTime,
    window: usize,
    threshold: u32,
    ratio: u64,
    /// No dequeue before this (the "one packet time").
    pause_until: SimTime,
    seq: u64,
}

impl Btwn {
    pub fn from_conf(c: &BtwnConf, b: &BuildCtx, errs: &mut ScenarioError) -> Btwn {
        let p = &b.path;
        let iface = |name: &str, key: &str, errs: &mut ScenarioError| match b
            .names
            .ifaces
            .iter()
            .position(|n| n == name)
        {
            Some(i) => i as u32,
            None => {
                errs.push(
                    format!("{p}.{key}"),
                    format!("\"{name}\" names no interface; give `<node>.<link>`, e.g. \"nap.bt\""),
                );
                u32::MAX
            }
        };
        let bt = iface(&c.bluetooth, "bluetooth", errs);
        let wlan = iface(&c.wlan, "wlan", errs);
        if bt == wlan && bt != u32::MAX {
            errs.push(
                format!("{p}.wlan"),
                "is the Bluetooth interface too; name two different interfaces",
            );
        }
        if c.sample_period.0 == SimTime::ZERO {
            errs.push(
                format!("{p}.sample_period"),
                "must be positive, e.g. \"100ms\"",
            );
        }
        if !(1..=MAX_WINDOW as u32).contains(&c.ma_window) {
            errs.push(format!("{p}.ma_window"), "must be 1 to 64 samples");
        }
        if c.limit == 0 {
            errs.push(format!("{p}.limit"), "must be at least 1 packet");
        }
        Btwn {
            flows: JiffyFlows::new(c.limit),
            sides: [Side::new(bt), Side::new(wlan)],
            period: c.sample_period.0,
            window: (c.ma_window as usize).clamp(1, MAX_WINDOW),
            threshold: c.threshold,
            ratio: c.ratio as u64,
            pause_until: SimTime::ZERO,
            seq: 0,
        }
    }

    fn side_of(&self, iface: u32) -> Option<usize> {
        self.sides.iter().position(|s| s.iface == iface)
    }

    /// The two-of-three rule (lines 18–28): true = serve Bluetooth.
    fn serve_bluetooth(&self) -> bool {
        let (bt, wl) = (&self.sides[BT], &self.sides[WLAN]);
        let balancing = wl.rate > 0 && wl.rate >= self.ratio * bt.rate;
        let round_robin = wl.lastdeq > bt.lastdeq;
        let interference = wl.interference > bt.interference;
        balancing as u8 + round_robin as u8 + interference as u8 >= 2
    }

    fn interfered(&self) -> bool {
        self.sides.iter().any(|s| s.interference > self.threshold)
    }

    /// The flow to serve for the asker (lines 8–29), without changing state.
    fn choose(&self, ctx: &QdiscCtx) -> Option<usize> {
        let cand = |s: usize| {
            let iface = self.sides[s].iface;
            self.flows.min_vt(|f| f.out == iface)
        };
        let (bt, wl) = (cand(BT), cand(WLAN));
        let j = match (bt, wl) {
            (Some(b), None) => b,
            (None, Some(w)) => w,
            (Some(b), Some(w)) => {
                if self.serve_bluetooth() {
                    b
                } else {
                    w
                }
            }
            (None, None) => return None,
        };
        let pkt = self.flows.head(j).0;
        if ctx.is_for_asker(pkt) {
            return Some(j);
        }
        // The rule chose the other interface. Linux IMQ would hand that packet to the
        // other interface's own queue at once and serve the asker at the next dequeue, so
        // the asker waits only if the other interface is idle now (it will take the
        // packet in this round, see the module docs).
        let asker = if j == bt.unwrap_or(usize::MAX) {
            wl
        } else {
            bt
        };
        let p = ctx.packets.get(pkt);
        let other_idle = ctx
            .link_of(p.out_iface, p.next_hop)
            .is_none_or(|v| v.hw_backlog == 0);
        if other_idle {
            None
        } else {
            asker.filter(|&a| ctx.is_for_asker(self.flows.head(a).0))
        }
    }

    /// One packet time for the packet that would go now (any side's candidate).
    fn packet_time(&self, ctx: &QdiscCtx) -> SimTime {
        let j = self
            .flows
            .min_vt(|f| self.side_of(f.out).is_some())
            .expect("called with packets queued");
        let (pkt, len) = self.flows.head(j);
        let p = ctx.packets.get(pkt);
        let rate = ctx
            .link_of(p.out_iface, p.next_hop)
            .map_or(ctx.dev.rate_bps, |v| v.rate_bps)
            .max(1);
        SimTime::transmission(len as u64, rate)
    }

    /// Samples both interfaces (lines 30–41).
    fn rate_update(&mut self, now: SimTime) {
        for s in &mut self.sides {
            s.rate_update(now, self.period, self.window);
        }
    }
}

impl Qdisc for Btwn {
    fn kind(&self) -> &'static str {
        "btwn"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        if self.side_of(ctx.packets.get(pkt).out_iface).is_none() {
            ctx.drop_packet(pkt, DropReason::Policy);
            return Verdict::Dropped;
        }
        match self.flows.enqueue(pkt, ctx) {
            Some(_) => Verdict::Queued,
            None => Verdict::Dropped,
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if ctx.now < self.pause_until || self.flows.qlen == 0 {
            return None;
        }
        if self.interfered() {
            self.pause_until = ctx.now + self.packet_time(ctx);
            for s in &mut self.sides {
                if s.interference > self.threshold {
                    s.interference = 0;
                }
            }
            return None;
        }
        let j = self.choose(ctx)?;
        let (pkt, len) = self.flows.pop(j, true);
        let side = self.side_of(self.flows.flows[j].out).expect("admitted");
        self.seq += 1;
        self.sides[side].lastdeq = self.seq;
        self.sides[side].bytes += len as u64;
        self.rate_update(ctx.now);
        Some(pkt)
    }

    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if ctx.now < self.pause_until || self.interfered() {
            return None;
        }
        self.choose(ctx).map(|j| self.flows.head(j).0)
    }

    fn serves_members(&self) -> bool {
        true
    }

    fn len(&self) -> usize {
        self.flows.qlen
    }

    fn backlog_bytes(&self) -> u64 {
        self.flows.backlog
    }

    fn next_wakeup(&self, now: SimTime) -> Option<SimTime> {
        (self.flows.qlen > 0 && self.pause_until > now).then_some(self.pause_until)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::classify::NameTable;
    use crate::qdisc::testing::Harness;
    use crate::qdisc::QdiscConf;

    /// Interfaces: 1 = nap.wlan, 2 = nap.bt.
    fn btwn(h: &Harness) -> Btwn {
        let names = NameTable {
            ifaces: vec!["nap.up".into(), "nap.wlan".into(), "nap.bt".into()],
            ..Default::default()
        };
        let c: QdiscConf =
            toml::from_str("kind = \"btwn\"\nbluetooth = \"nap.bt\"\nwlan = \"nap.wlan\"").unwrap();
        let QdiscConf::Btwn(c) = c else { panic!() };
        let mut errs = ScenarioError::default();
        let q = Btwn::from_conf(&c, &h.build_ctx(&names), &mut errs);
        assert!(errs.problems.is_empty(), "{errs:?}");
        q
    }

    fn fill(h: &mut Harness, q: &mut Btwn) {
        for _ in 0..10 {
            for (f, out) in [(0, 1), (1, 2)] {
                let p = h.member_packet(f, 1000, out);
                assert_eq!(h.enqueue(q, p), Verdict::Queued);
            }
        }
    }

    /// Reference: seed 000 Algorithm 2 lines 17–28 and §3.1 — with both interfaces
    /// backlogged, Bluetooth is served iff at least two of (WLAN rate ≥ 10 × Bluetooth
    /// rate; WLAN served last; WLAN's interference count > Bluetooth's) hold. All eight
    /// combinations, on constructed states.
    #[test]
    fn two_of_three_rule_picks_bluetooth_iff_two_conditions_hold() {
        for bits in 0..8u32 {
            let (c1, c2, c3) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
            let mut h = Harness::new();
            let mut q = btwn(&h);
            fill(&mut h, &mut q);
            q.sides[BT].rate = 70_000;
            q.sides[WLAN].rate = if c1 { 700_000 } else { 699_999 };
            (q.sides[WLAN].lastdeq, q.sides[BT].lastdeq) = if c2 { (2, 1) } else { (1, 2) };
            (q.sides[WLAN].interference, q.sides[BT].interference) =
                if c3 { (2, 1) } else { (1, 1) };
            q.seq = 2;
            let p = h.dequeue(&mut q).expect("work to do");
            let got_bt = h.packets.get(p).out_iface == 2;
            let want_bt = (c1 as u8 + c2 as u8 + c3 as u8) >= 2;
            assert_eq!(got_bt, want_bt, "conditions {c1} {c2} {c3}");
        }
    }

    /// Reference: seed 000 §3.1 — interference is confirmed when *three consecutive*
    /// samples of the rate lie below the moving average, and the count > 3 of line 4 then
    /// stops the dequeue for one packet time (both interfaces). Constructed samples 100 ms
    /// apart: five at 100 kB/s, then falling ones. After three below-average samples the
    /// qdisc still dequeues; after the fourth it returns nothing, until one packet time
    /// (1000 B at 10 Mbit/s = 800 µs) has passed; a sample at or above the average resets
    /// the count.
    #[test]
    fn no_dequeue_after_the_fourth_below_average_sample() {
        let mut h = Harness::new();
        let mut q = btwn(&h);
        fill(&mut h, &mut q);
        let mut t = 0u64;
        let mut sample = |q: &mut Btwn, bytes: u64| {
            t += 100;
            q.sides[WLAN].bytes = bytes;
            q.rate_update(SimTime::from_millis(t));
            SimTime::from_millis(t)
        };
        for _ in 0..5 {
            sample(&mut q, 10_000);
        }
        assert_eq!(q.sides[WLAN].interference, 0);
        // A rise resets; then three falls: still dequeuing.
        for (k, bytes) in [9_000u64, 8_000, 7_000].into_iter().enumerate() {
            let now = sample(&mut q, bytes);
            assert_eq!(q.sides[WLAN].interference, k as u32 + 1);
            h.now = now;
            assert!(h.peek(&mut q).is_some(), "refused after {} samples", k + 1);
        }
        let now = sample(&mut q, 6_000);
        assert_eq!(q.sides[WLAN].interference, 4);
        h.now = now;
        assert_eq!(h.dequeue(&mut q), None, "dequeued after the fourth");
        assert_eq!(q.next_wakeup(now), Some(now + SimTime::from_micros(800)));
        h.now = now + SimTime::from_micros(799);
        assert_eq!(h.dequeue(&mut q), None, "within the packet time");
        h.now = now + SimTime::from_micros(800);
        assert!(
            h.dequeue(&mut q).is_some(),
            "not resumed after one packet time"
        );
        // A sample at the average resets the count.
        let mut q2 = btwn(&h);
        for _ in 0..3 {
            t += 100;
            q2.sides[BT].bytes = 5_000;
            q2.rate_update(SimTime::from_millis(t));
        }
        assert_eq!(q2.sides[BT].interference, 0);
    }

    /// Reference: Algorithm 2 lines 11–16 — one side empty, the other is served whatever
    /// the rule says; and the dequeue-for-a-member contract: a member never gets the other
    /// member's packet; when the rule chooses the other side the asker waits.
    #[test]
    fn an_empty_side_never_blocks_the_other_and_members_get_only_their_packets() {
        let mut h = Harness::new();
        let mut q = btwn(&h);
        for _ in 0..3 {
            let p = h.member_packet(0, 1000, 1);
            h.enqueue(&mut q, p);
        }
        q.sides[WLAN].lastdeq = 5;
        q.sides[WLAN].rate = 1_000_000;
        q.seq = 5;
        assert!(h.dequeue_for(&mut q, 1).is_some(), "WLAN alone is served");
        let p = h.member_packet(1, 1000, 2);
        h.enqueue(&mut q, p);
        // Now both are backlogged and the rule (balancing + round robin) says Bluetooth.
        assert_eq!(
            h.dequeue_for(&mut q, 1),
            None,
            "WLAN must wait for Bluetooth"
        );
        assert_eq!(h.dequeue_for(&mut q, 2), Some(p));
        assert!(h.dequeue_for(&mut q, 1).is_some());
        // A packet for an interface BoTh-WiN does not know is refused.
        let stray = h.member_packet(2, 100, 0);
        assert_eq!(h.enqueue(&mut q, stray), Verdict::Dropped);
    }
}
