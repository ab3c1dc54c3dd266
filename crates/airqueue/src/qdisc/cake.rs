//! `cake`: Common Applications Kept Enhanced (Høiland-Jørgensen, Täht and Morton, "Piece
//! of CAKE", IEEE LANMAN 2018; Linux `net/sched/sch_cake.c`; `tc-cake(8)`).
//!
//! What is modelled, following `sch_cake.c` (written from its behaviour, not copied):
//!
//! - **Tins** (§3.3 of the paper), in the kernel's internal order, each with a bandwidth
//!   threshold (a fraction of the shaper rate) and a DRR weight, and the kernel's DSCP → tin
//!   tables (`sch_cake.c` `diffserv3`, `diffserv4`, `diffserv8`, `precedence`):
//!   `diffserv3` (default): Best Effort (rate, 1024), Bulk (CS1, LE; rate/16, 64), Voice
//!   (CS7, CS6, EF, VA, DSCP 4; rate/4, 256); `diffserv4`: Best Effort, Bulk, Video (AF2x–AF4x,
//!   CS2, CS3, DSCP 4; rate/2, 512), Voice (CS4–CS7, EF, VA; rate/4, 256); `diffserv8` and
//!   `precedence`: eight tins, tin i at rate·(7/8)^i and weight 256·(7/8)^i (each step
//!   rounded down, as the kernel's `rate *= 7; rate >>= 3`); `besteffort`: one tin. Shaped,
//!   the last tin (in that order) whose own schedule is due is served, else the tin
//!   scheduled earliest (a tin above its threshold may still use idle capacity); unshaped,
//!   tins share by DRR on their weights. (`tc-cake(8)` still lists CS5 and CS4 as Voice
//!   in diffserv3; the kernel's table, followed here, has them in Best Effort.)
//! - **`wash`**: the DSCP is cleared (ECN kept) after the tin is chosen, so later hops
//!   see CS0.
//! - **Flow queueing**: 1024 queues per tin, **8-way set-associative hashing** (a flow's
//!   tag is looked up in the 8 queues of its set, else an empty queue of the set is taken,
//!   else the queue its hash names is shared: a collision), and **DRR++**: a flow that
//!   arrives with an empty queue joins the *new* (sparse) list with a fresh quantum and is
//!   served before the *old* (bulk) flows; one that uses up its quantum becomes bulk.
//! - **Host isolation** (§3.2): `flowblind`, `srchost`, `dsthost`, `hosts`, `flows`,
//!   `dual-srchost`, `dual-dsthost`, `triple-isolate` (default). In the dual modes and
//!   triple-isolate, hosts are hashed set-associatively too, each host counts its bulk
//!   flows, and a flow's quantum is divided by the bulk-flow count of its source and/or
//!   destination host (the larger one), so hosts share the link equally whatever their
//!   numbers of flows. As `cake_dequeue`, a sparse flow that used up its first quantum is
//!   counted as its hosts' bulk flow before its next quantum is divided, so it counts
//!   itself.
//! - **COBALT** (§3.1): per flow, CoDel (sojourn above `target` for `interval` starts
//!   dropping at `interval/√count`; the count decays rather than resets when the queue
//!   recovers, and a flow is not over target while its sojourn is below 2 MTU times per
//!   bulk flow or 4 MTU times) and BLUE (the drop probability rises by 1/256 each time
//!   the flow overflows the buffer, at most once per `target`, and falls by 1/4096 each
//!   time it empties). ECN-capable packets are marked instead of CoDel-dropped; BLUE
//!   drops regardless, as Linux. As `cobalt_should_drop`, a packet that was marked, not
//!   dropped, re-arms a lagging schedule to now (the next signal follows from there),
//!   while drops leave it lagging (the next packets are dropped back to back until it
//!   catches up). The "MTU" of the MTU times and of the target's floor (1.5 MTU times at
//!   the tin's rate) is Linux's `psched_mtu`: the device MTU plus its hard header length,
//!   airqueue's `link_header` (14 on Ethernet and veth: 1514), not the link's framing
//!   `overhead`.
//! - **Decaying flows** (`cake_dequeue`): a flow found empty whose COBALT state has not
//!   come to rest (BLUE's probability, CoDel's count, or the activity timeout `drop_next`
//!   still ahead) stays in the tin's decaying list, counted neither sparse nor bulk; each
//!   dequeue first looks at that list's head, which decays its state again
//!   (`cobalt_queue_empty`); a packet for it makes it a new flow. A flow finds its own
//!   queue by its tag whether or not the queue is in use (`cake_hash`), so its COBALT state
//!   follows it; a queue whose count never changed takes its first control step at once
//!   (`rec_inv_sqrt` is zeroed at `cake_init`).
//! - **Shaper** (§3.4): a virtual clock `time_next_packet` advanced by each packet's
//!   transmission time at `bandwidth`, with the packet's length adjusted as `cake_overhead`
//!   does: with `overhead` set the link-layer header is replaced by it, then `mpu` is the
//!   minimum, then `atm` framing rounds up to whole 48-byte cell payloads of 53 bytes, or
//!   `ptm` adds one byte per 64 or part (the kernel's conservative 64b/65b form); a packet
//!   leaves only when the clock is due, so the output holds the set rate exactly in
//!   adjusted bytes. Each tin's own clock (its threshold) advances as the kernel's
//!   `cake_advance_shaper`: from its old value if that lags `now` (a tin keeps the credit
//!   of an idle spell while it has a backlog), else to at least `now + duration`. Unset
//!   `bandwidth`: unlimited.
//! - **`ingress`** (shaping the far end's sending, before the bottleneck): packets that
//!   COBALT drops are charged to the shaper and the deficits too (they already used the
//!   link upstream), a failsafe clock (1.5× the delivered packets' durations) keeps the
//!   drops from stalling the output, and COBALT's "over target" test takes the tin's bulk
//!   flow count into account (2 MTU times per bulk flow), as the kernel does only then.
//! - **ACK filter** (`ack_filter`, §4.1 of the paper): when a TCP ACK joins a queue, an
//!   earlier pure ACK of the same connection that it makes redundant (no data, flags only
//!   ACK/ECE/CWR, a cumulative ACK no higher, timestamps no later, no SACK information the
//!   new one lacks) is dropped — the earliest such ACK once two are found
//!   (`ack-filter`), or already one if it sits right before the new ACK with the same
//!   ECE/CWR flags (`ack-filter-aggressive`). A change of ECE/CWR between candidates keeps
//!   the earlier one (the ECN signal must get through). The packets here carry whether an
//!   ACK has SACK blocks but not the blocks themselves (they travel beside the packet, for
//!   the TCP model): an ACK whose SACK blocks would have to be compared with the new
//!   one's (both carry SACK) is kept, where the kernel drops it when the new one covers
//!   its ranges — so this filters a little less than Linux after losses. Drops are counted
//!   as `ack_filter`.
//! - **Buffer**: `memlimit`, default as Linux: max(4 MiB, bandwidth × interval × 4) when
//!   shaped, at most 10240 × MTU (MTU + `link_header`, as above). It counts what Linux
//!   counts, each packet's `skb->truesize` (`memory_accounting = "truesize"`, the
//!   default), modelled by [`truesize`]: the linear skb a sending host's `ip_append_data`
//!   allocates, forwarded unchanged through veth — 2304 B for an MTU-sized datagram, as
//!   the kernel VM shows; `memory_accounting = "length"` counts packet lengths instead
//!   (airqueue before issue 38; about 1.5× more MTU packets fit). When full, the fattest
//!   flow (in bytes, as Linux's `backlogs`) of any tin loses its head packet (BLUE hears
//!   of it).
//! - **`nat`**: the kernel looks the flow up in conntrack to hash on the addresses before
//!   NAT. Nothing in airqueue translates addresses, so the lookup would return the
//!   packet's own addresses: `nat = true` is accepted and hashes exactly as without it,
//!   as on a Linux box that does no NAT.
//!
//! Not modelled (no counterpart here): `split-gso` (no GSO super-packets), `fwmark` (no
//! firewall marks), `autorate-ingress`. Where Linux uses a random dither (the quantum's
//! round-off) or a random BLUE draw, this uses the discipline's own random stream.

use super::classify::flow_hash;
use super::peek_stash::PeekStash;
use super::{BuildCtx, Qdisc, QdiscCtx, Verdict};
use crate::conf::{Bytes, Duration, Rate, ScenarioError};
use crate::engine::{SimRng, SimTime};
use crate::packet::{
    DropReason, FiveTuple, PacketId, Protocol, IPV4_HEADER_BYTES, TCP_HEADER_BYTES,
};
use rand::Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Queues per tin (Linux `CAKE_QUEUES`).
const QUEUES: usize = 1024;
/// Ways of the set-associative hash (Linux `CAKE_SET_WAYS`).
const WAYS: usize = 8;

/// Host isolation (`tc-cake(8)` "FLOW ISOLATION PARAMETERS").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CakeIsolation {
    /// One queue per tin: no flow isolation.
    Flowblind,
    /// Flows are source hosts.
    Srchost,
    /// Flows are destination hosts.
    Dsthost,
    /// Flows are source–destination host pairs.
    Hosts,
    /// Flows by 5-tuple, no host fairness.
    Flows,
    /// Flows by 5-tuple, fairness first among source hosts.
    DualSrchost,
    /// Flows by 5-tuple, fairness first among destination hosts.
    DualDsthost,
    /// Flows by 5-tuple, fairness among source and destination hosts (the default).
    #[default]
    TripleIsolate,
}

impl CakeIsolation {
    fn bits(self) -> u8 {
        match self {
            CakeIsolation::Flowblind => 0,
            CakeIsolation::Srchost => 1,
            CakeIsolation::Dsthost => 2,
            CakeIsolation::Hosts => 3,
            CakeIsolation::Flows => 4,
            CakeIsolation::DualSrchost => 5,
            CakeIsolation::DualDsthost => 6,
            CakeIsolation::TripleIsolate => 7,
        }
    }
}

const FLOW_SRC: u8 = 1;
const FLOW_DST: u8 = 2;
const FLOW_FLOWS: u8 = 4;

/// Tin presets (`tc-cake(8)` "PRIORITY QUEUE PARAMETERS").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CakeDiffserv {
    /// One tin for everything.
    Besteffort,
    /// Best Effort, Bulk (CS1, LE), Voice (CS7, CS6, EF, VA, DSCP 4); the default.
    #[default]
    Diffserv3,
    /// Best Effort, Bulk, Video (AF2x–AF4x, CS2, CS3), Voice (CS4–CS7, EF, VA).
    Diffserv4,
    /// Eight tins after RFC 4594's classes (background … network control).
    Diffserv8,
    /// Eight tins by the IP precedence (the DSCP's top three bits).
    Precedence,
}

/// Cell framing the shaper accounts for (`tc-cake(8)` `atm`, `ptm`, `noatm`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CakeAtm {
    /// No cell framing (the default).
    #[default]
    Noatm,
    /// ATM (ADSL): whole cells of 48 payload bytes, 53 on the wire.
    Atm,
    /// PTM (VDSL2): 64b/65b encoding, one byte per 64 or part.
    Ptm,
}

