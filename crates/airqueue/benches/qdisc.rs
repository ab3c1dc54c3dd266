//! Per-packet cost of each queueing discipline: one enqueue plus one dequeue at a steady
//! backlog.
//!
//! The disciplines come from [`CASES`], one line each: a name and the qdisc's TOML table as
//! a scenario would write it (parsed into a `QdiscConf` and built with `qdisc::build`), so a
//! new discipline (drr, htb, …) is benchmarked by adding one line.
//!
//! Setup: `FLOWS` UDP flows with distinct 5-tuples, packets of 64–1500 B (a fixed mix), and
//! `BACKLOG` packets queued before timing starts. Each iteration enqueues the next packet
//! (flows in round-robin order) and dequeues one, so the backlog stays at `BACKLOG`; the
//! clock advances 2 µs per iteration, so a 10 Gbit/s shaper is never throttled and CoDel's
//! sojourn times (≈ 200 µs) stay below target: the measured path is the common one, not
//! drops. Packets are recycled (never allocated in the timed loop). One iteration is one
//! packet: criterion's `time` line is the cost of enqueue + dequeue.
//!
//! Target (issue 4): ≤ 100 ns per enqueue+dequeue for pfifo, sfq, fq_codel, stfq (and drr).

use airqueue::engine::SimTime;
use airqueue::packet::{FiveTuple, FlowId, Location, Packet, PacketArena, PacketId, Protocol};
use airqueue::qdisc::classify::NameTable;
use airqueue::qdisc::{self, BuildCtx, DevInfo, DropSink, Qdisc, QdiscCtx};
use airqueue::scenario::{QdiscConf, ScenarioError};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::collections::VecDeque;
use std::hint::black_box;
use std::time::Duration;

/// The disciplines measured: (name, the `[[qdiscs]]` keys after `dev`).
const CASES: &[(&str, &str)] = &[
    ("pfifo", r#"kind = "pfifo""#),
    ("bfifo", r#"kind = "bfifo""#),
    ("pfifo_head_drop", r#"kind = "pfifo_head_drop""#),
    ("sfq", r#"kind = "sfq""#),
    ("fq_codel", r#"kind = "fq_codel""#),
    ("codel", r#"kind = "codel""#),
    ("stfq", r#"kind = "stfq""#),
    ("wf2q+", r#"kind = "wf2q+""#),
    (
        "red",
        r#"kind = "red"
limit = 4000000"#,
    ),
    (
        "tbf",
        r#"kind = "tbf"
rate = "10Gbit"
burst = 100000
limit = 10000000"#,
    ),
];

/// Distinct flows in the mix.
const FLOWS: u32 = 32;
/// Packets queued while timing.
const BACKLOG: usize = 100;
/// Packets in circulation (the backlog plus spares).
const POOL: usize = 4096;
/// Clock advance per iteration.
const STEP: SimTime = SimTime(2_000);

struct Bench {
    q: Box<dyn Qdisc>,
    packets: PacketArena,
    dev: DevInfo,
    drops: DropSink,
    /// Packets not in the qdisc, in the order they will be offered.
    idle: VecDeque<PacketId>,
    now: SimTime,
}

impl Bench {
    fn new(conf: &str) -> Bench {
        let conf: QdiscConf = toml::from_str(conf).expect("bench qdisc parses");
        let dev = DevInfo {
            name: "bench.dev".into(),
            rate_bps: 10_000_000_000,
            mtu: 1500,
            psched_mtu: 1514,
            link_header: 0,
            stab: None,
        };
        let names = NameTable::default();
        let b = BuildCtx {
            dev: &dev,
            names: &names,
            seed: 1,
            path: "qdiscs.bench".into(),
            boards: None,
        };
        let mut errs = ScenarioError::default();
        let q = qdisc::build(&conf, &b, &mut errs).unwrap_or_else(|| panic!("{errs}"));
        let mut packets = PacketArena::new();
        let sizes = [64u32, 1500, 576, 1500, 40, 1500, 1200, 1500];
        let idle = (0..POOL)
            .map(|i| {
                let flow = i as u32 % FLOWS;
                let mut p = Packet::udp(FlowId(flow), sizes[i % sizes.len()], SimTime::ZERO);
                p.tuple = FiveTuple {
                    src_addr: 0x0A00_0001,
                    dst_addr: 0x0A00_0002,
                    src_port: 49152 + flow as u16,
                    dst_port: 5001,
                    protocol: Protocol::Udp,
                };
                packets.alloc(p, Location::Source(flow))
            })
            .collect();
        let mut bench = Bench {
            q,
            packets,
            dev,
            drops: DropSink::new(),
            idle,
            now: SimTime::ZERO,
        };
        while bench.q.len() < BACKLOG {
            bench.enqueue_next();
        }
        bench
    }

    #[inline]
    fn enqueue_next(&mut self) {
        let p = self.idle.pop_front().expect("pool is large enough");
        self.packets.get_mut(p).enqueued = self.now;
        let mut ctx = QdiscCtx::new(self.now, &mut self.packets, &self.dev, &mut self.drops);
        black_box(self.q.enqueue(p, &mut ctx));
        self.recycle_drops();
    }

    #[inline]
    fn recycle_drops(&mut self) {
        if !self.drops.is_empty() {
            self.idle.extend(self.drops.drain().map(|(p, _)| p));
        }
        self.drops.take_marks();
    }

    /// One measured operation: offer one packet, take one out.
    #[inline]
    fn step(&mut self) {
        self.now += STEP;
        self.enqueue_next();
        let mut ctx = QdiscCtx::new(self.now, &mut self.packets, &self.dev, &mut self.drops);
        if let Some(p) = black_box(self.q.dequeue(&mut ctx)) {
            self.idle.push_back(p);
        }
        self.recycle_drops();
    }
}

fn enqueue_dequeue(c: &mut Criterion) {
    let mut g = c.benchmark_group("qdisc/enqueue_dequeue");
    g.throughput(Throughput::Elements(1));
    for &(name, conf) in CASES {
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            let mut bench = Bench::new(conf);
            b.iter(|| bench.step());
            assert!(bench.q.len() >= BACKLOG / 2, "{name}: backlog drained");
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
