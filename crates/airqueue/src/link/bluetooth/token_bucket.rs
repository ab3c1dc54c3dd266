//! L2CAP flow control as a token bucket in front of the baseband buffer (thesis, seed
//! 001, §3.1 and Fig. 1.1(b), after Mišić et al., its ref. [9]).
//!
//! Tokens arrive at rate `tb` (bit/s) into a bucket of `depth` bytes (the thesis's "token
//! buffer capacity", 3 KB in Table 3.1). A baseband packet waiting in the token buffer S
//! leaves for the baseband buffer L when the bucket holds tokens for its payload (bytes ×
//! 8 bits) and consumes them (the piconet drops it if L is full). Over a long busy period
//! the rate out of S is therefore `tb`, with bursts up to `depth`.
//!
//! **Lazy evaluation.** Like the Gilbert-Elliott channel, the bucket schedules no events:
//! it remembers its level at the instant it was last looked at and computes the level at
//! any later instant, so that the baseband looks at it only when it matters (a packet
//! arrives, the slave is polled). Tokens are counted in nano-bits (bit × 10⁹) so that
//! `rate × ns` is exact in integers: runs are reproducible bit for bit.

use crate::engine::SimTime;

const NANO: u64 = 1_000_000_000;

/// A token bucket evaluated lazily.
#[derive(Clone, Debug)]
pub struct TokenBucket {
    rate_bps: u64,
    /// Capacity, nano-bits.
    depth: u64,
    /// Level at `at`, nano-bits.
    tokens: u64,
    at: SimTime,
}

impl TokenBucket {
    /// A full bucket at time zero (as Linux's TBF starts).
    pub fn new(rate_bps: u64, depth_bytes: u64) -> Self {
        let depth = depth_bytes.saturating_mul(8 * NANO);
        TokenBucket {
            rate_bps,
            depth,
            tokens: depth,
            at: SimTime::ZERO,
        }
    }

    /// Moves the level forward to `now` (not earlier than the last look).
    #[inline]
    pub fn advance(&mut self, now: SimTime) {
        if now > self.at {
            let add = (now.0 - self.at.0).saturating_mul(self.rate_bps);
            self.tokens = self.tokens.saturating_add(add).min(self.depth);
            self.at = now;
        }
    }

    /// The earliest instant (not before the last look) at which the bucket holds tokens
    /// for `bytes`; `SimTime::MAX` if it never can (larger than the bucket, or rate 0).
    #[inline]
    pub fn ready_at(&self, bytes: u32) -> SimTime {
        let need = u64::from(bytes) * 8 * NANO;
        if need <= self.tokens {
            return self.at;
        }
        if need > self.depth || self.rate_bps == 0 {
            return SimTime::MAX;
        }
        self.at + SimTime((need - self.tokens).div_ceil(self.rate_bps))
    }

    /// Takes tokens for `bytes` at `now` (which must be at least `ready_at(bytes)`).
    #[inline]
    pub fn take(&mut self, bytes: u32, now: SimTime) {
        self.advance(now);
        let need = u64::from(bytes) * 8 * NANO;
        debug_assert!(need <= self.tokens, "took tokens the bucket does not hold");
        self.tokens -= need.min(self.tokens);
    }

    /// The level in bits at the last look.
    pub fn level_bits(&self) -> f64 {
        self.tokens as f64 / NANO as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Closed form: from an empty bucket, k packets of b bytes leave at k·8b/tb.
    #[test]
    fn drains_at_the_token_rate() {
        let mut tb = TokenBucket::new(250_000, 3000);
        // Empty it.
        tb.take(3000, SimTime::ZERO);
        let mut t = SimTime::ZERO;
        for k in 1..=100u64 {
            t = tb.ready_at(339);
            tb.take(339, t);
            let exact = (k * 339 * 8) as f64 / 250_000.0;
            assert!((t.as_secs_f64() - exact).abs() < 1e-9 * k as f64, "{k}");
        }
        assert!(t > SimTime::ZERO);
        // Never more than the bucket.
        tb.advance(SimTime::from_secs(100));
        assert_eq!(tb.level_bits(), 24_000.0);
        assert_eq!(tb.ready_at(3001), SimTime::MAX);
    }
}
