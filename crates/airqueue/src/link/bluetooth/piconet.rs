//! A Bluetooth BR piconet as a medium: one master and up to seven active slaves on ACL
//! links, carrying IP packets (BNEP/PAN: every member has an interface
//! `<node>.<piconet>`), with L2CAP segmentation, optional L2CAP token-bucket flow control
//! at the slaves, and the baseband's TDD polling (thesis, seed 001, §2.1, §3.1, Ch. 4).
//!
//! **Ports.** Port 0 is the master, ports 1..=n the slaves. The master reaches every
//! slave; a slave reaches only the master, so slave-to-slave traffic is routed through the
//! master (thesis §2.1.1, its connections i → i+1). The master forwards at the IP layer
//! (a PAN group-ad-hoc network's bridging): it reassembles what a slave sent and segments
//! it again for the destination slave. The thesis's master relays baseband packets; the
//! difference is the store-and-forward time of one IP packet at the master.
//!
//! **Master.** An IP packet for slave j is segmented ([`Sar`]) into j's downlink queue.
//! The master's port takes packets while its downlink queues together hold fewer than
//! `master_buffer` IP packets (the thesis's "large enough" master buffer, Table 3.1).
//!
//! **Slave.** An IP packet is segmented; with flow control, the baseband packets enter the
//! token buffer S (a baseband packet that finds S full is rejected, and its IP packet is
//! lost at reassembly, counted as `qdisc_overflow`), pass towards the baseband buffer L
//! when the token bucket ([`TokenBucket`]) gives them a token — one that then finds L full
//! is blocked and lost the same way (§3.1: "too high tb will overload the baseband buffer
//! L"; §6.1.1, §6.2.1: the "blocking probability" of L) — and wait in L to be polled
//! (§3.1, Fig. 1.1(b)). The port is then always ready, as the thesis's L2CAP accepts every
//! SDU. Without flow control the segments go straight into L, and the port is ready while
//! L has room for an SDU of the MTU (a driver stopping its queue).
//!
//! **Baseband.** Frames follow [`Polling`]: in each, the master sends the addressed
//! slave the head of its downlink queue (or a POLL) in the even slot, and the slave
//! answers with the head of L (or a NULL) right after ([`super::baseband`]). The medium
//! has one timer: the master's turn (it receives the slave's answer, picks the next frame
//! and sends) and the slave's turn (it receives the master's packet and answers); while
//! no slave has data the POLL/NULL cycle is skipped in closed form
//! ([`super::polling::frames_until_data`]).
//!
//! **POLL and NULL on the air** (Core v1.1 Vol. 2 Part B §4.4.1, §8.6; on a shared
//! spectrum only, [`super::coexist`]). Every POLL and NULL is a transmission on its hop:
//! it interferes with the WLAN and can be destroyed by it. A slave that misses the
//! master's POLL does not answer in that frame (a slave transmits only after a packet
//! addressed to it, §8.6): its data waits for the next poll. The idle cycle stays
//! event-light: its frames are registered on the spectrum [`IDLE_BATCH`] frames (20 ms)
//! ahead, from one timer per batch (50 events/s while idle, instead of 1 600 per-slot
//! ones), and judged at the first piconet event after they ended; an arrival calls off
//! the frames registered from the next frame boundary on (the data frame replaces them).
//! *Approximation*: an idle frame's NULL is registered with its POLL, before the POLL's
//! fate is known, so a slave that missed an idle POLL still counts as an interferer for
//! that 126 µs (the fate cannot be known at registration without an event per frame);
//! the slave is silent towards the piconet all the same. BIAS keeps an idle frame
//! silent when its master or reply hop is classified bad, without shifting the idle
//! polling order. The acknowledgement a NULL carries is still taken as received (the
//! retransmission a lost ACK would cause is not modelled).
//!
//! **Losses.** Each master–slave link has its channel ([`AclChannel`]). Without ARQ (the
//! thesis, §3.2.3) a corrupted baseband packet is gone and its IP packet is dropped as
//! `channel_error` when its last baseband packet arrives (the receiver cannot reassemble
//! it). With ARQ the sender keeps the packet at the head of its queue and sends it again at
//! its next turn on that link until it arrives (unlimited retransmissions, the
//! specification's default flush timeout); the acknowledgement rides in the header of
//! the next packet the other way and is not lost.
//!
//! **What a qdisc sees** ([`LinkView`] of the master's port per slave, as an HCI would
//! report it): the rate is the largest allowed packet type's asymmetric maximum;
//! `can_send` is true while the master holds nothing for that slave (a packet given now
//! would be sent at the slave's next poll, behind nothing); `hw_backlog` counts the IP
//! packets queued for it; `quality` is the fraction of baseband packets from the slave
//! that arrived intact (an exponentially weighted average, weight 1/16), as HCI
//! `Read_Link_Quality` reports from the receiver's CRC checks. On a spectrum the NULLs
//! count too (a frame whose answer is missing — its POLL was lost — counts as lost at
//! the master), and at a slave the POLLs: a controller's link quality follows every
//! packet it receives, so an idle or held link's quality keeps being refreshed.

use super::acl_channel::{AclChannel, ChannelKind};
use super::baseband::{max_asymmetric_bps, PacketType, TypeSet, ACL_TYPES, SLOT};
use super::coexist::PiconetAir;
use super::polling::{frames_until_data, visits_of, Polling, Weights, IDLE_FRAME};
use super::sar::Sar;
use super::scatternet::WalkIn;
use super::token_bucket::TokenBucket;
use crate::engine::{SimTime, TimerId};
use crate::link::{
    DriverLedger, DriverQueue, LinkCtx, LinkEffect, LinkView, Medium, MediumBuild, Neighbour,
    PendingEvents,
};
use crate::metrics::{Column, Table};
use crate::packet::{DropReason, Location, NodeId, PacketId};
use crate::topology::IfaceId;
use std::collections::VecDeque;

/// Idle POLL/NULL frames registered on the spectrum ahead of time (20 ms).
pub const IDLE_BATCH: u64 = 16;

/// Where the registration of idle frames on the spectrum has got to: the next frame's
/// start and the polling state there.
#[derive(Copy, Clone, Debug)]
struct IdleReg {
    t: SimTime,
    c: usize,
    w: Weights,
    cont: bool,
}

/// An idle frame on the air, not yet judged: start, slave, master and reply channels.
#[derive(Copy, Clone, Debug)]
struct IdleFrame {
    t: SimTime,
    slave: u8,
    ch: (u8, u8),
}

/// The slave addressed by the idle frame at `st` (all slaves idle), and the state after
/// it: E-limited visits the next slave every frame; LWRR first lets waiting slaves sit out
/// (no time passes), as [`Piconet::lwrr_walk`] counts them.
fn idle_step(polling: Polling, n: usize, st: &mut IdleReg) -> usize {
    if let Polling::Lwrr { mp, .. } = polling {
        while !st.cont && st.w.wait[st.c] > 0 {
            st.w.wait[st.c] -= 1;
            st.c = (st.c + 1) % n;
        }
        if !st.cont {
            st.w.idle(st.c, mp);
        }
    }
    let c = st.c;
    st.cont = false;
    st.t += IDLE_FRAME;
    st.c = (c + 1) % n;
    c
}

