//! Nodes, interfaces and static routes.
//!
//! Each medium creates one interface per port (`<node>.<medium>`). Routes are shortest
//! paths in hops over the neighbour graph (a port may reach several neighbours), computed
//! by a breadth-first search from every destination; ties go to the interface created
//! first (medium order in the scenario) and, on one interface, to the medium's first
//! neighbour, so routes never depend on hash order. Static `routes` entries override the
//! computed next hop at their node. Single-neighbour nodes use a default route.

use crate::packet::NodeId;

/// Index of an interface.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IfaceId(pub u32);

pub struct Node {
    pub name: String,
    /// IPv4 address, 10.0.0.0/8 + index + 1.
    pub addr: u32,
    pub ifaces: Vec<IfaceId>,
    /// Hooks attached to the node (indices into the simulation's hooks), in order.
    pub hooks: Vec<u32>,
}

/// Where an interface sits on its medium.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PortRef {
    /// Index of the medium.
    pub medium: u32,
    /// The interface's port on that medium.
    pub port: u32,
}

/// A route's next hop: the interface to leave by and the neighbour (link-layer next hop)
/// on that interface's medium to hand the packet to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Hop {
    pub iface: IfaceId,
    pub via: NodeId,
}

const NONE: u32 = u32::MAX;
const NO_HOP: Hop = Hop {
    iface: IfaceId(NONE),
    via: NodeId(NONE),
};

/// Next-hop table: for (node, destination), the interface to leave by and the neighbour
/// to send to.
///
/// A node with a single neighbour (a host on one link, a station in a cell) needs no
/// table: it has a **default route** to that neighbour, as a host's `ip route` has, so a
/// 10 000-host star stores one row (the hub's) instead of 10⁸ entries. Other nodes have a
/// full row of shortest paths. A static route at a default-route node gives it a row.
pub struct Routes {
    n: usize,
    /// Per node: the index of its row in `table`, or `NONE` when it uses `default`.
    row: Vec<u32>,
    /// Per node without a row: its only neighbour (`NO_HOP` if it has none).
    default: Vec<Hop>,
    /// Per node: its connected component; a default route reaches only its own.
    component: Vec<u32>,
    /// Every node is in one component (the usual case): a default route then needs no
    /// component check.
    connected: bool,
    table: Vec<Hop>,
}

impl Routes {
    /// Shortest-hop routes over the neighbour graph. `adj[u]` lists node u's neighbours as
    /// (its interface, the neighbour), in interface order and, per interface, the medium's
    /// neighbour order; neighbourhood is symmetric (every medium here is). Ties go to the
    /// first entry of `adj[u]`, so routes never depend on hash order.
    pub fn shortest_paths(adj: &[Vec<Hop>]) -> Routes {
        let n = adj.len();
        let mut row = vec![NONE; n];
        let mut default = vec![NO_HOP; n];
        let mut rows = 0u32;
        for (u, a) in adj.iter().enumerate() {
            if a.len() == 1 {
                default[u] = a[0];
            } else if !a.is_empty() {
                row[u] = rows;
                rows += 1;
            }
        }
        let component = components(adj);
        let mut table = vec![NO_HOP; rows as usize * n];
        if rows > 0 {
            // Single-neighbour nodes (leaves) never relay, so the breadth-first searches
            // run over the other nodes only, from each of them; a leaf's column is derived
            // from its neighbour's (see `leaf_columns`).
            let leaf = |v: usize| adj[v].len() == 1;
            let mut dist = vec![u32::MAX; n];
            let mut frontier = Vec::with_capacity(n);
            // The nodes with a row, in node order: only their entries are filled in, so
            // a star's 10 000 leaves cost one pass each, not one pass over all nodes.
            let relays: Vec<usize> = (0..n).filter(|&u| row[u] != NONE).collect();
            for dst in (0..n).filter(|&d| !leaf(d)) {
                dist.iter_mut().for_each(|d| *d = u32::MAX);
                dist[dst] = 0;
                frontier.clear();
                frontier.push(dst);
                let mut head = 0;
                while head < frontier.len() {
                    let v = frontier[head];
                    head += 1;
                    for h in &adj[v] {
                        let u = h.via.0 as usize;
                        if dist[u] == u32::MAX && !leaf(u) {
                            dist[u] = dist[v] + 1;
                            frontier.push(u);
                        }
                    }
                }
                for &u in &relays {
                    let r = row[u];
                    if u == dst || dist[u] == u32::MAX {
                        continue;
                    }
                    if let Some(h) = adj[u].iter().find(|h| {
                        let d = dist[h.via.0 as usize];
                        d != u32::MAX && d + 1 == dist[u]
                    }) {
                        table[r as usize * n + dst] = *h;
                    }
                }
            }
            leaf_columns(adj, &row, &relays, n, &mut table);
        }
        Routes {
            n,
            row,
            default,
            connected: component.iter().all(|&c| c == 0),
            component,
            table,
        }
    }

