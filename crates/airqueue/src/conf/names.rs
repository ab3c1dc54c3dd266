//! What the checks of every section share, below all of them: the rules of a name
//! (`check_name`, `unique`) and IPv4's MTU floor (`MIN_MTU`). They live here, not in the
//! format (`crate::scenario`), so that each medium's folder (`link/p2p/checks.rs`,
//! `link/wifi/checks.rs`, `stripe/checks.rs`, …) checks its own entries without importing
//! the layer above it, and words the same problem the same way.

use super::ScenarioError;
use rustc_hash::FxHashSet as HashSet;

/// IPv4's minimum MTU (RFC 791: every host must accept 68-byte datagrams).
pub const MIN_MTU: u32 = 68;

/// A name that can be part of an interface name `<node>.<medium>`: not empty, no dots,
/// no white space.
pub fn check_name(path: String, name: &str, errs: &mut ScenarioError) {
    if name.is_empty() {
        errs.push(path, "must not be empty");
    } else if name.contains('.') || name.chars().any(char::is_whitespace) {
        errs.push(
            path,
            format!(
                "\"{name}\" may not contain dots or spaces (dots separate node and link in interface names); use '-' or '_'"
            ),
        );
    }
}

/// Each name of `section` used by one entry only.
pub fn unique<'a>(section: &str, names: impl Iterator<Item = &'a str>, errs: &mut ScenarioError) {
    let mut seen = HashSet::default();
    for n in names {
        if !seen.insert(n) {
            errs.push(
                format!("{section}.{n}.name"),
                format!(
                    "\"{n}\" is used by more than one entry in {section}; names must be unique"
                ),
            );
        }
    }
}

/// A wired medium's `mtu`: within [`MIN_MTU`]…65535 bytes (an IPv4 datagram's length).
pub fn check_wired_mtu(path: String, mtu: u32, errs: &mut ScenarioError) {
    if !(MIN_MTU..=65535).contains(&mtu) {
        errs.push(
            path,
            format!("{mtu} is outside {MIN_MTU}…65535 bytes; 1500 is Ethernet's"),
        );
    }
}
