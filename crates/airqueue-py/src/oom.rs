//! The allocator of the native module: the system allocator, except that an allocation it
//! refuses ends the process with a message and exit code 2 instead of Rust's
//! `handle_alloc_error`, which aborts (SIGABRT, exit 134, possibly a core dump).
//!
//! The run's estimate is checked against the memory budget before it starts
//! (`sim/budget.rs`), so this is the last line: a limit the budget could not see, or an
//! estimate that was too low. Stable Rust has no hook for allocation failure
//! (`std::alloc::set_alloc_error_hook` is unstable), hence the wrapper. It adds one
//! predictable null test per allocation; the core's hot path allocates nothing per event,
//! and the core's benchmarks (`benches/instructions.rs`) do not link this crate.
//!
//! Only Rust allocations of this module go through it; Python's, NumPy's and Arrow's
//! allocation failures raise `MemoryError`, which the CLI also turns into exit 2.

use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator that exits with code 2 when it returns null.
pub struct ExitOnFailure;

// SAFETY: every method forwards to `System` with the same arguments and returns its
// pointer unchanged (a null one never returns).
unsafe impl GlobalAlloc for ExitOnFailure {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System.alloc`'s.
        checked(unsafe { System.alloc(layout) }, layout.size())
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        checked(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        checked(unsafe { System.realloc(ptr, layout, new_size) }, new_size)
    }
}

#[inline(always)]
fn checked(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        out_of_memory(size);
    }
    ptr
}

const HEAD: &[u8] = b"\nerror: out of memory: the airqueue core could not allocate ";
const TAIL: &[u8] = b" bytes; this process reached a memory limit (ulimit -v, a cgroup's \
memory.max or the machine's memory) that the run's estimate did not foresee. Make the run \
smaller (run.duration, a longer run.sample_interval, fewer flows) or pass a smaller \
--max-memory so that it is refused before it starts.\n";

/// Writes the message to stderr without allocating and exits with code 2 at once (no
/// destructors, no atexit handlers: the heap is exhausted).
#[cold]
#[inline(never)]
fn out_of_memory(size: usize) -> ! {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = size;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for part in [HEAD, &digits[at..], TAIL] {
        // SAFETY: writes a valid buffer to fd 2; a short or failed write only loses text.
        unsafe { libc::write(2, part.as_ptr().cast(), part.len()) };
    }
    // SAFETY: ends the process; nothing after it runs.
    unsafe { libc::_exit(2) }
}
