//! Building the medium of a validated `[[segments]]` entry, beside its spec and checks:
//! `sim/build/` calls it with the segment's ports (`topology` ids).

use super::spec::SegmentSpec;
use super::Segment;
use crate::packet::NodeId;
use crate::topology::IfaceId;

/// The segment of `g` over its ports `ends` (interface and node of each of `g.nodes`).
pub fn build_segment(g: &SegmentSpec, ends: &[(IfaceId, NodeId)]) -> Segment {
    Segment::new(
        g.name.clone(),
        g.rate.bps(),
        g.delay.time(),
        g.overhead.0 as u32,
        ends,
    )
}