/// ACK filtering (`tc-cake(8)` `ack-filter`, `ack-filter-aggressive`, `no-ack-filter`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CakeAckFilter {
    /// No ACK filtering (the default).
    #[default]
    NoAckFilter,
    /// Drop a redundant pure ACK once a later ACK of the connection makes two redundant.
    AckFilter,
    /// Drop a redundant pure ACK as soon as the next ACK follows it.
    AckFilterAggressive,
}

/// What `memlimit` counts (Linux counts `skb->truesize`; module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CakeMemory {
    /// Each packet's kernel memory, as Linux's `buffer_used` (the default): the
    /// `skb->truesize` of a linear skb holding the datagram, 2304 B for a 1500 B
    /// datagram (module documentation, [`truesize`]).
    #[default]
    Truesize,
    /// Each packet's length as the qdisc sees it (`qdisc_pkt_len`): airqueue's accounting
    /// before issue 38, about 1.5× more MTU packets in the same `memlimit`.
    Length,
}

/// Parameters of `cake` (`tc qdisc add … cake [bandwidth R] [overhead N] [mpu N]
/// [atm|ptm|noatm] [isolation] [nat] [wash] [ingress] [ack-filter…]
/// [besteffort|diffserv3|diffserv4|diffserv8|precedence] [rtt T] [memlimit B]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CakeConf {
    /// Shaper rate; absent: unlimited (the device's own rate limits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<Rate>,
    /// Per-packet overhead in bytes replacing the link-layer header in the shaper's length
    /// (`overhead N`, may be negative); absent: the packet length as the qdisc sees it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<i32>,
    /// Minimum packet length the shaper charges (`mpu N`). Default 0.
    #[serde(default)]
    pub mpu: u32,
    /// Cell framing of the link the shaper stands in for. Default "noatm".
    #[serde(default)]
    pub atm: CakeAtm,
    /// Flow and host isolation. Default triple-isolate.
    #[serde(default)]
    pub isolation: CakeIsolation,
    /// Hash on the addresses before NAT (conntrack). Nothing here translates addresses,
    /// so this changes nothing (module documentation). Default false.
    #[serde(default)]
    pub nat: bool,
    /// Clear the DSCP of every packet after its tin is chosen. Default false.
    #[serde(default)]
    pub wash: bool,
    /// Ingress mode: dropped packets count against the shaper (module documentation).
    /// Default false.
    #[serde(default)]
    pub ingress: bool,
    /// ACK filtering. Default "no-ack-filter".
    #[serde(default)]
    pub ack_filter: CakeAckFilter,
    /// Tin preset. Default diffserv3.
    #[serde(default)]
    pub diffserv: CakeDiffserv,
    /// Expected RTT: COBALT's interval; its target is 5 % of it (tc's `rtt`). Default
    /// 100ms (target 5 ms).
    #[serde(default = "default_rtt")]
    pub rtt: Duration,
    /// Buffer in bytes; absent: Linux's default (module documentation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memlimit: Option<Bytes>,
    /// What `memlimit` counts: "truesize" (each packet's kernel memory, as Linux's
    /// `skb->truesize`; the default) or "length" (packet lengths).
    #[serde(default, skip_serializing_if = "is_default_memory")]
    pub memory_accounting: CakeMemory,
}

fn is_default_memory(m: &CakeMemory) -> bool {
    *m == CakeMemory::default()
}

fn default_rtt() -> Duration {
    Duration(SimTime::from_millis(100))
}

/// COBALT's parameters of a tin.
#[derive(Clone, Copy, Debug, Default)]
struct CobaltParams {
    target: u64,
    interval: u64,
    /// Time to send one MTU at the tin's rate (0 unshaped).
    mtu_time: u64,
}

/// COBALT's per-flow state (CoDel's count, dropping and schedule; BLUE's probability).
#[derive(Clone, Copy, Debug, Default)]
struct Cobalt {
    count: u32,
    dropping: bool,
    drop_next: u64,
    /// BLUE drop probability in units of 2^-32.
    p_drop: u32,
    blue_timer: u64,
    /// CoDel's 1/√count has been computed at least once. Linux keeps it as
    /// `rec_inv_sqrt`, zeroed with the queue at `cake_init` and first set when the count
    /// first changes by a signal or a decay; until then the control law adds nothing, so a
    /// queue's very first dropping state is due at once (`cobalt_control(now, interval,
    /// 0)` = now) instead of an interval later.
    inv_sqrt_set: bool,
}

const P_INC: u32 = 1 << 24; // 1/256
const P_DEC: u32 = 1 << 20; // 1/4096

impl Cobalt {
    /// `t + interval / √count` (CoDel's control law; exact square root).
    fn control(t: u64, interval: u64, count: u32) -> u64 {
        t + (interval as f64 / (count.max(1) as f64).sqrt()) as u64
    }

    /// The flow's queue emptied: BLUE backs off, CoDel's count decays.
    fn queue_empty(&mut self, p: &CobaltParams, now: u64) {
        if self.p_drop > 0 && now.saturating_sub(self.blue_timer) > p.target {
            self.p_drop = self.p_drop.saturating_sub(P_DEC);
            self.blue_timer = now;
        }
        self.dropping = false;
        if self.count > 0 && now >= self.drop_next {
            self.count -= 1;
            self.inv_sqrt_set = true;
            self.drop_next = Self::control(self.drop_next, p.interval, self.count);
        }
    }

    /// Whether the state has not decayed to rest (Linux keeps such an emptied flow in the
    /// decaying list): a BLUE probability, a CoDel count, or `drop_next` — an activity
    /// timeout of `now + interval` once the count is 0 — still ahead.
    fn active(&self, now: u64) -> bool {
        self.p_drop > 0 || self.count > 0 || now < self.drop_next
    }

    /// The flow overflowed the buffer: BLUE steps up, CoDel starts dropping now.
    fn queue_full(&mut self, p: &CobaltParams, now: u64) {
        if now.saturating_sub(self.blue_timer) > p.target {
            self.p_drop = self.p_drop.saturating_add(P_INC);
            self.blue_timer = now;
        }
        self.dropping = true;
        self.drop_next = now;
        if self.count == 0 {
            self.count = 1;
        }
    }

