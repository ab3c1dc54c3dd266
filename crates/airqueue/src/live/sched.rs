//! How the loop thread is scheduled while it runs, restored when it ends ([`RealTime`]).
//!
//! - **SCHED_FIFO** (`--priority N`, default 50): a normal (CFS) thread shares its core
//!   with whatever else is runnable — the real hosts' own programs (iperf3 at 100 Mbit/s
//!   keeps a core busy), the kernel's softirq threads, other jobs — and is descheduled for
//!   up to a scheduler slice (milliseconds) whenever the scheduler so decides: that was the
//!   tail of the release error (p99 1.5–44 ms, max 24–370 ms at 100 Mbit/s under load;
//!   with SCHED_FIFO p99 ≈ 40 µs at load average 5–8, docs/live.md). A FIFO
//!   thread runs as soon as it is runnable and until it blocks. The policy is set on the
//!   calling thread only (`sched_setscheduler(0, …)` acts on the calling thread on Linux)
//!   with `SCHED_RESET_ON_FORK`, so no process or thread started while it holds — and none
//!   started before, such as the `--exec` commands — runs real-time. The loop never spins
//!   longer than `--spin-us` before an event and otherwise sleeps in `ppoll`, so it does
//!   not hold its core; the kernel's RT throttling (`kernel.sched_rt_runtime_us`, 95 % of
//!   each second by default) is the backstop if it ever did.
//! - **Timer slack** 1 ns (`PR_SET_TIMERSLACK`) for a loop left on normal scheduling: the
//!   default 50 µs lets the kernel wake a sleep that much late (a real-time thread gets no
//!   slack anyway).
//!
//! If the kernel refuses SCHED_FIFO (no CAP_SYS_NICE, RLIMIT_RTPRIO 0, a container whose
//! cgroup has no real-time budget) the run goes on with normal scheduling and says so.
//!
//! Not done, having been measured not to help here (iperf3 at 100 Mbit/s, load average 6,
//! two runs each; release error p99 28 and 35 µs without either): `mlockall` (44 and
//! 25 µs; the loop touches little new memory in its steady state — the timing table's
//! chunks, faulted in as they fill) and pinning the thread to one CPU (39 and 36 µs: a
//! FIFO thread already preempts whatever runs on the core it wakes on). The tail that remains (max
//! 1.5–6 ms, with at most one involuntary context switch per run) is time the thread lost
//! while it was running — in user-space event handling as well as inside `read`/`write` —
//! to the hypervisor (steal), interrupts, and wake-ups held up by kernel code the kernel's
//! `PREEMPT_NONE` mode does not preempt; no scheduling policy reaches those.

/// What scheduling the loop got.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scheduling {
    /// The SCHED_FIFO priority in force (0: normal scheduling).
    pub priority: u8,
    /// Why the asked priority was not applied (the kernel's error), if it was not.
    pub refused: Option<String>,
}

impl Scheduling {
    /// `SCHED_FIFO 50`, `normal`, or `normal (SCHED_FIFO 50 refused: …)`.
    pub fn describe(&self, asked: u8) -> String {
        match (&self.refused, self.priority) {
            (Some(e), _) => format!("normal (SCHED_FIFO {asked} refused: {e})"),
            (None, 0) => "normal".to_string(),
            (None, p) => format!("SCHED_FIFO {p}"),
        }
    }
}

/// The calling thread's scheduling before [`RealTime::enter`]; restored on drop.
pub struct RealTime {
    policy: libc::c_int,
    param: libc::sched_param,
    changed: bool,
    slack: libc::c_ulong,
}

