//! The real-time loop: run the events that are due, read what the real hosts wrote, hand
//! them to the emulated network, write what it delivered to real hosts, and wait for the
//! next event — in `ppoll(2)` on the TUN descriptors until shortly before it is due, then
//! spinning, since a sleep's wake-up is late by tens of microseconds (timer slack and
//! scheduling) and a spin is late by a clock read.
//!
//! The loop thread runs under SCHED_FIFO while it loops (`live::sched`); it records every
//! packet it writes (`live::timing`: the timing table, the release-error quantiles) and
//! every event or packet that ran behind real time, and can capture each real host's
//! packets (`live::pcap`).

use std::io;
use std::os::fd::RawFd;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::clock::Clock;
use super::pcap::{HostPcaps, PcapFile};
use super::sched::{RealTime, Scheduling, ThreadUsage};
pub use super::timing::Timing;
use super::timing::{self, Lateness, Record, Records};
use super::tunio;
use crate::engine::SimTime;
use crate::packet::NodeId;
use crate::sim::{RealCounts, Simulation};

/// How the loop waits, how it is scheduled and what it records.
#[derive(Clone, Debug)]
pub struct LiveOptions {
    /// Spin (instead of sleeping) when the next event is this close. 50 µs covers the
    /// wake-up latency of a SCHED_FIFO thread from `ppoll` here (p50 ≈ 20 µs, p99 ≈ 60 µs at
    /// load average 8 on the 2-core VM); a longer spin buys little and, at 100 Mbit/s,
    /// where events are ~60 µs apart, keeps the thread from ever sleeping: at 200 µs it took
    /// ~95 % of its core and the kernel's fair-server throttling (CFS tasks are owed 50 ms
    /// of each second) stopped it for 50 ms once a second (docs/live.md, Measured).
    pub spin: Duration,
    /// An event run, or a packet written, this long after its due time means the run
    /// fell behind real time.
    pub behind: Duration,
    /// An episode of running behind ends after this long with nothing late.
    pub quiet: Duration,
    /// How often `poll` (Ctrl-C, the caller's checks) is called.
    pub poll_every: Duration,
    /// SCHED_FIFO priority of the loop thread while it runs (1–99; 0: normal scheduling).
    pub priority: u8,
    /// Write `<dir>/<node>.pcap` for each real host (`live::pcap`); `None`: no capture.
    pub pcap_dir: Option<PathBuf>,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            spin: Duration::from_micros(50),
            behind: Duration::from_millis(1),
            quiet: Duration::from_millis(100),
            poll_every: Duration::from_millis(10),
            priority: 50,
            pcap_dir: None,
        }
    }
}

/// One real host's packets: read from its TUN, and written to it successfully.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostCounts {
    pub node: NodeId,
    pub read: u64,
    pub written: u64,
}

/// What a live run did.
#[derive(Debug)]
pub struct LiveReport {
    /// The release error of the packets written (write time − model release time).
    pub timing: Timing,
    /// One row per packet handed to a real host (the timing table).
    pub records: Records,
    /// Events run more than [`LiveOptions::behind`] after their due time.
    pub events_behind: u64,
    /// The largest lateness of any event (ns).
    pub max_event_late_ns: u64,
    /// Episodes of running behind (events or packets late; see `timing::Lateness`).
    pub episodes: u64,
    pub counts: RealCounts,
    /// Per real host, in the order of the TUNs given.
    pub hosts: Vec<HostCounts>,
    pub pcap: Vec<PcapFile>,
    pub scheduling: Scheduling,
    /// The loop thread's CPU time and context switches while it looped.
    pub usage: ThreadUsage,
    /// Wall-clock time (ns since the Unix epoch) of model time 0.
    pub origin_unix_ns: u64,
    /// Ended by `poll` (Ctrl-C) before the duration.
    pub stopped: bool,
    /// The simulated (and real) time the run ended at.
    pub ended_at: SimTime,
    pub wall_seconds: f64,
}

