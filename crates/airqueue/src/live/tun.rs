//! TUN interfaces inside a network namespace.
//!
//! The namespace is entered by a short-lived thread (`setns(2)` changes the calling
//! thread's namespace only), which opens `/dev/net/tun` there and exits; the device lives
//! in that namespace and the descriptor stays valid in the caller, so the process's own
//! namespace — the host's — is never touched. The device has `IFF_NO_PI` (each read or
//! write is one bare IP packet) and no `IFF_VNET_HDR`: without the virtio header the kernel
//! hands a TUN no GSO super-packets and expects none (`tun_get_user`/`tun_put_user` in
//! drivers/net/tun.c), so every packet read is one wire-sized datagram.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// `TUNSETIFF` = `_IOW('T', 202, int)` (include/uapi/linux/if_tun.h).
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

/// `struct ifreq` with the flags member of its union (40 bytes on Linux).
#[repr(C)]
struct IfReqFlags {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// Opens (creates) TUN interface `name` in the namespace whose handle is `netns` (e.g.
/// `/run/netns/aq-123-a`), non-blocking. The interface is down and has no address.
pub fn open_in_netns(netns: &Path, name: &str) -> io::Result<OwnedFd> {
    if name.is_empty() || name.len() >= libc::IFNAMSIZ {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("interface name {name:?} must have 1 to 15 bytes"),
        ));
    }
    let ns = File::open(netns)?;
    let name = name.to_owned();
    std::thread::spawn(move || {
        // SAFETY: setns on a descriptor we own; it changes only this thread's namespace,
        // and the thread ends right after opening the device.
        if unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
            return Err(io::Error::last_os_error());
        }
        open_tun(&name)
    })
    .join()
    .map_err(|_| io::Error::other("the thread opening the TUN panicked"))?
}

fn open_tun(name: &str) -> io::Result<OwnedFd> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open("/dev/net/tun")?;
    let mut req = IfReqFlags {
        name: [0; libc::IFNAMSIZ],
        flags: IFF_TUN | IFF_NO_PI,
        _pad: [0; 22],
    };
    req.name[..name.len()].copy_from_slice(name.as_bytes());
    // SAFETY: TUNSETIFF reads and writes a `struct ifreq`, which `req` is laid out as.
    if unsafe { libc::ioctl(f.as_raw_fd(), TUNSETIFF, &mut req) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(f.into())
}