/// L2CAP flow control at the slaves (thesis §3.1).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FlowControl {
    /// Token rate tb, bit/s.
    pub rate_bps: u64,
    /// Token bucket capacity, bytes.
    pub depth_bytes: u64,
    /// Token buffer S, baseband packets.
    pub buffer: u32,
}

/// A piconet's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct PiconetConf {
    pub polling: Polling,
    pub sar: Sar,
    pub types: TypeSet,
    /// L2CAP + BNEP header bytes added to every IP packet before segmentation.
    pub overhead: u32,
    /// Largest IP packet.
    pub mtu: u32,
    /// Baseband buffer L of each slave, baseband packets.
    pub slave_buffer: u32,
    /// IP packets the master's downlink queues hold together.
    pub master_buffer: u32,
    pub flow: Option<FlowControl>,
    pub arq: bool,
    pub channel: ChannelKind,
    /// Statistics count from here (the run's warm-up).
    pub warmup: SimTime,
}

/// A baseband packet in a queue: which IP packet it carries part of.
#[derive(Copy, Clone, Debug)]
struct Seg {
    ip: u32,
    ty: PacketType,
    bytes: u16,
}

/// An IP packet the piconet holds, from its sender's port until reassembly.
#[derive(Copy, Clone, Debug)]
struct IpRec {
    pkt: PacketId,
    /// Sender's and receiver's ports.
    from: u32,
    to: u32,
    /// Its baseband packets not yet received (or lost).
    left: u16,
    /// Its baseband packets still in the sender's queues.
    queued: u16,
    /// Why it cannot be reassembled, once one of its baseband packets is lost.
    fate: Option<DropReason>,
}

/// Per-slave counters (from the warm-up on).
#[derive(Copy, Clone, Debug, Default)]
struct Stats {
    /// Frames with data in at least one direction.
    data_frames: u64,
    /// POLL/NULL frames (nothing either way).
    poll_null: u64,
    down_sent: u64,
    down_lost: u64,
    up_sent: u64,
    up_lost: u64,
    /// Payload bytes received intact.
    down_bytes: u64,
    up_bytes: u64,
    /// Baseband packets rejected by a full token buffer S.
    token_drops: u64,
    /// Baseband packets that passed the token bucket into L.
    token_passed: u64,
    /// Baseband packets that passed the token bucket and found L full (blocked, lost).
    l_drops: u64,
    token_passed_bytes: u64,
    /// Data slots used by the master's and the slave's packets.
    down_slots: u64,
    up_slots: u64,
    /// Baseband packets sent and lost per ACL type (both directions), in [`ACL_TYPES`] order.
    sent_by_type: [u64; 6],
    lost_by_type: [u64; 6],
}

/// One master–slave link: the master's downlink queue, the slave's buffers, the channel.
struct Link {
    down: VecDeque<Seg>,
    /// IP packets with baseband packets in `down`.
    down_ips: u32,
    /// Token buffer S (flow control only).
    s: VecDeque<Seg>,
    /// Baseband buffer L.
    l: VecDeque<Seg>,
    /// L's capacity, baseband packets (a walk-in bridge's buffer M_b for the bridge).
    cap: u32,
    bucket: Option<TokenBucket>,
    channel: AclChannel,
    /// EWMA of intact receptions at the master / at the slave.
    quality_up: Option<f64>,
    quality_down: Option<f64>,
    stats: Stats,
}

#[derive(Copy, Clone, Debug)]
enum Phase {
    /// No frame on the air: idle POLL/NULL frames run from `since` (slave `cursor` at
    /// `since`); the timer, if armed, starts the next data frame.
    /// `cont`: the frame at `since` would continue the visit of `cursor`.
    Idle {
        since: SimTime,
        cursor: u32,
        cont: bool,
    },
    /// The master's packet (or POLL) is on the air since `t0`.
    Master { t0: SimTime, down: Option<Seg> },
    /// The slave's answer (or NULL) is on the air since `t1`.
    Slave { t1: SimTime, up: Option<Seg> },
}

pub struct Piconet {
    name: String,
    conf: PiconetConf,
    ports: Vec<IfaceId>,
    nodes: Vec<NodeId>,
    neighbours: Vec<Vec<Neighbour>>,
    links: Vec<Link>,
    ips: Vec<IpRec>,
    free_ips: Vec<u32>,
    /// IP packets held per port (the conservation ledger).
    held: Vec<u64>,
    /// IP packets in the master's downlink queues.
    master_ips: u32,
    /// Baseband packets of an MTU-sized SDU.
    max_segs: u32,
    timer: TimerId,
    phase: Phase,
    /// The slave of the current visit and the frames exchanged in it.
    cursor: u32,
    visit: u32,
    last_answer_data: bool,
    /// LWRR's weights (unused by E-limited polling).
    weights: Weights,
    /// The current frame's master packet carried data.
    frame_down: bool,
    /// Scratch for segmentation (no allocation per packet).
    scratch: Vec<(PacketType, u32)>,
    /// The slaves' node names (report rows).
    slave_names: Vec<String>,
    /// Scratch for the idle plan.
    data_from: Vec<SimTime>,
    /// Its radios on a shared spectrum (coexistence), if attached.
    air: Option<Box<PiconetAir>>,
    /// Idle frames registered on the spectrum, not yet judged.
    idle_air: VecDeque<IdleFrame>,
    /// The next idle frame to register (`None`: not idle, or nothing registered yet).
    idle_reg: Option<IdleReg>,
    /// The slave missed the current frame's POLL and stays silent.
    silent: bool,
    /// A walk-in bridge among its slaves (a scatternet), if any.
    bridge: Option<WalkIn>,
    /// The current frame addresses the bridge while it is away (no answer comes).
    frame_absent: bool,
    /// Where its slot clock starts (a scatternet's second piconet runs on its own clock).
    clock_phase: SimTime,
    /// Per port: its driver queue's statistics (the master's downlink queues, a slave's
    /// S and L, the bridge's buffer), in IP packets, since the warm-up; see
    /// [`Medium::driver_queue`].
    dq: DriverLedger,
}

