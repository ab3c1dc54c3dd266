//! Intra-piconet polling: the order in which the master visits its slaves and how long it
//! stays (thesis, seed 001, §2.3.1, after Mišić et al., its ref. [20]).
//!
//! The master visits the slaves in round-robin order. In one *frame* it sends the
//! addressed slave a packet from that slave's downlink queue (or a POLL) and the slave
//! answers with a packet from its baseband buffer (or a NULL).
//!
//! - **E-limited(M)**: the master stays with a slave for at most M frames, or until
//!   there is nothing more to exchange: its downlink queue is empty and the slave's last
//!   answer was a NULL (the master cannot see the slave's buffer; a data answer means the
//!   slave may have more). The visit that finds nothing at all is one POLL/NULL frame.
//! - **1-limited**: E-limited with M = 1 (plain round robin, one frame per visit).
//! - **Exhaustive**: E-limited with M = ∞.
//!
//! - **LWRR** (Limited and Weighted Round Robin, Capone, Gerla and Kapoor, ICC 2001; the
//!   thesis's §2.3.1 "adaptive polling"): E-limited(M) visits, and each slave has a
//!   weight between 1 and MP, MP at first. A visit that exchanges data restores the
//!   weight to MP; a POLL/NULL visit lowers it by one (not below 1), and a slave of weight
//!   w then sits out the next MP − w cycles. The master knows its own queues: a slave it
//!   holds data for is visited (and restored) at its turn whatever its weight, as FEP
//!   restores inactive slaves. An idle slave thus costs one POLL/NULL frame every MP
//!   cycles instead of every cycle.
//!
//! **Idle cycles without events.** A visit to a slave with nothing to exchange is one
//! POLL/NULL frame of two slots, and the master then moves to the next slave. So while no
//! slave has data, the master's cycle is a fixed sequence — frame k after `t` addresses
//! slave `(cursor + k) mod n` and starts at `t + 2k` slots — and the first frame that
//! carries data follows in closed form from when each slave will have something
//! ([`frames_until_data`]). The piconet schedules one event for that frame and counts the
//! POLL/NULL frames it skipped; an arrival in between re-plans from the next frame
//! boundary.

use super::baseband::SLOT;
use crate::engine::SimTime;

/// LWRR's MP when a scenario does not set `max_priority` (our choice: an idle slave is
/// polled every fourth cycle).
pub const DEFAULT_MP: u32 = 4;

/// LWRR's per-slave state: weight and cycles left to sit out (at most 7 slaves).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    pub weight: [u8; 7],
    pub wait: [u8; 7],
}

impl Weights {
    pub fn new(mp: u8) -> Self {
        Weights {
            weight: [mp; 7],
            wait: [0; 7],
        }
    }

    /// Slave `j` exchanged data: back to MP, polled every cycle.
    #[inline]
    pub fn restore(&mut self, j: usize, mp: u8) {
        self.weight[j] = mp;
        self.wait[j] = 0;
    }

    /// Slave `j`'s visit was a POLL/NULL frame: one less, sit out MP − w cycles.
    #[inline]
    pub fn idle(&mut self, j: usize, mp: u8) {
        self.weight[j] = self.weight[j].saturating_sub(1).max(1);
        self.wait[j] = mp - self.weight[j];
    }
}

/// One POLL/NULL frame: two slots.
pub const IDLE_FRAME: SimTime = SimTime(2 * SLOT.0);

/// A polling scheme.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Polling {
    /// E-limited with at most `m` frames per visit (`u32::MAX`: exhaustive; 1: 1-limited).
    ELimited { m: u32 },
    /// LWRR: E-limited(`m`) visits, weights 1..=`mp`.
    Lwrr { m: u32, mp: u8 },
}

impl Polling {
    pub const ONE_LIMITED: Polling = Polling::ELimited { m: 1 };
    pub const EXHAUSTIVE: Polling = Polling::ELimited { m: u32::MAX };

    /// The scheme a scenario names: "1-limited", "exhaustive", or "e-limited" with its M.
    pub fn parse(kind: &str, m: Option<u32>, mp: Option<u32>) -> Result<Polling, String> {
        if kind != "lwrr" && mp.is_some() {
            return Err(format!(
                "`max_priority` is LWRR's MP; {kind} has none (remove it)"
            ));
        }
        match (kind, m) {
            ("lwrr", _) => {
                let mp = mp.unwrap_or(DEFAULT_MP);
                if !(1..=255).contains(&mp) {
                    return Err(format!("`max_priority` {mp} is outside 1…255"));
                }
                match m {
                    Some(0) => Err("`limit` (M) must be at least 1".into()),
                    _ => Ok(Polling::Lwrr { m: m.unwrap_or(u32::MAX), mp: mp as u8 }),
                }
            }
            ("1-limited", None) => Ok(Polling::ONE_LIMITED),
            ("exhaustive", None) => Ok(Polling::EXHAUSTIVE),
            ("e-limited", Some(m)) if m >= 1 => Ok(Polling::ELimited { m }),
            ("e-limited", _) => Err("e-limited needs `limit` (M, frames per visit, at least 1), e.g. limit = 5".into()),
            ("1-limited" | "exhaustive", Some(_)) => Err(format!("`limit` is for e-limited; {kind} has none (remove it)")),
            _ => Err(format!("\"{kind}\" is not a polling scheme; use \"1-limited\", \"exhaustive\", \"e-limited\" or \"lwrr\"")),
        }
    }

