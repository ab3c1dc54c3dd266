//! Reading and writing one packet on a TUN descriptor: the calls the live loop and the bare
//! forwarder ([`super::bare`]) share, so that comparing their packet rates compares the
//! model's cost and nothing else.
//!
//! A TUN is a character device, not a socket: `recvmmsg`/`sendmmsg` do not apply, and a
//! `read(2)` or `write(2)` moves exactly one packet (drivers/net/tun.c, `tun_do_read`,
//! `tun_get_user`), so there is one system call per packet each way.

use std::io;
use std::os::fd::RawFd;

/// A read buffer large enough for any packet a TUN hands over (its MTU is at most 64 KiB).
pub const BUF_BYTES: usize = 65_536;

/// The most packets read from one TUN before the loop turns to its events and writes (and
/// the bare forwarder to the next TUN): a sender faster than the loop cannot starve the
/// events that release packets, and a batch of 64-byte packets takes tens of microseconds.
pub const READ_BATCH: usize = 32;

/// Reads one packet from non-blocking `fd` into `buf`: its length, or `None` when no packet
/// is waiting (`EAGAIN`). `EINTR` is retried; any other error is returned.
#[inline]
pub fn read_packet(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    loop {
        // SAFETY: reading into a buffer we own, of its length, from a descriptor the
        // caller owns.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::WouldBlock => return Ok(None),
            io::ErrorKind::Interrupted => continue,
            _ => return Err(e),
        }
    }
}

/// Writes one packet to `fd`; `false` if the kernel refused it (the caller counts it; a
/// refused packet is not retried, as a full device queue would drop it).
#[inline]
pub fn write_packet(fd: RawFd, packet: &[u8]) -> bool {
    // SAFETY: writing a buffer we own, of its length, to a descriptor the caller owns.
    let n = unsafe { libc::write(fd, packet.as_ptr().cast(), packet.len()) };
    n >= 0
}

/// The CPU time the calling thread has used, in seconds (`CLOCK_THREAD_CPUTIME_ID`): system
/// time included, which for a TUN writer is most of it — a `write(2)` runs the receiving
/// host's stack — so CPU time per packet compares forwarders on a loaded machine, where a
/// packet rate mostly measures the share of the CPUs a forwarder was given.
pub fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec, which `ts` is.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}