    /// Whether the head packet (waiting `sojourn`) must be dropped (Linux
    /// `cobalt_should_drop`). When CoDel's schedule is due while dropping, the packet is
    /// signalled: `mark` is asked to set CE (true: marked, so not dropped by CoDel, as
    /// `INET_ECN_set_ce` succeeding). BLUE drops regardless of the mark.
    ///
    /// As Linux, `drop_next` doubles as an activity timeout at the end: with no count it
    /// is pushed to `now + interval`; otherwise, if the schedule (`now − drop_next`, as last
    /// recomputed — the value from before entering the dropping state when nothing was
    /// signalled) is in the past and the packet is *not dropped*, it is re-armed to `now`.
    /// A packet that was only ECN-marked is not dropped, so after a mark the schedule
    /// restarts from `now` (the next signal follows the control law from here), where a
    /// CoDel drop leaves it lagging and the next packets are dropped back to back until it
    /// catches up.
    fn should_drop(
        &mut self,
        p: &CobaltParams,
        now: u64,
        sojourn: u64,
        bulk_flows: u32,
        rng: &mut SimRng,
        mark: impl FnOnce() -> bool,
    ) -> bool {
        let over_target = sojourn > p.target
            && sojourn > p.mtu_time * bulk_flows as u64 * 2
            && sojourn > p.mtu_time * 4;
        // Linux's signed `schedule`, kept across the state change below as it does.
        let mut schedule = now as i64 - self.drop_next as i64;
        let mut next_due = self.count > 0 && schedule >= 0;
        if over_target {
            if !self.dropping {
                self.dropping = true;
                self.drop_next = if self.inv_sqrt_set {
                    Self::control(now, p.interval, self.count)
                } else {
                    now
                };
            }
            if self.count == 0 {
                self.count = 1;
            }
        } else if self.dropping {
            self.dropping = false;
        }
        let mut drop = false;
        if next_due && self.dropping {
            // Mark if ECN-capable, else drop.
            drop = !mark();
            self.count = self.count.saturating_add(1);
            self.inv_sqrt_set = true;
            self.drop_next = Self::control(self.drop_next, p.interval, self.count);
            schedule = now as i64 - self.drop_next as i64;
        } else {
            while next_due {
                self.count -= 1;
                self.inv_sqrt_set = true;
                self.drop_next = Self::control(self.drop_next, p.interval, self.count);
                schedule = now as i64 - self.drop_next as i64;
                next_due = self.count > 0 && schedule >= 0;
            }
        }
        // BLUE, without ECN (deliberately, as Linux).
        if self.p_drop > 0 && rng.random::<u32>() < self.p_drop {
            drop = true;
        }
        if self.count == 0 {
            self.drop_next = now + p.interval;
        } else if schedule > 0 && !drop {
            self.drop_next = now;
        }
        drop
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum FlowSet {
    #[default]
    None,
    Sparse,
    /// Used up its quantum while empty: in the bulk rotation, counted sparse.
    SparseWait,
    Bulk,
    /// Empty, but its COBALT state has not decayed to rest: kept in the tin's decaying
    /// list (Linux `CAKE_SET_DECAYING`), its queue still reserved for it.
    Decaying,
}

/// The tin list a flow is taken from (Linux `new_flows`, `old_flows`, `decaying_flows`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    New,
    Old,
    Decaying,
}

#[derive(Default)]
struct Flow {
    queue: VecDeque<PacketId>,
    bytes: u64,
    deficit: i64,
    set: FlowSet,
    /// The full hash of the flow occupying this queue.
    tag: u32,
    srchost: u16,
    dsthost: u16,
    cobalt: Cobalt,
}

#[derive(Clone, Copy, Default)]
struct Host {
    src_tag: u32,
    dst_tag: u32,
    src_bulk: u32,
    dst_bulk: u32,
}

struct Tin {
    flows: Vec<Flow>,
    hosts: Vec<Host>,
    new_flows: VecDeque<u16>,
    old_flows: VecDeque<u16>,
    decaying_flows: VecDeque<u16>,
    sparse: u32,
    bulk: u32,
    decaying: u32,
    flow_quantum: u64,
    /// DRR weight among tins (unshaped) and deficit.
    tin_quantum: i64,
    tin_deficit: i64,
    /// The tin's threshold rate (bit/s; 0 unlimited) and schedule.
    rate_bps: u64,
    time_next: SimTime,
    cparams: CobaltParams,
    backlog: u64,
    packets: usize,
    /// Collisions: flows that found no free way in their set.
    way_collisions: u64,
}

pub struct Cake {
    mode: u8,
    tins: Vec<Tin>,
    diffserv: CakeDiffserv,
    rate_bps: u64,
    overhead: Option<i32>,
    mpu: u32,
    atm: CakeAtm,
    wash: bool,
    ingress: bool,
    ack_filter: CakeAckFilter,
    buffer_limit: u64,
    memory: CakeMemory,
    /// Memory the queued packets hold, in `memory`'s units (Linux `buffer_used`).
    buffer_used: u64,
    /// Its peak (Linux `buffer_max_used`, tc's "memory used").
    pub buffer_max_used: u64,
    time_next: SimTime,
    /// Ingress mode's failsafe clock (Linux `failsafe_next_packet`).
    failsafe_next: SimTime,
    backlog: u64,
    len: usize,
    /// Unshaped: the tin whose turn it is.
    cur_tin: usize,
    stash: PeekStash,
    rng: SimRng,
    perturb: u64,
    /// Packets the shaper held back (Linux `overlimits`), for tests.
    pub overlimits: u64,
    /// ACKs the ACK filter dropped (Linux `ack_drops`, summed over tins).
    pub ack_drops: u64,
}

/// 65535 / n (Linux `quantum_div`), n ≥ 1.
fn quantum_div(n: u32) -> u64 {
    65535 / n.max(1) as u64
}

/// A length after cell framing (Linux `cake_calc_overhead`'s ATM and PTM steps).
fn frame(len: u32, atm: CakeAtm) -> u32 {
    match atm {
        CakeAtm::Noatm => len,
        CakeAtm::Atm => len.div_ceil(48) * 53,
        CakeAtm::Ptm => len + len.div_ceil(64),
    }
}

/// `skb->truesize` of a packet carrying an IP datagram of `datagram` bytes, as Linux
/// 6.1 (x86-64) sets it for a linear skb built by `ip_append_data` on the sending host
/// (UDP, ICMP, raw sockets) and forwarded unchanged through veth and the router to the
/// qdisc: the allocation asks for the datagram plus `LL_RESERVED_SPACE` (16 B for a 14 B
/// Ethernet header) plus 15, `__alloc_skb` aligns that to 64 B (`SKB_DATA_ALIGN`) and adds
/// the aligned `skb_shared_info` (320 B), kmalloc rounds the sum up to its slab size (a
/// power of two from 512 B on, pages beyond 8 KiB likewise), and `__build_skb_around` sets
/// `truesize = SKB_TRUESIZE(slab − 320)` = slab − 320 + 256 (the aligned `sk_buff`) + 320.
/// A 1476–1500 B datagram: 1536 + 320 = 1856 → 2048 → 2304 B, the size the kernel VM
/// shows (cake_hosts_udp: "memory used: 1974528b" = 857 × 2304). TCP's skbs are built
/// differently (headers linear, data in page fragments, GSO segments split in cake);
/// this formula is used for them too, an approximation.
pub fn truesize(datagram: u32) -> u64 {
    const SHARED_INFO: u64 = 320;
    const SK_BUFF: u64 = 256;
    let data = (datagram as u64 + 16 + 15).div_ceil(64) * 64 + SHARED_INFO;
    data.next_power_of_two() - SHARED_INFO + SK_BUFF + SHARED_INFO
}

/// A host address's 32-bit hash.
fn host_hash(addr: u32, perturb: u64) -> u32 {
    let mut x = perturb ^ (addr as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^= x >> 33;
    x as u32
}

// The kernel's DSCP → tin tables (`sch_cake.c`), indexed by DSCP, tins in its internal
// order.
#[rustfmt::skip]
const DIFFSERV3: [u8; 64] = [
    0, 1, 0, 0, 2, 0, 0, 0,  1, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 2, 0, 2, 0,
    2, 0, 0, 0, 0, 0, 0, 0,  2, 0, 0, 0, 0, 0, 0, 0,
];
#[rustfmt::skip]
const DIFFSERV4: [u8; 64] = [
    0, 1, 0, 0, 2, 0, 0, 0,  1, 0, 0, 0, 0, 0, 0, 0,
    2, 0, 2, 0, 2, 0, 2, 0,  2, 0, 2, 0, 2, 0, 2, 0,
    3, 0, 2, 0, 2, 0, 2, 0,  3, 0, 0, 0, 3, 0, 3, 0,
    3, 0, 0, 0, 0, 0, 0, 0,  3, 0, 0, 0, 0, 0, 0, 0,
];
#[rustfmt::skip]
const DIFFSERV8: [u8; 64] = [
    2, 0, 1, 2, 4, 2, 2, 2,  1, 2, 1, 2, 1, 2, 1, 2,
    5, 2, 4, 2, 4, 2, 4, 2,  3, 2, 3, 2, 3, 2, 3, 2,
    6, 2, 3, 2, 3, 2, 3, 2,  6, 2, 2, 2, 6, 2, 6, 2,
    7, 2, 2, 2, 2, 2, 2, 2,  7, 2, 2, 2, 2, 2, 2, 2,
];

impl CakeDiffserv {
    /// The tin of a packet with `dscp`.
    fn tin_of(self, dscp: u8) -> usize {
        let d = (dscp & 63) as usize;
        match self {
            CakeDiffserv::Besteffort => 0,
            CakeDiffserv::Diffserv3 => DIFFSERV3[d] as usize,
            CakeDiffserv::Diffserv4 => DIFFSERV4[d] as usize,
            CakeDiffserv::Diffserv8 => DIFFSERV8[d] as usize,
            CakeDiffserv::Precedence => d >> 3,
        }
    }

    /// Each tin's threshold rate and DRR weight, in the kernel's tin order
    /// (`cake_config_*`): the rates as fractions of `rate` (0: unshaped).
    fn tins(self, rate: u64) -> Vec<(u64, i64)> {
        match self {
            CakeDiffserv::Besteffort => vec![(rate, 65535)],
            CakeDiffserv::Diffserv3 => vec![(rate, 1024), (rate >> 4, 64), (rate >> 2, 256)],
            CakeDiffserv::Diffserv4 => vec![
                (rate, 1024),
                (rate >> 4, 64),
                (rate >> 1, 512),
                (rate >> 2, 256),
            ],
            CakeDiffserv::Diffserv8 | CakeDiffserv::Precedence => {
                let (mut r, mut quantum) = (rate, 256i64);
                (0..8)
                    .map(|_| {
                        let tin = (r, quantum.max(1));
                        r = (r * 7) >> 3;
                        quantum = (quantum * 7) >> 3;
                        tin
                    })
                    .collect()
            }
        }
    }
}

impl Cake {
    pub fn from_conf(c: &CakeConf, b: &BuildCtx, errs: &mut ScenarioError) -> Option<Self> {
        if c.rtt.time() == SimTime::ZERO {
            errs.push(
                format!("{}.rtt", b.path),
                "must be positive; write e.g. \"100ms\"",
            );
            return None;
        }
        if c.bandwidth.is_some_and(|r| r.bps() == 0) {
            errs.push(
                format!("{}.bandwidth", b.path),
                "must be positive; leave it out for an unlimited cake",
            );
            return None;
        }
        let rate_bps = c.bandwidth.map_or(0, |r| r.bps());
        let interval = c.rtt.time().0;
        let target = (interval / 20).max(1);
        // Linux `psched_mtu(qdisc_dev(sch))`: the device MTU plus its hard header length
        // (`dev->hard_header_len`, 14 on Ethernet and veth), which is airqueue's
        // `link_header` (the bytes of link-layer header in `skb->len`), not the link's
        // wire framing (`overhead`, which `DevInfo::psched_mtu` adds for the other
        // disciplines).
        let mtu = (b.dev.mtu + b.dev.link_header) as u64;
        let tins = c
            .diffserv
            .tins(rate_bps)
            .into_iter()
            .map(|(tin_rate, weight)| {
                let (quantum, byte_target_ns) = if tin_rate > 0 {
                    let bytes_per_s = tin_rate / 8;
                    (
                        (bytes_per_s >> 12).clamp(300, 1514),
                        SimTime::transmission(mtu, tin_rate).0,
                    )
                } else {
                    (1514, 0)
                };
                let t = (byte_target_ns * 3 / 2).max(target);
                Tin {
                    flows: (0..QUEUES).map(|_| Flow::default()).collect(),
                    hosts: vec![Host::default(); QUEUES],
                    new_flows: VecDeque::new(),
                    old_flows: VecDeque::new(),
                    decaying_flows: VecDeque::new(),
                    sparse: 0,
                    bulk: 0,
                    decaying: 0,
                    flow_quantum: quantum,
                    tin_quantum: weight,
                    tin_deficit: 0,
                    rate_bps: tin_rate,
                    time_next: SimTime::ZERO,
                    cparams: CobaltParams {
                        target: t,
                        interval: (interval + t - target).max(2 * t),
                        mtu_time: byte_target_ns,
                    },
                    backlog: 0,
                    packets: 0,
                    way_collisions: 0,
                }
            })
            .collect();
        let buffer_limit = match c.memlimit {
            Some(m) => m.0,
            None => {
                let by_rate = if rate_bps > 0 {
                    (rate_bps / 8 * interval / 1_000_000_000 * 4).max(4 << 20)
                } else {
                    u64::MAX
                };
                by_rate.min(10240 * mtu)
            }
        };
        let mut rng = b.rng("cake");
        let perturb = rng.random();
        Some(Cake {
            mode: c.isolation.bits(),
            tins,
            diffserv: c.diffserv,
            rate_bps,
            overhead: c.overhead,
            mpu: c.mpu,
            atm: c.atm,
            wash: c.wash,
            ingress: c.ingress,
            ack_filter: c.ack_filter,
            buffer_limit,
            memory: c.memory_accounting,
            buffer_used: 0,
            buffer_max_used: 0,
            time_next: SimTime::ZERO,
            failsafe_next: SimTime::ZERO,
            backlog: 0,
            len: 0,
            cur_tin: 0,
            stash: PeekStash::default(),
            rng,
            perturb,
            overlimits: 0,
            ack_drops: 0,
        })
    }

    /// The length the shaper and the deficits charge (Linux `cake_calc_overhead`).
    fn adjusted_len(&self, ctx: &QdiscCtx, pkt: PacketId) -> u32 {
        let len = ctx.len_of(pkt);
        let len = match self.overhead {
            None => len,
            Some(o) => (len.saturating_sub(ctx.dev.link_header) as i64 + o as i64).max(1) as u32,
        };
        frame(len.max(self.mpu), self.atm)
    }

    /// The memory packet `p` holds against `memlimit` (Linux `skb->truesize`, or its
    /// length with `memory_accounting = "length"`).
    #[inline]
    fn mem_of(&self, ctx: &QdiscCtx, p: PacketId) -> u64 {
        match self.memory {
            CakeMemory::Truesize => truesize(ctx.packets.size(p)),
            CakeMemory::Length => ctx.len_of(p) as u64,
        }
    }

    /// The queue (and hosts) of a packet in tin `t` (Linux `cake_hash`).
    fn hash(&mut self, t: usize, tuple: &FiveTuple) -> usize {
        let mode = self.mode;
        let src = host_hash(tuple.src_addr, self.perturb);
        let dst = host_hash(tuple.dst_addr, self.perturb ^ 0x5555);
        let mut fh = if mode & FLOW_FLOWS != 0 {
            flow_hash(tuple, self.perturb)
        } else {
            0
        };
        if mode & FLOW_FLOWS == 0 {
            if mode & FLOW_SRC != 0 {
                fh ^= src;
            }
            if mode & FLOW_DST != 0 {
                fh ^= dst;
            }
        }
        let tin = &mut self.tins[t];
        let reduced = fh as usize % QUEUES;
        let outer = reduced - reduced % WAYS;
        let inner = reduced % WAYS;
        // The queue reserved for the flow in its set (its tag, whether or not the queue is
        // in use: Linux `cake_hash` keeps the tag of an emptied queue, so a returning flow
        // finds its own queue and COBALT state again), else a free one, else the one its
        // hash names.
        let ways = || (0..WAYS).map(move |i| outer + (inner + i) % WAYS);
        let idx = match ways().find(|&k| tin.flows[k].tag == fh) {
            Some(k) => k,
            None => match ways().find(|&k| tin.flows[k].set == FlowSet::None) {
                Some(k) => k,
                None => {
                    tin.way_collisions += 1;
                    reduced
                }
            },
        };
        let f = &mut tin.flows[idx];
        if f.set == FlowSet::None {
            f.tag = fh;
            // Hosts: found by tag in their set, else a way with no bulk flows.
            if mode & FLOW_SRC != 0 && mode & FLOW_FLOWS != 0 {
                f.srchost = find_host(&mut tin.hosts, src, true) as u16;
            }
            if mode & FLOW_DST != 0 && mode & FLOW_FLOWS != 0 {
                f.dsthost = find_host(&mut tin.hosts, dst, false) as u16;
            }
        }
        idx
    }

    /// The number of bulk flows of the flow's host(s) that its quantum is divided by.
    fn host_load(&self, t: usize, f: usize) -> u32 {
        let tin = &self.tins[t];
        let flow = &tin.flows[f];
        let mut load = 1;
        if self.mode & (FLOW_SRC | FLOW_FLOWS) == FLOW_SRC | FLOW_FLOWS {
            load = load.max(tin.hosts[flow.srchost as usize].src_bulk);
        }
        if self.mode & (FLOW_DST | FLOW_FLOWS) == FLOW_DST | FLOW_FLOWS {
            load = load.max(tin.hosts[flow.dsthost as usize].dst_bulk);
        }
        load
    }

    fn bulk_counts(&mut self, t: usize, f: usize, up: bool) {
        let mode = self.mode;
        let tin = &mut self.tins[t];
        let (s, d) = (tin.flows[f].srchost as usize, tin.flows[f].dsthost as usize);
        let step = |x: &mut u32| {
            if up {
                *x += 1
            } else {
                *x = x.saturating_sub(1)
            }
        };
        if mode & (FLOW_SRC | FLOW_FLOWS) == FLOW_SRC | FLOW_FLOWS {
            step(&mut tin.hosts[s].src_bulk);
        }
        if mode & (FLOW_DST | FLOW_FLOWS) == FLOW_DST | FLOW_FLOWS {
            step(&mut tin.hosts[d].dst_bulk);
        }
    }

    /// Drops the head packet of the fattest flow of any tin (Linux `cake_drop`).
    fn drop_fattest(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let mut best: Option<(usize, usize, u64)> = None;
        for (t, tin) in self.tins.iter().enumerate() {
            if tin.packets == 0 {
                continue;
            }
            for (f, flow) in tin.flows.iter().enumerate() {
                if flow.bytes > best.map_or(0, |b| b.2) {
                    best = Some((t, f, flow.bytes));
                }
            }
        }
        let (t, f, _) = best?;
        let p = self.pop(t, f, ctx)?;
        let now = ctx.now.0;
        let tin = &mut self.tins[t];
        let cp = tin.cparams;
        tin.flows[f].cobalt.queue_full(&cp, now);
        ctx.drop_packet(p, DropReason::QdiscOverflow);
        Some(p)
    }

    /// Takes flow `f`'s head packet; queue bytes count as the qdisc sees packets
    /// ([`QdiscCtx::len_of`]), the shaper's adjusted length is computed when it leaves.
    fn pop(&mut self, t: usize, f: usize, ctx: &QdiscCtx) -> Option<PacketId> {
        let p = self.tins[t].flows[f].queue.front().copied()?;
        self.buffer_used -= self.mem_of(ctx, p);
        let tin = &mut self.tins[t];
        tin.flows[f].queue.pop_front();
        let len = ctx.len_of(p) as u64;
        tin.flows[f].bytes -= len;
        tin.backlog -= len;
        tin.packets -= 1;
        self.backlog -= len;
        self.len -= 1;
        Some(p)
    }

    /// Chooses the tin to serve (Linux `cake_dequeue`'s tin selection).
    fn choose_tin(&mut self, now: SimTime) -> Option<usize> {
        let n = self.tins.len();
        if self.rate_bps == 0 {
            // Unshaped: DRR among tins on their weights.
            let mut tried = 0;
            loop {
                let tin = &mut self.tins[self.cur_tin];
                if tin.sparse + tin.bulk > 0 && tin.tin_deficit >= 0 {
                    return Some(self.cur_tin);
                }
                if tin.tin_deficit <= 0 {
                    tin.tin_deficit += tin.tin_quantum;
                }
                self.cur_tin = (self.cur_tin + 1) % n;
                tried += 1;
                if tried > 2 * n + 64 && self.tins.iter().all(|t| t.packets == 0) {
                    return None;
                }
            }
        }
        // Shaped: the highest-priority tin that is due, else the earliest scheduled.
        let mut best: Option<(usize, i128)> = None;
        for (t, tin) in self.tins.iter().enumerate() {
            if tin.packets == 0 {
                continue;
            }
            let wait = tin.time_next.0 as i128 - now.0 as i128;
            if best.is_none_or(|(_, bw)| wait <= 0 || wait <= bw) {
                best = Some((t, wait));
            }
        }
        best.map(|b| b.0)
    }

    /// Serves one packet, COBALT drops on the way (Linux `cake_dequeue`).
    fn serve(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let now = ctx.now;
        // Linux `first_flow`: only the first flow looked at by a dequeue may come from the
        // decaying list.
        let mut first = true;
        'begin: loop {
            if self.len == 0 {
                return None;
            }
            if self.rate_bps > 0 && self.time_next > now && self.failsafe_next > now {
                self.overlimits += 1;
                return None;
            }
            let t = self.choose_tin(now)?;
            'retry: loop {
                let Some((f, list)) = self.next_flow(t, &mut first) else {
                    continue 'begin;
                };
                // Take packets through COBALT.
                loop {
                    let Some(p) = self.pop(t, f, ctx) else {
                        self.flow_emptied(t, f, list, now.0);
                        continue 'begin;
                    };
                    let sojourn = now.saturating_sub(ctx.packets.get(p).enqueued).0;
                    let tin = &mut self.tins[t];
                    let cp = tin.cparams;
                    let bulk = if self.ingress { tin.bulk } else { 0 };
                    let drop = tin.flows[f].cobalt.should_drop(
                        &cp,
                        now.0,
                        sojourn,
                        bulk,
                        &mut self.rng,
                        || ctx.mark_ce(p),
                    );
                    // The last packet of a queue may be marked, never dropped (Linux
                    // `cake_dequeue`: it leaves even when COBALT said drop).
                    let last = tin.flows[f].queue.is_empty();
                    if !drop || last {
                        self.charge(t, f, ctx, p, now, false);
                        return Some(p);
                    }
                    ctx.drop_packet(p, DropReason::Aqm);
                    if self.ingress {
                        self.charge(t, f, ctx, p, now, true);
                        continue 'retry;
                    }
                }
            }
        }
    }

