//! Block ack (IEEE 802.11-2020 §10.25, HT-immediate block ack): the originator's side of
//! one agreement per (transmitting function, receiver) and the recipient's reordering
//! buffer, as bookkeeping over sequence numbers.
//!
//! **Agreement.** Every HT/VHT/HE QoS data exchange with aggregation runs under an
//! established agreement (the ADDBA exchange at the first frame is not modelled: ns-3 and
//! mac80211 set one up within the first packets). Its buffer size — the window, at most
//! 64 MPDUs for HT and VHT and 256 for HE (§10.25.2, the HE Capabilities' extended buffer
//! size; ns-3's `MpduBufferSize` capped per standard, mac80211's
//! `IEEE80211_MAX_AMPDU_BUF_HT` / `_HE`) — is the scenario's `max_mpdus`.
//!
//! **Originator (§10.25.6, the transmit window).** WinStartO is the sequence number of the
//! oldest MPDU not yet acknowledged (or discarded); an A-MPDU holds only MPDUs with
//! sequence numbers in [WinStartO, WinStartO + window). Sequence numbers are kept as
//! plain counters (the 12-bit modulo arithmetic never matters inside one window).
//!
//! **Responses.** The recipient answers an A-MPDU of which at least one MPDU arrived with
//! a compressed BlockAck SIFS after it (the immediate response), at the control rate of
//! an ACK (§10.6.6.5.2): 32 octets with the 64-bit bitmap (§9.3.1.8.2), 56 with the
//! 256-bit (32-octet) bitmap of an HE agreement with a window above 64 (the compressed
//! variant ns-3 sends then). An A-MPDU of which nothing arrived
//! gets no response: the originator's BlockAck timeout. ns-3 3.44 (`QosTxop`
//! `UseExplicitBarAfterMissedBlockAck`, default true) then counts a failed attempt on
//! every MPDU of it and sends a BlockAckReq (24 octets, compressed) at its next channel
//! access before any data, whose BlockAck reports what arrived; mac80211 drivers (ath9k)
//! retransmit the subframes without a BAR. This model does as ns-3. ns-3 also sends a
//! BlockAckReq after discarding an MPDU at its retry limit, to move the recipient's
//! window on; here the discard moves it at once (the BlockAckReq's air time is spent at
//! the originator's next access if it still has frames for that receiver).
//!
//! **Recipient (§10.25.6, the reordering buffer).** MPDUs are passed up in sequence
//! order: one that arrives after a gap waits until the missing ones arrive or are
//! discarded; everything below WinStartO is then passed up (§10.25.6.6's flush when the
//! window moves).

use super::phy::Standard;

/// Octets of a compressed BlockAck with a 64-bit bitmap (§9.3.1.8.2: frame control 2,
/// duration 2, RA 6, TA 6, BA control 2, starting sequence control 2, bitmap 8, FCS 4).
pub const BLOCK_ACK_BYTES: u32 = 32;

/// Octets of a compressed BlockAck with a 256-bit bitmap (HE, window above 64).
pub const BLOCK_ACK_256_BYTES: u32 = 56;

/// Octets of a compressed BlockAckReq (§9.3.1.7: frame control 2, duration 2, RA 6, TA 6,
/// BAR control 2, starting sequence control 2, FCS 4).
pub const BLOCK_ACK_REQ_BYTES: u32 = 24;

/// The largest block ack window of a standard's agreements (`None`: no block ack here).
pub fn max_window(std: Standard) -> Option<u32> {
    match std {
        Standard::N | Standard::Ac => Some(64),
        Standard::Ax => Some(256),
        _ => None,
    }
}

/// Octets of the BlockAck answering under an agreement of `window` MPDUs.
pub fn block_ack_bytes(window: u32) -> u32 {
    if window > 64 {
        BLOCK_ACK_256_BYTES
    } else {
        BLOCK_ACK_BYTES
    }
}

/// An MPDU sent at least once and not yet acknowledged or discarded, as the originator
/// keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outstanding {
    /// The receiver's port.
    pub peer: u32,
    pub sn: u32,
    /// Failed transmissions so far.
    pub failures: u32,
    /// Whether a failure was a collision (a missed BlockAck) / a channel error.
    pub collided: bool,
    pub corrupted: bool,
}

/// One agreement as the originator keeps it: the next sequence number and whether a
/// BlockAckReq is due.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Agreement {
    pub next_sn: u32,
    pub bar_due: bool,
}

impl Agreement {
    /// WinStartO given the sequence number of the oldest outstanding MPDU (`None`: all
    /// acknowledged): that, or the next one to be sent.
    #[inline]
    pub fn win_start_o(&self, oldest: Option<u32>) -> u32 {
        oldest.unwrap_or(self.next_sn)
    }

    /// Whether sequence number `sn` may go under a window of `window` starting at
    /// `win_start`.
    #[inline]
    pub fn in_window(win_start: u32, window: u32, sn: u32) -> bool {
        sn >= win_start && sn - win_start < window
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_and_frame_sizes_are_the_standards() {
        assert_eq!(max_window(Standard::N), Some(64));
        assert_eq!(max_window(Standard::Ac), Some(64));
        assert_eq!(max_window(Standard::Ax), Some(256));
        assert_eq!(max_window(Standard::G), None);
        assert_eq!(block_ack_bytes(64), 2 + 2 + 6 + 6 + 2 + 2 + 8 + 4);
        assert_eq!(block_ack_bytes(256), 2 + 2 + 6 + 6 + 2 + 2 + 32 + 4);
        assert_eq!(BLOCK_ACK_REQ_BYTES, 2 + 2 + 6 + 6 + 2 + 2 + 4);
    }

    /// The transmit window: with WinStartO 10 and 64 MPDUs, 10 … 73 may go, 74 may not.
    #[test]
    fn the_window_bounds_sequence_numbers() {
        let a = Agreement {
            next_sn: 80,
            ..Agreement::default()
        };
        assert_eq!(a.win_start_o(Some(10)), 10);
        assert_eq!(a.win_start_o(None), 80);
        assert!(Agreement::in_window(10, 64, 10));
        assert!(Agreement::in_window(10, 64, 73));
        assert!(!Agreement::in_window(10, 64, 74));
        assert!(!Agreement::in_window(10, 64, 9));
    }
}