impl Piconet {
    /// `ends[0]` is the master's (interface, node), then the slaves'.
    pub fn new(
        name: String,
        conf: PiconetConf,
        ends: &[(IfaceId, NodeId)],
        seed: u64,
        slave_names: &[String],
    ) -> Self {
        let n = ends.len() - 1;
        let master = Neighbour {
            node: ends[0].1,
            iface: ends[0].0,
        };
        let mut neighbours = vec![ends[1..]
            .iter()
            .map(|&(iface, node)| Neighbour { node, iface })
            .collect()];
        neighbours.extend((0..n).map(|_| vec![master]));
        let links = (0..n)
            .map(|j| Link {
                down: VecDeque::new(),
                down_ips: 0,
                s: VecDeque::new(),
                l: VecDeque::new(), // grows with use: `slave_buffer` may be 2³²−1
                cap: conf.slave_buffer,
                bucket: conf
                    .flow
                    .map(|f| TokenBucket::new(f.rate_bps, f.depth_bytes)),
                channel: AclChannel::new(
                    conf.channel,
                    seed,
                    &format!("piconet:{name}:{}", slave_names[j]),
                ),
                quality_up: None,
                quality_down: None,
                stats: Stats::default(),
            })
            .collect();
        let max_segs = conf.sar.count(conf.mtu + conf.overhead, conf.types);
        Piconet {
            name,
            ports: ends.iter().map(|e| e.0).collect(),
            nodes: ends.iter().map(|e| e.1).collect(),
            neighbours,
            links,
            ips: Vec::new(),
            free_ips: Vec::new(),
            held: vec![0; n + 1],
            master_ips: 0,
            max_segs,
            timer: TimerId(0),
            phase: Phase::Idle {
                since: SimTime::ZERO,
                cursor: 0,
                cont: false,
            },
            cursor: 0,
            visit: 0,
            last_answer_data: false,
            frame_down: false,
            weights: Weights::new(match conf.polling {
                Polling::Lwrr { mp, .. } => mp,
                Polling::ELimited { .. } => 1,
            }),
            scratch: Vec::with_capacity(128),
            data_from: vec![SimTime::MAX; n],
            slave_names: slave_names.to_vec(),
            conf,
            air: None,
            idle_air: VecDeque::new(),
            idle_reg: None,
            silent: false,
            bridge: None,
            frame_absent: false,
            clock_phase: SimTime::ZERO,
            dq: DriverLedger::new(n + 1),
        }
    }

    /// Makes slave `bridge.j` a walk-in bridge (see [`super::scatternet`]): no flow
    /// control, a buffer of `bridge.buffer` baseband packets, polled only while present.
    pub fn set_bridge(&mut self, bridge: WalkIn) {
        let link = &mut self.links[bridge.j];
        link.bucket = None;
        link.cap = bridge.buffer;
        self.bridge = Some(bridge);
    }

    /// This piconet's slot clock starts `phase` after the run (a master's free-running
    /// clock; the bridge waits for it when it walks in).
    pub fn set_clock_phase(&mut self, phase: SimTime) {
        self.clock_phase = phase;
    }

    pub(super) fn set_timer(&mut self, timer: TimerId) {
        self.timer = timer;
    }

    pub(super) fn bridge(&self) -> Option<&WalkIn> {
        self.bridge.as_ref()
    }

    /// The instant the bridge left this piconet, once (the scatternet moves it on).
    pub(super) fn take_departure(&mut self) -> Option<SimTime> {
        self.bridge.as_mut().and_then(|b| b.left.take())
    }

    /// The bridge walks in at `at` (frames that start then or later may poll it); the
    /// plan is made again as for an arrival.
    pub(super) fn bridge_arrives(&mut self, at: SimTime, cx: &mut LinkCtx<'_>) {
        if let Some(b) = self.bridge.as_mut() {
            b.arrive(at);
        }
        self.replan(cx);
    }

    /// The bridge's slave index, if `j` is the bridge.
    #[inline]
    fn is_bridge(&self, j: usize) -> bool {
        self.bridge.as_ref().is_some_and(|b| b.j == j)
    }

    /// Puts the piconet's radios on a shared spectrum: its packets hop, are registered
    /// there and suffer the interference (see [`super::coexist`]).
    pub fn attach_air(&mut self, air: PiconetAir) {
        self.air = Some(Box::new(air));
    }

    fn n(&self) -> usize {
        self.links.len()
    }

    fn counting(&self, now: SimTime) -> bool {
        now >= self.conf.warmup
    }

    fn alloc(&mut self, rec: IpRec) -> u32 {
        match self.free_ips.pop() {
            Some(i) => {
                self.ips[i as usize] = rec;
                i
            }
            None => {
                self.ips.push(rec);
                (self.ips.len() - 1) as u32
            }
        }
    }

    /// One of IP packet `ip`'s baseband packets left its sender's queues for good (sent
    /// without ARQ, acknowledged, or blocked by a full L); once the last one has, the IP
    /// packet leaves its port's driver queue: sent, or dropped if a buffer refused part of
    /// it (`qdisc_overflow`). A packet a lost baseband packet dooms (`channel_error`) left
    /// the queue all the same: the air lost it.
    fn seg_left(&mut self, ip: u32, cx: &LinkCtx<'_>) {
        let rec = &mut self.ips[ip as usize];
        rec.queued -= 1;
        if rec.queued == 0 {
            let size = cx.packets.get(rec.pkt).size_bytes;
            let dropped = rec.fate.filter(|&r| r == DropReason::QdiscOverflow);
            self.dq
                .leave(rec.from as usize, rec.pkt, size, cx.now, dropped);
        }
    }

    /// Whether slave `j`'s port can take an SDU (no flow control: room in L for an MTU).
    fn slave_ready(&self, j: usize) -> bool {
        self.conf.flow.is_some()
            || self.is_bridge(j)
            || self.links[j].l.len() as u32 + self.max_segs <= self.links[j].cap
    }

    /// Moves baseband packets of slave `j` from S into L as the token bucket allowed up to
    /// `now` (see [`TokenBucket`]: exact, because L and S change only at calls that come
    /// here first).
    fn refill(&mut self, j: usize, now: SimTime, cx: &mut LinkCtx<'_>) {
        let counting = self.counting(now);
        loop {
            let link = &mut self.links[j];
            let cap = link.cap as usize;
            let Some(bucket) = link.bucket.as_mut() else {
                return;
            };
            let Some(&head) = link.s.front() else {
                bucket.advance(now);
                return;
            };
            let at = bucket.ready_at(u32::from(head.bytes));
            if at > now {
                bucket.advance(now);
                return;
            }
            bucket.take(u32::from(head.bytes), at);
            link.s.pop_front();
            if link.l.len() < cap {
                link.l.push_back(head);
                if counting {
                    link.stats.token_passed += 1;
                    link.stats.token_passed_bytes += u64::from(head.bytes);
                }
            } else {
                // It holds its token but L is full: blocked (thesis §3.1, §6.1.1: "too
                // high tb will overload the baseband buffer L").
                if counting {
                    link.stats.l_drops += 1;
                }
                self.blocked(head, cx);
            }
        }
    }

    /// A baseband packet of a slave's IP packet is lost before the air (L was full): the
    /// IP packet cannot be reassembled (`qdisc_overflow`).
    fn blocked(&mut self, seg: Seg, cx: &mut LinkCtx<'_>) {
        let rec = &mut self.ips[seg.ip as usize];
        if rec.fate.is_none() {
            rec.fate = Some(DropReason::QdiscOverflow);
        }
        self.seg_left(seg.ip, cx);
        self.received(seg, true, cx);
    }

    /// The earliest frame start at which slave `j` has something to exchange, without new
    /// arrivals: now if the master holds data for it or L is not empty; else one slot
    /// before the head of S may pass the token bucket (it would answer a POLL then).
    fn data_from(&self, j: usize, t: SimTime) -> SimTime {
        let link = &self.links[j];
        if let Some(b) = self.bridge.as_ref().filter(|b| b.j == j) {
            // The bridge exchanges only while present (it has no token bucket).
            let has = !link.down.is_empty() || !link.l.is_empty();
            return if has && b.arrival() != SimTime::MAX {
                t.max(b.arrival())
            } else {
                SimTime::MAX
            };
        }
        if !link.down.is_empty() || !link.l.is_empty() {
            return t;
        }
        match (link.s.front(), link.bucket.as_ref()) {
            (Some(head), Some(b)) if (link.l.len() as u32) < link.cap => {
                let at = b.ready_at(u32::from(head.bytes));
                if at == SimTime::MAX {
                    at
                } else {
                    at.saturating_sub(SLOT).max(t)
                }
            }
            _ => SimTime::MAX,
        }
    }

