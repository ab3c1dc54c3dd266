//! Memory per flow at scale (issue 18, item 4), measured with a counting global allocator:
//! live heap bytes after `Simulation::build` over the flow count, and the peak of a TCP run.
//! The references are the issue's bounds: a UDP flow costs ≤ 2 KB until it carries
//! traffic; the 1 Gbit dumbbell with 1 000 bulk flows peaks at ≤ 100 MB.

use airqueue::scenario::load_toml_str;
use airqueue::sim::{BuildOptions, Simulation};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

/// Counts live heap bytes and their peak.
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                let now = LIVE.fetch_add(new - l.size(), Relaxed) + (new - l.size());
                PEAK.fetch_max(now, Relaxed);
            } else {
                LIVE.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The tests share the counters: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn udp_scenario(count: u32) -> String {
    format!(
        r#"
[run]
duration = "1s"
sample_interval = "1s"

[[nodes]]
name = "a"

[[nodes]]
name = "b"

[[links]]
name = "l"
between = ["a", "b"]
rate = "10Mbit"
delay = "1ms"

[[flows]]
name = "f"
count = {count}
from = "a"
to = "b"
start = "999ms"
app = {{ kind = "cbr", size = 100, rate = "1kbit" }}
"#
    )
}

/// Live heap bytes held by a built simulation of `text`.
fn built_bytes(text: &str) -> usize {
    let s = load_toml_str(text).unwrap();
    let before = LIVE.load(Relaxed);
    let sim = Simulation::build(&s, BuildOptions::default()).unwrap();
    let after = LIVE.load(Relaxed);
    drop(sim);
    after - before
}

/// Issue 18: a UDP flow costs ≤ 2 KB until it carries traffic (was 50.1 KB: three empty
/// 16 KiB HdrHistograms). Measured 0.8 KB with 10 000 flows.
#[test]
fn an_idle_udp_flow_costs_at_most_2_kb() {
    let _g = SERIAL.lock().unwrap();
    let n = 10_000;
    let one = built_bytes(&udp_scenario(1));
    let many = built_bytes(&udp_scenario(n));
    let per_flow = (many - one) / (n as usize - 1);
    eprintln!("an idle UDP flow: {per_flow} B");
    assert!(per_flow <= 2048, "{per_flow} B per flow");
}

/// `scenarios/examples/dumbbell.toml` at 1 Gbit (as `benches/common/mod.rs`) with `count`
/// bulk flows.
fn dumbbell_1gbit(count: u32, duration: &str) -> String {
    let text = include_str!("../../../scenarios/examples/dumbbell.toml");
    let edits = [
        (
            "duration = \"60s\"".to_string(),
            format!("duration = \"{duration}\""),
        ),
        ("rate = \"100Mbit\"".into(), "rate = \"10Gbit\"".into()),
        ("rate = \"10Mbit\"".into(), "rate = \"1Gbit\"".into()),
        ("limit = 100\n".into(), "limit = 1000\n".into()),
        (
            "mss = 1448 }".into(),
            "mss = 1448, rcv_buffer = \"8MiB\" }".into(),
        ),
        ("count = 10 ".into(), format!("count = {count} ")),
    ];
    let mut text = text.to_string();
    for (from, to) in edits {
        assert_eq!(
            text.matches(&from).count(),
            1,
            "dumbbell.toml changed: {from}"
        );
        text = text.replace(&from, &to);
    }
    text
}

/// Peak heap bytes of building and running `text`, and the run's events and wall time.
fn run_peak(text: &str) -> (usize, u64, f64) {
    let s = load_toml_str(text).unwrap();
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let mut sim = Simulation::build(&s, BuildOptions::default()).unwrap();
    let t = std::time::Instant::now();
    sim.run();
    let wall = t.elapsed().as_secs_f64();
    let events = sim.events_processed();
    drop(sim);
    (PEAK.load(Relaxed) - base, events, wall)
}

#[test]
fn report_tcp() {
    let _g = SERIAL.lock().unwrap();
    for n in [10u32, 1000] {
        let (peak, ev, wall) = run_peak(&dumbbell_1gbit(n, "10s"));
        eprintln!(
            "tcp {n}: peak {} MB, {ev} events, {:.1} M ev/s",
            peak / 1_000_000,
            ev as f64 / wall / 1e6
        );
    }
}
