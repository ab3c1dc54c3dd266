//! Per-member state of a discipline on a virtual device ("lanes").
//!
//! Some disciplines keep state that describes *one* queue drained by *one* server: CoDel's
//! dropping state and RED's average queue (both estimate the standing queue a packet will
//! wait in), a fair queue's virtual time (the progress of its server). On a virtual device
//! (IMQ-like, see `qdisc`) each member interface drains its own packets at its own rate:
//! it is a server of its own, and its packets wait in a queue of their own. Such a
//! discipline therefore keeps one copy of that state per member, a *lane*, keyed by the
//! interface the packets leave by (`Packet::out_iface`, known at enqueue; `QdiscCtx::member`
//! at dequeue), so that each member sees the discipline as if its packets were the whole
//! input. Limits stay shared: the buffer is one.
//!
//! On a real interface every packet has the same `out_iface`, so a discipline that keys its
//! state this way always (`stfq`, `wf2q+`) has exactly one lane and behaves as it always
//! did; finding it costs one comparison. Disciplines whose state is simpler (`codel`,
//! `red`, `fq_codel`'s backlog) keep their single state for a real interface and create
//! the lanes at the first request of a member, so that the real-interface path does no
//! per-member work at all.

/// Lanes in order of creation (first packet for a member), each with its interface id.
#[derive(Clone, Debug)]
pub(crate) struct Lanes<T> {
    lanes: Vec<(u32, T)>,
}

impl<T> Default for Lanes<T> {
    fn default() -> Self {
        Lanes { lanes: Vec::new() }
    }
}

impl<T> Lanes<T> {
    /// The index of the lane of interface `iface`, if it exists.
    #[inline]
    pub fn position(&self, iface: u32) -> Option<usize> {
        match self.lanes.first() {
            Some(l) if l.0 == iface => Some(0),
            _ => self.lanes.iter().position(|l| l.0 == iface),
        }
    }

    /// The index of the lane of `iface`, created with `make` if it does not exist yet.
    #[inline]
    pub fn index_or_insert_with(&mut self, iface: u32, make: impl FnOnce() -> T) -> usize {
        match self.position(iface) {
            Some(i) => i,
            None => {
                self.lanes.push((iface, make()));
                self.lanes.len() - 1
            }
        }
    }

    /// The lane of `iface`, created with `make` if it does not exist yet.
    #[inline]
    pub fn get_or_insert_with(&mut self, iface: u32, make: impl FnOnce() -> T) -> &mut T {
        let i = self.index_or_insert_with(iface, make);
        &mut self.lanes[i].1
    }

    /// The lane of `iface`, if it exists.
    #[inline]
    pub fn get_mut(&mut self, iface: u32) -> Option<&mut T> {
        let i = self.position(iface)?;
        Some(&mut self.lanes[i].1)
    }

    /// The lane at index `i`.
    #[inline]
    pub fn at(&self, i: usize) -> &T {
        &self.lanes[i].1
    }

    #[inline]
    pub fn at_mut(&mut self, i: usize) -> &mut T {
        &mut self.lanes[i].1
    }

    /// Number of lanes (members seen so far; 1 on a real interface once a packet came).
    #[inline]
    pub fn len(&self) -> usize {
        self.lanes.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.lanes.iter().map(|l| &l.1)
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.lanes.iter_mut().map(|l| &mut l.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_are_created_once_per_interface_in_order_of_first_use() {
        let mut l: Lanes<u32> = Lanes::default();
        *l.get_or_insert_with(7, || 0) += 1;
        *l.get_or_insert_with(3, || 0) += 10;
        *l.get_or_insert_with(7, || 0) += 1;
        assert_eq!(l.len(), 2);
        assert_eq!(
            (l.position(7), l.position(3), l.position(5)),
            (Some(0), Some(1), None)
        );
        assert_eq!(l.iter().copied().collect::<Vec<_>>(), [2, 10]);
        assert!(l.get_mut(5).is_none());
    }
}
