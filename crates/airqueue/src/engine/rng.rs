//! Deterministic random-number streams, one per component.
//!
//! A stream is derived from (run seed, stable component name) by SipHash-2-4 (keyed with the
//! seed) into the 128-bit state of a PCG-XSL-RR-128/64 generator (`rand_pcg::Pcg64`). The
//! name is what the scenario calls the component (`"link:bottleneck:a->b:loss/flow:cbr0"`),
//! so adding or reordering other components never shifts this stream.

use rand::SeedableRng;
use siphasher::sip128::{Hasher128, SipHasher24};
use std::hash::Hasher;

/// The generator every component uses.
pub type SimRng = rand_pcg::Pcg64;

/// Domain-separation key so that airqueue streams differ from other SipHash uses of the seed.
const STREAM_KEY: u64 = 0x6169_7271_7565_7565; // "airqueue"

/// The stream for component `name` in a run with seed `seed`.
pub fn stream(seed: u64, name: &str) -> SimRng {
    let mut h = SipHasher24::new_with_keys(seed, STREAM_KEY);
    h.write(name.as_bytes());
    let h128 = h.finish128();
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&h128.h1.to_le_bytes());
    bytes[8..16].copy_from_slice(&h128.h2.to_le_bytes());
    // The second half seeds the PCG increment (stream selector); derive it from a second hash.
    let mut h2 = SipHasher24::new_with_keys(!seed, STREAM_KEY);
    h2.write(name.as_bytes());
    let s = h2.finish128();
    bytes[16..24].copy_from_slice(&s.h1.to_le_bytes());
    bytes[24..].copy_from_slice(&s.h2.to_le_bytes());
    SimRng::from_seed(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    fn draws(mut r: SimRng) -> Vec<u64> {
        (0..8).map(|_| r.random()).collect()
    }

    #[test]
    fn same_seed_and_name_give_the_same_stream() {
        assert_eq!(draws(stream(7, "flow:a")), draws(stream(7, "flow:a")));
    }

    #[test]
    fn different_names_or_seeds_give_different_streams() {
        assert_ne!(draws(stream(7, "flow:a")), draws(stream(7, "flow:b")));
        assert_ne!(draws(stream(7, "flow:a")), draws(stream(8, "flow:a")));
    }

    /// First u64 of stream (1, "flow:a"), recorded when the derivation was written.
    const PINNED_FIRST_DRAW: u64 = 0x5f25_53dc_6d8b_9659;

    #[test]
    fn stream_is_stable_across_builds() {
        // Pinned value: if this changes, every published result changes; bump the version.
        let first: u64 = stream(1, "flow:a").random();
        assert_eq!(first, PINNED_FIRST_DRAW, "got {first:#x}");
    }
}
