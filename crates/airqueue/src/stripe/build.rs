//! Building a validated `[[trunks]]` entry: each direction's sender (the root qdisc of the
//! trunk device at its end) with the hooks it needs, and the routes over the trunk. Beside
//! the trunk's spec and checks; `sim/build/` calls it with `topology` ids and puts what it
//! returns into root queues and node hooks.

use super::spec::{Scheme, TrunkSpec};
use super::{jkm, resequencer, srr, trunk, ControlCounts};
use crate::hook::NodeHook;
use crate::packet::NodeId;
use crate::qdisc::Qdisc;
use crate::topology::{Hop, IfaceId, Routes};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One end of a trunk as the build needs it: the trunk device `<node>.<trunk>` over the
/// node's member interfaces, its sender, and the hooks of its direction.
pub struct TrunkEnd {
    /// The device's name, `<node>.<trunk>`.
    pub device: String,
    /// The node's interfaces on the member media, in member order.
    pub members: Vec<IfaceId>,
    /// The root qdisc of the device: the trunk's sender.
    pub sender: Box<dyn Qdisc>,
    /// The hooks the direction needs, with their nodes (see [`trunk_direction`]).
    pub hooks: Vec<(NodeId, Box<dyn NodeHook>)>,
}

/// End `me` of trunk `t` (`t.between[me]`), the sender of what it sends to the other end.
pub fn trunk_end(
    t: &TrunkSpec,
    me: usize,
    node_index: &HashMap<&str, NodeId, impl std::hash::BuildHasher>,
    iface_index: &HashMap<String, IfaceId, impl std::hash::BuildHasher>,
) -> TrunkEnd {
    let members_at = |node: &str| -> Vec<IfaceId> {
        t.members
            .iter()
            .map(|m| iface_index[format!("{node}.{m}").as_str()])
            .collect()
    };
    let (node, peer) = (&t.between[me], &t.between[1 - me]);
    let members = members_at(node);
    // The receiver of what `node` sends sits on the peer.
    let (sender, hooks) = trunk_direction(
        t,
        me,
        (node_index[node.as_str()], node_index[peer.as_str()]),
        &members,
        members_at(peer),
    );
    TrunkEnd {
        device: format!("{node}.{}", t.name),
        members,
        sender,
        hooks,
    }
}

/// The interfaces `<node>.<medium>` of a trunk's members at both its ends: they feed the
/// trunk's devices instead of root queues of their own.
pub fn trunk_member_devices(t: &TrunkSpec) -> impl Iterator<Item = String> + '_ {
    t.members
        .iter()
        .flat_map(move |m| t.between.iter().map(move |n| format!("{n}.{m}")))
}

/// A trunk end routes whatever goes to (or through) its peer over the trunk (seed 004
/// §3.2: "a routing entry that specifies the trunk interface as the outgoing interface"):
/// its first member, whose packets enter the trunk device. Static routes set after this
/// still override.
pub fn route_over_trunk(
    t: &TrunkSpec,
    node_index: &HashMap<&str, NodeId, impl std::hash::BuildHasher>,
    iface_index: &HashMap<String, IfaceId, impl std::hash::BuildHasher>,
    routes: &mut Routes,
    nodes: usize,
) {
    for (me, peer) in [(0, 1), (1, 0)] {
        let (a, b) = (
            node_index[t.between[me].as_str()],
            node_index[t.between[peer].as_str()],
        );
        let iface = iface_index[format!("{}.{}", t.between[me], t.members[0]).as_str()];
        for d in 0..nodes {
            let d = NodeId(d as u32);
            if d != a && routes.next_hop(a, d).is_some_and(|h| h.via == b) {
                routes.set(a, d, Hop { iface, via: b });
            }
        }
    }
}

/// One direction of trunk `t`, from `t.between[me]` to the other end (node ids `ends`):
/// the sender (the root qdisc of the trunk device over `members`) and the hooks it needs
/// (its receiver on the peer, over `peer_members`; for JKM also the ACK hook beside the
/// sender), by scheme.
#[allow(clippy::type_complexity)]
pub fn trunk_direction(
    t: &TrunkSpec,
    me: usize,
    ends: (NodeId, NodeId),
    members: &[IfaceId],
    peer_members: Vec<IfaceId>,
) -> (Box<dyn Qdisc>, Vec<(NodeId, Box<dyn NodeHook>)>) {
    let (from, to) = ends;
    let (node, peer) = (&t.between[me], &t.between[1 - me]);
    let counts = Arc::new(ControlCounts::default());
    match t.scheme {
        Scheme::Proposed => (
            Box::new(trunk::TrunkSender::new(t.limit, to)),
            vec![(
                to,
                Box::new(resequencer::Resequencer::new(
                    &t.name,
                    peer,
                    peer_members,
                    t.timer_conf(),
                )) as Box<dyn NodeHook>,
            )],
        ),
        Scheme::Srr => (
            Box::new(srr::SrrSender::new(
                t.limit,
                to,
                members.iter().map(|m| m.0).collect(),
                t.quantum.0 as u32,
                t.control_bytes.0 as u32,
                counts.clone(),
            )),
            vec![(
                to,
                Box::new(srr::SrrReceiver::new(
                    &t.name,
                    peer,
                    peer_members,
                    t.quantum.0 as u32,
                    counts,
                )) as Box<dyn NodeHook>,
            )],
        ),
        Scheme::Jkm => {
            let board: jkm::JkmShared = Arc::new(Mutex::new(jkm::JkmBoard::default()));
            let conf = jkm::JkmConf {
                ack_every: t.ack_every,
                nak_interval: t.nak_interval.time(),
                control_bytes: t.control_bytes.0 as u32,
            };
            (
                Box::new(trunk::TrunkSender::with_jkm(t.limit, to, board.clone())),
                vec![
                    (
                        to,
                        Box::new(jkm::JkmReceiver::new(
                            &t.name,
                            peer,
                            from,
                            peer_members,
                            conf,
                            counts.clone(),
                        )) as Box<dyn NodeHook>,
                    ),
                    (
                        from,
                        Box::new(jkm::JkmAckHook::new(
                            &t.name,
                            node,
                            members.to_vec(),
                            board,
                            counts,
                        )),
                    ),
                ],
            )
        }
    }
}
