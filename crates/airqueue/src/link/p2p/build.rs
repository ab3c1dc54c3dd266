//! Building the wired link of a validated `[[links]]` entry, beside its spec and checks:
//! `sim/build/` calls it with the link's ports (`topology` ids) and the run's seed.

use super::spec::LinkSpec;
use super::P2pLink;
use crate::link::netem::ImpairmentSpec;
use crate::link::Impairment;
use crate::packet::NodeId;
use crate::topology::IfaceId;

/// The link of `l` between its ports `ends` (interface and node of `between[0]`, then of
/// `between[1]`). Each direction's impairment draws from streams of its own
/// (`<link>:<from>-><to>`, per flow of `flow_names`); a link whose impairment the timeline
/// changes (`impairment_changes`) gets one in each direction, doing nothing until then,
/// even when it starts without.
pub fn build_link(
    l: &LinkSpec,
    ends: [(IfaceId, NodeId); 2],
    impairment_changes: bool,
    seed: u64,
    flow_names: &[String],
) -> P2pLink {
    let direction = |me: usize| format!("{}:{}->{}", l.name, l.between[me], l.between[1 - me]);
    let none = ImpairmentSpec::default();
    let imp = |me: usize| {
        let spec = l
            .impairment_from(me)
            .or(impairment_changes.then_some(&none));
        spec.map(|imp| Impairment::new(imp, seed, &direction(me), flow_names))
    };
    P2pLink::new(
        l.name.clone(),
        [l.rate_from(0), l.rate_from(1)],
        [l.delay_from(0).time(), l.delay_from(1).time()],
        l.overhead.0 as u32,
        ends,
        [imp(0), imp(1)],
    )
}
