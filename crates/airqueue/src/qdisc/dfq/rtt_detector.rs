//! DFQ's RTT detector (seed 003 §3, Fig. 3): "it sends broadcast ping as a probe
//! periodically. Every host in this LAN will reply with a ping acknowledgment. RTT
//! detector can distinguish between wired and wireless links by the collected RTT."
//!
//! The probes are ICMP echo requests the gateway itself sends (the scenario's `ping` flows
//! from the gateway to the LAN's hosts: one request per host per period is what a
//! broadcast ping elicits, one reply from each host). This hook sits on the gateway's
//! receive path and reads every echo reply addressed to the gateway: the reply carries the
//! request's send time in its data (as `ping` puts a timestamp there), so the round trip is
//! the arrival time minus that stamp — what a real detector measures, queueing on the way
//! included. It passes every packet on untouched.
//!
//! Each host's samples go into an [`RttBoard`] that the `dfq` qdisc on the same node
//! reads. A host's RTT is the **minimum over a window** (`rtt_window`, default 10 s, as
//! BBR's min-RTT filter, RFC 9002's min_rtt): the paper does not say how samples are
//! combined; its RTTs (wired 300 µs, wireless 3 ms, §2) are those of an unloaded path, and
//! a probe that waited behind a full queue measures the queue, not the link. A minimum
//! older than the window is replaced by the next sample, so a host that moved is
//! re-learned.

use crate::engine::SimTime;
use crate::hook::{HookCtx, HookVerdict, NodeHook};
use crate::packet::{PacketId, Protocol, ICMP_ECHO_REPLY};
use crate::topology::IfaceId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One host's filtered RTT.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HostRtt {
    /// The minimum RTT of the current window.
    pub min: SimTime,
    /// When that minimum was measured.
    pub at: SimTime,
    /// Replies heard from the host.
    pub samples: u64,
}

/// The RTTs the detector learned, by host address, shared with the qdisc.
#[derive(Debug, Default)]
pub struct RttTable {
    window: SimTime,
    hosts: HashMap<u32, HostRtt>,
}

impl RttTable {
    pub fn new(window: SimTime) -> Self {
        RttTable {
            window,
            hosts: HashMap::new(),
        }
    }

    /// Records a round trip of `rtt` to host `addr` measured at `now`: it becomes the
    /// host's RTT if it is no larger than the current minimum or that minimum is older
    /// than the window.
    pub fn record(&mut self, addr: u32, rtt: SimTime, now: SimTime) {
        let window = self.window;
        let e = self.hosts.entry(addr).or_insert(HostRtt {
            min: rtt,
            at: now,
            samples: 0,
        });
        e.samples += 1;
        if rtt <= e.min || now.saturating_sub(e.at) > window {
            e.min = rtt;
            e.at = now;
        }
    }

    /// Host `addr`'s RTT, if it ever replied.
    pub fn get(&self, addr: u32) -> Option<HostRtt> {
        self.hosts.get(&addr).copied()
    }
}

/// The table as the qdisc and the hook share it.
pub type RttBoard = Arc<Mutex<RttTable>>;

/// The detector hook on the gateway node (see the module documentation).
pub struct RttDetector {
    name: String,
    /// The gateway's own address: replies to it are its probes' answers.
    addr: u32,
    board: RttBoard,
}

impl RttDetector {
    pub fn new(name: String, addr: u32, board: RttBoard) -> Self {
        RttDetector { name, addr, board }
    }
}

impl NodeHook for RttDetector {
    fn name(&self) -> &str {
        &self.name
    }

    fn on_arrival(&mut self, pkt: PacketId, _iface: IfaceId, cx: &mut HookCtx<'_>) -> HookVerdict {
        let p = cx.packets.get(pkt);
        if p.tuple.protocol == Protocol::Icmp
            && p.icmp_type == ICMP_ECHO_REPLY
            && p.tuple.dst_addr == self.addr
        {
            let rtt = cx.now.saturating_sub(p.created);
            let host = p.tuple.src_addr;
            self.board
                .lock()
                .expect("the RTT board is never poisoned")
                .record(host, rtt, cx.now);
        }
        HookVerdict::Pass
    }

    fn held(&self) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_windowed_minimum_keeps_the_unloaded_rtt_and_forgets_it_after_the_window() {
        // Reference: a windowed-minimum filter (RFC 9002 §5.2 min_rtt, BBR's 10 s window).
        let ms = SimTime::from_millis;
        let mut t = RttTable::new(SimTime::from_secs(10));
        t.record(7, ms(3), ms(0));
        t.record(7, ms(40), ms(1000)); // a probe that queued
        assert_eq!(t.get(7).unwrap().min, ms(3));
        t.record(7, ms(2), ms(2000));
        assert_eq!(t.get(7).unwrap().min, ms(2));
        // 10 s after the minimum was measured, the next sample replaces it.
        t.record(7, ms(5), ms(12_001));
        assert_eq!(t.get(7).unwrap().min, ms(5));
        assert_eq!(t.get(7).unwrap().samples, 4);
        assert_eq!(t.get(8), None);
    }
}