    #[inline(always)]
    pub fn next_hop(&self, node: NodeId, dst: NodeId) -> Option<Hop> {
        if node == dst {
            return None;
        }
        let r = self.row[node.0 as usize];
        let h = if r == NONE {
            if !self.connected && self.component[node.0 as usize] != self.component[dst.0 as usize]
            {
                return None;
            }
            self.default[node.0 as usize]
        } else {
            self.table[r as usize * self.n + dst.0 as usize]
        };
        (h.iface.0 != NONE).then_some(h)
    }

    /// Sets a static route; a default-route node gets a full row first.
    pub fn set(&mut self, node: NodeId, dst: NodeId, hop: Hop) {
        let u = node.0 as usize;
        if self.row[u] == NONE {
            let r = (self.table.len() / self.n) as u32;
            let d = self.default[u];
            let c = &self.component;
            self.table
                .extend((0..self.n).map(|k| if k == u || c[k] != c[u] { NO_HOP } else { d }));
            self.row[u] = r;
        }
        self.table[self.row[u] as usize * self.n + dst.0 as usize] = hop;
    }

    /// Nodes that keep a full row (for tests and memory estimates).
    pub fn rows(&self) -> usize {
        self.table.len() / self.n.max(1)
    }

    /// The interfaces a packet crosses from `src` to `dst` (None if unreachable or looping).
    pub fn path(&self, src: NodeId, dst: NodeId) -> Option<Vec<IfaceId>> {
        let mut at = src;
        let mut out = Vec::new();
        while at != dst {
            let h = self.next_hop(at, dst)?;
            out.push(h.iface);
            if out.len() > self.n {
                return None;
            }
            at = h.via;
        }
        Some(out)
    }

    /// When the next hops from `src` towards `dst` run in a cycle (a routing loop, which
    /// static routes can make), the interfaces a packet crosses until the walk revisits a
    /// node; `None` when the walk reaches `dst` or a node without a route. As in IP, such
    /// packets are forwarded around the loop until their TTL expires (drop reason `ttl`),
    /// so a loop is not "no route".
    pub fn loop_path(&self, src: NodeId, dst: NodeId) -> Option<Vec<IfaceId>> {
        let mut seen = vec![false; self.n];
        let mut at = src;
        let mut out = Vec::new();
        while at != dst {
            if std::mem::replace(&mut seen[at.0 as usize], true) {
                return Some(out);
            }
            let h = self.next_hop(at, dst)?;
            out.push(h.iface);
            at = h.via;
        }
        None
    }
}

/// Fills the column of every single-neighbour destination d (neighbour p): a node other
/// than p reaches d through p, exactly as it reaches p (a breadth-first search from d
/// gives every other node its distance from p plus one, and no node but p has d as a
/// neighbour, so the first shortest-path entry is the same); p itself uses its first
/// interface entry towards d. This is what a search from d would have chosen.
/// `relays` lists the nodes with a row (in node order), so each leaf costs one step per
/// row, not one per node (10⁸ steps for a 10 000-host star before).
fn leaf_columns(adj: &[Vec<Hop>], row: &[u32], relays: &[usize], n: usize, table: &mut [Hop]) {
    // Each leaf's neighbour's first entry towards it, found in one pass over the edges
    // (a search of the hub's 10 000 entries per leaf was quadratic too).
    let mut to_leaf = vec![NO_HOP; n];
    for (u, a) in adj.iter().enumerate() {
        for h in a {
            let d = h.via.0 as usize;
            if adj[d].len() == 1 && adj[d][0].via.0 as usize == u && to_leaf[d] == NO_HOP {
                to_leaf[d] = *h;
            }
        }
    }
    for d in (0..n).filter(|&d| adj[d].len() == 1) {
        let p = adj[d][0].via.0 as usize;
        let p_is_leaf = adj[p].len() == 1;
        for &u in relays {
            if u == d {
                continue;
            }
            let r = row[u] as usize;
            table[r * n + d] = if u == p {
                assert!(to_leaf[d] != NO_HOP, "neighbourhood is symmetric");
                to_leaf[d]
            } else if p_is_leaf {
                NO_HOP // an isolated pair: no other node reaches it
            } else {
                table[r * n + p]
            };
        }
    }
}

