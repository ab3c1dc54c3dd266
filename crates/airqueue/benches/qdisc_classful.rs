//! Per-packet cost of the classful disciplines (prio, drr, htb), with pfifo as baseline.
//!
//! Steady state: the discipline holds `BACKLOG` packets spread over its classes; one
//! iteration enqueues one packet (to the next flow, round robin over the classes) and
//! dequeues one, so the backlog stays put. Packets are recycled (the dequeued packet is
//! re-addressed and offered again), so neither allocation nor the arena is measured. The
//! clock advances by one 1500 B packet time at 100 Mbit/s per iteration; HTB's leaves are
//! guaranteed 1/8 of that each and may borrow up to 1 Gbit, so they are always served,
//! half the time on their own rate and half borrowing through the parent (the usual
//! shaping workload). Criterion's `time` line is the cost of one enqueue + dequeue.
//!
//! Target (issue 4): ≤ 100 ns per enqueue + dequeue for drr.

use airqueue::engine::SimTime;
use airqueue::packet::{FlowId, Location, Packet, PacketArena, PacketId};
use airqueue::qdisc::classify::NameTable;
use airqueue::qdisc::{self, BuildCtx, DevInfo, DropSink, Drr, Pfifo, Qdisc, QdiscCtx};
use airqueue::scenario::{QdiscConf, ScenarioError};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

/// Classes (and flows) in the classful setups.
const CLASSES: u32 = 8;
/// Packets held in steady state.
const BACKLOG: u32 = 256;
/// One 1500 B packet at 100 Mbit/s.
const TICK: SimTime = SimTime(120_000);

fn dev() -> DevInfo {
    DevInfo {
        name: "bench.dev".into(),
        rate_bps: 100_000_000,
        mtu: 1500,
        psched_mtu: 1514,
        link_header: 0,
        stab: None,
    }
}

fn names() -> NameTable {
    NameTable {
        flows: (0..CLASSES).map(|i| format!("f{i}")).collect(),
        nodes: vec![],
        ifaces: vec!["bench.dev".into()],
    }
}

/// A discipline built from its scenario form, as a run would build it.
fn from_toml(text: &str) -> Box<dyn Qdisc> {
    let v: serde_json::Value = toml::from_str(text).expect("bench qdisc parses");
    let conf: QdiscConf = serde_json::from_value(v).expect("bench qdisc is valid");
    let (d, n) = (dev(), names());
    let b = BuildCtx {
        dev: &d,
        names: &n,
        seed: 1,
        path: "qdiscs.bench".into(),
        boards: None,
    };
    let mut errs = ScenarioError::default();
    qdisc::build(&conf, &b, &mut errs).unwrap_or_else(|| panic!("{errs}"))
}

fn prio() -> Box<dyn Qdisc> {
    // Three bands by priomap; flows alternate priorities 6, 0, 2 (bands 0, 1, 2).
    from_toml("kind = \"prio\"")
}

fn htb() -> Box<dyn Qdisc> {
    let mut classes = vec![r#"{ name = "root", rate = "1Gbit" }"#.to_string()];
    for i in 0..CLASSES {
        classes.push(format!(
            r#"{{ name = "c{i}", parent = "root", rate = "12.5Mbit", ceil = "1Gbit", match = {{ flow = "f{i}" }} }}"#
        ));
    }
    from_toml(&format!(
        "kind = \"htb\"\nclasses = [\n{}\n]",
        classes.join(",\n")
    ))
}

/// Builds one of the disciplines under test.
type Make = fn() -> Box<dyn Qdisc>;

struct Bench {
    q: Box<dyn Qdisc>,
    packets: PacketArena,
    drops: DropSink,
    dev: DevInfo,
    now: SimTime,
    next_flow: u32,
}

impl Bench {
    fn new(q: Box<dyn Qdisc>) -> Self {
        let mut b = Bench {
            q,
            packets: PacketArena::new(),
            drops: DropSink::new(),
            dev: dev(),
            now: SimTime::ZERO,
            next_flow: 0,
        };
        for _ in 0..BACKLOG {
            let p = b.packets.alloc(Packet::default(), Location::Source(0));
            b.offer(p);
        }
        // Warm up: cycle the backlog a few times so every class is in its steady state.
        for _ in 0..(8 * BACKLOG) {
            b.step();
        }
        b
    }

    /// Re-addresses `p` to the next flow and enqueues it.
    #[inline]
    fn offer(&mut self, p: PacketId) {
        let f = self.next_flow;
        self.next_flow = (f + 1) % CLASSES;
        let pk = self.packets.get_mut(p);
        *pk = Packet::udp(FlowId(f), 1500, self.now);
        pk.priority = [6, 0, 2][f as usize % 3];
        pk.enqueued = self.now;
        let mut ctx = QdiscCtx::new(self.now, &mut self.packets, &self.dev, &mut self.drops);
        black_box(self.q.enqueue(p, &mut ctx));
    }

    /// One enqueue + dequeue.
    #[inline]
    fn step(&mut self) {
        self.now += TICK;
        let got = {
            let mut ctx = QdiscCtx::new(self.now, &mut self.packets, &self.dev, &mut self.drops);
            self.q.dequeue(&mut ctx)
        };
        let p = got.expect("the backlog never runs dry");
        self.offer(black_box(p));
        debug_assert!(self.drops.is_empty());
    }
}

fn enqueue_dequeue(c: &mut Criterion) {
    let mut g = c.benchmark_group("qdisc/enqueue_dequeue");
    g.throughput(Throughput::Elements(1));
    let setups: [(&str, Make); 4] = [
        ("pfifo", || Box::new(Pfifo::new(1000))),
        ("prio", prio),
        ("drr", || {
            Box::new(Drr::with_flow_classes(&[1514; CLASSES as usize], 1000))
        }),
        ("htb", htb),
    ];
    for (name, make) in setups {
        g.bench_with_input(BenchmarkId::from_parameter(name), &make, |b, make| {
            let mut s = Bench::new(make());
            b.iter(|| s.step());
        });
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = enqueue_dequeue
}
criterion_main!(benches);