    /// Counts the idle POLL/NULL frames from `since` (slave `cursor`) that start before
    /// `upto` (a frame boundary) and moves the polling state past them.
    fn commit_idle(&mut self, since: SimTime, cursor: u32, cont: bool, upto: SimTime) {
        if upto <= since {
            return;
        }
        if let Polling::Lwrr { mp, .. } = self.conf.polling {
            let mut counts = [0u64; 7];
            let (_, c, w, _) = self.lwrr_walk(
                since,
                cursor as usize,
                self.weights,
                cont,
                upto,
                mp,
                Some(&mut counts),
            );
            for (j, k) in counts.iter().enumerate().take(self.n()) {
                self.links[j].stats.poll_null += k;
            }
            self.cursor = c as u32;
            self.weights = w;
        } else {
            let k = (upto.0 - since.0) / IDLE_FRAME.0;
            let n = self.n();
            // Only frames that start at or after the warm-up are counted.
            let skip = self
                .conf
                .warmup
                .0
                .saturating_sub(since.0)
                .div_ceil(IDLE_FRAME.0)
                .min(k);
            let c0 = (cursor as usize + skip as usize) % n;
            for j in 0..n {
                self.links[j].stats.poll_null += visits_of(j, c0, n, k - skip);
            }
            if let Some(b) = self.bridge.as_mut() {
                // Frames that addressed the bridge while it was away went unanswered.
                let away = b.arrival().saturating_sub(since).0.div_ceil(IDLE_FRAME.0);
                let upto_away = away.min(k);
                if upto_away > skip {
                    let absent = visits_of(b.j, c0, n, upto_away - skip);
                    self.links[b.j].stats.poll_null -= absent;
                    b.absent_polls += absent;
                }
                b.count_idle_visits(since, cont, k, cursor as usize, n as u32);
            }
            self.cursor = ((cursor as u64 + k) % n as u64) as u32;
        }
        self.visit = 0;
        self.last_answer_data = false;
    }

    /// LWRR's idle cycle from the frame boundary `t` at slave `c` (`cont`: that frame
    /// continues a visit), weights `w`: visits in round-robin order, sitting out the
    /// slaves that wait (no time passes) unless the master holds data for them, one
    /// POLL/NULL frame per idle visit, until a visit finds data (`true`) or a frame would
    /// start at or after `until`. Counts the POLL/NULL frames per slave into `counts`
    /// (from the warm-up on) — then the frames are ones that already happened, all idle by
    /// construction, and the walk does not look for data. Terminates: called without
    /// `counts` only when some slave will have data, and every slave is visited at least
    /// once in MP cycles.
    #[allow(clippy::too_many_arguments)]
    fn lwrr_walk(
        &self,
        mut t: SimTime,
        mut c: usize,
        mut w: Weights,
        mut cont: bool,
        until: SimTime,
        mp: u8,
        mut counts: Option<&mut [u64; 7]>,
    ) -> (SimTime, usize, Weights, bool) {
        let n = self.n();
        loop {
            if t >= until {
                return (t, c, w, false);
            }
            let has_down = counts.is_none() && !self.links[c].down.is_empty();
            if !cont && w.wait[c] > 0 && !has_down {
                w.wait[c] -= 1;
                c = (c + 1) % n;
                continue;
            }
            // Counting frames that already happened (`counts`), every visit was idle:
            // what arrived since must not be looked at.
            if counts.is_none() && self.data_from(c, t) <= t {
                return (t, c, w, true);
            }
            if let Some(k) = counts.as_deref_mut() {
                if t >= self.conf.warmup {
                    k[c] += 1;
                }
            }
            if !cont {
                w.idle(c, mp);
            }
            cont = false;
            t += IDLE_FRAME;
            c = (c + 1) % n;
        }
    }

    /// At a frame boundary `t` with the frame's slave chosen: start a data frame now, or
    /// skip idle frames to the first one with data (or wait for an arrival).
    fn plan(&mut self, t: SimTime, cx: &mut LinkCtx<'_>) {
        let cursor = self.cursor as usize;
        let cont = self.visit > 0;
        let n = self.n() as u32;
        if let (Some(b), false) = (self.bridge.as_mut(), cont) {
            // A new visit would start at t: a bridge that has stayed one cycle leaves.
            b.depart_if_done(t, n);
        }
        for j in 0..self.n() {
            let d = self.data_from(j, t);
            self.data_from[j] = d;
        }
        let next = match self.conf.polling {
            Polling::ELimited { .. } => frames_until_data(t, cursor, &self.data_from)
                .map(|k| (t + SimTime(k * IDLE_FRAME.0), None)),
            Polling::Lwrr { mp, .. } => {
                if self.data_from.iter().all(|&d| d == SimTime::MAX) {
                    None
                } else {
                    let (tf, c, w, found) =
                        self.lwrr_walk(t, cursor, self.weights, cont, SimTime::MAX, mp, None);
                    debug_assert!(found);
                    Some((tf, Some((c, w))))
                }
            }
        };
        // A present bridge leaves after its cycle even if nothing happens until then: the
        // timer fires at that frame boundary at the latest (always after t).
        let leave = self
            .bridge
            .as_ref()
            .and_then(|b| b.departure_frame(t, cont, n, cursor))
            .map(|f| t + SimTime(f * IDLE_FRAME.0));
        let next = match (next, leave) {
            (Some((tf, _)), Some(h)) if h < tf => Some((h, None)),
            (None, Some(h)) => Some((h, None)),
            (next, _) => next,
        };
        match next {
            Some((tf, lwrr)) if tf == t && t == cx.now => {
                if let Some((c, w)) = lwrr {
                    // Only slaves sat out on the way (no time passed).
                    if c != cursor {
                        self.visit = 0;
                        self.last_answer_data = false;
                    }
                    self.cursor = c as u32;
                    self.weights = w;
                }
                self.start_frame(cx);
            }
            Some((tf, _)) => {
                self.phase = Phase::Idle {
                    since: t,
                    cursor: self.cursor,
                    cont,
                };
                let at = self.idle_on_air(t, cont, tf);
                cx.arm(self.timer, at);
            }
            None => {
                self.phase = Phase::Idle {
                    since: t,
                    cursor: self.cursor,
                    cont,
                };
                match self.idle_on_air(t, cont, SimTime::MAX) {
                    SimTime::MAX => cx.cancel(self.timer),
                    at => cx.arm(self.timer, at),
                }
            }
        }
    }