/// The connected component of every node (breadth-first, numbered in node order).
fn components(adj: &[Vec<Hop>]) -> Vec<u32> {
    let mut comp = vec![NONE; adj.len()];
    let mut frontier = Vec::new();
    let mut next = 0;
    for start in 0..adj.len() {
        if comp[start] != NONE {
            continue;
        }
        comp[start] = next;
        frontier.clear();
        frontier.push(start);
        while let Some(v) = frontier.pop() {
            for h in &adj[v] {
                let u = h.via.0 as usize;
                if comp[u] == NONE {
                    comp[u] = next;
                    frontier.push(u);
                }
            }
        }
        next += 1;
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 0 - 1 - 2 - ... ; link k joins k and k+1, interfaces 2k (at k) and 2k+1 (at k+1).
    fn line(n: usize) -> Vec<Vec<Hop>> {
        let mut adj = vec![Vec::new(); n];
        for k in 0..n - 1 {
            let (a, b) = (NodeId(k as u32), NodeId(k as u32 + 1));
            adj[k].push(Hop {
                iface: IfaceId(2 * k as u32),
                via: b,
            });
            adj[k + 1].push(Hop {
                iface: IfaceId(2 * k as u32 + 1),
                via: a,
            });
        }
        adj
    }

    /// Reference: a plain breadth-first search from every destination over all nodes (the
    /// construction before leaves were pruned), on random graphs with leaves, parallel
    /// links and several components. The pruned construction picks the same next hops.
    #[test]
    fn pruned_searches_pick_the_hops_of_full_searches() {
        use rand::Rng;
        let mut rng = crate::engine::stream(7, "test:routes");
        for _ in 0..200 {
            let n = rng.random_range(2..30);
            let mut adj = vec![Vec::new(); n];
            let mut iface = 0;
            for _ in 0..rng.random_range(1..2 * n) {
                let a = rng.random_range(0..n);
                let b = rng.random_range(0..n);
                if a == b {
                    continue;
                }
                adj[a].push(Hop {
                    iface: IfaceId(iface),
                    via: NodeId(b as u32),
                });
                adj[b].push(Hop {
                    iface: IfaceId(iface + 1),
                    via: NodeId(a as u32),
                });
                iface += 2;
            }
            let r = Routes::shortest_paths(&adj);
            for u in 0..n {
                if adj[u].len() == 1 {
                    continue; // default route
                }
                for d in 0..n {
                    let want = naive_next_hop(&adj, u, d);
                    assert_eq!(
                        r.next_hop(NodeId(u as u32), NodeId(d as u32)),
                        want,
                        "{u} -> {d}"
                    );
                }
            }
        }
    }

    fn naive_next_hop(adj: &[Vec<Hop>], u: usize, dst: usize) -> Option<Hop> {
        if u == dst {
            return None;
        }
        let n = adj.len();
        let mut dist = vec![u32::MAX; n];
        dist[dst] = 0;
        let mut q = std::collections::VecDeque::from([dst]);
        while let Some(v) = q.pop_front() {
            for h in &adj[v] {
                let w = h.via.0 as usize;
                if dist[w] == u32::MAX {
                    dist[w] = dist[v] + 1;
                    q.push_back(w);
                }
            }
        }
        if dist[u] == u32::MAX {
            return None;
        }
        adj[u]
            .iter()
            .find(|h| dist[h.via.0 as usize] != u32::MAX && dist[h.via.0 as usize] + 1 == dist[u])
            .copied()
    }

    #[test]
    fn routes_follow_the_line() {
        let r = Routes::shortest_paths(&line(4));
        assert_eq!(r.next_hop(NodeId(0), NodeId(3)).unwrap().iface, IfaceId(0));
        assert_eq!(r.next_hop(NodeId(3), NodeId(0)).unwrap().iface, IfaceId(5));
        assert_eq!(r.next_hop(NodeId(1), NodeId(3)).unwrap().via, NodeId(2));
        assert_eq!(r.path(NodeId(0), NodeId(3)).unwrap().len(), 3);
        assert_eq!(r.next_hop(NodeId(2), NodeId(2)), None);
        // The two ends have one neighbour: default routes, no rows.
        assert_eq!(r.rows(), 2);
    }

    #[test]
    fn disconnected_nodes_have_no_route() {
        let mut adj = line(3);
        adj.push(Vec::new());
        let r = Routes::shortest_paths(&adj);
        assert_eq!(r.next_hop(NodeId(1), NodeId(3)), None);
        // A default route does not lead out of its component.
        assert_eq!(r.next_hop(NodeId(0), NodeId(3)), None);
        assert!(r.path(NodeId(0), NodeId(3)).is_none());
        assert_eq!(r.next_hop(NodeId(3), NodeId(0)), None);
    }

    /// A static route at a default-route node gives it a row that keeps the default for
    /// every other destination.
    #[test]
    fn a_static_route_at_a_host_keeps_its_default_elsewhere() {
        let mut r = Routes::shortest_paths(&line(3));
        let hop = Hop {
            iface: IfaceId(7),
            via: NodeId(1),
        };
        r.set(NodeId(0), NodeId(2), hop);
        assert_eq!(r.next_hop(NodeId(0), NodeId(2)), Some(hop));
        assert_eq!(r.next_hop(NodeId(0), NodeId(1)).unwrap().iface, IfaceId(0));
        assert_eq!(r.next_hop(NodeId(0), NodeId(0)), None);
    }
}
