//! The IP layer of a node: packets a flow sends enter the arena and are routed; packets a
//! medium delivers pass the node's hooks, then are delivered (at their destination) or
//! forwarded (TTL decremented, re-routed); every drop is counted with its reason.

use super::root_queue::Xmit;
use super::{RootId, Simulation};
use crate::hook::{HookCtx, HookEffect, HookVerdict};
use crate::packet::{DropReason, Location, NodeId, Packet, PacketId, Protocol};
use crate::qdisc::rt_tos2priority;
use crate::topology::IfaceId;

impl Simulation {
    /// A medium delivered `pkt` to interface `iface`: its node's hooks see it first, if it
    /// has any.
    #[inline(always)]
    pub(super) fn receive(&mut self, pkt: PacketId, iface: IfaceId) {
        let h = self.hot[iface.0 as usize];
        if h.hooks {
            self.packets.set_location(pkt, Location::Node(h.node.0));
            self.run_hooks(h.node, pkt, iface);
        } else {
            self.arrived(h.node, pkt);
        }
    }

    /// The node's hooks, in attachment order, until one holds or drops the packet.
    fn run_hooks(&mut self, node: NodeId, pkt: PacketId, iface: IfaceId) {
        for k in 0..self.nodes[node.0 as usize].hooks.len() {
            let h = self.nodes[node.0 as usize].hooks[k];
            let mut verdict = HookVerdict::Pass;
            // A held packet is at the hook before the hook's releases are acted on, so that a
            // hook may hold an arriving packet and release it ahead of others it held.
            self.with_hook(h, |hook, cx| {
                verdict = hook.on_arrival(pkt, iface, cx);
                if verdict == HookVerdict::Hold {
                    cx.packets.set_location(pkt, Location::Hook(h));
                }
            });
            match verdict {
                HookVerdict::Pass => {}
                HookVerdict::Hold => return,
                HookVerdict::Drop(reason) => return self.drop_packet(pkt, reason, None),
                HookVerdict::Consume => return self.consume(pkt),
            }
        }
        self.arrived(node, pkt);
    }

