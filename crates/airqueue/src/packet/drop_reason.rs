//! Why a packet left the network without being delivered.

/// Every drop carries one of these reasons; per-flow, per-queue and per-class tables count
/// them in `drops_<name>` columns. New reasons are appended at the end, so the existing
/// columns keep their order and meaning.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum DropReason {
    /// A queue was full (tail drop, `limit` reached).
    QdiscOverflow = 0,
    /// An active queue manager (CoDel, RED) chose to drop.
    Aqm,
    /// A policer, classifier without a class, or admission control refused the packet.
    Policy,
    /// A netem-like impairment on a wired link lost the packet.
    Impairment,
    /// Bit errors on a wireless channel corrupted the frame.
    ChannelError,
    /// A MAC collision destroyed the frame.
    Collision,
    /// A MAC gave up after its retry limit.
    RetryLimit,
    /// The IP TTL reached zero.
    Ttl,
    /// No route to the destination.
    NoRoute,
    /// A shaper refused a packet it can never send: larger than its bucket (Linux TBF drops
    /// packets above `min(burst, mtu)`), a policer's "overlimit".
    Overlimit,
    /// A per-flow limit of a fair queue was reached (SFQ `depth`, fq_codel's drop from the
    /// fattest flow on overflow) while the qdisc as a whole had room.
    FlowLimit,
    /// An ACK filter (CAKE's `ack-filter`) dropped a pure TCP ACK that a later ACK of the
    /// same connection in the queue made redundant.
    AckFilter,
    /// A striping trunk's receiver refused the packet (seed 004 §3.5): a duplicate of one
    /// already delivered or queued, or a late packet when a strict FIFO order is asked for.
    Resequencer,
}

impl DropReason {
    pub const ALL: [DropReason; 13] = [
        DropReason::QdiscOverflow,
        DropReason::Aqm,
        DropReason::Policy,
        DropReason::Impairment,
        DropReason::ChannelError,
        DropReason::Collision,
        DropReason::RetryLimit,
        DropReason::Ttl,
        DropReason::NoRoute,
        DropReason::Overlimit,
        DropReason::FlowLimit,
        DropReason::AckFilter,
        DropReason::Resequencer,
    ];
    pub const COUNT: usize = Self::ALL.len();

    /// The snake_case name used in result tables (`drops_qdisc_overflow`).
    pub fn name(self) -> &'static str {
        match self {
            DropReason::QdiscOverflow => "qdisc_overflow",
            DropReason::Aqm => "aqm",
            DropReason::Policy => "policy",
            DropReason::Impairment => "impairment",
            DropReason::ChannelError => "channel_error",
            DropReason::Collision => "collision",
            DropReason::RetryLimit => "retry_limit",
            DropReason::Ttl => "ttl",
            DropReason::NoRoute => "no_route",
            DropReason::Overlimit => "overlimit",
            DropReason::FlowLimit => "flow_limit",
            DropReason::AckFilter => "ack_filter",
            DropReason::Resequencer => "resequencer",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_match_positions_in_all() {
        for (i, r) in DropReason::ALL.iter().enumerate() {
            assert_eq!(r.index(), i);
        }
    }
}