    /// The flow of tin `t` to serve next and the list it heads (DRR++ as Linux
    /// `cake_dequeue`: the first flow a dequeue looks at is the head of the decaying list if
    /// there is one, then new flows first, then old ones; a flow whose deficit is spent gets
    /// its next quantum and goes to the end of the old list). None: the tin has no flow
    /// listed.
    fn next_flow(&mut self, t: usize, first: &mut bool) -> Option<(usize, List)> {
        loop {
            let tin = &self.tins[t];
            let head = |l: &VecDeque<u16>| l.front().map(|&f| f as usize);
            let (f, list) = match () {
                _ if *first && !tin.decaying_flows.is_empty() => {
                    (head(&tin.decaying_flows)?, List::Decaying)
                }
                _ if !tin.new_flows.is_empty() => (head(&tin.new_flows)?, List::New),
                _ if !tin.old_flows.is_empty() => (head(&tin.old_flows)?, List::Old),
                _ => (head(&tin.decaying_flows)?, List::Decaying),
            };
            *first = false;
            if tin.flows[f].deficit > 0 {
                return Some((f, list));
            }
            // As Linux `cake_dequeue`: a sparse flow that used up its quantum is moved to
            // the bulk set (its hosts count it) *before* its next quantum is divided by
            // its hosts' bulk-flow counts, so the flow counts itself.
            let tin = &mut self.tins[t];
            let flow = &mut tin.flows[f];
            if flow.set == FlowSet::Sparse {
                if flow.queue.is_empty() {
                    flow.set = FlowSet::SparseWait;
                } else {
                    flow.set = FlowSet::Bulk;
                    tin.sparse -= 1;
                    tin.bulk += 1;
                    self.bulk_counts(t, f, true);
                }
            }
            let refill = self.refill(t, f);
            let tin = &mut self.tins[t];
            tin.flows[f].deficit += refill;
            tin.list_mut(list).pop_front();
            tin.old_flows.push_back(f as u16);
        }
    }

    /// Charges packet `p` of flow `f` in tin `t` to the deficits and the shapers (Linux
    /// `cake_advance_shaper`; `dropped`: an ingress-mode drop, which leaves the failsafe
    /// clock alone).
    fn charge(
        &mut self,
        t: usize,
        f: usize,
        ctx: &QdiscCtx,
        p: PacketId,
        now: SimTime,
        dropped: bool,
    ) {
        let len = self.adjusted_len(ctx, p) as u64;
        let tin = &mut self.tins[t];
        tin.flows[f].deficit -= len as i64;
        tin.tin_deficit -= len as i64;
        if self.rate_bps > 0 {
            self.advance_shaper(t, len, now, dropped);
        }
    }

    /// Advances tin `t`'s clock and the global (and, unless `dropped`, the failsafe) clock
    /// by `len` adjusted bytes (Linux `cake_advance_shaper`).
    fn advance_shaper(&mut self, t: usize, len: u64, now: SimTime, dropped: bool) {
        let tin = &mut self.tins[t];
        let tin_dur = SimTime::transmission(len, tin.rate_bps.max(1));
        if tin.time_next < now {
            // A tin that lags keeps the credit of the time it lags by.
            tin.time_next += tin_dur;
        } else if tin.time_next < now + tin_dur {
            tin.time_next = now + tin_dur;
        }
        let global = SimTime::transmission(len, self.rate_bps);
        self.time_next += global;
        if !dropped {
            self.failsafe_next += global + SimTime(global.0 / 2);
        }
    }

    /// A flow's next quantum: the tin's flow quantum divided among its host's bulk flows,
    /// dithered as Linux does.
    fn refill(&mut self, t: usize, f: usize) -> i64 {
        let load = self.host_load(t, f);
        let dither = (self.rng.random::<u32>() >> 16) as u64;
        ((self.tins[t].flow_quantum * quantum_div(load) + dither) >> 16) as i64
    }