    /// On a spectrum, idle from the frame boundary `t` until a data frame at `tf`
    /// (`SimTime::MAX`: none planned): registers the idle POLL/NULL frames up to the end
    /// of the next batch (or `tf`), and returns when the piconet must wake: then, or at
    /// `tf`. Without a spectrum, `tf`.
    fn idle_on_air(&mut self, t: SimTime, cont: bool, tf: SimTime) -> SimTime {
        if self.air.is_none() {
            return tf;
        }
        debug_assert!(
            self.idle_reg.is_none_or(|r| r.t >= t),
            "idle frames left out"
        );
        let mut st = self.idle_reg.unwrap_or(IdleReg {
            t,
            c: self.cursor as usize,
            w: self.weights,
            cont,
        });
        let until = tf.min(t + SimTime(IDLE_BATCH * IDLE_FRAME.0));
        let (polling, n) = (self.conf.polling, self.n());
        let air = self.air.as_mut().expect("on a spectrum");
        while st.t < until {
            let f = st.t;
            let c = idle_step(polling, n, &mut st);
            if !air.idle_frame_silent(f) {
                air.register_idle_frame(c + 1, f);
                self.idle_air.push_back(IdleFrame {
                    t: f,
                    slave: c as u8,
                    ch: air.frame_channels(f),
                });
            }
        }
        self.idle_reg = Some(st);
        until
    }

    /// Calls off the idle frames registered from `from` on (a data frame starts there, or
    /// the plan is made again from there).
    fn retract_idle(&mut self, from: SimTime) {
        if let Some(air) = self.air.as_mut() {
            if self.idle_reg.take().is_some() {
                air.retract_from(from);
                self.idle_air.retain(|f| f.t < from);
            }
        }
    }

    /// Judges the idle frames whose NULL has ended by `now`: the slave hears the POLL or
    /// not; if it did, the master hears the NULL or not; both ends' link quality follows.
    fn judge_idle_frames(&mut self, now: SimTime) {
        let Some(air) = self.air.as_mut() else {
            return;
        };
        let end = SLOT + PacketType::Null.air_time(0);
        while let Some(&f) = self.idle_air.front() {
            if f.t + end > now {
                break;
            }
            self.idle_air.pop_front();
            let counting = f.t >= self.conf.warmup;
            let j = f.slave as usize;
            let poll_ok = air.control_survives(0, j + 1, f.t, f.ch.0, counting);
            let null_ok = poll_ok && air.control_survives(j + 1, 0, f.t + SLOT, f.ch.1, counting);
            let link = &mut self.links[j];
            Self::ewma(&mut link.quality_down, poll_ok);
            Self::ewma(&mut link.quality_up, null_ok);
        }
    }

    /// The master sends to slave `cursor` now: the head of its downlink queue, or a POLL.
    fn start_frame(&mut self, cx: &mut LinkCtx<'_>) {
        let j = self.cursor as usize;
        self.retract_idle(cx.now);
        if let Some(air) = self.air.as_mut() {
            let slots = self.links[j]
                .down
                .front()
                .map_or(PacketType::Poll, |s| s.ty)
                .slots();
            if air.defer(cx.now, slots, cx.now >= self.conf.warmup) {
                // BIAS: this slot pair stays silent; the frame is tried again after it.
                let next = cx.now + IDLE_FRAME;
                self.phase = Phase::Idle {
                    since: next,
                    cursor: self.cursor,
                    cont: self.visit > 0,
                };
                cx.arm(self.timer, next);
                return;
            }
        }
        let counting = self.counting(cx.now);
        // The walk-in bridge (thesis §4.1.2): the master opens each visit with a POLL;
        // an absent bridge does not answer (two slots lost, the visit ends).
        let mut presence_poll = false;
        self.frame_absent = false;
        if let Some(b) = self.bridge.as_mut() {
            if self.visit == 0 {
                b.visit_started(cx.now, j);
            }
            if b.j == j {
                presence_poll = self.visit == 0;
                if !b.present(cx.now) {
                    self.frame_absent = true;
                    if counting {
                        b.absent_polls += 1;
                    }
                }
            }
        }
        let down = if presence_poll {
            None
        } else if self.conf.arq {
            self.links[j].down.front().copied()
        } else {
            let d = self.links[j].down.pop_front();
            if let Some(seg) = d {
                self.left_queue(seg, cx);
            }
            d
        };
        self.visit += 1;
        self.frame_down = down.is_some();
        if counting && !self.frame_absent {
            self.links[j].stats.data_frames += 1;
        }
        let ty = down.map_or(PacketType::Poll, |s| s.ty);
        if let Some(air) = self.air.as_mut() {
            air.master_sends(cx.now, ty, down.map_or(0, |s| u32::from(s.bytes)));
        }
        let slots = ty.duration();
        self.phase = Phase::Master { t0: cx.now, down };
        cx.arm(self.timer, cx.now + slots);
    }

    /// `seg` left its sender's queue for good (sent without ARQ, or acknowledged).
    fn left_queue(&mut self, seg: Seg, cx: &mut LinkCtx<'_>) {
        self.seg_left(seg.ip, cx);
        let rec = &self.ips[seg.ip as usize];
        if rec.queued > 0 || rec.from != 0 {
            return;
        }
        let j = rec.to as usize - 1;
        self.links[j].down_ips -= 1;
        let was_full = self.master_ips == self.conf.master_buffer;
        self.master_ips -= 1;
        if was_full {
            cx.emit(LinkEffect::Ready(self.ports[0]));
        }
        if self.links[j].down.is_empty() {
            cx.emit(LinkEffect::ViewChanged(self.ports[0]));
        }
    }

    /// `seg` arrived (intact or not) at its receiver.
    fn received(&mut self, seg: Seg, lost: bool, cx: &mut LinkCtx<'_>) {
        let rec = &mut self.ips[seg.ip as usize];
        if lost && rec.fate.is_none() {
            rec.fate = Some(DropReason::ChannelError);
        }
        rec.left -= 1;
        if rec.left > 0 {
            return;
        }
        let rec = *rec;
        self.held[rec.from as usize] -= 1;
        self.free_ips.push(seg.ip);
        match rec.fate {
            None => cx.emit(LinkEffect::Deliver {
                pkt: rec.pkt,
                to: self.ports[rec.to as usize],
            }),
            Some(reason) => cx.emit(LinkEffect::Drop {
                pkt: rec.pkt,
                reason,
            }),
        }
    }

    fn ewma(q: &mut Option<f64>, ok: bool) {
        let x = if ok { 1.0 } else { 0.0 };
        *q = Some(q.map_or(x, |q| q + (x - q) / 16.0));
    }

