//! The fourth phase of the build: node hooks, in the order they see packets — the caller's,
//! the trunks' receivers, then those the root qdiscs ask for on their node.

use super::Builder;
use crate::hook::{HookBuild, NodeHook};
use crate::packet::NodeId;
use crate::sim::HookRt;

impl Builder<'_> {
    /// Every hook, attached to its node and the timers; a caller's hook for a node that
    /// does not exist is a problem.
    pub(super) fn hooks(&mut self) {
        // Hooks given by the caller (scenario keys for them come with the systems that use
        // them).
        self.hooks = Vec::with_capacity(self.opts.hooks.len());
        for (node_name, hook) in std::mem::take(&mut self.opts.hooks) {
            let Some(&node) = self.node_index.get(node_name.as_str()) else {
                self.errs
                    .push("(build)", format!("hook for unknown node \"{node_name}\""));
                continue;
            };
            self.attach_hook(node, hook);
        }

        // Trunk receivers, in trunk order (a→b's on b, then b→a's on a; a JKM sender's
        // ACK hook after its direction's receiver).
        for (node, hook) in std::mem::take(&mut self.trunk_receivers) {
            self.attach_hook(node, hook);
        }

        // Hooks the root qdiscs ask for on their node (dfq's RTT detector), after the
        // caller's, in root order.
        for r in 0..self.roots.len() {
            let Some(&first) = self.roots[r].members.first() else {
                continue;
            };
            let node = self.ifaces[first.0 as usize].node;
            let n = &self.nodes[node.0 as usize];
            let Some(hook) = self.roots[r].qdisc.node_hook(&n.name, n.addr, first.0) else {
                continue;
            };
            self.attach_hook(node, hook);
        }
    }

    /// Attaches `hook` to `node`, after the node's other hooks.
    fn attach_hook(&mut self, node: NodeId, mut hook: Box<dyn NodeHook>) {
        let h = self.hooks.len() as u32;
        hook.attach(&mut HookBuild {
            hook: h,
            timers: &mut self.timers,
            owners: &mut self.timer_owners,
        });
        self.nodes[node.0 as usize].hooks.push(h);
        self.hooks.push(HookRt { node, hook });
    }
}
