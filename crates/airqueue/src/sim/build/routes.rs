//! The fifth phase of the build: routes — shortest paths over the neighbour graph the media
//! report, then each trunk's routes over its members (`stripe/build.rs`), then the
//! scenario's static routes, which override both.

use super::Builder;
use crate::stripe::build::route_over_trunk;
use crate::topology::{Hop, Routes};

impl Builder<'_> {
    /// The routing table of every node.
    pub(super) fn routes(&self) -> Routes {
        let adj: Vec<Vec<Hop>> = self
            .nodes
            .iter()
            .map(|n| {
                n.ifaces
                    .iter()
                    .flat_map(|&i| {
                        let p = self.ports[i.0 as usize];
                        self.media[p.medium as usize]
                            .get()
                            .neighbours(p.port as usize)
                            .iter()
                            .map(move |nb| Hop {
                                iface: i,
                                via: nb.node,
                            })
                    })
                    .collect()
            })
            .collect();
        let mut routes = Routes::shortest_paths(&adj);
        for t in &self.s.trunks {
            route_over_trunk(
                t,
                &self.node_index,
                &self.iface_index,
                &mut routes,
                self.nodes.len(),
            );
        }
        for r in &self.s.routes {
            let iface = self.iface_index[format!("{}.{}", r.node, r.via).as_str()];
            let p = self.ports[iface.0 as usize];
            let via = match &r.next_hop {
                Some(h) => self.node_index[h.as_str()],
                None => {
                    self.media[p.medium as usize]
                        .get()
                        .neighbours(p.port as usize)[0]
                        .node
                }
            };
            routes.set(
                self.node_index[r.node.as_str()],
                self.node_index[r.to.as_str()],
                Hop { iface, via },
            );
        }
        routes
    }
}
