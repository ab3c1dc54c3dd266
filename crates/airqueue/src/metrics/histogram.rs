//! A duration histogram with HdrHistogram's buckets that stores only the range of buckets
//! it has seen.
//!
//! HdrHistogram (3 significant digits, values from 1 ns) keeps one counter for every bucket
//! from 0 up to the largest value: 2 048 counters (16 KiB) when empty and about 20 000
//! (160 KiB) once a value near one second arrives. A flow holds three (one-way delay, RTT,
//! response times), so 100 000 idle UDP flows held 4.8 GB and 1 000 TCP flows 280 MB of
//! mostly-zero counters (issue 18, item 4). A flow's delays span a narrow range (a
//! dumbbell's RTTs, 42–54 ms, fall in about 400 buckets), so this histogram keeps the
//! counters of the buckets from the lowest to the highest seen — none before the first
//! value — and never more than HdrHistogram would.
//!
//! The counters are 32-bit (half the bytes to keep in cache and to copy as the range
//! widens; issue 18's 1 000-flow dumbbell spent 12 % of its cache misses copying them);
//! a counter that wraps carries 2³² into a side list, so counts are still exact 64-bit
//! numbers (HdrHistogram's `u64` counters).
//!
//! Bucket layout and quantile rule are HdrHistogram's (hdrhistogram 7.6 with
//! `Histogram::new(3)`: lowest discernible value 1, 2 048 sub-buckets, auto-resize;
//! `value_at_quantile`), reproduced exactly so that every quantile, and therefore every
//! result, is bit-identical; the tests check it against the crate.

/// log2 of the sub-bucket count: 2 048 sub-buckets keep single-unit resolution up to
/// 2 × 10³ (3 significant digits).
const SUB_BUCKET_MAGNITUDE: u32 = 11;
const SUB_BUCKET_HALF_MAGNITUDE: u32 = SUB_BUCKET_MAGNITUDE - 1;
const SUB_BUCKET_HALF: u64 = 1 << SUB_BUCKET_HALF_MAGNITUDE;
const SUB_BUCKET_MASK: u64 = (1 << SUB_BUCKET_MAGNITUDE) - 1;
/// `64 − unit magnitude (0) − SUB_BUCKET_MAGNITUDE`.
const LEADING_ZERO_BASE: u32 = 64 - SUB_BUCKET_MAGNITUDE;

/// Counts of nanosecond durations in HdrHistogram's buckets, for quantiles within 0.1 %.
#[derive(Clone, Debug, Default)]
pub struct DurationHistogram {
    /// Counts of the buckets `base ..base + counts.len()` (empty before the first value),
    /// modulo 2³².
    counts: Vec<u32>,
    base: usize,
    total: u64,
    /// `(bucket index, wraps)` of the counters that wrapped, sorted by index: the count of
    /// bucket `i` is `wraps · 2³² + counts[i − base]` (empty unless 2³² values fell in one
    /// bucket).
    carries: Vec<(usize, u64)>,
}

/// HdrHistogram's bucket (power of two) of `v`.
#[inline]
fn bucket_of(v: u64) -> u32 {
    LEADING_ZERO_BASE - (v | SUB_BUCKET_MASK).leading_zeros()
}

/// HdrHistogram's counter index of `v`.
#[inline]
fn index_of(v: u64) -> usize {
    let bucket = bucket_of(v);
    let sub = v >> bucket;
    (((u64::from(bucket) + 1) << SUB_BUCKET_HALF_MAGNITUDE) + sub - SUB_BUCKET_HALF) as usize
}

/// The lowest value counted at `index` (HdrHistogram's `value_for`).
fn value_of(index: usize) -> u64 {
    let index = index as u64;
    let bucket = (index >> SUB_BUCKET_HALF_MAGNITUDE) as i64 - 1;
    let sub = (index & (SUB_BUCKET_HALF - 1)) + SUB_BUCKET_HALF;
    if bucket < 0 {
        sub - SUB_BUCKET_HALF
    } else {
        sub << bucket
    }
}

