//! The live loop's evidence of its own timing: one record per packet written to a real
//! host (the timing table, `timing.parquet`), the release-error quantiles, and the events
//! and packets that ran behind real time, grouped into *episodes* that are reported on
//! stderr as they start and end (not once per run, and not once per packet).
//!
//! Recording must not disturb what it measures: a record is 32 bytes pushed into a chunk
//! allocated in advance ([`CHUNK`] records), so the loop never reallocates (and copies) a
//! large vector between two packets; a new chunk is allocated when one fills, at most
//! [`MAX_ROWS`] rows in all (≈ 128 MiB; 50 s of MTU-sized packets at 1 Gbit/s). Packets past
//! that are still counted in `packets`, `max_ns` and `behind`, but have no row and are not
//! in the quantiles (`rows_dropped` says how many).

use crate::metrics::{Column, Table};
use crate::packet::{FlowId, NodeId};

/// Records per chunk (2 MiB).
pub const CHUNK: usize = 1 << 16;
/// Rows the timing table keeps at most.
pub const MAX_ROWS: usize = 1 << 22;

/// One packet handed to a real host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// When the emulated network released it (model time, ns since the run's origin).
    pub released: u64,
    /// When `write(2)` was called to hand it to the host's TUN (same clock).
    pub written: u64,
    pub flow: u32,
    pub node: u32,
    pub bytes: u32,
}

impl Record {
    /// The release error: write time − model release time (never negative: the loop
    /// writes a packet only once its release time has come).
    pub fn late(&self) -> u64 {
        self.written.saturating_sub(self.released)
    }
}

/// The release error of the packets written (all of them, rows or not).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    pub packets: u64,
    /// Nearest-rank quantiles over the rows of the timing table.
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub max_ns: u64,
    /// Packets written more than the loop's `behind` threshold late.
    pub behind: u64,
    /// Writes the kernel refused (counted, not retried).
    pub write_errors: u64,
    /// Packets written with no row in the table (past [`MAX_ROWS`]).
    pub rows_dropped: u64,
}

/// The per-packet records, in write order.
#[derive(Debug, Default)]
pub struct Records {
    chunks: Vec<Vec<Record>>,
    rows: usize,
    dropped: u64,
}

impl Records {
    /// An empty table with its first chunk allocated (before the loop starts).
    pub fn new() -> Self {
        Records {
            chunks: vec![Vec::with_capacity(CHUNK)],
            rows: 0,
            dropped: 0,
        }
    }

    #[inline]
    pub fn push(&mut self, r: Record) {
        if self.rows >= MAX_ROWS {
            self.dropped += 1;
            return;
        }
        if self.chunks.last().is_none_or(|c| c.len() == CHUNK) {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        self.chunks.last_mut().expect("a chunk").push(r);
        self.rows += 1;
    }

    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Packets written with no row.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    pub fn iter(&self) -> impl Iterator<Item = &Record> {
        self.chunks.iter().flatten()
    }

    /// The release-error quantiles of the rows (nearest rank).
    pub fn quantiles(&self) -> (u64, u64) {
        let mut late: Vec<u64> = self.iter().map(Record::late).collect();
        if late.is_empty() {
            return (0, 0);
        }
        late.sort_unstable();
        let q = |p: f64| late[((p * late.len() as f64).ceil() as usize).clamp(1, late.len()) - 1];
        (q(0.5), q(0.99))
    }

    /// The timing table: `node` and `flow` by name (categorical), `bytes`, `released_ns`,
    /// `written_ns`. `node_name` and `flow_name` name a record's node and flow.
    pub fn table(
        &self,
        node_name: impl Fn(NodeId) -> String,
        flow_name: impl Fn(FlowId) -> String,
    ) -> Table {
        let n = self.rows;
        let (mut nodes, mut flows) = (Codes::default(), Codes::default());
        let (mut node, mut flow) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut bytes, mut released, mut written) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for r in self.iter() {
            node.push(nodes.code(r.node, || node_name(NodeId(r.node))));
            flow.push(flows.code(r.flow, || flow_name(FlowId(r.flow))));
            bytes.push(u64::from(r.bytes));
            released.push(r.released);
            written.push(r.written);
        }
        let mut t = Table::default();
        t.push("node", nodes.column(node));
        t.push("flow", flows.column(flow));
        t.push("bytes", Column::U64(bytes));
        t.push("released_ns", Column::U64(released));
        t.push("written_ns", Column::U64(written));
        t
    }
}

