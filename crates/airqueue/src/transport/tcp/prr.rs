//! Proportional Rate Reduction (RFC 6937) as Linux 6.1's `tcp_cwnd_reduction`.
//!
//! During loss recovery the window falls from its value at the start of recovery towards
//! ssthresh in proportion to the data delivered, instead of at once: on each ACK
//!
//! * `prr_delivered` += the bytes the ACK newly delivered (cumulatively acknowledged and
//!   not SACKed before, plus newly SACKed);
//! * while pipe > ssthresh (proportional part, RFC 6937 §3):
//!   `sndcnt = ⌈ssthresh · prr_delivered / RecoverFS⌉ − prr_out`;
//! * otherwise (slow-start reduction bound, PRR-SSRB):
//!   `sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out, DeliveredData) [+ 1 SMSS])`,
//!   the extra segment only when the ACK advanced snd_una and marked nothing newly lost
//!   (Linux: `FLAG_SND_UNA_ADVANCED && !newly_lost`);
//! * at least one segment before anything was sent in recovery (the fast retransmit);
//! * cwnd = pipe + sndcnt.
//!
//! Linux choices: RecoverFS is the cwnd at the start of recovery (`tp->prior_cwnd`), not
//! the RFC's FlightSize; an ACK that delivered nothing leaves cwnd alone; everything is
//! counted in segments (the RFC's bytes would let a fraction of a segment accumulate and
//! send nothing). Recovery ends with cwnd = ssthresh (`tcp_end_cwnd_reduction`).

/// One recovery episode's PRR state, in segments as Linux counts (`tcp_skb_pcount`): the
/// sender converts bytes with [`Prr::segs`] and sets cwnd = pipe + sndcnt · SMSS.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    /// RecoverFS: cwnd when recovery began (Linux `prior_cwnd`), segments.
    pub recover_fs: u64,
    pub ssthresh: u64,
    pub delivered: u64,
    /// Segments sent since recovery began (retransmissions and new data).
    pub out: u64,
}

impl Prr {
    /// Recovery begins with `cwnd` and the congestion control's `ssthresh` (segments).
    pub fn start(cwnd: u64, ssthresh: u64) -> Prr {
        Prr {
            recover_fs: cwnd.max(1),
            ssthresh,
            delivered: 0,
            out: 0,
        }
    }

    /// Bytes as segments of `mss`, a partial one counting whole.
    pub fn segs(bytes: u64, mss: u64) -> u64 {
        bytes.div_ceil(mss)
    }

    /// The ACK delivered `delivered` segments and `pipe` are in flight after it; returns
    /// sndcnt, the segments that may be sent now (`None`: nothing delivered, cwnd
    /// unchanged).
    pub fn on_ack(
        &mut self,
        delivered: u64,
        pipe: u64,
        una_advanced: bool,
        newly_lost: bool,
    ) -> Option<u64> {
        if delivered == 0 {
            return None;
        }
        self.delivered += delivered;
        let sndcnt = if pipe > self.ssthresh {
            let target = (self.ssthresh * self.delivered).div_ceil(self.recover_fs);
            target.saturating_sub(self.out)
        } else {
            let mut s = self.delivered.saturating_sub(self.out).max(delivered);
            if una_advanced && !newly_lost {
                s += 1;
            }
            s.min(self.ssthresh - pipe)
        };
        // Force the fast retransmission on entering recovery.
        Some(if self.out == 0 { sndcnt.max(1) } else { sndcnt })
    }

    /// A segment was sent during recovery.
    pub fn on_send(&mut self) {
        self.out += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6937_figure_example_one_segment_per_two_acks_down_to_ssthresh() {
        // RFC 6937 §6, the PRR rows of the example (Reno, 20 segments in flight, one lost,
        // ssthresh 10, every ACK delivers one segment; recovery starts at ACK 3 with
        // pipe 18). The RFC's cwnd row from ACK 3 to 18:
        let rfc_cwnd = [
            19, 18, 18, 17, 17, 16, 16, 15, 15, 14, 14, 13, 13, 12, 12, 11,
        ];
        let mut p = Prr::start(20, 10);
        let mut pipe = 18;
        let mut cwnd = Vec::new();
        let mut sent = Vec::new();
        for _ack in 3..=19 {
            let n = p.on_ack(1, pipe, false, false).unwrap();
            cwnd.push(pipe + n);
            sent.push(n);
            for _ in 0..n {
                p.on_send();
            }
            pipe += n;
            pipe -= 1; // the next ACK delivers one segment
        }
        assert_eq!(cwnd[..16], rfc_cwnd);
        // The retransmission, then one new segment on every second ACK.
        assert_eq!(sent[..16], [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0]);
        // ACK 19 finds pipe = ssthresh = 10: Linux's tcp_cwnd_reduction takes the
        // slow-start-reduction branch (pipe is not above ssthresh) with ssthresh − pipe =
        // 0, so cwnd = 10 = ssthresh; the RFC's figure, counting pipe before the ACK's
        // delivery, shows 11 and one more segment.
        assert_eq!((cwnd[16], sent[16]), (10, 0));
        assert_eq!(p.out, 8, "the retransmission and 7 new segments");
    }

    #[test]
    fn ssrb_below_ssthresh_sends_delivered_plus_one_segment() {
        // RFC 6937 §3 PRR-SSRB / Linux tcp_cwnd_reduction: pipe below ssthresh after heavy
        // loss: sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out, delivered) + 1
        // segment on an ACK that advanced snd_una and marked nothing lost).
        let mut p = Prr::start(20, 10);
        p.out = 2;
        assert_eq!(p.on_ack(2, 4, true, false), Some(3));
        assert_eq!(p.on_ack(1, 4, false, true), Some(1));
        assert_eq!(
            p.on_ack(8, 8, true, false),
            Some(2),
            "capped at ssthresh − pipe"
        );
        assert_eq!(p.on_ack(0, 8, true, false), None);
    }
}
