//! The WLAN meter of ADWISER (seed 002 §III-C.1.c): a node hook on the box that counts
//! what comes back from the WLAN, so that the box can tell whether the WLAN carried what
//! it released.
//!
//! The service-rate adaptation raises C while "the measured TCP throughput over the WLAN
//! is equal to C" and lowers it otherwise. What the box releases towards the AP equals C
//! whenever the box holds a backlog, whether or not the medium carries it; what the WLAN
//! carried shows in what returns through the box: the stations' ACKs for downloaded data
//! and their uploaded data. The meter counts the TCP packets arriving on the box's
//! interface towards the AP in the same virtual bits the box charges its releases
//! ([`crate::qdisc::virtual_bytes`]): a download's DATA released costs DATA + ½
//! ACK and returns as half a delayed ACK (ACK + 2 DATA, halved); an upload's ACK released
//! costs ACK + 2 DATA and returns as two DATA packets of DATA + ½ ACK each. In a steady
//! state the two counts agree; when the medium cannot carry C, the difference queues in
//! (and overflows) the AP and the returned count falls behind.

use crate::hook::{HookCtx, HookVerdict, NodeHook};
use crate::link::wifi::rate::TcpWorkload;
use crate::packet::{PacketId, Protocol};
use crate::qdisc::virtual_bytes;
use crate::topology::IfaceId;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Virtual bytes returned from the WLAN since the box last read them (shared with the
/// `adwiser` qdisc; one thread runs a simulation, the atomic only makes it `Send`).
pub type ReturnedBytes = Arc<AtomicU64>;

/// The meter on the box node (see the module documentation).
pub struct WlanMeter {
    name: String,
    /// The box's interface towards the AP: what arrives there came from the WLAN side.
    iface: IfaceId,
    work: TcpWorkload,
    returned: ReturnedBytes,
}

impl WlanMeter {
    pub fn new(name: String, iface: IfaceId, work: TcpWorkload, returned: ReturnedBytes) -> Self {
        WlanMeter {
            name,
            iface,
            work,
            returned,
        }
    }
}

impl NodeHook for WlanMeter {
    fn name(&self) -> &str {
        &self.name
    }

    fn on_arrival(&mut self, pkt: PacketId, iface: IfaceId, cx: &mut HookCtx<'_>) -> HookVerdict {
        if iface == self.iface {
            let p = cx.packets.get(pkt);
            if p.tuple.protocol == Protocol::Tcp {
                self.returned
                    .fetch_add(virtual_bytes(p, &self.work), Ordering::Relaxed);
            }
        }
        HookVerdict::Pass
    }

    fn held(&self) -> u64 {
        0
    }
}
