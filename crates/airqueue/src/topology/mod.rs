//! Nodes, interfaces and static routes.
//!
//! Each wired link creates one interface on each end (`<node>.<link>`), and each interface
//! owns the qdisc of its egress direction. Routes are shortest paths in hops, computed by a
//! breadth-first search from every destination; ties go to the interface created first
//! (link order in the scenario), so routes never depend on hash order. Static `routes`
//! entries override the computed next hop at their node.

use crate::packet::NodeId;

/// Index of an interface.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IfaceId(pub u32);

pub struct Node {
    pub name: String,
    /// IPv4 address, 10.0.0.0/8 + index + 1.
    pub addr: u32,
    pub ifaces: Vec<IfaceId>,
}

/// Next-hop table: for (node, destination), the interface to leave by.
pub struct Routes {
    n: usize,
    next: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl Routes {
    /// Shortest-hop routes. `iface_peer[i]` is the node at the far end of interface i.
    pub fn shortest_paths(nodes: &[Node], iface_peer: &[NodeId]) -> Routes {
        let n = nodes.len();
        let mut next = vec![NONE; n * n];
        let mut dist = vec![u32::MAX; n];
        let mut frontier = Vec::new();
        // Links are full duplex, so u reaches v in one hop iff v has an interface towards u.
        for dst in 0..n {
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[dst] = 0;
            frontier.clear();
            frontier.push(dst);
            let mut head = 0;
            while head < frontier.len() {
                let v = frontier[head];
                head += 1;
                for i in &nodes[v].ifaces {
                    let u = iface_peer[i.0 as usize].0 as usize;
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v] + 1;
                        frontier.push(u);
                    }
                }
            }
            for (u, node) in nodes.iter().enumerate() {
                if u == dst || dist[u] == u32::MAX {
                    continue;
                }
                if let Some(i) = node.ifaces.iter().find(|i| {
                    let p = iface_peer[i.0 as usize].0 as usize;
                    dist[p] != u32::MAX && dist[p] + 1 == dist[u]
                }) {
                    next[u * n + dst] = i.0;
                }
            }
        }
        Routes { n, next }
    }

    #[inline]
    pub fn next_hop(&self, node: NodeId, dst: NodeId) -> Option<IfaceId> {
        let v = self.next[node.0 as usize * self.n + dst.0 as usize];
        (v != NONE).then_some(IfaceId(v))
    }

    pub fn set(&mut self, node: NodeId, dst: NodeId, iface: IfaceId) {
        self.next[node.0 as usize * self.n + dst.0 as usize] = iface.0;
    }

    /// The interfaces a packet crosses from `src` to `dst` (None if unreachable or looping).
    pub fn path(&self, src: NodeId, dst: NodeId, iface_peer: &[NodeId]) -> Option<Vec<IfaceId>> {
        let mut at = src;
        let mut out = Vec::new();
        while at != dst {
            let i = self.next_hop(at, dst)?;
            out.push(i);
            if out.len() > self.n {
                return None;
            }
            at = iface_peer[i.0 as usize];
        }
        Some(out)
    }

    /// When the next hops from `src` towards `dst` run in a cycle (a routing loop, which
    /// static routes can make), the interfaces a packet crosses until the walk revisits a
    /// node; `None` when the walk reaches `dst` or a node without a route. As in IP, such
    /// packets are forwarded around the loop until their TTL expires (drop reason `ttl`),
    /// so a loop is not "no route" (the build used to reject it as one).
    pub fn loop_path(
        &self,
        src: NodeId,
        dst: NodeId,
        iface_peer: &[NodeId],
    ) -> Option<Vec<IfaceId>> {
        let mut seen = vec![false; self.n];
        let mut at = src;
        let mut out = Vec::new();
        while at != dst {
            if std::mem::replace(&mut seen[at.0 as usize], true) {
                return Some(out);
            }
            let i = self.next_hop(at, dst)?;
            out.push(i);
            at = iface_peer[i.0 as usize];
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(n: usize) -> (Vec<Node>, Vec<NodeId>) {
        // 0 - 1 - 2 - ... ; link k joins k and k+1, interfaces 2k (at k) and 2k+1 (at k+1).
        let mut nodes: Vec<Node> = (0..n)
            .map(|i| Node {
                name: format!("n{i}"),
                addr: i as u32,
                ifaces: vec![],
            })
            .collect();
        let mut peer = vec![];
        for k in 0..n - 1 {
            nodes[k].ifaces.push(IfaceId(peer.len() as u32));
            peer.push(NodeId(k as u32 + 1));
            nodes[k + 1].ifaces.push(IfaceId(peer.len() as u32));
            peer.push(NodeId(k as u32));
        }
        (nodes, peer)
    }

    #[test]
    fn routes_follow_the_line() {
        let (nodes, peer) = line(4);
        let r = Routes::shortest_paths(&nodes, &peer);
        assert_eq!(r.next_hop(NodeId(0), NodeId(3)), Some(IfaceId(0)));
        assert_eq!(r.next_hop(NodeId(3), NodeId(0)), Some(IfaceId(5)));
        assert_eq!(r.path(NodeId(0), NodeId(3), &peer).unwrap().len(), 3);
        assert_eq!(r.next_hop(NodeId(2), NodeId(2)), None);
    }

    #[test]
    fn disconnected_nodes_have_no_route() {
        let (mut nodes, peer) = line(2);
        nodes.push(Node {
            name: "x".into(),
            addr: 9,
            ifaces: vec![],
        });
        let r = Routes::shortest_paths(&nodes, &peer);
        assert_eq!(r.next_hop(NodeId(0), NodeId(2)), None);
        assert!(r.path(NodeId(0), NodeId(2), &peer).is_none());
    }
}