    /// Whether the master stays with the slave it just exchanged `frames` frames with:
    /// below the limit, and something may be left (its downlink queue is not empty, or
    /// the slave's last answer carried data).
    #[inline]
    pub fn stay(self, frames: u32, downlink_waiting: bool, last_answer_data: bool) -> bool {
        let m = match self {
            Polling::ELimited { m } | Polling::Lwrr { m, .. } => m,
        };
        frames < m && (downlink_waiting || last_answer_data)
    }
}

/// The index k of the first frame, counting from the frame that starts at `t` and
/// addresses slave `cursor`, that finds data while every frame before it is POLL/NULL
/// (round robin over `n` slaves, [`IDLE_FRAME`] apart). `data_from[j]` is the earliest
/// frame start at which slave j has data to exchange (`SimTime::MAX`: not without a new
/// arrival). `None`: no frame ever will.
pub fn frames_until_data(t: SimTime, cursor: usize, data_from: &[SimTime]) -> Option<u64> {
    let n = data_from.len();
    let cycle = IDLE_FRAME.0 * n as u64;
    let mut best: Option<u64> = None;
    for (j, &from) in data_from.iter().enumerate() {
        if from == SimTime::MAX {
            continue;
        }
        let d = ((j + n - cursor) % n) as u64;
        let first = t.0 + d * IDLE_FRAME.0;
        let k = if from.0 <= first {
            d
        } else {
            d + n as u64 * (from.0 - first).div_ceil(cycle)
        };
        best = Some(best.map_or(k, |b: u64| b.min(k)));
    }
    best
}

/// How many of `k` idle frames starting with slave `cursor` address slave `j` (of `n`).
#[inline]
pub fn visits_of(j: usize, cursor: usize, n: usize, k: u64) -> u64 {
    let d = ((j + n - cursor) % n) as u64;
    k / n as u64 + u64::from(d < k % n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEVER: SimTime = SimTime::MAX;

    /// The closed form equals stepping the round robin frame by frame.
    #[test]
    fn closed_form_equals_frame_by_frame_stepping() {
        let n = 5;
        let cases: Vec<Vec<SimTime>> = vec![
            vec![NEVER; 5],
            vec![NEVER, NEVER, SimTime(0), NEVER, NEVER],
            vec![
                SimTime(10_000_000),
                NEVER,
                SimTime(3_100_000),
                NEVER,
                SimTime(7),
            ],
            vec![SimTime(1); 5],
        ];
        for from in &cases {
            for cursor in 0..n {
                let t = SimTime(1_000);
                let mut stepped = None;
                for k in 0..10_000u64 {
                    let j = (cursor + k as usize) % n;
                    if from[j] <= SimTime(t.0 + k * IDLE_FRAME.0) {
                        stepped = Some(k);
                        break;
                    }
                }
                assert_eq!(
                    frames_until_data(t, cursor, from),
                    stepped,
                    "{from:?} {cursor}"
                );
            }
        }
        let total: u64 = (0..n).map(|j| visits_of(j, 3, n, 17)).sum();
        assert_eq!(total, 17);
        assert_eq!(visits_of(3, 3, n, 17), 4);
        assert_eq!(visits_of(2, 3, n, 17), 3);
    }

    #[test]
    fn parse_names_the_fix() {
        let ok = |k: &str, m, mp| Polling::parse(k, m, mp);
        assert_eq!(
            ok("e-limited", Some(5), None),
            Ok(Polling::ELimited { m: 5 })
        );
        assert!(ok("e-limited", None, None).unwrap_err().contains("limit"));
        assert!(ok("round-robin", None, None)
            .unwrap_err()
            .contains("1-limited"));
        assert_eq!(
            ok("lwrr", Some(5), Some(3)),
            Ok(Polling::Lwrr { m: 5, mp: 3 })
        );
        assert!(ok("exhaustive", None, Some(3))
            .unwrap_err()
            .contains("max_priority"));
    }
}