/// The lowest value equivalent to `v` (in the same counter).
fn lowest_equivalent(v: u64) -> u64 {
    let b = bucket_of(v);
    (v >> b) << b
}

/// The highest value equivalent to `v` (HdrHistogram's `highest_equivalent`).
fn highest_equivalent(v: u64) -> u64 {
    if v == u64::MAX {
        u64::MAX
    } else {
        lowest_equivalent(v).saturating_add(1 << bucket_of(v)) - 1
    }
}

impl DurationHistogram {
    /// Records `ns` (0 counts as 1 ns, HdrHistogram's lowest discernible value).
    #[inline]
    pub fn record(&mut self, ns: u64) {
        let i = index_of(ns.max(1));
        match i.checked_sub(self.base) {
            Some(k) if k < self.counts.len() => {
                let c = &mut self.counts[k];
                *c = c.wrapping_add(1);
                if *c == 0 {
                    self.carry(i);
                }
            }
            _ => self.grow_to(i),
        }
        self.total = self.total.saturating_add(1);
    }

    /// Bucket `i`'s counter wrapped: 2³² more values in it.
    #[cold]
    fn carry(&mut self, i: usize) {
        match self.carries.binary_search_by_key(&i, |&(j, _)| j) {
            Ok(k) => self.carries[k].1 = self.carries[k].1.saturating_add(1),
            Err(k) => self.carries.insert(k, (i, 1)),
        }
    }

    /// The count of bucket `i` (`k = i − base`), carries included (saturating, as
    /// HdrHistogram's counters).
    #[inline]
    fn count(&self, k: usize) -> u64 {
        let low = u64::from(self.counts[k]);
        if self.carries.is_empty() {
            return low;
        }
        let i = self.base + k;
        match self.carries.binary_search_by_key(&i, |&(j, _)| j) {
            Ok(c) => self.carries[c]
                .1
                .checked_mul(1 << 32)
                .and_then(|h| h.checked_add(low))
                .unwrap_or(u64::MAX),
            Err(_) => low,
        }
    }

    /// Widens the kept range to take index `i` and counts it (cold: a flow's delays settle
    /// into a range within its first packets).
    #[cold]
    fn grow_to(&mut self, i: usize) {
        if self.counts.is_empty() {
            self.base = i;
            self.counts.push(1);
        } else if i < self.base {
            // Extend down with slack (half the kept range) so that delays falling one
            // bucket at a time do not shift the counters each time.
            let slack = (self.counts.len() / 2).min(i);
            let new_base = i - slack;
            let add = self.base - new_base;
            self.counts.splice(0..0, std::iter::repeat_n(0, add));
            self.base = new_base;
            self.counts[i - new_base] = 1;
        } else {
            self.counts.resize(i - self.base + 1, 0);
            *self.counts.last_mut().expect("just resized") = 1;
        }
    }

    /// Forgets every value, keeping the counters' allocation for the next ones.
    pub fn reset(&mut self) {
        self.counts.clear();
        self.carries.clear();
        self.base = 0;
        self.total = 0;
    }

