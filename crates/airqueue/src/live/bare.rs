//! The bare forwarder: the reference that live mode's throughput is judged against
//! (issue 34, "Throughput"; `airqueue bench --live`, docs/live.md).
//!
//! It uses the same TUN devices and the same read and write calls as the live loop
//! ([`super::tunio`]) but no model: each packet read from a real host's TUN is written at
//! once to the TUN of the host that owns its IPv4 destination address ("read, write
//! back"). What it carries on a machine is the most any TUN-based userspace emulator can
//! carry there with one thread, so the emulator's packet rate divided by this one, measured
//! in the same run, is the cost of the model itself.

use std::io;
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

use super::tunio;

/// What a bare forwarding run carried.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BareReport {
    /// Packets read from the TUNs.
    pub read: u64,
    /// Packets written to a destination TUN.
    pub written: u64,
    /// Packets read whose destination is no real host's address (or that are no IPv4
    /// packet): not written.
    pub unrouted: u64,
    /// Writes the kernel refused (counted, not retried).
    pub write_errors: u64,
    /// The largest packet read, in bytes (a TUN without `IFF_VNET_HDR` never hands over a
    /// packet larger than its MTU).
    pub max_bytes: u64,
    /// Ended by `poll` (Ctrl-C) before the duration.
    pub stopped: bool,
    pub wall_seconds: f64,
    /// CPU time of the forwarding thread (user and system), in seconds.
    pub cpu_seconds: f64,
}

/// The IPv4 destination address of `packet` (bytes 16–19), if it is an IPv4 packet.
fn ipv4_dst(packet: &[u8]) -> Option<u32> {
    if packet.len() < 20 || packet[0] >> 4 != 4 {
        return None;
    }
    Some(u32::from_be_bytes([
        packet[16], packet[17], packet[18], packet[19],
    ]))
}

/// Forwards between `tuns` (each a real host's IPv4 address and its non-blocking TUN
/// descriptor) for `duration` or until `poll` (called every `poll_every`) returns `false`.
/// The loop reads up to [`tunio::READ_BATCH`] packets from each TUN in turn, writing each
/// as it is read; when none was waiting it spins for `spin` after the last packet, then
/// sleeps in `ppoll` — the live loop's input and output without the model between them.
pub fn forward(
    tuns: &[(u32, RawFd)],
    duration: Duration,
    spin: Duration,
    poll_every: Duration,
    mut poll: impl FnMut() -> bool,
) -> io::Result<BareReport> {
    let cpu_before = tunio::thread_cpu_seconds();
    let started = Instant::now();
    let mut last_packet = started;
    let end = started + duration;
    let mut report = BareReport::default();
    let mut buf = vec![0u8; tunio::BUF_BYTES];
    let mut pfds: Vec<libc::pollfd> = tuns
        .iter()
        .map(|&(_, fd)| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let mut last_poll = started;
    loop {
        let read_before = report.read;
        for &(_, fd) in tuns {
            for _ in 0..tunio::READ_BATCH {
                let Some(n) = tunio::read_packet(fd, &mut buf)? else {
                    break;
                };
                let packet = &buf[..n];
                report.read += 1;
                report.max_bytes = report.max_bytes.max(n as u64);
                let to = ipv4_dst(packet)
                    .and_then(|dst| tuns.iter().find(|t| t.0 == dst))
                    .map(|t| t.1);
                match to {
                    Some(to) => {
                        if tunio::write_packet(to, packet) {
                            report.written += 1;
                        } else {
                            report.write_errors += 1;
                        }
                    }
                    None => report.unrouted += 1,
                }
            }
        }
        let now = Instant::now();
        if now >= end {
            break;
        }
        if now.duration_since(last_poll) >= poll_every {
            last_poll = now;
            if !poll() {
                report.stopped = true;
                break;
            }
        }
        if report.read > read_before {
            last_packet = now;
            continue; // a TUN may hold more than a batch: read again before sleeping
        }
        if now.duration_since(last_packet) < spin {
            // As the live loop, which spins while its next event is this close (and under
            // load it always is): a packet arriving now is read at once, not after a wake-up.
            std::hint::spin_loop();
            continue;
        }
        let wait = (end - now).min(poll_every);
        let ts = libc::timespec {
            tv_sec: wait.as_secs() as libc::time_t,
            tv_nsec: wait.subsec_nanos() as libc::c_long,
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
    }
    report.wall_seconds = started.elapsed().as_secs_f64();
    report.cpu_seconds = tunio::thread_cpu_seconds() - cpu_before;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_ipv4_destination() {
        let mut p = [0u8; 28];
        p[0] = 0x45;
        p[16..20].copy_from_slice(&[10, 0, 0, 2]);
        assert_eq!(ipv4_dst(&p), Some(0x0a00_0002));
        p[0] = 0x60;
        assert_eq!(ipv4_dst(&p), None);
        assert_eq!(ipv4_dst(&p[..10]), None);
    }
}