/// Categorical codes for ids, in order of first appearance.
#[derive(Default)]
struct Codes {
    by_id: rustc_hash::FxHashMap<u32, u32>,
    names: Vec<String>,
}

impl Codes {
    fn code(&mut self, id: u32, name: impl FnOnce() -> String) -> u32 {
        let next = self.names.len() as u32;
        let names = &mut self.names;
        *self.by_id.entry(id).or_insert_with(|| {
            names.push(name());
            next
        })
    }

    fn column(self, codes: Vec<u32>) -> Column {
        Column::Cat {
            codes,
            categories: self.names,
        }
    }
}

/// What ran behind real time, counted and grouped into episodes.
///
/// An event is *behind* when it runs more than `threshold` after its due time, a packet
/// when it is written more than `threshold` after its release. An episode starts with the
/// first late event or packet and ends once `quiet` has passed with none; each start and
/// end is one line on stderr (the first [`Lateness::REPORTED`] episodes; the rest are
/// counted in `episodes`). Nothing here changes the clock: a late event still runs at its
/// own model time, so time is never stretched, and the lateness is what the loop reports.
#[derive(Clone, Debug)]
pub struct Lateness {
    threshold: u64,
    quiet: u64,
    /// Events that ran more than `threshold` late, and the largest lateness of any event.
    pub events_behind: u64,
    pub max_event_late_ns: u64,
    /// Packets written more than `threshold` late.
    pub packets_behind: u64,
    pub episodes: u64,
    open: Option<Episode>,
    /// Whether to write the episodes to stderr.
    pub report: bool,
}

#[derive(Clone, Copy, Debug)]
struct Episode {
    start: u64,
    last: u64,
    events: u64,
    packets: u64,
    max_late: u64,
}

impl Lateness {
    /// Episodes reported on stderr before the rest are only counted.
    pub const REPORTED: u64 = 10;

    pub fn new(threshold: u64, quiet: u64) -> Self {
        Lateness {
            threshold,
            quiet,
            events_behind: 0,
            max_event_late_ns: 0,
            packets_behind: 0,
            episodes: 0,
            open: None,
            report: true,
        }
    }

    /// The threshold (ns) past which an event or packet is behind.
    pub fn threshold(&self) -> u64 {
        self.threshold
    }

    /// `late` events ran at real time `now` (ns), the earliest of them `max_late` after its
    /// due time.
    #[inline]
    pub fn events(&mut self, now: u64, late: u64, max_late: u64) {
        self.max_event_late_ns = self.max_event_late_ns.max(max_late);
        if late > 0 {
            self.events_behind += late;
            self.episode(now, max_late).events += late;
        }
    }

    /// A packet was written at real time `now` (ns), `late` after its release.
    #[inline]
    pub fn packet(&mut self, now: u64, late: u64) {
        if late > self.threshold {
            self.packets_behind += 1;
            self.episode(now, late).packets += 1;
        }
    }

    fn episode(&mut self, now: u64, late: u64) -> &mut Episode {
        if self.open.is_none() {
            self.episodes += 1;
            if self.report && self.episodes <= Self::REPORTED {
                eprintln!(
                    "airqueue live: behind real time at {:.3} s: {:.3} ms late",
                    now as f64 / 1e9,
                    late as f64 / 1e6
                );
            }
        }
        let e = self.open.get_or_insert(Episode {
            start: now,
            last: now,
            events: 0,
            packets: 0,
            max_late: 0,
        });
        e.last = now;
        e.max_late = e.max_late.max(late);
        e
    }

    /// Ends the open episode once `quiet` has passed since its last late event or packet
    /// (or at once when `end` is set: the run is over).
    #[inline]
    pub fn tick(&mut self, now: u64, end: bool) {
        let Some(e) = self.open else {
            return;
        };
        if !end && now.saturating_sub(e.last) < self.quiet {
            return;
        }
        self.open = None;
        if self.report && self.episodes <= Self::REPORTED {
            eprintln!(
                "airqueue live: {} at {:.3} s (behind since {:.3} s: {} events and {} packets \
                 more than {:.1} ms late, at most {:.3} ms){}",
                if end { "run ended" } else { "back on time" },
                now as f64 / 1e9,
                e.start as f64 / 1e9,
                e.events,
                e.packets,
                self.threshold as f64 / 1e6,
                e.max_late as f64 / 1e6,
                if self.episodes == Self::REPORTED {
                    "; further episodes are only counted (summary.json live.episodes)"
                } else {
                    ""
                }
            );
        }
    }
}

