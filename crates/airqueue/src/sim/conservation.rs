//! Packet conservation: sent = delivered + dropped + in flight, checked at the end of
//! every run, with the place named when a packet went missing.
//!
//! "In flight" is what the components say they hold (qdisc lengths, virtual devices'
//! qdisc lengths, packets being serialized, packets propagating). The arena independently knows every live packet and
//! where it was last put. If a component lost a packet (forgot its handle without
//! dropping it), the arena still holds it at that component's location while the
//! component no longer counts it: the mismatch names the place.
//!
//! A wire's packets are on their way when the wire's in-order FIFO ([`crate::link::Wire`])
//! plus the packets with arrival events of their own (a jittered wire) make up its
//! `propagating` count, and a non-empty FIFO has its head's arrival event pending; the
//! check says which wire breaks either.

use super::{Event, Simulation};
use crate::packet::{DropReason, Location};
use serde::Serialize;
use std::collections::BTreeMap;

/// Whole-run packet counters.
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: [u64; DropReason::COUNT],
}

impl Ledger {
    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }
}

/// The result of the end-of-run check.
#[derive(Clone, Debug, Serialize)]
pub struct Conservation {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: BTreeMap<&'static str, u64>,
    pub in_flight: u64,
    pub ok: bool,
    /// One line per place where the counts disagree.
    pub errors: Vec<String>,
}

impl Simulation {
    fn location_name(&self, loc: Location) -> String {
        match loc {
            Location::Source(f) => format!("source of flow \"{}\"", self.flows[f as usize].name),
            Location::Qdisc(i) => {
                let q = &self.ifaces[i as usize];
                format!(
                    "qdisc \"{}\" ({}) on {}",
                    q.qdisc_name, q.qdisc_kind, q.dev.name
                )
            }
            Location::VirtualQdisc(v) => {
                let d = &self.vdevs[v as usize];
                format!(
                    "qdisc \"{}\" ({}) on virtual device {}",
                    d.qdisc_name, d.qdisc_kind, d.dev.name
                )
            }
            Location::Transmitting(i) => {
                format!("transmitter of {}", self.ifaces[i as usize].dev.name)
            }
            Location::Propagating(i) => format!("wire behind {}", self.ifaces[i as usize].dev.name),
            Location::Node(n) => format!("node \"{}\"", self.nodes[n as usize].name),
        }
    }

    /// What each component says it holds, by location.
    fn held_by_components(&self) -> BTreeMap<Location, u64> {
        let mut held = BTreeMap::new();
        for (i, q) in self.ifaces.iter().enumerate() {
            let i = i as u32;
            held.insert(Location::Qdisc(i), q.qdisc.len() as u64);
            held.insert(Location::Transmitting(i), q.tx.sending.is_some() as u64);
            held.insert(Location::Propagating(i), q.tx.propagating as u64);
        }
        for (v, d) in self.vdevs.iter().enumerate() {
            held.insert(Location::VirtualQdisc(v as u32), d.qdisc.len() as u64);
        }
        held
    }

    /// Root qdiscs whose whole-life counters break `enqueued = dequeued + dropped after
    /// enqueue + backlog` (ns-3's QueueDisc identity): a qdisc that misreports a verdict
    /// (says it dropped a packet it kept, or the reverse) passes the location check but
    /// not this one.
    fn queue_identity_errors(&self, already: &[String]) -> Vec<String> {
        let ifaces = self
            .ifaces
            .iter()
            .enumerate()
            .filter(|(_, q)| q.vdev.is_none())
            .map(|(i, q)| (Location::Qdisc(i as u32), &q.stats.ledger, q.qdisc.len()));
        let virtuals = self.vdevs.iter().enumerate().map(|(v, d)| {
            (
                Location::VirtualQdisc(v as u32),
                &d.stats.ledger,
                d.qdisc.len(),
            )
        });
        let mut out = Vec::new();
        for (loc, ledger, len) in ifaces.chain(virtuals) {
            let expected = ledger.expected_backlog();
            let name = self.location_name(loc);
            if expected != len as i128 && !already.iter().any(|e| e.contains(&name)) {
                out.push(format!(
                    "the {name} accepted {} packet(s), sent {} and dropped {} of them, so it should hold {expected}, but it holds {len}",
                    ledger.enqueued, ledger.dequeued, ledger.dropped_after_enqueue
                ));
            }
        }
        out
    }

