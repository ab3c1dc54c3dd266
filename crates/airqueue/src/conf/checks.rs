//! What the checks of every section share: the rule for a name, uniqueness within a
//! section, IPv4's MTU floor. Here, below the models, so that a medium's own checks
//! (`link/p2p/checks.rs`, `stripe/checks.rs`, …) and the format's (`scenario/validate.rs`)
//! word the same problem the same way.

use super::ScenarioError;
use std::collections::HashSet;

/// IPv4's minimum MTU (RFC 791: every host must accept 68-byte datagrams).
pub const MIN_MTU: u32 = 68;

/// A name that is part of an interface name (`<node>.<link>`): not empty, no dots or spaces.
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

/// Each name once in `section`: every repetition is a problem at `<section>.<name>.name`.
pub fn unique<'a>(section: &str, names: impl Iterator<Item = &'a str>, errs: &mut ScenarioError) {
    let mut seen = HashSet::new();
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