/// Runs `sim` (built with [`Simulation::build_live`]) in real time until its stop time or
/// until `poll` returns `false`; `tuns` are the real hosts' TUN descriptors (non-blocking),
/// by node. Says on stderr when the run falls behind real time and when it is back on
/// time (`timing::Lateness`), and when the kernel refuses real-time scheduling.
pub fn run(
    sim: &mut Simulation,
    tuns: &[(NodeId, RawFd)],
    opts: LiveOptions,
    mut poll: impl FnMut() -> bool,
) -> io::Result<LiveReport> {
    let pcap = match &opts.pcap_dir {
        Some(dir) => {
            let names: Vec<String> = tuns
                .iter()
                .map(|&(n, _)| sim.nodes[n.0 as usize].name.clone())
                .collect();
            Some(HostPcaps::create(dir, &names)?)
        }
        None => None,
    };
    let (rt, scheduling) = RealTime::enter(opts.priority);
    if let Some(e) = &scheduling.refused {
        eprintln!(
            "airqueue live: the kernel refused SCHED_FIFO priority {} ({e}); the loop runs \
             with normal scheduling and may fall behind under load (--priority 0 asks for \
             normal scheduling)",
            opts.priority
        );
    }
    let usage = ThreadUsage::now();
    let (clock, origin_unix_ns) = Clock::start_with_wall();
    let mut lp = Loop::new(clock, tuns, &opts, pcap);
    let stop = sim.stop_time();
    let mut last_poll = clock.origin();
    let mut stopped = false;
    loop {
        let now = lp.clock.now().min(stop);
        lp.run_due(sim, now);
        if now < stop {
            lp.read_all(sim)?;
        }
        lp.write_delivered(sim);
        lp.late.tick(now.0, false);
        if now >= stop {
            break;
        }
        let t = Instant::now();
        if t.duration_since(last_poll) >= opts.poll_every {
            last_poll = t;
            if !poll() {
                stopped = true;
                let end = lp.clock.now().min(stop);
                lp.run_due(sim, end);
                break;
            }
        }
        let next = sim
            .next_event_time()
            .unwrap_or(stop)
            .min(stop)
            .min(lp.clock.sim(last_poll + opts.poll_every));
        lp.wait(lp.clock.instant(next), opts.spin);
    }
    let usage = ThreadUsage::now().since(usage);
    drop(rt);
    let wall_seconds = clock.origin().elapsed().as_secs_f64();
    lp.late.tick(lp.clock.now().0, true);
    sim.finish_live(wall_seconds);
    let pcap = match lp.pcap.take() {
        Some(p) => p.finish()?,
        None => Vec::new(),
    };
    Ok(LiveReport {
        timing: timing::summarize(
            &lp.records,
            lp.max_late,
            lp.late.packets_behind,
            lp.write_errors,
        ),
        records: lp.records,
        events_behind: lp.late.events_behind,
        max_event_late_ns: lp.late.max_event_late_ns,
        episodes: lp.late.episodes,
        counts: sim.real_counts(),
        hosts: lp.hosts,
        pcap,
        scheduling,
        usage,
        origin_unix_ns,
        stopped,
        ended_at: sim.now(),
        wall_seconds,
    })
}

/// The loop's state between its steps.
/// The loop spins at most [`SPIN_SHARE`] of every [`SPIN_WINDOW`]; past that it sleeps in
/// `ppoll` until the next event (a wake-up tens of microseconds late) until the window ends.
/// At 100 Mbit/s of TCP the spin takes about 30 % of the wall time; a flood of small
/// packets, which would make it spin all the time, is held to half.
const SPIN_WINDOW: Duration = Duration::from_millis(10);
const SPIN_SHARE: f64 = 0.5;

struct Loop<'a> {
    clock: Clock,
    tuns: &'a [(NodeId, RawFd)],
    buf: Vec<u8>,
    pfds: Vec<libc::pollfd>,
    records: Records,
    late: Lateness,
    /// The largest release error of any packet (ns).
    max_late: u64,
    write_errors: u64,
    hosts: Vec<HostCounts>,
    pcap: Option<HostPcaps>,
    /// The spin's budget ([`SPIN_SHARE`] of [`SPIN_WINDOW`]): when the window began and
    /// how long the loop has spun in it.
    window_start: Instant,
    spun: Duration,
}

impl<'a> Loop<'a> {
    fn new(
        clock: Clock,
        tuns: &'a [(NodeId, RawFd)],
        opts: &LiveOptions,
        pcap: Option<HostPcaps>,
    ) -> Self {
        Loop {
            clock,
            tuns,
            buf: vec![0u8; tunio::BUF_BYTES],
            window_start: Instant::now(),
            spun: Duration::ZERO,
            pfds: tuns
                .iter()
                .map(|&(_, fd)| libc::pollfd {
                    fd,
                    events: libc::POLLIN,
                    revents: 0,
                })
                .collect(),
            records: Records::new(),
            late: Lateness::new(opts.behind.as_nanos() as u64, opts.quiet.as_nanos() as u64),
            max_late: 0,
            write_errors: 0,
            hosts: tuns
                .iter()
                .map(|&(node, _)| HostCounts {
                    node,
                    ..HostCounts::default()
                })
                .collect(),
            pcap,
        }
    }