    /// Wires whose packets are not all on their way (see the module documentation).
    fn wire_errors(&self) -> Vec<String> {
        let n = self.ifaces.len();
        let mut head_pending = vec![false; n];
        let mut own_events = vec![0u64; n];
        for (_, ev) in self.events.pending() {
            match *ev {
                Event::Arrive(i) => head_pending[i as usize] = true,
                Event::ArriveReordered(pkt) => {
                    if let Location::Propagating(i) = self.packets.location(pkt) {
                        own_events[i as usize] += 1;
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        for (i, q) in self.ifaces.iter().enumerate() {
            let name = self.location_name(Location::Propagating(i as u32));
            let in_order = q.tx.wire.len() as u64;
            if in_order > 0 && !head_pending[i] {
                out.push(format!(
                    "the {name} holds {in_order} packet(s) in order but no arrival event for them"
                ));
            }
            if in_order + own_events[i] != u64::from(q.tx.propagating) {
                out.push(format!(
                    "the {name} counts {} packet(s) on it but holds {in_order} in order and {} with arrival events of their own",
                    q.tx.propagating, own_events[i]
                ));
            }
        }
        out
    }

    /// Checks conservation now (normally at the end of the run).
    pub fn conservation(&self) -> Conservation {
        let held = self.held_by_components();
        let in_flight: u64 = held.values().sum();
        let l = &self.ledger;
        let mut errors = Vec::new();
        let mut in_arena: BTreeMap<Location, u64> = BTreeMap::new();
        for (_, loc) in self.packets.live_packets() {
            *in_arena.entry(loc).or_default() += 1;
        }
        let mut places: Vec<Location> = held.keys().chain(in_arena.keys()).copied().collect();
        places.sort();
        places.dedup();
        for loc in places {
            let a = in_arena.get(&loc).copied().unwrap_or(0);
            let h = held.get(&loc).copied().unwrap_or(0);
            if a > h {
                errors.push(format!(
                    "{} packet(s) lost at the {}: it was given them but neither holds, sent nor dropped them",
                    a - h,
                    self.location_name(loc)
                ));
            } else if h > a {
                errors.push(format!(
                    "the {} counts {} packet(s) more than it was given",
                    self.location_name(loc),
                    h - a
                ));
            }
        }
        let identity = self.queue_identity_errors(&errors);
        errors.extend(identity);
        errors.extend(self.wire_errors());
        let balance = l.delivered + l.dropped_total() + in_flight;
        if l.sent != balance && errors.is_empty() {
            errors.push(format!(
                "sent {} ≠ delivered {} + dropped {} + in flight {}",
                l.sent,
                l.delivered,
                l.dropped_total(),
                in_flight
            ));
        }
        Conservation {
            sent: l.sent,
            delivered: l.delivered,
            dropped: DropReason::ALL
                .iter()
                .map(|r| (r.name(), l.dropped[r.index()]))
                .collect(),
            in_flight,
            ok: errors.is_empty() && l.sent == balance,
            errors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EventQueue;
    use crate::scenario::load_toml_str;
    use crate::sim::BuildOptions;

    /// sender —(100 Mbit, 1 ms)— router —(10 Mbit, 20 ms)— receiver; 1000 B every 1 ms, so
    /// about 20 packets are on the bottleneck wire when the run stops.
    const TWO_HOP: &str = r#"
[run]
duration = "1s"
[[nodes]]
name = "sender"
[[nodes]]
name = "router"
kind = "router"
[[nodes]]
name = "receiver"
[[links]]
name = "access"
between = ["sender", "router"]
rate = "100Mbit"
delay = "1ms"
[[links]]
name = "bottleneck"
between = ["router", "receiver"]
rate = "10Mbit"
delay = "20ms"
[[flows]]
name = "cbr"
from = "sender"
to = "receiver"
app = { kind = "cbr", size = 972, interval = "1ms" }
"#;

    fn finished_two_hop() -> Simulation {
        let s = load_toml_str(TWO_HOP).unwrap();
        let mut sim = Simulation::build(&s, BuildOptions::default()).unwrap();
        sim.run();
        sim
    }

    fn bottleneck(sim: &Simulation) -> usize {
        sim.ifaces
            .iter()
            .position(|q| q.tx.wire.len() > 10)
            .expect("the bottleneck wire holds the last 20 ms of packets")
    }

    /// Reference: the run itself (1 ms spacing, 20 ms delay: the packets of the last 20 ms
    /// are on the wire, in order, with the head's arrival pending). Tolerance: none.
    #[test]
    fn packets_on_a_wire_at_the_end_are_in_flight_and_pass() {
        let sim = finished_two_hop();
        let i = bottleneck(&sim);
        assert!((19..=21).contains(&sim.ifaces[i].tx.wire.len()));
        let c = sim.conservation();
        assert!(c.ok, "{:?}", c.errors);
    }

    /// A wire that counts a packet it does not hold is named.
    #[test]
    fn a_wire_count_that_disagrees_with_its_packets_fails_naming_the_wire() {
        let mut sim = finished_two_hop();
        let i = bottleneck(&sim);
        sim.ifaces[i].tx.propagating += 1;
        let c = sim.conservation();
        assert!(!c.ok);
        let name = sim.location_name(Location::Propagating(i as u32));
        assert!(
            c.errors
                .iter()
                .any(|e| e.contains(&name) && e.contains("with arrival events of their own")),
            "{:?}",
            c.errors
        );
    }

    /// Packets on a wire whose arrival event is gone would never arrive: named.
    #[test]
    fn a_wire_without_its_arrival_event_fails_naming_the_wire() {
        let mut sim = finished_two_hop();
        let i = bottleneck(&sim);
        sim.events = EventQueue::new();
        let c = sim.conservation();
        assert!(!c.ok);
        let name = sim.location_name(Location::Propagating(i as u32));
        assert!(
            c.errors
                .iter()
                .any(|e| e.contains(&name) && e.contains("no arrival event")),
            "{:?}",
            c.errors
        );
    }
}