    /// The flow's queue turned out empty (Linux `cake_dequeue`): COBALT hears of it
    /// (`cobalt_queue_empty`: BLUE backs off, CoDel's count decays); while its state has
    /// not decayed to rest (a BLUE probability, a count, or the activity timeout
    /// `drop_next` still ahead) the flow stays listed, in the decaying list, no longer
    /// counted sparse or bulk; otherwise it leaves the rotation.
    fn flow_emptied(&mut self, t: usize, f: usize, list: List, now: u64) {
        let tin = &mut self.tins[t];
        let cp = tin.cparams;
        tin.flows[f].cobalt.queue_empty(&cp, now);
        tin.list_mut(list).pop_front();
        let set = tin.flows[f].set;
        let keep = tin.flows[f].cobalt.active(now);
        match set {
            FlowSet::Sparse | FlowSet::SparseWait => tin.sparse -= 1,
            FlowSet::Bulk => {
                tin.bulk -= 1;
                self.bulk_counts(t, f, false);
            }
            FlowSet::Decaying if !keep => tin.decaying -= 1,
            FlowSet::Decaying | FlowSet::None => {}
        }
        let tin = &mut self.tins[t];
        if keep {
            if set != FlowSet::Decaying {
                tin.decaying += 1;
            }
            tin.decaying_flows.push_back(f as u16);
            tin.flows[f].set = FlowSet::Decaying;
        } else {
            tin.flows[f].set = FlowSet::None;
        }
    }
}

impl Tin {
    fn list_mut(&mut self, list: List) -> &mut VecDeque<u16> {
        match list {
            List::New => &mut self.new_flows,
            List::Old => &mut self.old_flows,
            List::Decaying => &mut self.decaying_flows,
        }
    }

    /// Takes decaying flow `f` out of whichever list holds it (the decaying list, or the
    /// old list where a decaying flow whose deficit was spent is moved).
    fn unlist_decaying(&mut self, f: usize) {
        let f = f as u16;
        if let Some(i) = self.decaying_flows.iter().position(|&x| x == f) {
            self.decaying_flows.remove(i);
        } else if let Some(i) = self.old_flows.iter().position(|&x| x == f) {
            self.old_flows.remove(i);
        }
    }
}

const TCP_ACK: u8 = 0x10;
const TCP_SYN: u8 = 0x02;
const TCP_ECE_CWR: u8 = 0xC0;

/// `a` is later than `b` in 32-bit sequence space (RFC 1982), as timestamps compare.
fn after(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

/// Whether pure ACK `p` carries SACK blocks: TCP options beyond the 12 bytes of the
/// timestamp option (the TCP model sizes an ACK as IP + TCP headers + 12 + SACK option).
fn has_sack(p: &crate::packet::Packet) -> bool {
    p.size_bytes.saturating_sub(p.payload_bytes) > IPV4_HEADER_BYTES + TCP_HEADER_BYTES + 12
}

/// The index in `queue` of the pure ACK that the ACK at its tail makes redundant, if any
/// (Linux `cake_ack_filter`; module documentation).
fn redundant_ack(queue: &VecDeque<PacketId>, ctx: &QdiscCtx, aggressive: bool) -> Option<usize> {
    let n = queue.len();
    if n < 2 {
        return None;
    }
    let trig = ctx.packets.get(queue[n - 1]);
    if trig.tuple.protocol != Protocol::Tcp || trig.tcp.flags & (TCP_ACK | TCP_SYN) != TCP_ACK {
        return None;
    }
    let trig_ecn = trig.tcp.flags & TCP_ECE_CWR;
    let (mut eligible, mut eligible_ecn, mut found) = (None, 0u8, 0u32);
    for (i, &c) in queue.iter().enumerate().take(n - 1) {
        let p = ctx.packets.get(c);
        if p.tuple != trig.tuple {
            continue;
        }
        // An ECN signal between two candidates must get through: start again.
        if eligible.is_some() && p.tcp.flags & TCP_ECE_CWR != eligible_ecn {
            eligible = None;
            found -= 1;
        }
        let timestamps_later = (p.tcp.tsval != 0 || p.tcp.tsecr != 0)
            && (after(p.tcp.tsval, trig.tcp.tsval) || after(p.tcp.tsecr, trig.tcp.tsecr));
        if p.tcp.flags & !TCP_ECE_CWR != TCP_ACK
            || timestamps_later
            || p.payload_bytes != 0
            || p.tcp.ack > trig.tcp.ack
        {
            continue;
        }
        // SACK: the new ACK must tell at least as much. Both carrying SACK blocks would
        // need the blocks compared, which the packet does not carry: keep it.
        let more_from_new = match (has_sack(p), has_sack(trig)) {
            (true, _) => continue,
            (false, true) => true,
            (false, false) => false,
        };
        if p.tcp.ack == trig.tcp.ack && !more_from_new {
            continue;
        }
        if eligible.is_none() {
            eligible = Some(i);
            eligible_ecn = p.tcp.flags & TCP_ECE_CWR;
        }
        found += 1;
        if found > 1 {
            return eligible;
        }
    }
    (aggressive && eligible == Some(n - 2) && eligible_ecn == trig_ecn).then_some(n - 2)
}

/// The host slot of `hash` (source or destination side), set-associatively.
fn find_host(hosts: &mut [Host], hash: u32, src: bool) -> usize {
    let idx = hash as usize % QUEUES;
    let outer = idx - idx % WAYS;
    let inner = idx % WAYS;
    let ways = (0..WAYS).map(|i| outer + (inner + i) % WAYS);
    let tag = |h: &Host| if src { h.src_tag } else { h.dst_tag };
    let bulk = |h: &Host| if src { h.src_bulk } else { h.dst_bulk };
    if let Some(k) = ways.clone().find(|&k| tag(&hosts[k]) == hash) {
        return k;
    }
    let k = ways.clone().find(|&k| bulk(&hosts[k]) == 0).unwrap_or(idx);
    if src {
        hosts[k].src_tag = hash;
    } else {
        hosts[k].dst_tag = hash;
    }
    k
}

impl Qdisc for Cake {
    fn kind(&self) -> &'static str {
        "cake"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        let (dscp, tuple) = {
            let p = ctx.packets.get(pkt);
            (p.dscp, p.tuple)
        };
        let t = self.diffserv.tin_of(dscp);
        if self.wash && dscp != 0 {
            ctx.packets.get_mut(pkt).dscp = 0;
        }
        let f = self.hash(t, &tuple);
        let len = ctx.len_of(pkt);
        // Shaper state is not left stale across an idle spell (Linux `cake_enqueue`).
        if self.tins[t].packets == 0 && self.tins[t].time_next < ctx.now {
            self.tins[t].time_next = ctx.now;
        }
        if self.len == 0 && self.rate_bps > 0 && self.time_next < ctx.now {
            self.time_next = ctx.now;
            self.failsafe_next = ctx.now;
        }
        let refill = match self.tins[t].flows[f].set {
            FlowSet::None | FlowSet::Decaying => Some(self.refill_fresh(t, f)),
            _ => None,
        };
        let tin = &mut self.tins[t];
        let flow = &mut tin.flows[f];
        flow.queue.push_back(pkt);
        flow.bytes += len as u64;
        tin.backlog += len as u64;
        tin.packets += 1;
        self.backlog += len as u64;
        self.len += 1;
        match flow.set {
            FlowSet::None | FlowSet::Decaying => {
                if flow.set == FlowSet::Decaying {
                    tin.decaying -= 1;
                    tin.unlist_decaying(f);
                }
                let flow = &mut tin.flows[f];
                flow.set = FlowSet::Sparse;
                flow.deficit = refill.unwrap_or(0);
                tin.sparse += 1;
                tin.new_flows.push_back(f as u16);
            }
            FlowSet::SparseWait => {
                flow.set = FlowSet::Bulk;
                tin.sparse -= 1;
                tin.bulk += 1;
                self.bulk_counts(t, f, true);
            }
            FlowSet::Sparse | FlowSet::Bulk => {}
        }
        self.buffer_used += self.mem_of(ctx, pkt);
        if self.ack_filter != CakeAckFilter::NoAckFilter {
            self.filter_acks(t, f, ctx);
        }
        self.buffer_max_used = self.buffer_max_used.max(self.buffer_used);
        let mut verdict = Verdict::Queued;
        while self.buffer_used > self.buffer_limit {
            match self.drop_fattest(ctx) {
                Some(p) if p == pkt => verdict = Verdict::Dropped,
                Some(_) if verdict == Verdict::Queued => verdict = Verdict::Congested,
                Some(_) => {}
                None => break,
            }
        }
        verdict
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(p) = self.stash.take(ctx.member) {
            return Some(p);
        }
        self.serve(ctx)
    }

    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(p) = self.stash.peeked(ctx.member) {
            return Some(p);
        }
        let p = self.serve(ctx);
        let member = ctx.member;
        self.stash.keep(member, p, |p| ctx.len_of(p))
    }

    fn len(&self) -> usize {
        self.len + self.stash.len()
    }

    fn backlog_bytes(&self) -> u64 {
        self.backlog + self.stash.bytes()
    }

    fn next_wakeup(&self, now: SimTime) -> Option<SimTime> {
        (self.rate_bps > 0 && self.len > 0 && self.time_next > now && self.failsafe_next > now)
            .then(|| self.time_next.min(self.failsafe_next))
    }
}

impl Cake {
    /// The ACK filter (Linux `cake_ack_filter`): drops the pure ACK of flow `f` that the
    /// ACK just queued at its tail makes redundant, if any.
    fn filter_acks(&mut self, t: usize, f: usize, ctx: &mut QdiscCtx) {
        let aggressive = self.ack_filter == CakeAckFilter::AckFilterAggressive;
        let Some(i) = redundant_ack(&self.tins[t].flows[f].queue, ctx, aggressive) else {
            return;
        };
        let tin = &mut self.tins[t];
        let p = tin.flows[f].queue.remove(i).expect("index from the queue");
        self.buffer_used -= self.mem_of(ctx, p);
        let tin = &mut self.tins[t];
        let len = ctx.len_of(p) as u64;
        tin.flows[f].bytes -= len;
        tin.backlog -= len;
        tin.packets -= 1;
        self.backlog -= len;
        self.len -= 1;
        self.ack_drops += 1;
        if self.ingress && self.rate_bps > 0 {
            let adjusted = self.adjusted_len(ctx, p) as u64;
            self.advance_shaper(t, adjusted, ctx.now, true);
        }
        ctx.drop_packet(p, DropReason::AckFilter);
    }

