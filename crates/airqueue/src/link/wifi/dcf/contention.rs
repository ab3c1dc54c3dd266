//! Who transmits next, in O(log n) per change instead of a pass over every back-off
//! function per frame (issue 37 item 3: a cell's per-frame cost must not grow with its
//! station count).
//!
//! The rules are those of [`super::channel_access`] (IEEE 802.11-2016 §10.3.4.3: a counter
//! loses the slots wholly idle since its reference and freezes while the medium is busy);
//! only their bookkeeping differs, the way ns-3's `ChannelAccessManager` and analytical
//! DCF models keep it. Every function of one AIFSN counts from the same reference
//! (`idle_from` − DIFS + AIFS), so instead of decrementing every counter at every busy
//! period, each **AIFSN class** keeps `counted`, the idle slots it has counted in all
//! idle periods so far (advanced once per busy period, [`Contention::fold`]). A contending
//! function with `b` slots left is filed under the absolute key `counted + b`, which no
//! later busy period changes; it transmits at `reference + (key − counted)·slot`, and the
//! class's smallest key is the class's next transmitter ([`KeyHeap`], an indexed binary
//! heap: no allocation after construction). A function's [`super::channel_access::Backoff`]
//! is brought up to date only when it is next read or written ([`Contention::synced`]):
//! the slots counted since, in one step, which is what the successive freezes would have
//! left (a counter that reaches 0 at a freeze is spent: only a post-back-off can).
//!
//! Functions that transmit at an explicit instant (a frame sent at once on an idle medium,
//! §10.3.4.2; a TXOP's next frame) are in one more heap keyed by that instant. (The
//! per-station medium of [`super::hearing`] keeps its per-function instants and passes:
//! every port that hears a frame freezes and resumes there anyway.) The next
//! transmission is the minimum over the explicit heap and each class's smallest key:
//! O(classes) — one for the DCF, at most five for EDCA's AIFSNs.

use crate::engine::SimTime;

const ABSENT: u32 = u32::MAX;

/// A min-heap of (key, function) with each function's position, so that a function can
/// be removed or re-keyed in O(log n). Ties are broken by the function index.
#[derive(Clone, Debug)]
pub(super) struct KeyHeap {
    heap: Vec<(u64, u32)>,
    pos: Vec<u32>,
}

impl KeyHeap {
    /// A heap for functions `0 .. n`.
    pub(super) fn new(n: usize) -> KeyHeap {
        KeyHeap {
            heap: Vec::with_capacity(n),
            pos: vec![ABSENT; n],
        }
    }

    /// The smallest (key, function).
    #[inline]
    pub(super) fn min(&self) -> Option<(u64, u32)> {
        self.heap.first().copied()
    }

    #[inline]
    pub(super) fn contains(&self, k: usize) -> bool {
        self.pos[k] != ABSENT
    }

    /// Files function `k` under `key` (re-keys it if it is filed).
    #[inline]
    pub(super) fn set(&mut self, k: usize, key: u64) {
        if self.contains(k) {
            self.remove(k);
        }
        let i = self.heap.len();
        self.heap.push((key, k as u32));
        self.pos[k] = i as u32;
        self.up(i);
    }

    /// Takes function `k` out, if it is filed.
    #[inline]
    pub(super) fn remove(&mut self, k: usize) {
        let i = self.pos[k];
        if i == ABSENT {
            return;
        }
        let i = i as usize;
        self.pos[k] = ABSENT;
        let last = self.heap.pop().expect("a filed function is in the heap");
        if i < self.heap.len() {
            self.heap[i] = last;
            self.pos[last.1 as usize] = i as u32;
            self.down(i);
            self.up(i);
        }
    }

    /// Takes the smallest out.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<(u64, u32)> {
        let top = self.min()?;
        self.pos[top.1 as usize] = ABSENT;
        let last = self.heap.pop().expect("the heap has its top");
        if !self.heap.is_empty() {
            self.heap[0] = last;
            self.pos[last.1 as usize] = 0;
            self.down(0);
        }
        Some(top)
    }

    #[inline]
    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.pos[self.heap[a].1 as usize] = a as u32;
        self.pos[self.heap[b].1 as usize] = b as u32;
    }

    #[inline]
    fn up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[i] >= self.heap[parent] {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }

    #[inline]
    fn down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < n && self.heap[l] < self.heap[m] {
                m = l;
            }
            if r < n && self.heap[r] < self.heap[m] {
                m = r;
            }
            if m == i {
                break;
            }
            self.swap(i, m);
            i = m;
        }
    }
}

/// The functions of one AIFSN: they count from one reference.
#[derive(Clone, Debug)]
pub(super) struct Class {
    pub(super) aifsn: u32,
    /// Idle slots counted in the idle periods before the current one.
    pub(super) counted: u64,
    /// Its contending functions by absolute key (`counted` + slots left when filed).
    pub(super) heap: KeyHeap,
}

