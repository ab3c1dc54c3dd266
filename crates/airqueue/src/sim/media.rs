//! The simulation's side of the medium contract (`crate::link`): calling a medium with
//! its context, and acting on the effects it reports, in order, after it returns.

use super::Simulation;
use crate::link::{AnyMedium, LinkCtx, LinkEffect, P2pEvent, P2pLink, P2pOutcome, WireCx};
use crate::packet::{DropReason, Location, PacketId};
use crate::topology::IfaceId;

/// The context of a call into medium `$m`, borrowing the simulation's fields beside
/// `self.media` (a macro, as a method would borrow all of `self`).
macro_rules! link_cx {
    ($sim:ident, $m:expr) => {
        LinkCtx {
            now: $sim.now,
            medium: $m,
            events: &mut $sim.events,
            timers: &mut $sim.timers,
            packets: &mut $sim.packets,
            out: &mut $sim.link_fx,
            capturing: $sim.capture.is_some(),
        }
    };
}

impl Simulation {
    /// Calls medium `m`, then acts on its effects. Effects of nested calls (a `Ready` that
    /// makes a root queue hand the medium its next packet) are acted on depth-first, each
    /// call's own before the rest of its caller's.
    #[inline(always)]
    pub(super) fn with_medium(&mut self, m: u32, f: impl FnOnce(&mut AnyMedium, &mut LinkCtx<'_>)) {
        let start = self.link_fx.len();
        {
            let mut cx = link_cx!(self, m);
            f(&mut self.media[m as usize], &mut cx);
        }
        let mut k = start;
        while k < self.link_fx.len() {
            let e = self.link_fx[k];
            k += 1;
            self.link_effect(e);
        }
        self.link_fx.truncate(start);
    }

    /// Port `port` of medium `m` takes `pkt`. A wired link is called directly: it reports
    /// nothing but a transmission start for a capture. Returns `false` when the port is
    /// known to be busy now (a wired port sends one packet at a time), `true` when it may
    /// take another (the caller asks [`AnyMedium::ready`]).
    #[inline(always)]
    pub(super) fn link_send(&mut self, m: u32, port: usize, pkt: PacketId) -> bool {
        if let AnyMedium::P2p(l) = &mut self.media[m as usize] {
            let now = self.now;
            let from = l.send_direct(port, pkt, now, m, &mut self.packets, &mut self.events);
            // The one effect `Medium::send` reports (`LinkCtx::tx_start`), acted on alike.
            if let Some(cap) = &mut self.capture {
                cap.record(from.0, now, self.packets.get(pkt));
            }
            return false;
        }
        self.link_send_dyn(m, port, pkt);
        true
    }

    /// [`link_send`](Self::link_send) to any other medium, out of line: the wired path
    /// then has no call cycle through the effects and inlines into the root queue's loop.
    #[inline(never)]
    fn link_send_dyn(&mut self, m: u32, port: usize, pkt: PacketId) {
        self.with_medium(m, |md, cx| md.send(port, pkt, cx));
    }

    /// One of medium `m`'s own events (`key`) fires. A wired link's outcome is acted on
    /// as the effects it stands for (`P2pOutcome`), without the effect buffer.
    #[inline(always)]
    pub(super) fn link_event(&mut self, m: u32, key: u16) {
        if let AnyMedium::P2p(l) = &mut self.media[m as usize] {
            let start = self.link_fx.len();
            let port = match P2pLink::event_of(key) {
                P2pEvent::Arrive(port) => {
                    // The most common event: a wire's arrival, which reports nothing else.
                    let (pkt, to) = l.arrive_direct(port, m, &self.packets, &mut self.events);
                    return self.receive(pkt, to);
                }
                P2pEvent::TxDone(port) if l.plain(port) => {
                    // A serialization end without netem: onto the wire, and the port is
                    // free (`P2pOutcome::Ready` with nothing lost).
                    let mut w = WireCx {
                        now: self.now,
                        medium: m,
                        packets: &mut self.packets,
                        events: &mut self.events,
                    };
                    let iface = l.tx_done_plain(port, &mut w);
                    return self.port_freed(iface, m, port);
                }
                P2pEvent::TxDone(port) => port,
                P2pEvent::Watchdog(port) => {
                    {
                        let mut cx = link_cx!(self, m);
                        l.watchdog(port, &mut cx);
                    }
                    if self.link_fx.len() > start {
                        self.act_on_effects(start);
                    }
                    return;
                }
            };
            let outcome = {
                let mut cx = link_cx!(self, m);
                l.tx_done(port, &mut cx)
            };
            // A duplicate (netem) is reported through the effect buffer, before the
            // outcome, in the order the trait method emits them.
            if self.link_fx.len() > start {
                self.act_on_effects(start);
            }
            let P2pOutcome::Ready { iface, lost } = outcome else {
                unreachable!("a serialization end frees the port")
            };
            if let Some(pkt) = lost {
                self.drop_packet(pkt, DropReason::Impairment, None);
            }
            return self.port_freed(iface, m, port);
        }
        self.with_medium(m, |md, cx| md.on_event(key, cx));
    }

    /// `LinkEffect::Ready(iface)` of a wired port (`m`, `port`) whose serialization ended:
    /// a real interface's own root pulls at once, its port being free (nothing acted on
    /// before sends on it).
    #[inline(always)]
    fn port_freed(&mut self, iface: IfaceId, m: u32, port: usize) {
        let h = self.hot[iface.0 as usize];
        if h.own_root() {
            return self.pull_interface(h.tx_root(), m, port);
        }
        self.link_effect(LinkEffect::Ready(iface));
    }

    /// Acts on the effects recorded from `start` on, then forgets them.
    #[cold]
    #[inline(never)]
    fn act_on_effects(&mut self, start: usize) {
        let mut k = start;
        while k < self.link_fx.len() {
            let e = self.link_fx[k];
            k += 1;
            self.link_effect(e);
        }
        self.link_fx.truncate(start);
    }

    #[inline(always)]
    fn link_effect(&mut self, e: LinkEffect) {
        match e {
            LinkEffect::Deliver { pkt, to } => self.receive(pkt, to),
            LinkEffect::Drop { pkt, reason } => self.drop_packet(pkt, reason, None),
            LinkEffect::Duplicate(_) => self.ledger.duplicated += 1,
            LinkEffect::TxStart { from, pkt } => {
                // What tcpdump on this interface sees: the packet as it starts onto the
                // medium.
                if let Some(cap) = &mut self.capture {
                    cap.record(from.0, self.now, self.packets.get(pkt));
                }
            }
            LinkEffect::Ready(iface) => {
                let h = self.hot[iface.0 as usize];
                if h.own_root() {
                    // A real interface's own root: what `member_ready` and `kick` come to.
                    self.kick_interface(h.tx_root());
                } else {
                    self.member_ready(h.tx_root(), iface);
                }
            }
            LinkEffect::ViewChanged(iface) => {
                let r = self.hot[iface.0 as usize].tx_root();
                self.link_changed(r, iface);
            }
        }
    }

    /// A packet event: the packet's location names the port, and so the medium, it is at.
    pub(super) fn link_packet_event(&mut self, pkt: PacketId) {
        let (Location::Transmitting(i) | Location::Propagating(i)) = self.packets.location(pkt)
        else {
            unreachable!("a packet event for a packet no medium holds")
        };
        let m = self.ports[i as usize].medium;
        self.with_medium(m, |md, cx| md.get_mut().on_packet_event(pkt, cx));
    }
}