    /// The first quantum of a flow that arrives with an empty queue (no dither, as Linux).
    fn refill_fresh(&self, t: usize, f: usize) -> i64 {
        ((self.tins[t].flow_quantum * quantum_div(self.host_load(t, f))) >> 16) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::super::classify::NameTable;
    use super::super::testing::Harness;
    use super::*;
    use crate::qdisc::QdiscConf;

    fn cake(h: &Harness, extra: &str) -> Cake {
        let conf: QdiscConf = toml::from_str(&format!("kind = \"cake\"\n{extra}")).unwrap();
        let QdiscConf::Cake(c) = conf else { panic!() };
        let names = NameTable::default();
        Cake::from_conf(&c, &h.build_ctx(&names), &mut ScenarioError::default()).unwrap()
    }

    /// Jain's fairness index of `x`.
    fn jain(x: &[f64]) -> f64 {
        let s: f64 = x.iter().sum();
        let s2: f64 = x.iter().map(|v| v * v).sum();
        s * s / (x.len() as f64 * s2)
    }

    /// Backlogs 1200 packets of 1500 B for each host i, over `flows_per_host[i]` flows, to
    /// destination host i (from source host i when `by_src`), then serves `n` packets
    /// (at one instant: no COBALT drops); bytes per host.
    fn serve_hosts(extra: &str, flows_per_host: &[u32], by_src: bool, n: usize) -> Vec<f64> {
        let mut h = Harness::new();
        let mut q = cake(&h, extra);
        // 1200 packets per host, spread over its flows.
        for k in 0..1200u32 {
            for (host, &nf) in flows_per_host.iter().enumerate() {
                let f = k % nf;
                let id = (host as u32) * 100 + f;
                let p = h.packet_with(id, 1500, |p| {
                    p.tuple.src_port = 1000 + f as u16;
                    p.tuple.dst_port = 80;
                    if by_src {
                        p.tuple.src_addr = 100 + host as u32;
                        p.tuple.dst_addr = 1;
                    } else {
                        p.tuple.src_addr = 1;
                        p.tuple.dst_addr = 100 + host as u32;
                    }
                });
                h.enqueue(&mut q, p);
            }
        }
        let mut bytes = vec![0.0; flows_per_host.len()];
        for _ in 0..n {
            let p = h.dequeue(&mut q).expect("backlogged");
            let t = h.packets.get(p).tuple;
            let host = if by_src { t.src_addr } else { t.dst_addr } - 100;
            bytes[host as usize] += h.packets.size(p) as f64;
        }
        assert!(h.dropped().is_empty());
        bytes
    }

    #[test]
    fn dual_dsthost_shares_fairly_among_destination_hosts_with_unequal_flow_counts() {
        // Reference: tc-cake(8) dual-dsthost ("flows are first divided fairly among
        // destination hosts, then among flows of a host") and Høiland-Jørgensen et al. 2018
        // §3.2 / Fig. 5: hosts with 1, 4 and 8 bulk flows get equal shares; Jain ≥ 0.95.
        // Without host isolation (`flows`) the shares follow the flow counts (1:4:8).
        // triple-isolate divides a flow's quantum by the larger of its source's and its
        // destination's bulk-flow counts (sch_cake.c): with one source for all 13 flows it
        // is per-flow fair, as below.
        for (mode, by_src) in [("dual-dsthost", false), ("dual-srchost", true)] {
            let b = serve_hosts(&format!("isolation = \"{mode}\""), &[1, 4, 8], by_src, 2400);
            let j = jain(&b);
            println!("{mode} (by src {by_src}): {b:?} Jain {j:.4}");
            assert!(j >= 0.95, "{mode}: {b:?} Jain {j}");
        }
        for mode in ["flows", "triple-isolate"] {
            let b = serve_hosts(&format!("isolation = \"{mode}\""), &[1, 4, 8], false, 1000);
            println!("{mode}: {b:?}");
            assert!(jain(&b) < 0.8);
            let per_flow = [b[0] / 1.0, b[1] / 4.0, b[2] / 8.0];
            assert!(jain(&per_flow) > 0.95, "{per_flow:?}");
        }
    }

    #[test]
    fn dscp_tables_follow_sch_cake() {
        // Reference: the kernel's tables (sch_cake.c `diffserv3`, `diffserv4`,
        // `diffserv8`, `precedence`), tins in its internal order.
        let d3 = CakeDiffserv::Diffserv3;
        // Best Effort 0, Bulk 1 (CS1, LE), Voice 2 (CS7, CS6, EF, VA, DSCP 4).
        for (dscp, tin) in [(0, 0), (8, 1), (1, 1), (56, 2), (48, 2), (46, 2), (44, 2)] {
            assert_eq!(d3.tin_of(dscp), tin, "diffserv3 dscp {dscp}");
        }
        for (dscp, tin) in [(4, 2), (40, 0), (32, 0), (10, 0), (26, 0), (34, 0)] {
            assert_eq!(d3.tin_of(dscp), tin, "diffserv3 dscp {dscp}");
        }
        // diffserv4: Best Effort 0, Bulk 1, Video 2 (AF2x-AF4x, CS2, CS3), Voice 3.
        let d4 = CakeDiffserv::Diffserv4;
        for (dscp, tin) in [
            (0, 0),
            (10, 0),
            (8, 1),
            (1, 1),
            (16, 2),
            (18, 2),
            (24, 2),
            (26, 2),
            (34, 2),
            (32, 3),
            (40, 3),
            (44, 3),
            (46, 3),
            (48, 3),
            (56, 3),
        ] {
            assert_eq!(d4.tin_of(dscp), tin, "diffserv4 dscp {dscp}");
        }
        // diffserv8: 0 LE, 1 CS1 and AF1x, 2 CS0, 3 AF3x/AF4x/CS3, 4 AF2x, 5 CS2,
        // 6 CS4/CS5/VA/EF, 7 CS6/CS7.
        let d8 = CakeDiffserv::Diffserv8;
        for (dscp, tin) in [
            (1, 0),
            (8, 1),
            (10, 1),
            (0, 2),
            (24, 3),
            (34, 3),
            (18, 4),
            (16, 5),
            (32, 6),
            (46, 6),
            (48, 7),
            (56, 7),
        ] {
            assert_eq!(d8.tin_of(dscp), tin, "diffserv8 dscp {dscp}");
        }
        for dscp in 0..64u8 {
            assert_eq!(CakeDiffserv::Precedence.tin_of(dscp), (dscp >> 3) as usize);
            assert_eq!(CakeDiffserv::Besteffort.tin_of(dscp), 0);
        }
    }

    #[test]
    fn tin_thresholds_and_weights_follow_cake_config() {
        // Reference: sch_cake.c cake_config_diffserv3/4/8: thresholds as fractions of the
        // rate, DRR weights; diffserv8 steps both by 7/8, rounding down each step.
        let r = 100_000_000u64;
        assert_eq!(
            CakeDiffserv::Diffserv3.tins(r),
            vec![(r, 1024), (r / 16, 64), (r / 4, 256)]
        );
        assert_eq!(
            CakeDiffserv::Diffserv4.tins(r),
            vec![(r, 1024), (r / 16, 64), (r / 2, 512), (r / 4, 256)]
        );
        let d8 = CakeDiffserv::Diffserv8.tins(r);
        let weights: Vec<i64> = d8.iter().map(|t| t.1).collect();
        assert_eq!(weights, vec![256, 224, 196, 171, 149, 130, 113, 98]);
        assert_eq!(d8[1].0, 87_500_000);
        assert_eq!(d8[7].0, 39_269_588); // 100e6 * 7/8 seven times, floored each time
    }

    /// The mean gap between 100 back-to-back 1000-byte packets leaving a 10 Mbit/s
    /// besteffort cake with `extra` options (one packet per flow: COBALT never drops a
    /// queue's last packet, so only the shaper sets the times).
    fn shaper_gap_ns(extra: &str) -> f64 {
        let mut h = Harness::new();
        let mut q = cake(
            &h,
            &format!("bandwidth = \"10Mbit\"\ndiffserv = \"besteffort\"\n{extra}"),
        );
        for i in 0..100 {
            let p = h.packet_with(i, 1000, |p| p.tuple.src_port = 1000 + i as u16);
            h.enqueue(&mut q, p);
        }
        let mut times = Vec::new();
        while q.len() > 0 {
            match h.dequeue(&mut q) {
                Some(_) => times.push(h.now),
                None => h.now = q.next_wakeup(h.now).expect("throttled"),
            }
        }
        assert_eq!(times.len(), 100);
        (times[99].0 - times[0].0) as f64 / 99.0
    }

    #[test]
    fn atm_and_ptm_framing_charge_cells_and_64b65b_bytes() {
        // Reference: tc-cake(8) atm/ptm and sch_cake.c cake_calc_overhead: ATM rounds up
        // to 48-byte cell payloads sent as 53 bytes; PTM adds a byte per 64 or part.
        // 1000 B + overhead 10 = 1010 B: ATM 22 cells = 1166 B (932.8 µs at 10 Mbit/s);
        // PTM 1010 + 16 = 1026 B (820.8 µs).
        let atm = shaper_gap_ns("overhead = 10\natm = \"atm\"");
        assert!((atm - 932_800.0).abs() < 1.0, "{atm}");
        let ptm = shaper_gap_ns("overhead = 10\natm = \"ptm\"");
        assert!((ptm - 820_800.0).abs() < 1.0, "{ptm}");
        let plain = shaper_gap_ns("overhead = 10");
        assert!((plain - 808_000.0).abs() < 1.0, "{plain}");
        assert_eq!(frame(48, CakeAtm::Atm), 53);
        assert_eq!(frame(49, CakeAtm::Atm), 106);
        assert_eq!(frame(64, CakeAtm::Ptm), 65);
        assert_eq!(frame(65, CakeAtm::Ptm), 67);
    }

    #[test]
    fn wash_clears_the_dscp_after_the_tin_is_chosen() {
        // Reference: tc-cake(8) `wash` ("clears all extra DiffServ ... after priority
        // queuing has taken place"): an EF packet is still served as Voice.
        for wash in [false, true] {
            let mut h = Harness::new();
            let mut q = cake(&h, &format!("wash = {wash}"));
            let p = h.packet_with(1, 200, |p| p.dscp = 46);
            h.enqueue(&mut q, p);
            assert_eq!(q.tins[2].packets, 1, "EF goes to the Voice tin");
            let out = h.dequeue(&mut q).unwrap();
            assert_eq!(h.packets.get(out).dscp, if wash { 0 } else { 46 });
        }
    }

    /// A pure ACK (or, with `data`, a segment) of one TCP connection.
    fn tcp_packet(
        h: &mut Harness,
        ack: u64,
        data: u32,
        extra: impl FnOnce(&mut crate::packet::Packet),
    ) -> PacketId {
        h.packet_with(7, 52 + data, |p| {
            p.tuple.protocol = Protocol::Tcp;
            p.tuple.src_port = 5001;
            p.tuple.dst_port = 80;
            p.payload_bytes = data;
            p.tcp.flags = TCP_ACK;
            p.tcp.ack = ack;
            extra(p);
        })
    }

    /// Queues ACKs 1…n (one connection, nothing dequeued) and returns the acks left.
    fn queued_acks(mode: &str, n: u64) -> (Vec<u64>, Vec<DropReason>) {
        let mut h = Harness::new();
        let mut q = cake(&h, &format!("ack_filter = \"{mode}\""));
        for a in 1..=n {
            let p = tcp_packet(&mut h, a * 1448, 0, |_| {});
            h.enqueue(&mut q, p);
        }
        let reasons = h.dropped().into_iter().map(|d| d.1).collect();
        let mut left = Vec::new();
        while let Some(p) = h.dequeue(&mut q) {
            left.push(h.packets.get(p).tcp.ack / 1448);
        }
        (left, reasons)
    }

    #[test]
    fn the_ack_filter_keeps_two_acks_and_the_aggressive_one_keeps_one() {
        // Reference: sch_cake.c cake_ack_filter: the earliest redundant pure ACK is dropped
        // once two are found; the aggressive mode drops one as soon as a newer ACK
        // follows it directly. Without the filter nothing is dropped.
        let (left, drops) = queued_acks("no-ack-filter", 6);
        assert_eq!(left, vec![1, 2, 3, 4, 5, 6]);
        assert!(drops.is_empty());
        let (left, drops) = queued_acks("ack-filter", 6);
        assert_eq!(left, vec![5, 6]);
        assert_eq!(drops, vec![DropReason::AckFilter; 4]);
        let (left, _) = queued_acks("ack-filter-aggressive", 6);
        assert_eq!(left, vec![6]);
    }

    #[test]
    fn the_ack_filter_spares_data_ecn_signals_sack_and_other_connections() {
        // Reference: sch_cake.c cake_tcph_may_drop / cake_ack_filter: only pure ACKs
        // (no data, flags ACK only), never one whose ECE/CWR differs from the next
        // candidate's, never one with SACK information the new ACK lacks, only of the same
        // 5-tuple, never one acknowledging more than the new ACK.
        let run = |first: &dyn Fn(&mut Harness) -> PacketId| {
            let mut h = Harness::new();
            let mut q = cake(&h, "ack_filter = \"ack-filter-aggressive\"");
            let p = first(&mut h);
            h.enqueue(&mut q, p);
            let p = tcp_packet(&mut h, 2 * 1448, 0, |_| {});
            h.enqueue(&mut q, p);
            h.dropped().len()
        };
        assert_eq!(
            run(&|h| tcp_packet(h, 1448, 0, |_| {})),
            1,
            "a redundant pure ACK"
        );
        assert_eq!(run(&|h| tcp_packet(h, 1448, 100, |_| {})), 0, "data");
        assert_eq!(
            run(&|h| tcp_packet(h, 1448, 0, |p| p.tcp.flags |= 0x40)),
            0,
            "ECE"
        );
        assert_eq!(
            run(&|h| tcp_packet(h, 1448, 0, |p| p.size_bytes += 10)),
            0,
            "SACK"
        );
        assert_eq!(
            run(&|h| tcp_packet(h, 1448, 0, |p| p.tuple.src_port = 9)),
            0,
            "tuple"
        );
        assert_eq!(
            run(&|h| tcp_packet(h, 3 * 1448, 0, |_| {})),
            0,
            "newer cumulative ACK"
        );
        assert_eq!(
            run(&|h| tcp_packet(h, 1448, 0, |p| p.tcp.flags |= TCP_SYN)),
            0,
            "SYN"
        );
        assert_eq!(
            run(&|h| tcp_packet(h, 1448, 0, |p| p.tcp.tsval = 5)),
            0,
            "a later timestamp than the new ACK's (0)"
        );
    }

    #[test]
    fn ingress_mode_charges_dropped_packets_to_the_shaper() {
        // Reference: tc-cake(8) `ingress` and sch_cake.c: in ingress mode a packet COBALT
        // drops advances the shaper's clock (it already crossed the link upstream), so
        // delivered + dropped bytes reach at least the set rate, while the failsafe clock
        // (1.5× the delivered packets' time) lets the delivered ones out at 2/3 of it when
        // drops are heavy; in egress mode the delivered bytes alone hold the set rate.
        // 1 Mbit/s, 600 packets of 1000 B queued at once: COBALT drops as the sojourn
        // grows.
        for ingress in [false, true] {
            let mut h = Harness::new();
            let mut q = cake(
                &h,
                &format!("bandwidth = \"1Mbit\"\ndiffserv = \"besteffort\"\ningress = {ingress}"),
            );
            for i in 0..600 {
                let p = h.packet(i % 4, 1000);
                h.enqueue(&mut q, p);
            }
            let (mut delivered, mut last) = (0u64, SimTime::ZERO);
            while q.len() > 0 {
                match h.dequeue(&mut q) {
                    Some(p) => {
                        delivered += h.packets.size(p) as u64;
                        last = h.now;
                    }
                    None => h.now = q.next_wakeup(h.now).expect("throttled"),
                }
            }
            let dropped = h.dropped().len() as u64 * 1000;
            assert!(dropped > 0, "COBALT dropped nothing");
            let secs = last.0 as f64 / 1e9;
            let out = delivered as f64 * 8.0 / secs;
            let charged = (delivered + dropped) as f64 * 8.0 / secs;
            println!("ingress {ingress}: delivered {out:.0} b/s, charged {charged:.0} b/s");
            if ingress {
                assert!(charged >= 0.97e6, "{charged}");
                assert!((out - 2e6 / 3.0).abs() < 0.02e6, "{out}");
            } else {
                assert!((out - 1e6).abs() < 0.02e6, "{out}");
            }
        }
    }

    #[test]
    fn the_shaper_releases_packets_at_the_set_rate_in_adjusted_bytes() {
        // Reference: tc-cake(8) bandwidth/overhead: the shaper's clock advances by
        // (len − link header + overhead) × 8 / rate per packet. 100 packets of 1000 B with
        // overhead 38 at 10 Mbit/s: each 830.4 µs apart (one packet per flow, so COBALT,
        // which never drops a queue's last packet, drops none).
        let mut h = Harness::new();
        let mut q = cake(
            &h,
            "bandwidth = \"10Mbit\"\noverhead = 38\ndiffserv = \"besteffort\"",
        );
        for i in 0..100 {
            let p = h.packet_with(i, 1000, |p| p.tuple.src_port = 1000 + i as u16);
            h.enqueue(&mut q, p);
        }
        let mut times = Vec::new();
        while q.len() > 0 {
            match h.dequeue(&mut q) {
                Some(_) => times.push(h.now),
                None => h.now = q.next_wakeup(h.now).expect("throttled"),
            }
        }
        assert_eq!(times.len(), 100);
        let gap = (times[99].0 - times[0].0) as f64 / 99.0;
        assert!((gap - 830_400.0).abs() < 1.0, "{gap}");
    }

    #[test]
    fn cobalt_should_drop_rearms_drop_next_after_an_ecn_mark_but_not_after_a_drop() {
        // Reference: sch_cake.c cobalt_should_drop (Linux 6.1): `drop = !(ecn_marked =
        // INET_ECN_set_ce(skb))`, then at the end `else if (schedule > 0 && !drop)
        // drop_next = now`. A flow far behind its schedule (count 4, drop_next 0, now 1 s,
        // interval 100 ms), ten head packets at the same instant: ECN-capable ones are
        // marked twice — the first mark re-arms drop_next to now, the second is due at
        // once and moves it to now + 100 ms/√6 — then not again; Not-ECT ones are dropped
        // back to back, the schedule lagging by more than the ten steps of the control
        // law make up (100 ms · Σ 1/√k for k = 5..14 ≈ 0.33 s < 1 s).
        let p = CobaltParams {
            target: 5_000_000,
            interval: 100_000_000,
            mtu_time: 0,
        };
        let now = 1_000_000_000u64;
        let mut rng = crate::engine::stream(1, "test");
        for ecn in [true, false] {
            let mut c = Cobalt {
                count: 4,
                dropping: true,
                drop_next: 0,
                p_drop: 0,
                blue_timer: 0,
                inv_sqrt_set: true,
            };
            let (mut marks, mut drops) = (0, 0);
            for _ in 0..10 {
                let mut marked = false;
                let drop = c.should_drop(&p, now, 50_000_000, 0, &mut rng, || {
                    marked = ecn;
                    ecn
                });
                marks += marked as u32;
                drops += drop as u32;
            }
            if ecn {
                assert_eq!((marks, drops), (2, 0));
                assert_eq!(c.count, 6);
                assert_eq!(c.drop_next, now + 40_824_829); // 100 ms / √6
            } else {
                assert_eq!((marks, drops), (0, 10));
                assert_eq!(c.count, 14);
            }
        }
    }

    /// The queue index holding packet `p` of tin 0.
    fn queue_of(q: &Cake, p: PacketId) -> usize {
        q.tins[0]
            .flows
            .iter()
            .position(|f| f.queue.contains(&p))
            .expect("queued")
    }

    #[test]
    fn an_emptied_flow_decays_in_the_decaying_list_until_its_cobalt_state_rests() {
        // Reference: sch_cake.c cake_dequeue (Linux 6.1): a flow found empty calls
        // cobalt_queue_empty and, while `p_drop || count || now < drop_next` (the count
        // or the activity timeout still live), moves to `decaying_flows` as
        // CAKE_SET_DECAYING, no longer counted sparse or bulk; every dequeue first looks
        // at the head of that list (`first_flow`), which calls cobalt_queue_empty again:
        // count − 1 each time `drop_next` is due, drop_next += interval/√count. So an idle
        // flow's count keeps decaying between its packets (count 2 → 1 → 0 at 70.7 and
        // 170.7 ms here) and it leaves once drop_next, now + interval at count 0, has
        // passed. A packet for a decaying flow makes it a new (sparse) flow with a fresh
        // quantum and the COBALT state it kept (cake_enqueue). Unshaped, besteffort,
        // `flows`: flow A has one 1500 B packet and count 3 due at 0; flow B keeps the
        // queue busy.
        let mut h = Harness::new();
        let mut q = cake(&h, "diffserv = \"besteffort\"\nisolation = \"flows\"");
        let pkt = |h: &mut Harness, port: u16| {
            h.packet_with(port as u32, 1500, |p| p.tuple.src_port = port)
        };
        let a0 = pkt(&mut h, 1001);
        h.enqueue(&mut q, a0);
        for _ in 0..60 {
            let b = pkt(&mut h, 1002);
            h.enqueue(&mut q, b);
        }
        let a = queue_of(&q, a0);
        q.tins[0].flows[a].cobalt = Cobalt {
            count: 3,
            inv_sqrt_set: true,
            ..Cobalt::default()
        };
        let ms = |x: u64| SimTime::from_millis(x);
        // A (the first new flow) leaves, its count decaying to 2 (drop_next 70.7 ms) as
        // its packet is under target; the next dequeue finds it empty: decaying.
        assert_eq!(h.dequeue(&mut q), Some(a0));
        h.dequeue(&mut q).expect("B");
        let flow = &q.tins[0].flows[a];
        assert_eq!((flow.set, flow.cobalt.count), (FlowSet::Decaying, 2));
        assert_eq!(flow.cobalt.drop_next, 70_710_678);
        assert_eq!(q.tins[0].decaying_flows, [a as u16]);
        assert_eq!(
            (q.tins[0].sparse + q.tins[0].bulk, q.tins[0].decaying),
            (1, 1)
        );
        // Dequeues for B visit A first and decay it.
        for (t, count, next) in [(71, 1, 170_710_678), (171, 0, 270_710_678)] {
            h.now = ms(t);
            h.dequeue(&mut q).expect("B");
            let c = q.tins[0].flows[a].cobalt;
            assert_eq!((c.count, c.drop_next), (count, next), "at {t} ms");
            assert_eq!(q.tins[0].flows[a].set, FlowSet::Decaying);
        }
        // At rest (count 0, the activity timeout passed): A leaves the lists.
        h.now = ms(271);
        h.dequeue(&mut q).expect("B");
        assert_eq!(q.tins[0].flows[a].set, FlowSet::None);
        assert!(q.tins[0].decaying_flows.is_empty());
        assert_eq!(q.tins[0].decaying, 0);

        // A packet for a decaying flow: new flow, fresh quantum, its count kept.
        let mut h = Harness::new();
        let mut q = cake(&h, "diffserv = \"besteffort\"\nisolation = \"flows\"");
        let a0 = pkt(&mut h, 1001);
        h.enqueue(&mut q, a0);
        for _ in 0..5 {
            let b = pkt(&mut h, 1002);
            h.enqueue(&mut q, b);
        }
        let a = queue_of(&q, a0);
        q.tins[0].flows[a].cobalt = Cobalt {
            count: 3,
            inv_sqrt_set: true,
            ..Cobalt::default()
        };
        h.dequeue(&mut q);
        h.dequeue(&mut q);
        assert_eq!(q.tins[0].flows[a].set, FlowSet::Decaying);
        let a1 = pkt(&mut h, 1001);
        h.enqueue(&mut q, a1);
        let tin = &q.tins[0];
        assert_eq!(queue_of(&q, a1), a, "its own queue again");
        assert_eq!(tin.flows[a].set, FlowSet::Sparse);
        assert_eq!((tin.flows[a].deficit, tin.flows[a].cobalt.count), (1513, 2));
        assert_eq!(tin.new_flows.back(), Some(&(a as u16)), "a new flow");
        assert!(tin.decaying_flows.is_empty() && tin.decaying == 0);
    }

    #[test]
    fn a_returning_flow_finds_its_own_queue_by_its_tag() {
        // Reference: sch_cake.c cake_hash (Linux 6.1): the set's ways are searched first
        // for the flow's tag, whether or not that queue is in use (`if (q->tags[outer_hash
        // + k] == flow_hash) … goto found`), and only then for an unused one; the tag of
        // an emptied queue stays. Flows X and Y hash to the same queue: Y takes it, X the
        // next way of the set. Both go idle and leave the lists; X returns and finds its
        // own queue, not Y's (the first free way from its hash), and so its own COBALT
        // state.
        let mut h = Harness::new();
        let mut q = cake(&h, "diffserv = \"besteffort\"\nisolation = \"flows\"");
        let tuple = |h: &mut Harness, port: u16| {
            let p = h.packet_with(port as u32, 1500, |p| p.tuple.src_port = port);
            (p, h.packets.get(p).tuple)
        };
        // Two source ports whose flow hashes name the same queue (a search, deterministic).
        let (mut seen, mut pair) = (std::collections::HashMap::new(), None);
        for port in 2000u16..6000 {
            let (_, t) = tuple(&mut h, port);
            let r = flow_hash(&t, q.perturb) as usize % QUEUES;
            if let Some(&other) = seen.get(&r) {
                pair = Some((other, port));
                break;
            }
            seen.insert(r, port);
        }
        let (py, px) = pair.expect("a pair of ports in 4000");
        let (y0, _) = tuple(&mut h, py);
        h.enqueue(&mut q, y0);
        let (x0, _) = tuple(&mut h, px);
        h.enqueue(&mut q, x0);
        let (y, x) = (queue_of(&q, y0), queue_of(&q, x0));
        assert_ne!(x, y);
        q.tins[0].flows[y].cobalt.count = 7;
        assert_eq!(h.dequeue(&mut q), Some(y0));
        assert_eq!(h.dequeue(&mut q), Some(x0));
        // Another flow keeps dequeues coming until both have rested and left.
        for _ in 0..8 {
            let (z, _) = tuple(&mut h, 9000);
            h.enqueue(&mut q, z);
        }
        q.tins[0].flows[y].cobalt = Cobalt::default();
        for t in [1u64, 200, 201, 202, 203] {
            h.now = SimTime::from_millis(t);
            h.dequeue(&mut q);
        }
        assert_eq!(q.tins[0].flows[y].set, FlowSet::None);
        assert_eq!(q.tins[0].flows[x].set, FlowSet::None);
        q.tins[0].flows[y].cobalt.count = 7;
        let (x1, _) = tuple(&mut h, px);
        h.enqueue(&mut q, x1);
        assert_eq!(queue_of(&q, x1), x);
        assert_eq!(q.tins[0].flows[x].cobalt.count, 0);
    }

    #[test]
    fn a_fresh_queue_signals_at_its_second_packet_over_target() {
        // Reference: sch_cake.c cobalt_vars_init (the per-queue state is zeroed, so
        // rec_inv_sqrt = 0) and cobalt_should_drop / cobalt_control (Linux 6.1): a queue
        // whose count has never changed enters its first dropping state with drop_next =
        // now + interval·0 = now, so its next packet over target is signalled; once
        // 1/√count has been computed (here after a decay to count 0) the same sequence
        // waits an interval. Packets at 1.000 s (under target, arming the activity
        // timeout now + 100 ms), 1.010 s and 1.011 s (50 ms sojourn).
        let p = CobaltParams {
            target: 5_000_000,
            interval: 100_000_000,
            mtu_time: 0,
        };
        let mut rng = crate::engine::stream(1, "test");
        let s = 1_000_000_000u64;
        for (fresh, dropped) in [(true, true), (false, false)] {
            let mut c = Cobalt {
                inv_sqrt_set: !fresh,
                ..Cobalt::default()
            };
            let mut run = |now, sojourn| c.should_drop(&p, now, sojourn, 0, &mut rng, || false);
            assert!(!run(s, 0));
            assert!(!run(s + 10_000_000, 50_000_000));
            assert_eq!(run(s + 11_000_000, 50_000_000), dropped, "fresh {fresh}");
        }
    }

    #[test]
    fn a_flow_turning_bulk_counts_itself_in_its_hosts_quantum_division() {
        // Reference: sch_cake.c cake_dequeue (Linux 6.1), the `flow->deficit <= 0` branch:
        // a sparse flow with packets left becomes bulk and its source host's
        // srchost_bulk_flow_count is incremented *before* host_load is taken for its next
        // quantum, `(flow_quantum * quantum_div[host_load] + dither) >> 16`. Two flows of
        // one host (dual-srchost, unshaped: quantum 1514, packets of 1500 B): the second
        // flow to turn bulk gets 1514 · (65535/2) / 65536 ≈ 757 (756 or 757 with the
        // dither), its deficit going from 13 − 1500 = −1487 to −731 or −730; counting the
        // host's bulk flows before the move would give it the whole 1513.
        let mut h = Harness::new();
        let mut q = cake(
            &h,
            "diffserv = \"besteffort\"\nisolation = \"dual-srchost\"",
        );
        for port in [1001u16, 1002] {
            for _ in 0..4 {
                let p = h.packet_with(port as u32, 1500, |p| {
                    p.tuple.src_addr = 5;
                    p.tuple.src_port = port;
                });
                h.enqueue(&mut q, p);
            }
        }
        for _ in 0..5 {
            h.dequeue(&mut q).expect("backlogged");
        }
        let second = q.tins[0]
            .flows
            .iter()
            .find(|f| {
                f.queue
                    .front()
                    .is_some_and(|&p| h.packets.get(p).tuple.src_port == 1002)
            })
            .expect("the second flow still queued");
        assert_eq!(second.set, FlowSet::Bulk);
        assert!(
            (-731..=-730).contains(&second.deficit),
            "{}",
            second.deficit
        );
        let host = second.srchost as usize;
        assert_eq!(q.tins[0].hosts[host].src_bulk, 2);
    }

    #[test]
    fn cobalt_target_and_default_memlimit_use_mtu_plus_the_hard_header() {
        // Reference: sch_cake.c cake_config_diffserv4 / cake_set_rate with
        // `mtu = psched_mtu(qdisc_dev(sch))` (dev->mtu + dev->hard_header_len), and
        // cake_reconfigure's cap `sch->limit (10240) * psched_mtu`. The kernel VM (Linux
        // 6.1, veth: MTU 1500, 14 B header) shows for `cake bandwidth 9Mbit diffserv4 rtt
        // 50ms` the tins' target_us 32298 / 2500 / 4037 / 8074 and the Bulk tin's
        // interval_us 79798 (tests/data/tc/vm-6.1/tests__data__tc__every-kind/v9d4.qdisc
        // .json), and for an unshaped cake "memory ... of 15140Kb" = 10240 × 1514 B
        // (tools/kernel-vm cake_fairness). The link's wire framing (`overhead` 38 here,
        // in DevInfo::psched_mtu) is not part of it.
        let mut h = Harness::new();
        h.dev.mtu = 1500;
        h.dev.link_header = 14;
        h.dev.psched_mtu = 1538;
        let q = cake(
            &h,
            "bandwidth = \"9Mbit\"\ndiffserv = \"diffserv4\"\nrtt = \"50ms\"",
        );
        let us: Vec<u64> = q.tins.iter().map(|t| t.cparams.target / 1000).collect();
        assert_eq!(us, vec![2500, 32298, 4037, 8074]);
        assert_eq!(q.tins[1].cparams.interval / 1000, 79798);
        assert_eq!(q.tins[1].cparams.mtu_time, 21_532_445); // 1514 B at 562.5 kbit/s, rounded up
        let unshaped = cake(&h, "");
        assert_eq!(unshaped.buffer_limit, 10240 * 1514);
        assert_eq!(unshaped.buffer_limit, 15140 * 1024);
        // A raw-IP device (tun, ppp: no hard header): 1500.
        h.dev.link_header = 0;
        assert_eq!(cake(&h, "").buffer_limit, 10240 * 1500);
    }

    #[test]
    fn memlimit_counts_skb_truesize_by_default() {
        // Reference: sch_cake.c cake_enqueue/cake_drop (Linux 6.1): `buffer_used +=
        // skb->truesize`, `buffer_max_used` taken before `while (buffer_used >
        // buffer_limit) cake_drop(...)`. A UDP datagram of 1476 B (1448 B of payload) has
        // truesize 2304 in the kernel VM (cake_hosts_udp: "memory used: 1974528b" = 857 ×
        // 2304; the formula in `truesize`). 150 such packets offered at once to a 100 ×
        // 2304 B memlimit: 100 stay and 50 are dropped as overflow, the peak being 101 ×
        // 2304; counting lengths (1476 B each, 156 fit) nothing is dropped.
        assert_eq!(truesize(1476), 2304);
        assert_eq!(truesize(1500), 2304);
        assert_eq!(truesize(52), 768); // 52 + 31 → 128, + 320 = 448 → 512; + 256
        assert_eq!(truesize(9000), 16640); // 9031 → 9088, + 320 → 16384; + 256
        for (mode, kept) in [("truesize", 100), ("length", 150)] {
            let mut h = Harness::new();
            let mut q = cake(
                &h,
                &format!("memlimit = {}\nmemory_accounting = \"{mode}\"", 100 * 2304),
            );
            for i in 0..150 {
                let p = h.packet(i % 4, 1476);
                h.enqueue(&mut q, p);
            }
            let dropped = h.dropped();
            assert_eq!(q.len(), kept, "{mode}");
            assert_eq!(dropped.len(), 150 - kept, "{mode}");
            assert!(dropped.iter().all(|d| d.1 == DropReason::QdiscOverflow));
            if mode == "truesize" {
                assert_eq!(q.buffer_max_used, 101 * 2304);
                assert_eq!(q.buffer_used, 100 * 2304);
            }
            while h.dequeue(&mut q).is_some() {}
            assert_eq!(q.buffer_used, 0, "{mode}: every packet's memory returned");
        }
    }
}