    /// The slave's turn: it receives the master's packet, then answers.
    fn slave_turn(&mut self, t0: SimTime, down: Option<Seg>, cx: &mut LinkCtx<'_>) {
        let j = self.cursor as usize;
        let now = cx.now;
        self.silent = false;
        if self.frame_absent {
            // Nobody answers; the master listens through the slave's slot.
            self.last_answer_data = false;
            self.phase = Phase::Slave { t1: now, up: None };
            cx.arm(self.timer, now + PacketType::Null.duration());
            return;
        }
        let counting = self.counting(now);
        if let (None, Some(air)) = (down, self.air.as_mut()) {
            // The master's POLL: a slave that misses it does not answer (§8.6).
            let ch = air.master_channel();
            let ok = air.control_survives(0, j + 1, t0, ch, counting);
            Self::ewma(&mut self.links[j].quality_down, ok);
            self.silent = !ok;
        }
        if let Some(seg) = down {
            let mut lost = self.links[j].channel.corrupted(t0, now, seg.ty);
            if let Some(air) = self.air.as_mut() {
                let b = u32::from(seg.bytes);
                lost |= air.received(0, j + 1, t0, seg.ty, b, lost, now, counting);
            }
            let link = &mut self.links[j];
            Self::ewma(&mut link.quality_down, !lost);
            if counting {
                link.stats.down_slots += seg.ty.slots();
                link.stats.sent_by_type[seg.ty as usize] += 1;
                link.stats.lost_by_type[seg.ty as usize] += u64::from(lost);
                link.stats.down_sent += 1;
                if lost {
                    link.stats.down_lost += 1;
                } else {
                    link.stats.down_bytes += u64::from(seg.bytes);
                }
            }
            if self.conf.arq {
                if !lost {
                    self.links[j].down.pop_front();
                    self.left_queue(seg, cx);
                    self.received(seg, false, cx);
                }
            } else {
                self.received(seg, lost, cx);
            }
        }
        self.refill(j, now, cx);
        if self.silent {
            // Nothing on the air in the slave's slot; its data waits for the next poll.
            self.last_answer_data = false;
            self.phase = Phase::Slave { t1: now, up: None };
            cx.arm(self.timer, now + PacketType::Null.duration());
            return;
        }
        let was_ready = self.slave_ready(j);
        let up = if self.conf.arq {
            self.links[j].l.front().copied()
        } else {
            let u = self.links[j].l.pop_front();
            if let Some(seg) = u {
                self.seg_left(seg.ip, cx);
                self.refill(j, now, cx);
            }
            u
        };
        if !was_ready && self.slave_ready(j) {
            cx.emit(LinkEffect::Ready(self.ports[j + 1]));
        }
        self.last_answer_data = up.is_some();
        let ty = up.map_or(PacketType::Null, |s| s.ty);
        if let Some(air) = self.air.as_mut() {
            air.slave_sends(j + 1, now, ty, up.map_or(0, |s| u32::from(s.bytes)));
        }
        let slots = ty.duration();
        self.phase = Phase::Slave { t1: now, up };
        cx.arm(self.timer, now + slots);
    }

    /// The master's turn at the end of a frame: it receives the slave's answer, then
    /// picks the next frame.
    fn master_turn(&mut self, t1: SimTime, up: Option<Seg>, cx: &mut LinkCtx<'_>) {
        let j = self.cursor as usize;
        let now = cx.now;
        let counting = self.counting(now);
        if let (None, Some(air)) = (up, self.air.as_mut()) {
            // The slave's NULL, or nothing if it missed the POLL (a missing answer).
            let ok = !self.silent && {
                let ch = air.reply_channel(t1);
                air.control_survives(j + 1, 0, t1, ch, counting)
            };
            Self::ewma(&mut self.links[j].quality_up, ok);
        }
        if let Some(seg) = up {
            let mut lost = self.links[j].channel.corrupted(t1, now, seg.ty);
            if let Some(air) = self.air.as_mut() {
                let b = u32::from(seg.bytes);
                lost |= air.received(j + 1, 0, t1, seg.ty, b, lost, now, counting);
            }
            let link = &mut self.links[j];
            Self::ewma(&mut link.quality_up, !lost);
            if counting {
                link.stats.up_slots += seg.ty.slots();
                link.stats.sent_by_type[seg.ty as usize] += 1;
                link.stats.lost_by_type[seg.ty as usize] += u64::from(lost);
                link.stats.up_sent += 1;
                if lost {
                    link.stats.up_lost += 1;
                } else {
                    link.stats.up_bytes += u64::from(seg.bytes);
                }
            }
            if self.conf.arq {
                if !lost {
                    let was_ready = self.slave_ready(j);
                    self.links[j].l.pop_front();
                    self.seg_left(seg.ip, cx);
                    self.refill(j, now, cx);
                    self.received(seg, false, cx);
                    if !was_ready && self.slave_ready(j) {
                        cx.emit(LinkEffect::Ready(self.ports[j + 1]));
                    }
                }
            } else {
                self.received(seg, lost, cx);
            }
        }
        if let (Polling::Lwrr { mp, .. }, true) =
            (self.conf.polling, up.is_some() || self.frame_down)
        {
            self.weights.restore(j, mp);
        }
        let waiting = !self.links[j].down.is_empty();
        let stay = match self.bridge.as_ref().filter(|b| b.j == j) {
            // The bridge's visit: up to M_b frames after the presence POLL, E-limited.
            Some(b) => {
                !self.frame_absent && self.visit < b.limit && (waiting || self.last_answer_data)
            }
            None => self
                .conf
                .polling
                .stay(self.visit, waiting, self.last_answer_data),
        };
        if !stay {
            self.cursor = ((j + 1) % self.n()) as u32;
            self.visit = 0;
            self.last_answer_data = false;
        }
        self.plan(now, cx);
    }

    /// Something arrived while idle: the idle frames before the next frame boundary
    /// happened; plan again from there.
    pub(super) fn replan(&mut self, cx: &mut LinkCtx<'_>) {
        if let Phase::Idle {
            since,
            cursor,
            cont,
        } = self.phase
        {
            // `since` may lie ahead (a frame boundary planned after an arrival).
            let k = cx.now.saturating_sub(since).0.div_ceil(IDLE_FRAME.0);
            let t = since + SimTime(k * IDLE_FRAME.0);
            self.commit_idle(since, cursor, cont, t);
            self.retract_idle(t);
            self.plan(t, cx);
        }
    }

    /// Segments an IP packet of `size` bytes (plus the L2CAP/BNEP headers) into
    /// `scratch`.
    fn segment(&mut self, size: u32) {
        self.scratch.clear();
        let scratch = &mut self.scratch;
        self.conf
            .sar
            .segment(size + self.conf.overhead, self.conf.types, |t, b| {
                scratch.push((t, b))
            });
    }

    fn send_master(&mut self, pkt: PacketId, cx: &mut LinkCtx<'_>) {
        let p = cx.packets.get(pkt);
        let (next_hop, size) = (p.next_hop, p.size_bytes);
        let Some(to) = self.nodes.iter().skip(1).position(|&n| n == next_hop) else {
            cx.emit(LinkEffect::Drop {
                pkt,
                reason: DropReason::NoRoute,
            });
            return;
        };
        self.segment(size);
        let n = self.scratch.len() as u16;
        let ip = self.alloc(IpRec {
            pkt,
            from: 0,
            to: to as u32 + 1,
            left: n,
            queued: n,
            fate: None,
        });
        let link = &mut self.links[to];
        for &(ty, bytes) in &self.scratch {
            link.down.push_back(Seg {
                ip,
                ty,
                bytes: bytes as u16,
            });
        }
        link.down_ips += 1;
        self.master_ips += 1;
        self.held[0] += 1;
        self.dq.enter(0, pkt, size, cx.now);
        cx.locate(pkt, Location::Transmitting(self.ports[0].0));
        cx.tx_start(self.ports[0], pkt);
    }