impl RealTime {
    /// Moves the calling thread to SCHED_FIFO at `priority` (1–99; 0 leaves the policy
    /// alone) and sets its timer slack to 1 ns. Never fails: a refusal is reported in the
    /// returned [`Scheduling`].
    pub fn enter(priority: u8) -> (RealTime, Scheduling) {
        // SAFETY: these calls read and write the calling thread's own scheduling through
        // plain integers and a `sched_param` we own.
        unsafe {
            let slack = libc::prctl(libc::PR_GET_TIMERSLACK).max(1) as libc::c_ulong;
            libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
            let policy = libc::sched_getscheduler(0);
            let mut param = libc::sched_param { sched_priority: 0 };
            libc::sched_getparam(0, &mut param);
            let mut guard = RealTime {
                policy,
                param,
                changed: false,
                slack,
            };
            if priority == 0 {
                return (guard, Scheduling::default());
            }
            let max = libc::sched_get_priority_max(libc::SCHED_FIFO).max(1);
            let p = libc::sched_param {
                sched_priority: i32::from(priority).min(max),
            };
            let rc = libc::sched_setscheduler(0, libc::SCHED_FIFO | libc::SCHED_RESET_ON_FORK, &p);
            if rc != 0 {
                let e = std::io::Error::last_os_error();
                return (
                    guard,
                    Scheduling {
                        priority: 0,
                        refused: Some(e.to_string()),
                    },
                );
            }
            guard.changed = true;
            (
                guard,
                Scheduling {
                    priority: p.sched_priority as u8,
                    refused: None,
                },
            )
        }
    }
}

impl Drop for RealTime {
    fn drop(&mut self) {
        // SAFETY: as in `enter`; restores what `enter` read.
        unsafe {
            if self.changed && self.policy >= 0 {
                libc::sched_setscheduler(0, self.policy, &self.param);
            }
            libc::prctl(libc::PR_SET_TIMERSLACK, self.slack);
        }
    }
}

/// The calling thread's CPU time and context switches (`getrusage(RUSAGE_THREAD)`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ThreadUsage {
    /// User plus system CPU time, seconds.
    pub cpu_s: f64,
    /// Times the thread gave up its CPU (slept in `ppoll`, blocked).
    pub voluntary: u64,
    /// Times it was taken off its CPU while runnable: preempted (by a higher priority, or
    /// the kernel's throttling of real-time threads) or, under normal scheduling, by the
    /// scheduler's time slices.
    pub involuntary: u64,
}

impl ThreadUsage {
    pub fn now() -> Self {
        // SAFETY: getrusage fills a `rusage` we own.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
        let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        ThreadUsage {
            cpu_s: s(u.ru_utime) + s(u.ru_stime),
            voluntary: u.ru_nvcsw as u64,
            involuntary: u.ru_nivcsw as u64,
        }
    }

    /// What was used since `before`.
    pub fn since(self, before: ThreadUsage) -> ThreadUsage {
        ThreadUsage {
            cpu_s: self.cpu_s - before.cpu_s,
            voluntary: self.voluntary.saturating_sub(before.voluntary),
            involuntary: self.involuntary.saturating_sub(before.involuntary),
        }
    }
}

/// The calling thread's policy and priority (for tests and checks).
pub fn current() -> (libc::c_int, i32) {
    // SAFETY: reads the calling thread's scheduling into a `sched_param` we own.
    unsafe {
        let mut p = libc::sched_param { sched_priority: 0 };
        libc::sched_getparam(0, &mut p);
        (libc::sched_getscheduler(0), p.sched_priority)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priority_zero_changes_nothing() {
        let before = current();
        let (g, s) = RealTime::enter(0);
        assert_eq!(s, Scheduling::default());
        assert_eq!(current(), before);
        drop(g);
        assert_eq!(current(), before);
        assert_eq!(s.describe(0), "normal");
    }

    #[test]
    fn fifo_is_set_on_this_thread_only_and_restored() {
        std::thread::spawn(|| {
            let before = current();
            let (g, s) = RealTime::enter(10);
            if let Some(e) = &s.refused {
                // Not permitted here (no CAP_SYS_NICE): the refusal is reported.
                assert_eq!(s.priority, 0);
                assert!(s.describe(10).contains(e));
                return;
            }
            assert_eq!(s.describe(10), "SCHED_FIFO 10");
            let (policy, prio) = current();
            assert_eq!(policy & !libc::SCHED_RESET_ON_FORK, libc::SCHED_FIFO);
            assert_eq!(prio, 10);
            // A thread started now does not inherit it (SCHED_RESET_ON_FORK).
            let child = std::thread::spawn(current).join().unwrap();
            assert_eq!(child.0 & !libc::SCHED_RESET_ON_FORK, libc::SCHED_OTHER);
            drop(g);
            assert_eq!(current(), before);
        })
        .join()
        .unwrap();
    }
}