    /// Runs the events due by `now`, counting those that run more than the threshold late.
    fn run_due(&mut self, sim: &mut Simulation, now: SimTime) {
        let late_before = SimTime(now.0.saturating_sub(self.late.threshold()));
        let ran = sim.run_due(now, late_before);
        if let Some(first) = ran.earliest {
            self.late
                .events(now.0, ran.late, now.0.saturating_sub(first.0));
        }
    }

    /// Reads every packet the real hosts have written and puts it into the network.
    fn read_all(&mut self, sim: &mut Simulation) -> io::Result<()> {
        for (i, &(node, fd)) in self.tuns.iter().enumerate() {
            // At most READ_BATCH per TUN and pass: a sender faster than the loop must not
            // keep the events that release packets from running.
            for _ in 0..tunio::READ_BATCH {
                let Some(n) = tunio::read_packet(fd, &mut self.buf)? else {
                    break;
                };
                let bytes = &self.buf[..n];
                sim.count_read();
                self.hosts[i].read += 1;
                if let Some(p) = &mut self.pcap {
                    p.record(i, self.clock.now(), bytes);
                }
                let _ = sim.inject(node, bytes);
            }
        }
        Ok(())
    }

    /// Writes every packet the network delivered to a real host, recording its timing.
    fn write_delivered(&mut self, sim: &mut Simulation) {
        let Loop {
            clock,
            tuns,
            records,
            late,
            max_late,
            write_errors,
            hosts,
            pcap,
            ..
        } = self;
        sim.take_delivered_flows(|node, flow, released, bytes| {
            let i = tuns.iter().position(|t| t.0 == node).expect("a real host");
            // The packet is handed over when write(2) is called: the call itself runs the
            // receiving kernel's stack (tun_get_user → netif_receive_skb; an echo request's
            // reply is made inside it), which is the real host's time, not the emulator's.
            let now = clock.now().0;
            let ok = tunio::write_packet(tuns[i].1, bytes);
            let error = now.saturating_sub(released.0);
            records.push(Record {
                released: released.0,
                written: now,
                flow: flow.0,
                node: node.0,
                bytes: bytes.len() as u32,
            });
            *max_late = (*max_late).max(error);
            late.packet(now, error);
            if !ok {
                *write_errors += 1;
                return;
            }
            hosts[i].written += 1;
            if let Some(p) = pcap {
                p.record(i, SimTime(now), bytes);
            }
        });
    }

    /// Waits until `due` or until a real host has written a packet: sleeping in `ppoll`
    /// until `spin` before it, then spinning.
    fn wait(&mut self, due: Instant, spin: Duration) {
        let now = Instant::now();
        if due <= now {
            return;
        }
        let wait = due - now;
        // Spin at most SPIN_SHARE of each SPIN_WINDOW: a loop kept busy without pause (a
        // flood of small packets puts an event every few microseconds) would otherwise spin
        // before every event and, under SCHED_FIFO, never give its core back to the hosts'
        // programs and the kernel's receive work, which then starve (iperf3 -u -l 64: 68 k
        // packets/s carried with a 50 µs spin, 234 k sleeping instead, on this 2-core VM).
        if now.duration_since(self.window_start) >= SPIN_WINDOW {
            self.window_start = now;
            self.spun = Duration::ZERO;
        }
        let spin = if self.spun >= SPIN_WINDOW.mul_f64(SPIN_SHARE) {
            Duration::ZERO
        } else {
            spin
        };
        if wait > spin {
            let sleep = wait - spin;
            let ts = libc::timespec {
                tv_sec: sleep.as_secs() as libc::time_t,
                tv_nsec: sleep.subsec_nanos() as libc::c_long,
            };
            // SAFETY: `pfds` is a live array of pollfd of the given length.
            unsafe {
                libc::ppoll(
                    self.pfds.as_mut_ptr(),
                    self.pfds.len() as libc::nfds_t,
                    &ts,
                    std::ptr::null(),
                )
            };
        } else {
            let zero = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            let spin_start = Instant::now();
            while Instant::now() < due {
                // SAFETY: as above; a zero timeout only checks for readable TUNs.
                let ready = unsafe {
                    libc::ppoll(
                        self.pfds.as_mut_ptr(),
                        self.pfds.len() as libc::nfds_t,
                        &zero,
                        std::ptr::null(),
                    )
                };
                if ready > 0 {
                    break;
                }
                std::hint::spin_loop();
            }
            self.spun += spin_start.elapsed();
        }
    }
}