    /// Calls hook `h`, then acts on what it reported (releases continue at the node,
    /// skipping its remaining hooks; drops are counted).
    pub(super) fn with_hook(
        &mut self,
        h: u32,
        f: impl FnOnce(&mut dyn crate::hook::NodeHook, &mut HookCtx<'_>),
    ) {
        let start = self.hook_fx.len();
        {
            let mut cx = HookCtx {
                now: self.now,
                hook: h,
                packets: &mut self.packets,
                events: &mut self.events,
                timers: &mut self.timers,
                out: &mut self.hook_fx,
            };
            f(&mut *self.hooks[h as usize].hook, &mut cx);
        }
        let node = self.hooks[h as usize].node;
        let mut k = start;
        while k < self.hook_fx.len() {
            let e = self.hook_fx[k];
            k += 1;
            match e {
                HookEffect::Release(pkt) => {
                    debug_assert_eq!(self.packets.location(pkt), Location::Hook(h));
                    self.packets.set_location(pkt, Location::Node(node.0));
                    self.arrived(node, pkt);
                }
                HookEffect::Drop(pkt, reason) => self.drop_packet(pkt, reason, None),
                HookEffect::Consume(pkt) => self.consume(pkt),
                HookEffect::Send(pkt) => {
                    self.ledger.created += 1;
                    self.packets.set_location(pkt, Location::Node(node.0));
                    let _ = self.forward(node, pkt);
                }
            }
        }
        self.hook_fx.truncate(start);
    }

    /// A packet is at `node`, past its hooks: delivered there, or forwarded.
    #[inline(always)]
    fn arrived(&mut self, node: NodeId, pkt: PacketId) {
        let p = self.packets.relocate(pkt, Location::Node(node.0));
        let dst = p.dst_node;
        if dst == node {
            self.deliver(pkt);
            return;
        }
        // IP forwarding decrements the TTL and drops at zero (RFC 791 / RFC 1812).
        p.ttl = p.ttl.saturating_sub(1);
        if p.ttl == 0 {
            self.ttl_expired(node, pkt);
            return;
        }
        // Linux `ip_forward` sets skb->priority from the TOS byte (what prio's and
        // pfifo_fast's priomap read at a router).
        p.priority = rt_tos2priority(p.dscp);
        let _ = self.forward_to(node, pkt, dst);
    }

    /// A packet's TTL ran out at router `node`: it is dropped (`ttl`), and in a live run a
    /// real host's packet is answered with an ICMP Time Exceeded from the router, as a Linux
    /// router does (`ip_forward`; RFC 1812 §5.3.1), so traceroute works across the emulated
    /// network. Off the path of every packet that is forwarded.
    #[cold]
    fn ttl_expired(&mut self, node: NodeId, pkt: PacketId) {
        if self.real.is_some() {
            self.icmp_time_exceeded(node, pkt);
        }
        self.drop_packet(pkt, DropReason::Ttl, None);
    }

    /// Flow `f` sends `pkt` from `node`: the packet enters the arena, counts as sent (for
    /// the conservation check) and is routed. Returns what the host's interface queue
    /// answered (a local TCP sender reacts to it, `sim/apps.rs`).
    #[inline]
    pub(super) fn send(&mut self, f: usize, pkt: Packet, node: NodeId) -> Xmit {
        let id = self.packets.alloc(pkt, Location::Source(f as u32));
        self.ledger.sent += 1;
        self.forward(node, id)
    }

    /// Routes a packet out of `node`: it leaves by the route's interface, for the route's
    /// next hop on that interface's medium.
    #[inline(always)]
    pub(super) fn forward(&mut self, node: NodeId, pkt: PacketId) -> Xmit {
        let dst = self.packets.get(pkt).dst_node;
        self.forward_to(node, pkt, dst)
    }

    /// [`forward`](Self::forward) of a packet for `dst` (its destination, already read).
    #[inline(always)]
    fn forward_to(&mut self, node: NodeId, pkt: PacketId, dst: NodeId) -> Xmit {
        match self.routes.next_hop(node, dst) {
            Some(hop) => {
                let now = self.now;
                let root = self.hot[hop.iface.0 as usize].root;
                let p = self.packets.relocate(pkt, Location::Queue(root));
                p.enqueued = now;
                p.out_iface = hop.iface.0;
                p.next_hop = hop.via;
                let size = p.size_bytes;
                self.enqueue_located(root, pkt, size)
            }
            None => {
                self.drop_packet(pkt, DropReason::NoRoute, None);
                Xmit::Queued
            }
        }
    }

    /// A packet reached the end host it is addressed to.
    fn deliver(&mut self, pkt: PacketId) {
        let p = self.packets.get(pkt);
        match p.tuple.protocol {
            Protocol::Tcp => return self.tcp_receive(pkt),
            Protocol::Icmp => return self.ping_receive(pkt),
            Protocol::Udp => {}
        }
        let delay = self.now - p.created;
        let (flow, payload) = (p.flow, p.payload_bytes);
        self.flows[flow.0 as usize].stats.on_receive(payload, delay);
        if !self.flows[flow.0 as usize].answerers.is_empty() {
            // The call's first packet arrived: the other side answers (once).
            for a in std::mem::take(&mut self.flows[flow.0 as usize].answerers) {
                self.answer_call(a as usize);
            }
        }
        self.ledger.delivered += 1;
        self.packets.free(pkt);
    }

    /// A control packet (a trunk's marker, ACK or NAK) ends at the hook that read it.
    fn consume(&mut self, pkt: PacketId) {
        self.ledger.consumed += 1;
        self.packets.free(pkt);
    }

    /// Drops a packet for `reason`; `queue` is the root queue whose qdisc dropped it. A
    /// trunk's control packet is no flow's: it counts in the ledger and the queue only.
    pub(super) fn drop_packet(&mut self, pkt: PacketId, reason: DropReason, queue: Option<RootId>) {
        let p = self.packets.get(pkt);
        if !p.trunk_ctl.is_control() {
            self.flows[p.flow.0 as usize].stats.on_drop(reason);
        }
        if let Some(r) = queue {
            self.roots[r as usize].stats.on_drop(reason);
        }
        self.ledger.dropped[reason.index()] += 1;
        self.packets.free(pkt);
    }
}
