//! Packet conservation: sent + duplicated = delivered + dropped + in flight, checked at
//! the end of every run, with the place named when a packet went missing. (A duplicate a
//! medium makes, netem's `duplicate`, is a new packet in the ledger.)
//!
//! "In flight" is what the components say they hold (root queues' qdisc lengths, what
//! each medium holds at its ports and on the air, what node hooks hold). The arena independently knows every live packet and
//! where it was last put. If a component lost a packet (forgot its handle without
//! dropping it), the arena still holds it at that component's location while the
//! component no longer counts it: the mismatch names the place.
//!
//! A wire's packets are on their way when the wire's in-order FIFO ([`crate::link::Wire`])
//! plus the packets with arrival events of their own (a jittered wire) make up its
//! `propagating` count, and a non-empty FIFO has its head's arrival event pending; the
//! check says which wire breaks either.

use super::{Event, Simulation};
use crate::link::PendingEvents;
use crate::packet::{DropReason, Location};
use serde::Serialize;
use std::collections::BTreeMap;

/// Whole-run packet counters.
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    pub sent: u64,
    /// Copies media made of packets (netem `duplicate`).
    pub duplicated: u64,
    /// Packets node hooks made (a striping trunk's JKM ACKs, NAKs and retransmissions);
    /// the root qdiscs' own (SRR markers) are added when the ledger is checked.
    pub created: u64,
    pub delivered: u64,
    /// Control packets that ended at the trunk that read them (SRR markers, JKM ACKs and
    /// NAKs): no user data, so not "delivered".
    pub consumed: u64,
    pub dropped: [u64; DropReason::COUNT],
}