    fn send_slave(&mut self, j: usize, pkt: PacketId, cx: &mut LinkCtx<'_>) {
        let size = cx.packets.get(pkt).size_bytes;
        self.segment(size);
        let n = self.scratch.len() as u16;
        let ip = self.alloc(IpRec {
            pkt,
            from: j as u32 + 1,
            to: 0,
            left: 0,
            queued: 0,
            fate: None,
        });
        let now = cx.now;
        let counting = self.counting(now);
        // It enters the port's driver queue (S, L or the bridge's buffer) at once: one
        // that finds no room leaves it again, dropped.
        self.dq.enter(j + 1, pkt, size, now);
        let mut admitted = 0u16;
        let bridge = self.bridge.as_mut().filter(|b| b.j == j);
        if let Some(b) = bridge {
            // The bridge's buffer holds M_b baseband packets; an IP packet that does not
            // fit whole is lost (thesis §3.2.3: "finite buffer").
            if self.links[j].l.len() + n as usize > self.links[j].cap as usize {
                if counting {
                    b.buffer_drops += 1;
                }
                self.dq
                    .leave(j + 1, pkt, size, now, Some(DropReason::QdiscOverflow));
                self.free_ips.push(ip);
                cx.emit(LinkEffect::Drop {
                    pkt,
                    reason: DropReason::QdiscOverflow,
                });
                return;
            }
        }
        let mut guarded = false;
        match self.conf.flow.filter(|_| !self.is_bridge(j)) {
            Some(f) => {
                self.refill(j, now, cx);
                guarded = true;
                // A baseband packet may pass the token bucket at once and find L full
                // (`blocked`) while later ones are still to be segmented: the record's
                // counts hold one extra (a guard) meanwhile, so that it cannot finish
                // before every baseband packet of the SDU has been offered.
                let rec = &mut self.ips[ip as usize];
                rec.left = n + 1;
                rec.queued = n + 1;
                for k in 0..n as usize {
                    let (ty, bytes) = self.scratch[k];
                    let link = &mut self.links[j];
                    if link.s.len() < f.buffer as usize {
                        link.s.push_back(Seg {
                            ip,
                            ty,
                            bytes: bytes as u16,
                        });
                        admitted += 1;
                        self.refill(j, now, cx);
                    } else if counting {
                        link.stats.token_drops += 1;
                    }
                }
            }
            None => {
                let link = &mut self.links[j];
                for &(ty, bytes) in &self.scratch {
                    link.l.push_back(Seg {
                        ip,
                        ty,
                        bytes: bytes as u16,
                    });
                }
                admitted = n;
            }
        }
        if admitted == 0 {
            self.dq
                .leave(j + 1, pkt, size, now, Some(DropReason::QdiscOverflow));
            self.free_ips.push(ip);
            cx.emit(LinkEffect::Drop {
                pkt,
                reason: DropReason::QdiscOverflow,
            });
            return;
        }
        let rec = &mut self.ips[ip as usize];
        if guarded {
            // Drop the guard and the baseband packets S refused; what `blocked` already
            // took out stays taken.
            rec.left -= n - admitted + 1;
            rec.queued -= n - admitted + 1;
        } else {
            rec.left = admitted;
            rec.queued = admitted;
        }
        if admitted < n {
            rec.fate = Some(DropReason::QdiscOverflow);
        }
        if rec.left == 0 {
            // Every admitted baseband packet was blocked at once: the SDU is lost.
            self.dq
                .leave(j + 1, pkt, size, now, Some(DropReason::QdiscOverflow));
            self.free_ips.push(ip);
            cx.emit(LinkEffect::Drop {
                pkt,
                reason: DropReason::QdiscOverflow,
            });
            return;
        }
        self.held[j + 1] += 1;
        cx.locate(pkt, Location::Transmitting(self.ports[j + 1].0));
        cx.tx_start(self.ports[j + 1], pkt);
    }

    /// Per-slave statistics rows (table `piconet_links`).
    fn append_rows(&self, now: SimTime, t: &mut Table) {
        let span = now
            .saturating_sub(self.conf.warmup)
            .as_secs_f64()
            .max(1e-12);
        let n = self.n();
        // Idle frames since the last commit that started before the end of the run.
        let mut stats: Vec<Stats> = self.links.iter().map(|l| l.stats).collect();
        if let Phase::Idle {
            since,
            cursor,
            cont,
        } = self.phase
        {
            if now > since {
                let k = (now.0 - since.0).div_ceil(IDLE_FRAME.0);
                let upto = since + SimTime(k * IDLE_FRAME.0);
                if let Polling::Lwrr { mp, .. } = self.conf.polling {
                    let mut counts = [0u64; 7];
                    self.lwrr_walk(
                        since,
                        cursor as usize,
                        self.weights,
                        cont,
                        upto,
                        mp,
                        Some(&mut counts),
                    );
                    for (j, s) in stats.iter_mut().enumerate() {
                        s.poll_null += counts[j];
                    }
                } else {
                    let skip = self
                        .conf
                        .warmup
                        .0
                        .saturating_sub(since.0)
                        .div_ceil(IDLE_FRAME.0)
                        .min(k);
                    let c0 = (cursor as usize + skip as usize) % n;
                    for (j, s) in stats.iter_mut().enumerate() {
                        s.poll_null += visits_of(j, c0, n, k - skip);
                    }
                }
            }
        }
        let col_u = |f: &dyn Fn(&Stats) -> u64| Column::U64(stats.iter().map(f).collect());
        let cols: Vec<(&str, Column)> = vec![
            ("piconet", Column::Str(vec![self.name.clone(); n])),
            ("slave", Column::Str(self.slave_names.clone())),
            ("data_frames", col_u(&|s| s.data_frames)),
            ("poll_null_frames", col_u(&|s| s.poll_null)),
            ("down_sent", col_u(&|s| s.down_sent)),
            ("down_lost", col_u(&|s| s.down_lost)),
            ("up_sent", col_u(&|s| s.up_sent)),
            ("up_lost", col_u(&|s| s.up_lost)),
            ("down_payload_bytes", col_u(&|s| s.down_bytes)),
            ("up_payload_bytes", col_u(&|s| s.up_bytes)),
            ("down_slots", col_u(&|s| s.down_slots)),
            ("up_slots", col_u(&|s| s.up_slots)),
            ("token_drops", col_u(&|s| s.token_drops)),
            ("token_passed", col_u(&|s| s.token_passed)),
            ("l_drops", col_u(&|s| s.l_drops)),
            (
                "token_rate_bps",
                Column::F64(
                    stats
                        .iter()
                        .map(|s| s.token_passed_bytes as f64 * 8.0 / span)
                        .collect(),
                ),
            ),
            (
                "down_goodput_bps",
                Column::F64(
                    stats
                        .iter()
                        .map(|s| s.down_bytes as f64 * 8.0 / span)
                        .collect(),
                ),
            ),
            (
                "up_goodput_bps",
                Column::F64(
                    stats
                        .iter()
                        .map(|s| s.up_bytes as f64 * 8.0 / span)
                        .collect(),
                ),
            ),
        ];
        let mut cols: Vec<(String, Column)> =
            cols.into_iter().map(|(n, c)| (n.to_string(), c)).collect();
        for (i, ty) in ACL_TYPES.iter().enumerate() {
            let lower = ty.name().to_ascii_lowercase();
            cols.push((
                format!("sent_{lower}"),
                Column::U64(stats.iter().map(|s| s.sent_by_type[i]).collect()),
            ));
            cols.push((
                format!("lost_{lower}"),
                Column::U64(stats.iter().map(|s| s.lost_by_type[i]).collect()),
            ));
        }
        if t.columns.is_empty() {
            for (name, c) in cols {
                t.push(&name, c);
            }
            return;
        }
        for ((_, dst), (_, src)) in t.columns.iter_mut().zip(cols) {
            match (dst, src) {
                (Column::Str(a), Column::Str(b)) => a.extend(b),
                (Column::U64(a), Column::U64(b)) => a.extend(b),
                (Column::F64(a), Column::F64(b)) => a.extend(b),
                _ => unreachable!("piconet_links columns agree"),
            }
        }
    }
}

