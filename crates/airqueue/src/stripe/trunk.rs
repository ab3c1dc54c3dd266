//! The trunk sender (seed 004 §3.3–3.4): the root qdisc of a node's trunk device.
//!
//! Every packet the node routes out of a member interface enters this queue (a FIFO of
//! `limit` packets, 50 in the paper, tail drop). The members are the device's transmitters:
//! whenever one is idle it asks for a packet *for itself*, and the run loop asks the idle
//! members in round-robin order, starting after the member served last, or at the member
//! that has just become idle (`sim/root_queue.rs`, the "ISR tells the trunk driver where to
//! begin the round-robin search" of §3.4). A member holds only the packet it transmits, so
//! an idle member is one whose output queue is empty.
//!
//! At dispatch the packet gets the next network-layer sequence number (`Packet::trunk_seq`,
//! from 1; §3.3) and leaves by the asking member for the peer. Numbering at dispatch
//! rather than at entry means a packet the full queue refuses leaves no hole in the
//! sequence space (§3.3 numbers "a packet to be sent over the trunk"; the paper does not
//! say where its 50-packet queue sits relative to the counter). The number travels out of
//! band: the paper does not give its header's size, and no bytes are added.
//!
//! A packet routed out of a member for another node than the peer (a shared medium with
//! other stations) is no trunk packet: it keeps its sequence number 0 and waits for its own
//! member. Neither is a trunk's control packet (a JKM ACK or NAK going back to the peer):
//! it keeps the number it carries and takes the next idle member.
//!
//! Under `scheme = "jkm"` (§5, `jkm.rs`) the sender also keeps a copy of each data packet
//! it numbers until the peer acknowledges it, and a retransmission made on a NAK goes
//! ahead of the queue, keeping its number.

use super::jkm::JkmShared;
use crate::packet::{DropReason, NodeId, PacketId, TrunkCtl};
use crate::qdisc::{Qdisc, QdiscCtx, Verdict};
use std::collections::VecDeque;

/// The sending half of one trunk direction.
pub struct TrunkSender {
    limit: u32,
    peer: NodeId,
    queue: VecDeque<PacketId>,
    backlog: u64,
    next_seq: u64,
    /// JKM: the copies kept for retransmission, and the retransmissions waiting.
    jkm: Option<JkmShared>,
    retx: VecDeque<PacketId>,
}

impl TrunkSender {
    /// A sender towards node `peer` with an output queue of `limit` packets.
    pub fn new(limit: u32, peer: NodeId) -> Self {
        TrunkSender {
            limit,
            peer,
            queue: VecDeque::with_capacity(limit.min(4096) as usize),
            backlog: 0,
            next_seq: 1,
            jkm: None,
            retx: VecDeque::new(),
        }
    }

    /// A JKM sender (§5): as [`TrunkSender::new`], keeping copies on `board`.
    pub fn with_jkm(limit: u32, peer: NodeId, board: JkmShared) -> Self {
        TrunkSender {
            jkm: Some(board),
            ..TrunkSender::new(limit, peer)
        }
    }

    /// The position of the first packet the asking member may send: any trunk packet, or
    /// one routed out of that very member.
    fn first_for(&self, ctx: &QdiscCtx) -> Option<usize> {
        let peer = self.peer;
        self.queue.iter().position(|&p| {
            let p = ctx.packets.get(p);
            p.next_hop == peer || ctx.member.is_none_or(|m| p.out_iface == m)
        })
    }
}

impl Qdisc for TrunkSender {
    fn kind(&self) -> &'static str {
        "trunk"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        if ctx.packets.get(pkt).trunk_ctl == TrunkCtl::Retransmission {
            self.backlog += ctx.len_of(pkt) as u64;
            self.retx.push_back(pkt);
            return Verdict::Queued;
        }
        if self.queue.len() < self.limit as usize {
            self.backlog += ctx.len_of(pkt) as u64;
            self.queue.push_back(pkt);
            Verdict::Queued
        } else {
            ctx.drop_packet(pkt, DropReason::QdiscOverflow);
            Verdict::Dropped
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let pkt = match self.retx.pop_front() {
            Some(p) => p,
            None => {
                let i = self.first_for(ctx)?;
                self.queue.remove(i)?
            }
        };
        self.backlog -= ctx.len_of(pkt) as u64;
        let peer = self.peer;
        let member = ctx.member;
        let p = ctx.packets.get_mut(pkt);
        if p.next_hop == peer {
            if let Some(m) = member {
                p.out_iface = m;
            }
            if p.trunk_ctl == TrunkCtl::Data {
                p.trunk_seq = self.next_seq;
                self.next_seq += 1;
                if let Some(board) = &self.jkm {
                    board
                        .lock()
                        .expect("the JKM board is never poisoned")
                        .record(p.trunk_seq, p);
                }
            }
        }
        Some(pkt)
    }

    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(&p) = self.retx.front() {
            return Some(p);
        }
        self.first_for(ctx).map(|i| self.queue[i])
    }

    fn serves_members(&self) -> bool {
        true
    }

    fn len(&self) -> usize {
        self.queue.len() + self.retx.len()
    }

    fn backlog_bytes(&self) -> u64 {
        self.backlog
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::Harness;

    /// §3.3: consecutive dispatches carry consecutive sequence numbers from 1, whichever
    /// member asks; §3.4: the output queue holds 50 packets and tail-drops the 51st.
    #[test]
    fn numbers_packets_at_dispatch_and_holds_fifty() {
        let mut h = Harness::new();
        let mut q = TrunkSender::new(50, NodeId(9));
        let pkts: Vec<_> = (0..51)
            .map(|_| {
                h.packet_with(0, 1500, |p| {
                    p.out_iface = 7;
                    p.next_hop = NodeId(9);
                })
            })
            .collect();
        let v: Vec<_> = pkts.iter().map(|&p| h.enqueue(&mut q, p)).collect();
        assert!(v[..50].iter().all(|&x| x == Verdict::Queued));
        assert_eq!(v[50], Verdict::Dropped);
        for (k, m) in [3u32, 5, 3, 4].into_iter().enumerate() {
            let p = h.dequeue_for(&mut q, m).unwrap();
            assert_eq!(p, pkts[k]);
            assert_eq!(h.packets.get(p).trunk_seq, k as u64 + 1);
            assert_eq!(h.packets.get(p).out_iface, m);
        }
    }
}
