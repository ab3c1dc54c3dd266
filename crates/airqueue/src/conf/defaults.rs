//! Serde defaults and skip tests that the specs of several models share (a medium's
//! `mtu`, a zero left out of the resolved scenario), so that each spec, wherever its
//! model's folder is, fills in and prints a key the same way.

/// The `mtu` of a medium whose entry gives none: 1500 B, Ethernet's.
pub fn default_mtu() -> u32 {
    1500
}

/// A zero count is left out when a scenario is printed (it is the default).
pub fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}