/// The release timing of `records`, `max_late` and `behind` over every packet written.
pub fn summarize(records: &Records, max_late: u64, behind: u64, write_errors: u64) -> Timing {
    let (p50_ns, p99_ns) = records.quantiles();
    Timing {
        packets: records.len() as u64 + records.dropped(),
        p50_ns,
        p99_ns,
        max_ns: max_late,
        behind,
        write_errors,
        rows_dropped: records.dropped(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(released: u64, late: u64) -> Record {
        Record {
            released,
            written: released + late,
            flow: 0,
            node: 0,
            bytes: 100,
        }
    }

    #[test]
    fn quantiles_are_nearest_rank() {
        let mut r = Records::new();
        for late in (1..=100).rev() {
            r.push(rec(1_000, late));
        }
        let t = summarize(&r, 100, 2, 0);
        assert_eq!(
            (t.packets, t.p50_ns, t.p99_ns, t.max_ns, t.behind),
            (100, 50, 99, 100, 2)
        );
        assert_eq!(summarize(&Records::new(), 0, 0, 3).write_errors, 3);
    }

    #[test]
    fn records_span_chunks_in_order_and_stop_at_the_cap() {
        let mut r = Records::new();
        for i in 0..(CHUNK as u64 * 2 + 5) {
            r.push(rec(i, 1));
        }
        assert_eq!(r.len(), CHUNK * 2 + 5);
        assert!(r.iter().map(|x| x.released).eq(0..(CHUNK as u64 * 2 + 5)));
        let mut full = Records::new();
        for _ in 0..MAX_ROWS + 3 {
            full.push(rec(0, 0));
        }
        assert_eq!((full.len(), full.dropped()), (MAX_ROWS, 3));
        assert_eq!(summarize(&full, 0, 0, 0).packets, MAX_ROWS as u64 + 3);
    }

    #[test]
    fn the_table_names_nodes_and_flows_by_first_appearance() {
        let mut r = Records::new();
        for (node, flow) in [(3, 7), (1, 7), (3, 9)] {
            r.push(Record {
                released: 10,
                written: 12,
                flow,
                node,
                bytes: 84,
            });
        }
        let t = r.table(|n| format!("n{}", n.0), |f| format!("f{}", f.0));
        assert_eq!(t.rows(), 3);
        match t.column("node") {
            Some(Column::Cat { codes, categories }) => {
                assert_eq!(codes, &[0, 1, 0]);
                assert_eq!(categories, &["n3", "n1"]);
            }
            c => panic!("{c:?}"),
        }
        match t.column("flow") {
            Some(Column::Cat { codes, categories }) => {
                assert_eq!(codes, &[0, 0, 1]);
                assert_eq!(categories, &["f7", "f9"]);
            }
            c => panic!("{c:?}"),
        }
        assert_eq!(t.f64s("written_ns"), vec![12.0; 3]);
    }

    #[test]
    fn episodes_open_on_the_first_late_item_and_close_after_quiet() {
        let mut l = Lateness::new(1_000, 100_000);
        l.report = false;
        l.events(10, 0, 500); // on time
        assert_eq!((l.episodes, l.max_event_late_ns), (0, 500));
        l.events(20, 2, 5_000);
        l.packet(30, 2_000);
        l.packet(40, 10); // on time: not behind
        l.tick(50_000, false); // still within quiet
        assert_eq!(l.episodes, 1);
        l.packet(60_000, 3_000); // same episode
        l.tick(60_000 + 100_000, false); // closes
        l.packet(200_000, 4_000); // a new one
        l.tick(200_001, true);
        assert_eq!(
            (
                l.episodes,
                l.events_behind,
                l.packets_behind,
                l.max_event_late_ns
            ),
            (2, 2, 3, 5_000)
        );
    }
}