fn is_zero(v: &u64) -> bool {
    *v == 0
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
    /// Copies media made (netem `duplicate`); left out of the summary when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub duplicated: u64,
    /// Packets components made (striping trunks' markers, ACKs, NAKs, retransmissions);
    /// left out of the summary when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub created: u64,
    pub delivered: u64,
    /// Control packets consumed by the trunk that read them; left out when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub consumed: u64,
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
            Location::Queue(r) => {
                let q = &self.roots[r as usize];
                let on = if q.virtual_dev { "virtual device " } else { "" };
                format!("qdisc \"{}\" ({}) on {on}{}", q.name, q.kind, q.dev.name)
            }
            Location::Transmitting(i) => {
                format!("transmitter of {}", self.ifaces[i as usize].dev.name)
            }
            Location::Propagating(i) => {
                let m = self.media[self.ports[i as usize].medium as usize].get();
                let what = if m.kind() == "p2p" { "wire" } else { m.kind() };
                format!("{what} behind {}", self.ifaces[i as usize].dev.name)
            }
            Location::Node(n) => format!("node \"{}\"", self.nodes[n as usize].name),
            Location::Hook(h) => {
                let hook = &self.hooks[h as usize];
                format!(
                    "hook \"{}\" on node \"{}\"",
                    hook.hook.name(),
                    self.nodes[hook.node.0 as usize].name
                )
            }
        }
    }

    /// What each component says it holds, by location.
    fn held_by_components(&self) -> BTreeMap<Location, u64> {
        let mut held = BTreeMap::new();
        for (r, q) in self.roots.iter().enumerate() {
            held.insert(Location::Queue(r as u32), q.qdisc.len() as u64);
        }
        let mut media_held = Vec::new();
        for m in &self.media {
            m.get().held(&mut media_held);
        }
        for (loc, n) in media_held {
            *held.entry(loc).or_default() += n;
        }
        for (h, hook) in self.hooks.iter().enumerate() {
            held.insert(Location::Hook(h as u32), hook.hook.held());
        }
        held
    }

    /// Root qdiscs whose whole-life counters break `enqueued = dequeued + dropped after
    /// enqueue + backlog` (ns-3's QueueDisc identity): a qdisc that misreports a verdict
    /// (says it dropped a packet it kept, or the reverse) passes the location check but
    /// not this one.
    fn queue_identity_errors(&self, already: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        for (r, q) in self.roots.iter().enumerate() {
            let (ledger, len) = (&q.stats.ledger, q.qdisc.len());
            // A qdisc that makes packets (SRR's markers) sends more than it accepted.
            let expected = ledger.expected_backlog() + i128::from(q.qdisc.created());
            let name = self.location_name(Location::Queue(r as u32));
            if expected != len as i128 && !already.iter().any(|e| e.contains(&name)) {
                out.push(format!(
                    "the {name} accepted {} packet(s), sent {} and dropped {} of them, so it should hold {expected}, but it holds {len}",
                    ledger.enqueued, ledger.dequeued, ledger.dropped_after_enqueue
                ));
            }
        }
        out
    }

    /// Each medium's own check of its state against its pending events (e.g. a wire's
    /// packets all on their way), with the places named.
    fn media_errors(&self) -> Vec<String> {
        let mut pending: Vec<PendingEvents> = self
            .media
            .iter()
            .map(|_| PendingEvents::default())
            .collect();
        for (_, ev) in self.events.pending() {
            match *ev {
                Event::Link { medium, key } => pending[medium as usize].keys.push(key),
                Event::LinkPacket(pkt) => {
                    let loc = self.packets.location(pkt);
                    if let Location::Transmitting(i) | Location::Propagating(i) = loc {
                        let m = self.ports[i as usize].medium as usize;
                        pending[m].packets.push((pkt, loc));
                    }
                }
                _ => {}
            }
        }
        let mut found = Vec::new();
        for (m, p) in self.media.iter().zip(&pending) {
            m.get().audit(p, &mut found);
        }
        found
            .into_iter()
            .map(|(loc, what)| format!("the {} {what}", self.location_name(loc)))
            .collect()
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
        errors.extend(self.media_errors());
        let created = l.created + self.roots.iter().map(|q| q.qdisc.created()).sum::<u64>();
        let balance = l.delivered + l.consumed + l.dropped_total() + in_flight;
        let entered = l.sent + l.duplicated + created;
        if entered != balance && errors.is_empty() {
            errors.push(format!(
                "sent {} + duplicated {} + created {} ≠ delivered {} + consumed {} + dropped {} + in flight {}",
                l.sent,
                l.duplicated,
                created,
                l.delivered,
                l.consumed,
                l.dropped_total(),
                in_flight
            ));
        }
        Conservation {
            sent: l.sent,
            duplicated: l.duplicated,
            created,
            delivered: l.delivered,
            consumed: l.consumed,
            dropped: DropReason::ALL
                .iter()
                .map(|r| (r.name(), l.dropped[r.index()]))
                .collect(),
            in_flight,
            ok: errors.is_empty() && entered == balance,
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

    /// The interface of the router's end of the bottleneck (port 0 of medium 1).
    fn bottleneck(sim: &Simulation) -> u32 {
        let m = sim.media[1].get();
        assert_eq!(m.name(), "bottleneck");
        m.ports()[0].0
    }

    fn on_wire(sim: &Simulation, i: u32) -> u64 {
        let mut held = Vec::new();
        sim.media[1].get().held(&mut held);
        held.iter()
            .find(|(l, _)| *l == Location::Propagating(i))
            .map_or(0, |x| x.1)
    }

    /// Reference: the run itself (1 ms spacing, 20 ms delay: the packets of the last 20 ms
    /// are on the wire, in order, with the head's arrival pending). Tolerance: none.
    #[test]
    fn packets_on_a_wire_at_the_end_are_in_flight_and_pass() {
        let sim = finished_two_hop();
        let i = bottleneck(&sim);
        assert!((19..=21).contains(&on_wire(&sim, i)));
        let c = sim.conservation();
        assert!(c.ok, "{:?}", c.errors);
    }

    /// Packets on a wire whose arrival event is gone would never arrive: named.
    #[test]
    fn a_wire_without_its_arrival_event_fails_naming_the_wire() {
        let mut sim = finished_two_hop();
        let i = bottleneck(&sim);
        sim.events = EventQueue::new();
        let c = sim.conservation();
        assert!(!c.ok);
        let name = sim.location_name(Location::Propagating(i));
        assert!(
            c.errors
                .iter()
                .any(|e| e.contains(&name) && e.contains("no arrival event")),
            "{:?}",
            c.errors
        );
    }
}
