//! Cache prefetch hints for state the simulation will touch a little later.
//!
//! With many flows the per-flow state and the packets in flight no longer fit a core's
//! caches, and the run is bound by the misses of the first touch of each (issue 18;
//! `docs/limits.md`, "Scale"). Where the simulation knows which state a later event will
//! read (a wire's next packet, `PacketArena::prefetch`), it asks for those cache lines
//! ahead of time, so that they come from the shared L3 while the current event is
//! processed. A hint changes no state and no result; off x86-64 it compiles to nothing.

/// Cache line size of every x86-64 CPU in use.
const LINE: usize = 64;

/// Prefetches the first `bytes` of `*r` (at least its first line) into all cache levels.
#[inline(always)]
pub fn prefetch<T>(r: &T, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = (r as *const T).cast::<i8>();
        let mut off = 0;
        while off < bytes.max(1) {
            // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 CPU has (it is in the
            // target's baseline); a prefetch does not dereference in the language's sense
            // and cannot fault, whatever the address.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(off)) };
            off += LINE;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (r, bytes);
}