/// The contention state of a medium's channel-access functions (see the module doc).
#[derive(Clone, Debug)]
pub(super) struct Contention {
    pub(super) classes: Vec<Class>,
    /// Per function: its class.
    class_of: Vec<u8>,
    /// Busy periods so far (each one folds every class's idle slots in).
    epoch: u64,
    /// Per function: its class's `counted` and the `epoch` when its back-off was last
    /// brought up to date.
    synced: Vec<(u64, u64)>,
    /// Functions that transmit at an explicit instant, keyed by it (ns).
    pub(super) explicit: KeyHeap,
    /// The functions that transmitted at the last busy period's start (internal
    /// collisions' losers included), to be filed again when it ends.
    pub(super) seized: Vec<u32>,
}

impl Contention {
    /// The state of functions whose AIFSNs are `aifsn` (one per function).
    pub(super) fn new(aifsn: impl Iterator<Item = u32>) -> Contention {
        let mut classes: Vec<Class> = Vec::new();
        let mut class_of = Vec::new();
        for a in aifsn {
            let c = match classes.iter().position(|c| c.aifsn == a) {
                Some(c) => c,
                None => {
                    classes.push(Class {
                        aifsn: a,
                        counted: 0,
                        heap: KeyHeap::new(0),
                    });
                    classes.len() - 1
                }
            };
            class_of.push(c as u8);
        }
        let n = class_of.len();
        for c in &mut classes {
            c.heap = KeyHeap::new(n);
        }
        Contention {
            classes,
            class_of,
            epoch: 0,
            synced: vec![(0, 0); n],
            explicit: KeyHeap::new(n),
            seized: Vec::with_capacity(n),
        }
    }

    #[inline]
    pub(super) fn class_of(&self, k: usize) -> usize {
        self.class_of[k] as usize
    }

    /// The idle slots function `k`'s class counted since `k` was last brought up to date,
    /// if a busy period has started since (`None`: its back-off is exact); marks it up to
    /// date.
    #[inline]
    pub(super) fn synced(&mut self, k: usize) -> Option<u64> {
        let counted = self.classes[self.class_of(k)].counted;
        let (at, epoch) = self.synced[k];
        self.synced[k] = (counted, self.epoch);
        (epoch != self.epoch).then_some(counted - at)
    }

    /// A busy period starts: class `c` counted `slots[c]` idle slots in the idle period
    /// that ends.
    pub(super) fn fold(&mut self, slots: impl Fn(u32) -> u64) {
        self.epoch += 1;
        for c in &mut self.classes {
            c.counted += slots(c.aifsn);
        }
    }

    /// Files function `k`, `left` slots from its class's reference.
    #[inline]
    pub(super) fn file_slots(&mut self, k: usize, left: u32) {
        self.explicit.remove(k);
        let c = &mut self.classes[self.class_of[k] as usize];
        c.heap.set(k, c.counted + left as u64);
    }

    /// Files function `k` at the instant `at`.
    #[inline]
    pub(super) fn file_at(&mut self, k: usize, at: SimTime) {
        self.classes[self.class_of[k] as usize].heap.remove(k);
        self.explicit.set(k, at.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream;
    use rand::Rng;

    /// The indexed heap against a sorted list (the reference: a full sort after each
    /// change), over 20 000 random sets, removals and pops of 50 functions.
    #[test]
    fn key_heap_matches_a_sorted_list() {
        let mut rng = stream(3, "key-heap");
        let n = 50;
        let mut h = KeyHeap::new(n);
        let mut list: Vec<(u64, u32)> = Vec::new();
        for _ in 0..20_000 {
            let k = rng.random_range(0..n);
            match rng.random_range(0..4) {
                0 | 1 => {
                    let key = rng.random_range(0..40u64);
                    h.set(k, key);
                    list.retain(|e| e.1 != k as u32);
                    list.push((key, k as u32));
                }
                2 => {
                    h.remove(k);
                    list.retain(|e| e.1 != k as u32);
                }
                _ => {
                    list.sort_unstable();
                    let want = (!list.is_empty()).then(|| list.remove(0));
                    assert_eq!(h.pop(), want);
                }
            }
            list.sort_unstable();
            assert_eq!(h.min(), list.first().copied());
            assert_eq!(h.heap.len(), list.len());
            for &(_, f) in &list {
                assert!(h.contains(f as usize));
            }
        }
    }

    /// Lazy freezing equals freezing at every busy period (§10.3.4.3): a counter of 9 in
    /// a class that counts 3, 0 and 4 idle slots in three busy periods has 9 − 7 = 2 left,
    /// and a post-back-off of 0 drawn before a busy period with no idle slot is spent by it.
    #[test]
    fn folds_are_the_successive_freezes() {
        let mut c = Contention::new([2u32, 2, 7].into_iter());
        assert_eq!(c.classes.len(), 2);
        assert_eq!(c.synced(0), None);
        assert_eq!(c.synced(1), None);
        for slots in [3u64, 0, 4] {
            c.fold(|a| if a == 2 { slots } else { 100 });
        }
        assert_eq!(c.synced(0), Some(7));
        assert_eq!(c.synced(0), None);
        assert_eq!(c.synced(2), Some(300));
        c.fold(|_| 0);
        assert_eq!(c.synced(1), Some(7));
    }
}