    /// Values recorded since the last reset.
    pub fn len(&self) -> u64 {
        self.total
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The value at quantile `q` as HdrHistogram's `value_at_quantile` answers it: the top
    /// of the bucket holding the ⌈q·n⌉-th smallest value (the bottom for q = 0); 0 when
    /// empty.
    pub fn value_at_quantile(&self, q: f64) -> u64 {
        let q = if q > 1.0 { 1.0 } else { q };
        let target = ((q * self.total as f64).ceil() as u64).max(1);
        let mut seen: u64 = 0;
        for k in 0..self.counts.len() {
            seen = seen.saturating_add(self.count(k));
            if seen >= target {
                let v = value_of(self.base + k);
                return if q == 0.0 {
                    lowest_equivalent(v)
                } else {
                    highest_equivalent(v)
                };
            }
        }
        0
    }

    /// Heap bytes the counters take.
    pub fn heap_bytes(&self) -> usize {
        self.counts.capacity() * std::mem::size_of::<u32>()
            + self.carries.capacity() * std::mem::size_of::<(usize, u64)>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::Histogram;

    const QUANTILES: [f64; 10] = [0.0, 1e-9, 0.1, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0, 1.5];

    /// Records `values` in both and compares every quantile. Reference: hdrhistogram 7.6,
    /// `Histogram::new(3)`, the histogram this one replaces.
    fn same_as_hdrhistogram(values: &[u64]) {
        let mut ours = DurationHistogram::default();
        let mut hdr = Histogram::<u64>::new(3).unwrap();
        for &v in values {
            ours.record(v);
            if hdr.record(v.max(1)).is_err() {
                hdr.saturating_record(v);
            }
        }
        assert_eq!(ours.len(), hdr.len());
        for q in QUANTILES {
            assert_eq!(
                ours.value_at_quantile(q),
                hdr.value_at_quantile(q),
                "q {q} over {} values",
                values.len()
            );
        }
    }

    #[test]
    fn quantiles_are_hdrhistograms_over_every_bucket_and_order() {
        // Every power of two and its neighbours (each bucket edge), 0 and u64::MAX.
        let mut edges: Vec<u64> = vec![0, 1, 2, 1023, 1024, 2047, 2048, u64::MAX, u64::MAX - 1];
        for s in 0..64 {
            let p = 1u64 << s;
            edges.extend([p - 1, p, p + 1, p.saturating_mul(3) / 2]);
        }
        same_as_hdrhistogram(&edges);
        edges.reverse();
        same_as_hdrhistogram(&edges);
        for &v in &edges {
            same_as_hdrhistogram(&[v]);
        }
        // Delays of a flow: a narrow band, then values falling below it one at a time.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut values = Vec::new();
        for i in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(40_000_000 + x % 15_000_000);
            if i % 100 == 0 {
                values.push(40_000_000 - i * 1_000);
            }
        }
        same_as_hdrhistogram(&values);
        values.reverse();
        same_as_hdrhistogram(&values);
    }

    #[test]
    fn a_counter_past_2_pow_32_carries_exactly() {
        // Reference: hdrhistogram 7.6 with 2³² values of 50 ms (`record_n`), one of 1 ms
        // and three of 90 ms: every quantile equal. Ours gets the 2³² values by setting the
        // 32-bit counter just below its wrap (recording 4 × 10⁹ values would take seconds).
        let (v, low, high) = (50_000_000u64, 1_000_000u64, 90_000_000u64);
        let mut hdr = Histogram::<u64>::new(3).unwrap();
        hdr.record_n(v, 1 << 32).unwrap();
        hdr.record(low).unwrap();
        hdr.record_n(high, 3).unwrap();
        let mut ours = DurationHistogram::default();
        ours.record(v);
        ours.counts[0] = u32::MAX - 1;
        ours.total = u64::from(u32::MAX) - 1;
        ours.record(v); // u32::MAX
        assert!(ours.carries.is_empty());
        ours.record(v); // 2³²: wraps to 0 and carries
        assert_eq!((ours.counts[0], ours.carries.len()), (0, 1));
        ours.record(low);
        for _ in 0..3 {
            ours.record(high);
        }
        assert_eq!(ours.len(), hdr.len());
        for q in QUANTILES.into_iter().chain([0.9999999999, 0.99999999999]) {
            assert_eq!(ours.value_at_quantile(q), hdr.value_at_quantile(q), "q {q}");
        }
        ours.reset();
        assert!(ours.carries.is_empty() && ours.is_empty());
    }

    #[test]
    fn an_empty_histogram_holds_nothing_and_a_narrow_one_little() {
        let mut h = DurationHistogram::default();
        assert_eq!((h.heap_bytes(), h.value_at_quantile(0.5)), (0, 0));
        // 42–54 ms in 1 µs steps: about 400 buckets of 32.8 µs, 1.6 KB, against the
        // 160 KiB HdrHistogram allocates for values up to 54 ms.
        for us in 42_000..54_000u64 {
            h.record(us * 1000);
        }
        assert!(h.heap_bytes() < 4 * 1024, "{} B", h.heap_bytes());
        h.reset();
        assert_eq!((h.len(), h.value_at_quantile(1.0)), (0, 0));
    }
}