impl Medium for Piconet {
    fn kind(&self) -> &'static str {
        "piconet"
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn ports(&self) -> &[IfaceId] {
        &self.ports
    }

    fn neighbours(&self, port: usize) -> &[Neighbour] {
        &self.neighbours[port]
    }

    fn attach(&mut self, b: &mut MediumBuild<'_>) {
        self.timer = b.timer(0);
    }

    fn start(&mut self, cx: &mut LinkCtx<'_>) {
        self.phase = Phase::Idle {
            since: cx.now + self.clock_phase,
            cursor: 0,
            cont: false,
        };
        if self.air.is_some() {
            // The idle POLL/NULL cycle is on the air from the start (a piconet on the
            // spectrum has no bridge and runs on the scenario's clock).
            self.plan(cx.now + self.clock_phase, cx);
        }
    }

    fn ready(&self, port: usize) -> bool {
        if port == 0 {
            self.master_ips < self.conf.master_buffer
        } else {
            self.slave_ready(port - 1)
        }
    }

    fn send(&mut self, port: usize, pkt: PacketId, cx: &mut LinkCtx<'_>) {
        self.judge_idle_frames(cx.now);
        if port == 0 {
            self.send_master(pkt, cx);
        } else {
            self.send_slave(port - 1, pkt, cx);
        }
        self.replan(cx);
    }

    fn on_event(&mut self, _key: u16, _cx: &mut LinkCtx<'_>) {
        unreachable!("a piconet schedules only its timer")
    }

    fn on_timer(&mut self, _key: u32, cx: &mut LinkCtx<'_>) {
        self.judge_idle_frames(cx.now);
        match self.phase {
            Phase::Idle {
                since,
                cursor,
                cont,
            } => {
                self.commit_idle(since, cursor, cont, cx.now);
                self.plan(cx.now, cx);
            }
            Phase::Master { t0, down } => self.slave_turn(t0, down, cx),
            Phase::Slave { t1, up } => self.master_turn(t1, up, cx),
        }
    }

    /// `quality` and `rx_quality` alike: the EWMA (weight 1/16) of the neighbour's data
    /// packets that arrived intact at this port — what HCI `Read_Link_Quality` reports
    /// (the receiver's CRC checks; docs/bluetooth.md). HCI gives a host no per-link view of
    /// its own packets' fate, so the send direction is not reported.
    fn view(&self, port: usize, neighbour: NodeId) -> Option<LinkView> {
        let rate_bps = self.conf.types.largest().map_or(0.0, max_asymmetric_bps) as u64;
        if port == 0 {
            let j = self.nodes.iter().skip(1).position(|&n| n == neighbour)?;
            let link = &self.links[j];
            Some(LinkView {
                neighbour,
                rate_bps,
                quality: link.quality_up,
                rx_quality: link.quality_up,
                rssi_dbm: None,
                can_send: link.down.is_empty(),
                hw_backlog: link.down_ips,
            })
        } else {
            (neighbour == self.nodes[0]).then(|| {
                let link = &self.links[port - 1];
                LinkView {
                    neighbour,
                    rate_bps,
                    quality: link.quality_down,
                    rx_quality: link.quality_down,
                    rssi_dbm: None,
                    can_send: self.slave_ready(port - 1),
                    hw_backlog: (link.l.len() + link.s.len()) as u32,
                }
            })
        }
    }

    /// The master's port: its downlink queues together (`"downlink"`, `master_buffer` IP
    /// packets); a slave's: its token buffer S and baseband buffer L (`"l2cap"`, S + L
    /// baseband packets) or L alone without flow control (`"baseband"`, `slave_buffer`);
    /// the bridge's: its buffer in this piconet (`"bridge"`). A slave's limit counts
    /// baseband packets, so it bounds the IP packets from above (an MTU packet takes
    /// several).
    fn driver_queue(&self, port: usize) -> Option<DriverQueue<'_>> {
        let (kind, limit) = if port == 0 {
            ("downlink", u64::from(self.conf.master_buffer))
        } else if self.is_bridge(port - 1) {
            ("bridge", u64::from(self.links[port - 1].cap))
        } else {
            match self.conf.flow {
                Some(f) => (
                    "l2cap",
                    u64::from(f.buffer) + u64::from(self.links[port - 1].cap),
                ),
                None => ("baseband", u64::from(self.links[port - 1].cap)),
            }
        };
        Some(DriverQueue {
            kind,
            limit_packets: limit,
            stats: &self.dq.stats[port],
        })
    }

    fn warmup_end(&mut self, now: SimTime) {
        self.dq.reset(now);
    }

    fn held(&self, out: &mut Vec<(Location, u64)>) {
        for (p, &h) in self.held.iter().enumerate() {
            out.push((Location::Transmitting(self.ports[p].0), h));
        }
    }

    fn audit(&self, _pending: &PendingEvents, out: &mut Vec<(Location, String)>) {
        let live = self.ips.len() - self.free_ips.len();
        let held: u64 = self.held.iter().sum();
        if live as u64 != held {
            out.push((
                Location::Transmitting(self.ports[0].0),
                format!(
                    "piconet {}: {live} IP packets in reassembly records but {held} held",
                    self.name
                ),
            ));
        }
        let queued: u32 = self.links.iter().map(|l| l.down_ips).sum();
        if queued != self.master_ips {
            out.push((
                Location::Transmitting(self.ports[0].0),
                format!(
                    "piconet {}: master counts {} queued IP packets, its links {queued}",
                    self.name, self.master_ips
                ),
            ));
        }
    }

    fn report(&self, now: SimTime, tables: &mut Vec<(String, Table)>) {
        let t = match tables.iter().position(|(n, _)| n == "piconet_links") {
            Some(i) => &mut tables[i].1,
            None => {
                tables.push(("piconet_links".into(), Table::default()));
                &mut tables.last_mut().unwrap().1
            }
        };
        self.append_rows(now, t);
        if let Some(air) = &self.air {
            let t = match tables.iter().position(|(n, _)| n == "piconet_air") {
                Some(i) => &mut tables[i].1,
                None => {
                    tables.push(("piconet_air".into(), Table::default()));
                    &mut tables.last_mut().unwrap().1
                }
            };
            air.append_row(&self.name, t);
        }
    }
}
