//! The real-time loop: run the events that are due, read what the real hosts wrote, hand
//! them to the emulated network, write what it delivered to real hosts, and wait for the
//! next event — in `ppoll(2)` on the TUN descriptors until shortly before it is due, then
//! spinning, since a sleep's wake-up is late by tens of microseconds (timer slack and
//! scheduling) and a spin is late by a clock read.

use std::io;
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

use super::clock::Clock;
use super::tunio;
use crate::engine::SimTime;
use crate::packet::NodeId;
use crate::sim::{RealCounts, Simulation};

/// How the loop waits.
#[derive(Clone, Copy, Debug)]
pub struct LiveOptions {
    /// Spin (instead of sleeping) when the next event is this close.
    pub spin: Duration,
    /// A packet written this long after the emulated network released it means the run
    /// fell behind real time.
    pub behind: Duration,
    /// How often `poll` (Ctrl-C, the caller's checks) is called.
    pub poll_every: Duration,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            spin: Duration::from_micros(200),
            behind: Duration::from_millis(1),
            poll_every: Duration::from_millis(10),
        }
    }
}

/// Release error of the packets written to real hosts: the time each was handed to its TUN
/// (`write(2)` called) minus the time the emulated network released it (its model time).
#[derive(Clone, Copy, Debug, Default)]
pub struct Timing {
    pub packets: u64,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub max_ns: u64,
    /// Packets written more than [`LiveOptions::behind`] late.
    pub behind: u64,
    /// Writes the kernel refused (counted, not retried).
    pub write_errors: u64,
}

/// What a live run did.
#[derive(Clone, Copy, Debug)]
pub struct LiveReport {
    pub timing: Timing,
    pub counts: RealCounts,
    /// Ended by `poll` (Ctrl-C) before the duration.
    pub stopped: bool,
    /// The simulated (and real) time the run ended at.
    pub ended_at: SimTime,
    pub wall_seconds: f64,
}

/// Runs `sim` (built with [`Simulation::build_live`]) in real time until its stop time or
/// until `poll` returns `false`; `tuns` are the real hosts' TUN descriptors (non-blocking),
/// by node. Warns once on stderr when the run falls behind real time.
pub fn run(
    sim: &mut Simulation,
    tuns: &[(NodeId, RawFd)],
    opts: LiveOptions,
    mut poll: impl FnMut() -> bool,
) -> io::Result<LiveReport> {
    // The default timer slack (50 µs) lets the kernel wake a sleep that much late; ask
    // for 1 ns while the loop runs (prctl(2), this thread only), and restore it after.
    // SAFETY: PR_GET/PR_SET_TIMERSLACK take and return plain integers.
    let slack = unsafe { libc::prctl(libc::PR_GET_TIMERSLACK) }.max(1) as libc::c_ulong;
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
    let started = Instant::now();
    let clock = Clock::at(started);
    let stop = sim.stop_time();
    let mut buf = vec![0u8; tunio::BUF_BYTES];
    let mut pfds: Vec<libc::pollfd> = tuns
        .iter()
        .map(|&(_, fd)| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let mut errors: Vec<u64> = Vec::new();
    let mut write_errors = 0u64;
    let mut warned = false;
    let behind = opts.behind.as_nanos() as u64;
    let mut last_poll = started;
    let mut stopped = false;
    loop {
        let now = clock.now().min(stop);
        sim.run_until(now);
        if now < stop {
            for &(node, fd) in tuns {
                // At most READ_BATCH per TUN and pass: a sender faster than the loop
                // must not keep the events that release packets from running.
                for _ in 0..tunio::READ_BATCH {
                    let Some(n) = tunio::read_packet(fd, &mut buf)? else {
                        break;
                    };
                    sim.count_read();
                    let _ = sim.inject(node, &buf[..n]);
                }
            }
        }
        sim.take_delivered(|node, released, bytes| {
            let fd = tuns.iter().find(|t| t.0 == node).map_or(-1, |t| t.1);
            // The packet is handed over when write(2) is called: the call itself runs the
            // receiving kernel's stack (tun_get_user → netif_receive_skb; an echo request's
            // reply is made inside it), which is the real host's time, not the emulator's.
            let late = clock.now().0.saturating_sub(released.0);
            if !tunio::write_packet(fd, bytes) {
                write_errors += 1;
            }
            errors.push(late);
            if late > behind && !warned {
                warned = true;
                eprintln!(
                    "airqueue live: behind real time: a packet released at {:.6} s was \
                     written {:.3} ms late",
                    released.as_secs_f64(),
                    late as f64 / 1e6
                );
            }
        });
        if now >= stop {
            break;
        }
        let t = Instant::now();
        if t.duration_since(last_poll) >= opts.poll_every {
            last_poll = t;
            if !poll() {
                stopped = true;
                let end = clock.now().min(stop);
                sim.run_until(end);
                break;
            }
        }
        // Wait for the next event (or the next poll), or a packet.
        let next = sim
            .next_event_time()
            .unwrap_or(stop)
            .min(stop)
            .min(clock.sim(last_poll + opts.poll_every));
        let due = clock.instant(next);
        let now = Instant::now();
        if due <= now {
            continue;
        }
        let wait = due - now;
        if wait > opts.spin {
            let sleep = wait - opts.spin;
            let ts = libc::timespec {
                tv_sec: sleep.as_secs() as libc::time_t,
                tv_nsec: sleep.subsec_nanos() as libc::c_long,
            };
            // SAFETY: `pfds` is a live array of pollfd of the given length.
            unsafe {
                libc::ppoll(
                    pfds.as_mut_ptr(),
                    pfds.len() as libc::nfds_t,
                    &ts,
                    std::ptr::null(),
                )
            };
        } else {
            let zero = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            while Instant::now() < due {
                // SAFETY: as above; a zero timeout only checks for readable TUNs.
                let ready = unsafe {
                    libc::ppoll(
                        pfds.as_mut_ptr(),
                        pfds.len() as libc::nfds_t,
                        &zero,
                        std::ptr::null(),
                    )
                };
                if ready > 0 {
                    break;
                }
                std::hint::spin_loop();
            }
        }
    }
    // SAFETY: PR_SET_TIMERSLACK takes a value and changes only this thread.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, slack) };
    sim.finish_live(started.elapsed().as_secs_f64());
    Ok(LiveReport {
        timing: timing(&mut errors, behind, write_errors),
        counts: sim.real_counts(),
        stopped,
        ended_at: sim.now(),
        wall_seconds: started.elapsed().as_secs_f64(),
    })
}

/// The release-error quantiles (nearest rank) of the written packets.
fn timing(errors: &mut [u64], behind: u64, write_errors: u64) -> Timing {
    if errors.is_empty() {
        return Timing {
            write_errors,
            ..Timing::default()
        };
    }
    errors.sort_unstable();
    let q = |p: f64| errors[((p * errors.len() as f64).ceil() as usize).clamp(1, errors.len()) - 1];
    Timing {
        packets: errors.len() as u64,
        p50_ns: q(0.5),
        p99_ns: q(0.99),
        max_ns: *errors.last().expect("not empty"),
        behind: errors.iter().filter(|&&e| e > behind).count() as u64,
        write_errors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_nearest_rank() {
        let mut e: Vec<u64> = (1..=100).rev().collect();
        let t = timing(&mut e, 98, 0);
        assert_eq!(
            (t.packets, t.p50_ns, t.p99_ns, t.max_ns, t.behind),
            (100, 50, 99, 100, 2)
        );
        assert_eq!(timing(&mut [], 1, 3).write_errors, 3);
    }
}
