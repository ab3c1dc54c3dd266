//! `adwiser`: the scheduler core of ADWISER (Hegde et al., IEEE/ACM ToN 21(2) 2013, seed
//! 002 §III), as a qdisc on the box's interface towards an unmodified AP.
//!
//! The box draws the WLAN's queue into itself by serving it a little slower than the
//! medium can go, and schedules that queue fairly (§III-A). Everything here runs on what a
//! real box knows: the packets it forwards, its own clock, and the AP's association table,
//! which it polls (§III-B, the SNMP module).
//!
//! Packets leaving towards the AP are served in this order (Fig. 13):
//!
//! 1. **VoIP** (`voice.match`): a strict-priority FIFO, re-marked DSCP EF (46) so that
//!    an 802.11e AP puts it in AC_VO (RFC 8325 §4.2.1; `edca::classify`). With
//!    `voice.cac_limit` the box admits at most that many calls (§IV-A.4, Fig. 21): a call
//!    is the unordered pair of (address, port) ends; packets of calls beyond the limit are
//!    dropped (`policy`). The box sees only the downlink half of a call.
//! 2. **A-WAN inbound** (`wan`): packets from the WAN side (`wan.hosts`) wait in an STFQ
//!    server at `wan.share` × `wan.rate` (90 % in the paper, §IV-C), one queue per station,
//!    weighted by `policy`, charged their wire length (it is the WAN link being shared).
//!    They then go to the AP without further A-WLAN queueing: "WAN–WLAN transfers are
//!    allowed to obtain whatever aggregate throughput they can get. This aggregate
//!    throughput is measured and subtracted from C" (§III-C.2).
//! 3. **A-WLAN**: everything else, one queue per station (`queues = "station"`) or per PHY
//!    rate class (`"rate"`), served by STFQ (eqs. 4–5) on **virtual bits** (§III-C.3): a
//!    TCP DATA packet costs itself plus half an ACK, a pure TCP ACK costs itself plus two
//!    DATA packets (delayed ACKs), anything else itself. Packets are released in
//!    start-number order; after each the server waits for its virtual bits at rate
//!    `C − R_WAN`, R_WAN being the WAN→WLAN virtual bits of the last interval (§III-C.2).
//!
//! **Weights** (§III-C.1): `weights = "time"` gives station i the weight p_i·C_i (eq. 2:
//! time fairness, p_i its `policy` weight, 1 by default); `"policy"` gives p_i alone. A
//! rate class weighs the sum of its stations'. C_i is eq. 1's contention-free TCP rate at
//! the station's PHY rate from [`crate::link::wifi::rate`] (d = 2, RTS/CTS for data,
//! basic access for ACKs, one back-off, no collisions), on the PHY the box is configured
//! with (`standard`, `short_preamble`).
//!
//! **C\*** (eq. 1) = 1 / Σ φ_i/C_i over the stations *associated* as of the last poll
//! answer (§III-C.1.c step 3: the AP is polled for "the most current information about
//! STA association. If there is any change, then C* is recomputed"; eqs. 2–3 count the
//! m_i stations associated at each rate), φ the normalized weights; with time weights
//! this is eq. 3. A station joining or leaving (`[[at]]` `station`) reaches C* only
//! through the next poll.
//!
//! **Service-rate adaptation** (§III-C.1.c), every `interval` (1 s): if the measured
//! throughput equals C, C ← min(C*, C + Δ), else C ← C − Δ (Δ = `delta`, 0.1 Mb/s). The
//! measured throughput is the virtual bits the box released towards the WLAN in the
//! interval (A-WLAN and A-WAN), the quantity C governs; it "equals C" when it falls short
//! of C·interval by less than the largest virtual packet released in it (the server's
//! granularity), or, with WAN traffic, when the A-WLAN server released its whole share
//! C − R_WAN (the WAN share varies with the WAN transfers, not with the WLAN; without this
//! a dip in WAN traffic would read as a WLAN shortfall and C would never rise — our
//! reading of §III-C.2, which does not say how the two measurements combine). With
//! `measure = "carried"` the WLAN must also have carried it: the virtual bits that came
//! back through the box from the WLAN ([`crate::qdisc::adwiser::wlan_meter`]) reach those released
//! within one packet and 2 % (the paper's "measured TCP throughput over the WLAN" read as
//! what crossed the WLAN rather than what entered it; the paper does not say where it
//! measured). C starts at C*/2 ("a value less than C*"; the paper does not say which)
//! once the first poll answer arrives; until then the A-WLAN queue is held. C never drops
//! below Δ. With `rate` set, C is fixed (the open-loop experiment of Fig. 15).
//!
//! **The AP poll** (§III-B): every `poll_interval` the box asks the AP (`ap`, the AP's
//! WLAN interface) for its association table — the stations its driver reaches and their
//! PHY rates, as the AP itself reports them ([`QdiscCtx::link_of`], what `iw station
//! dump` or the 802.11 MIB shows) — and the answer takes effect `poll_delay` later. The
//! qdisc is driven by its interface, so a poll falling in a time the box had nothing to
//! send is taken at the next packet (an idle box has nothing to decide).
//!
//! Bypassing and inserting the box (the paper's experiments switch it in at 300 s or
//! 600 s) is a `[[at]]` `replace` of the qdisc on the box's interface (e.g. `pfifo` ↔
//! `adwiser`); as Linux's `qdisc_graft`, the replaced qdisc's packets are dropped.

use super::class_stats::{ClassReport, ClassSample, ClassStats};
use super::classify::{Match, MatchSpec, NameTable};
use super::fair_classes::{inverse_weight, weight_fp};
use super::{BuildCtx, Qdisc, QdiscCtx, Verdict};
use crate::engine::SimTime;
pub mod wlan_meter;

use crate::conf::{Duration, Rate, ScenarioError};
use crate::hook::NodeHook;
use crate::link::wifi::rate::{tcp_rate_bps, TcpWorkload};
use crate::link::wifi::{Phy, Standard};
use crate::packet::{DropReason, Packet, PacketId, Protocol};
use rustc_hash::FxHashMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::atomic::Ordering;
use wlan_meter::{ReturnedBytes, WlanMeter};

/// DSCP Expedited Forwarding (RFC 3246), which 802.11e APs map to AC_VO.
pub const DSCP_EF: u8 = 46;

/// How the A-WLAN queues are formed (§III-A.2, footnote 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AdwiserQueues {
    /// One queue per station (Table I, Fig. 26).
    #[default]
    Station,
    /// One queue per PHY rate class (Figs. 15–17).
    Rate,
}

/// Where the A-WLAN weights come from (§III-C.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AdwiserWeights {
    /// Time fairness, eq. (2): φ_i ∝ p_i·C_i.
    #[default]
    Time,
    /// The policy weights p_i alone.
    Policy,
}

/// What the service-rate adaptation compares with C (§III-C.1.c, "the measured TCP
/// throughput over the WLAN").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AdwiserMeasure {
    /// What the box released (the default): it "equals C" whenever the box holds a
    /// backlog, so C climbs to C* even when the medium carries less and the excess queues
    /// in the AP (docs/reproductions/hegde-2013.md, Fig. 22).
    #[default]
    Released,
    /// What the WLAN carried: the box released its allowance *and* as many virtual bits
    /// came back from the WLAN (the stations' ACKs and uploads, counted by a node hook on
    /// the box, [`crate::qdisc::adwiser::wlan_meter`]), within one packet and
    /// [`CARRIED_TOLERANCE`]. When the medium cannot carry C, the excess queues in (and
    /// overflows) the AP, less returns, and C falls. The other reading of the paper's
    /// "measured TCP throughput over the WLAN".
    Carried,
}

/// A policy group: stations whose packets match get this weight (p_i).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdwiserPolicyConf {
    /// Name of the group (e.g. "gold").
    pub name: String,
    /// Weight of each of the group's stations, 1e-6 to 1e6.
    pub weight: f64,
    /// Which packets (towards the WLAN) belong to the group, e.g. `{ dst = ["sta0"] }`. The
    /// first group matching a station's first packet sets the station's weight.
    #[serde(rename = "match")]
    pub matches: MatchSpec,
}

/// The A-WAN inbound server (§III-A, §III-C.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdwiserWanConf {
    /// Hosts on the far side of the WAN access link (packets from them are WAN traffic).
    pub hosts: super::classify::Names,
    /// The WAN access link's rate, e.g. "8Mbit".
    pub rate: Rate,
    /// Fraction of `rate` the inbound virtual server serves. Default 0.9 (§IV-C: "90% of
    /// the Internet access link speed").
    #[serde(default = "default_share")]
    pub share: f64,
}

/// VoIP handling (§III-A.4, §IV-A.4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdwiserVoiceConf {
    /// Which packets are VoIP, e.g. `{ protocol = "udp", dport = "16384-32767" }`.
    #[serde(rename = "match")]
    pub matches: MatchSpec,
    /// Calls admitted at most (Fig. 21: 12); absent: no admission control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub cac_limit: Option<u32>,
}

/// Parameters of `adwiser`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdwiserConf {
    /// The AP's WLAN interface `<node>.<cell>` whose association table the box polls.
    pub ap: String,
    /// The WLAN's PHY for C_i: "802.11b", "802.11a" or "802.11g".
    pub standard: String,
    /// Whether the cell uses the short PLCP preamble (802.11b/g). Default false.
    #[serde(default)]
    pub short_preamble: bool,
    /// A-WLAN queues: "station" (default) or "rate".
    #[serde(default)]
    pub queues: AdwiserQueues,
    /// A-WLAN weights: "time" (eq. 2, default) or "policy".
    #[serde(default)]
    pub weights: AdwiserWeights,
    /// Policy groups (per-station or per-group weights); stations in none weigh 1.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policy: Vec<AdwiserPolicyConf>,
    /// Fixed A-WLAN service rate C (no adaptation; Fig. 15). Absent: adaptive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Adaptation step Δ. Default 100kbit (§III-C.1.c).
    #[serde(default = "default_delta")]
    pub delta: Rate,
    /// Measurement interval of the adaptation. Default 1s (§III-C.1.c).
    #[serde(default = "default_interval")]
    pub interval: Duration,
    /// What the adaptation measures: "released" (default: what the box released) or
    /// "carried" (what the WLAN carried, seen in what returns through the box). Set when
    /// the simulation is built; a `change` keeps it.
    #[serde(default)]
    pub measure: AdwiserMeasure,
    /// How often the AP's association table is polled. Default 5s (the paper does not
    /// say).
    #[serde(default = "default_poll_interval")]
    pub poll_interval: Duration,
    /// How long a poll takes to answer (an SNMP round trip). Default 10ms.
    #[serde(default = "default_poll_delay")]
    pub poll_delay: Duration,
    /// The A-WAN inbound server; absent: no WAN side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wan: Option<AdwiserWanConf>,
    /// VoIP priority and admission control; absent: no VoIP class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voice: Option<AdwiserVoiceConf>,
    /// Packets each queue may hold (tail drop, `qdisc_overflow`). Default 1000.
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1))]
    pub limit: u32,
    /// The box is bypassed (Fig. 14's switches): packets go on in arrival order, untouched,
    /// as if the box were not there (a FIFO of `limit` packets). Switch it in or out during
    /// a run with `[[at]]` `qdisc = { dev = …, change = { kind = "adwiser", …, bypass =
    /// false } }`. Default false.
    #[serde(default)]
    pub bypass: bool,
}

fn default_share() -> f64 {
    0.9
}
fn default_delta() -> Rate {
    Rate(100_000)
}
fn default_interval() -> Duration {
    Duration(SimTime::from_secs(1))
}
fn default_poll_interval() -> Duration {
    Duration(SimTime::from_secs(5))
}
fn default_poll_delay() -> Duration {
    Duration(SimTime::from_millis(10))
}
fn default_limit() -> u32 {
    1000
}

/// The bits a packet puts on the WLAN medium when released (§III-C.3): a TCP DATA packet
/// plus half an ACK, a pure TCP ACK plus two DATA packets (delayed ACKs), else itself.
/// Bytes of IP packets, `w` giving the DATA and ACK sizes.
pub fn virtual_bytes(p: &Packet, w: &TcpWorkload) -> u64 {
    let len = p.size_bytes as u64;
    if p.tuple.protocol != Protocol::Tcp {
        return len;
    }
    if p.payload_bytes > 0 {
        len + w.ack_bytes as u64 / w.segments_per_ack as u64
    } else {
        len + w.segments_per_ack as u64 * w.data_bytes as u64
    }
}

/// C* of eq. (1) for stations of weights `w_i` (any scale) and effective rates `c_i`
/// (bit/s): 1 / Σ (w_i/Σw)/c_i. `None` without stations.
pub fn c_star(stations: impl Iterator<Item = (f64, f64)>) -> Option<f64> {
    let (mut sw, mut s) = (0.0, 0.0);
    for (w, c) in stations {
        sw += w;
        s += w / c;
    }
    (sw > 0.0).then(|| sw / s)
}

/// Share of an interval's releases that may still be on their way back (in flight, or
/// its ACK delayed) when the interval ends, beyond one packet: the paper gives no
/// tolerance for "equal to C"; 2 % of a 1-s interval is ~7 ms of traffic at any C, a few
/// of the WLAN's round trips (the AP's queue of 100 packets holds 60 ms at 20 Mb/s).
pub const CARRIED_TOLERANCE: f64 = 0.02;

/// Whether the WLAN carried what the box released in an interval (§III-C.1.c "the
/// measured TCP throughput over the WLAN"): the virtual bits that returned through the box
/// (`returned`) reach the bits released (`released`) within one packet (`slack`) and
/// [`CARRIED_TOLERANCE`].
pub fn carried(returned: u64, released: f64, slack: f64) -> bool {
    returned as f64 + slack + CARRIED_TOLERANCE * released >= released
}

/// One adaptation step (§III-C.1.c): `measured_ok` says the measured throughput equalled C.
pub fn adapt(c: f64, c_star: f64, delta: f64, measured_ok: bool) -> f64 {
    if measured_ok {
        (c + delta).min(c_star)
    } else {
        (c - delta).max(delta)
    }
}

struct Entry {
    start: u128,
    vlen: u64,
    pkt: PacketId,
}

struct VQueue {
    key: u32,
    entries: VecDeque<Entry>,
    last_finish: u128,
    inv_weight: u64,
    bytes: u64,
}

/// A start-time fair queueing server (Goyal et al.; §III-C.3 eqs. 4–5) whose queues are
/// made as keys (stations or rate classes) appear, with weights that may change (new
/// weights tag later arrivals), optionally paced at a rate.
#[derive(Default)]
struct VServer {
    queues: Vec<VQueue>,
    index: FxHashMap<u32, u32>,
    heads: BinaryHeap<Reverse<(u128, u32)>>,
    in_service: Option<u128>,
    max_finish: u128,
    qlen: usize,
    rate_bps: u64,
    next_release: SimTime,
    /// Virtual bits released since the last measurement, and the largest packet's.
    released_bits: u64,
    largest_bits: u64,
    stats: ClassStats,
}

impl VServer {
    fn queue(&mut self, key: u32, weight: f64) -> usize {
        if let Some(&i) = self.index.get(&key) {
            return i as usize;
        }
        let i = self.queues.len();
        self.queues.push(VQueue {
            key,
            entries: VecDeque::new(),
            last_finish: 0,
            inv_weight: inverse_weight(weight_fp(weight)),
            bytes: 0,
        });
        self.index.insert(key, i as u32);
        i
    }

    fn set_weight(&mut self, key: u32, weight: f64) {
        if let Some(&i) = self.index.get(&key) {
            self.queues[i as usize].inv_weight = inverse_weight(weight_fp(weight));
        }
    }

    fn throttled(&self, now: SimTime) -> bool {
        now < self.next_release
    }

    /// Tags (eqs. 4–5) and queues `pkt` of virtual length `vlen` in queue `q`.
    fn enqueue(&mut self, q: usize, pkt: PacketId, vlen: u64, wire: u32, now: SimTime) {
        if self.qlen == 0 && !self.throttled(now) {
            // The server finished its last packet: the busy period is over.
            self.in_service = None;
        }
        let v = self.in_service.unwrap_or(self.max_finish);
        let qu = &mut self.queues[q];
        let start = v.max(qu.last_finish);
        qu.last_finish = start + vlen as u128 * qu.inv_weight as u128;
        if qu.entries.is_empty() {
            self.heads.push(Reverse((start, q as u32)));
        }
        qu.entries.push_back(Entry { start, vlen, pkt });
        qu.bytes += wire as u64;
        self.qlen += 1;
        self.stats.on_enqueue(wire);
    }

    /// Whether the server may release now.
    fn ready(&self, now: SimTime) -> bool {
        self.qlen > 0 && !self.throttled(now) && self.rate_bps > 0
    }

    fn peek(&self) -> Option<PacketId> {
        let Reverse((_, q)) = *self.heads.peek()?;
        self.queues[q as usize].entries.front().map(|e| e.pkt)
    }

    /// Releases the packet of smallest start number and paces the next; the caller
    /// accounts the released bits ([`VServer::account`]).
    fn dequeue(&mut self, wire: u32, now: SimTime, sojourn: SimTime) -> Option<PacketId> {
        let Reverse((start, q)) = self.heads.pop()?;
        let qu = &mut self.queues[q as usize];
        let e = qu.entries.pop_front().expect("a head tag has a packet");
        qu.bytes -= wire as u64;
        if let Some(n) = qu.entries.front() {
            self.heads.push(Reverse((n.start, q)));
        }
        let finish = start + e.vlen as u128 * qu.inv_weight as u128;
        self.in_service = Some(start);
        self.max_finish = self.max_finish.max(finish);
        self.qlen -= 1;
        self.next_release = now + SimTime::transmission(e.vlen, self.rate_bps);
        self.stats.on_dequeue(wire, sojourn);
        Some(e.pkt)
    }

    /// `bits` of WLAN traffic were released (the measurement of §III-C.1.c).
    fn account(&mut self, bits: u64) {
        self.released_bits += bits;
        self.largest_bits = self.largest_bits.max(bits);
    }

    fn bytes(&self) -> u64 {
        self.queues.iter().map(|q| q.bytes).sum()
    }

    /// Takes (released bits, largest packet's bits) since the last call.
    fn take_measurement(&mut self) -> (u64, u64) {
        let m = (self.released_bits, self.largest_bits);
        self.released_bits = 0;
        self.largest_bits = 0;
        m
    }
}

/// What the box knows of a station from the last poll answer.
#[derive(Copy, Clone, Debug)]
struct StationInfo {
    kbps: u32,
    /// C_i, bit/s.
    c_i: f64,
}

/// Which server a packet waits in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Src {
    Voice,
    Wan,
    Wlan,
}

pub struct Adwiser {
    /// The configuration (a `change` may alter only `bypass`, `rate`, `voice.cac_limit`).
    conf: AdwiserConf,
    bypass: bool,
    /// Packets that arrived while the box was bypassed, in arrival order (they leave
    /// first, as packets already past the switch).
    fifo: VecDeque<PacketId>,
    fifo_bytes: u64,
    phy: Phy,
    work: TcpWorkload,
    ap_iface: u32,
    /// Node addresses by node id (to name the AP's neighbours).
    node_addrs: Vec<u32>,
    queues: AdwiserQueues,
    weights: AdwiserWeights,
    policy: Vec<(Match, f64)>,
    /// Per station address: its policy weight p_i (from its first packet).
    station_policy: FxHashMap<u32, f64>,
    fixed_rate: Option<u64>,
    delta: f64,
    interval: SimTime,
    poll_interval: SimTime,
    poll_delay: SimTime,
    limit: u32,
    wan_hosts: Option<Match>,
    wan_rate: u64,
    voice: Option<Match>,
    cac_limit: Option<u32>,
    calls: FxHashMap<(u64, u64), ()>,
    voice_q: VecDeque<PacketId>,
    voice_bytes: u64,
    voice_stats: ClassStats,
    wan: VServer,
    wlan: VServer,
    /// The association table as of the last poll answer, by station address.
    table: FxHashMap<u32, StationInfo>,
    /// A poll answer on its way: when it arrives, and the table it carries.
    answer: Option<(SimTime, Vec<(u32, u32)>)>,
    /// Whether the first answer arrived (C is set then).
    started: bool,
    next_poll: Option<SimTime>,
    next_tick: SimTime,
    /// Stations (addresses) with packets through the box since the last tick.
    active: FxHashMap<u32, ()>,
    c: f64,
    c_star: f64,
    measure: AdwiserMeasure,
    /// Virtual bytes returned from the WLAN since the last tick (the meter's count).
    returned: ReturnedBytes,
}

fn resolve_iface(names: &NameTable, name: &str) -> Option<u32> {
    names
        .ifaces
        .iter()
        .position(|n| n == name)
        .map(|i| i as u32)
}

impl Adwiser {
    pub fn from_conf(c: &AdwiserConf, b: &BuildCtx, errs: &mut ScenarioError) -> Option<Adwiser> {
        let p = &b.path;
        let Some(standard) = Standard::parse(&c.standard).filter(|s| !s.has_mcs()) else {
            errs.push(
                format!("{p}.standard"),
                format!(
                    "\"{}\" is no 802.11 PHY ADWISER models; use \"802.11b\", \"802.11a\" or \"802.11g\"",
                    c.standard
                ),
            );
            return None;
        };
        let mut phy = Phy::new(standard);
        phy.short_preamble = c.short_preamble;
        let ap_iface = resolve_iface(b.names, &c.ap);
        if ap_iface.is_none() {
            errs.push(
                format!("{p}.ap"),
                format!(
                    "\"{}\" is no interface; give the AP's WLAN interface as <ap node>.<cell name>",
                    c.ap
                ),
            );
        }
        let mut policy = Vec::new();
        for g in &c.policy {
            let gp = format!("{p}.policy.{}", g.name);
            if !(g.weight.is_finite() && (1e-6..=1e6).contains(&g.weight)) {
                errs.push(
                    format!("{gp}.weight"),
                    format!("{} is not a weight in 1e-6…1e6", g.weight),
                );
            }
            let m = Match::resolve(&g.matches, b.names, &format!("{gp}.match"), errs);
            policy.push((m, g.weight));
        }
        let positive = |r: Rate, key: &str, errs: &mut ScenarioError| {
            if r.bps() == 0 {
                errs.push(format!("{p}.{key}"), "must be positive");
            }
        };
        positive(c.delta, "delta", errs);
        if let Some(r) = c.rate {
            positive(r, "rate", errs);
        }
        for (d, key) in [(c.interval, "interval"), (c.poll_interval, "poll_interval")] {
            if d.0 == SimTime::ZERO {
                errs.push(format!("{p}.{key}"), "must be positive, e.g. \"1s\"");
            }
        }
        if c.limit == 0 {
            errs.push(format!("{p}.limit"), "must be at least 1 packet");
        }
        let (wan_hosts, wan_rate) = match &c.wan {
            None => (None, 0),
            Some(w) => {
                if !(w.share.is_finite() && w.share > 0.0 && w.share <= 1.0) {
                    errs.push(
                        format!("{p}.wan.share"),
                        format!("{} is no fraction in (0, 1]; the paper uses 0.9", w.share),
                    );
                }
                positive(w.rate, "wan.rate", errs);
                let spec = MatchSpec {
                    src: Some(w.hosts.clone()),
                    ..MatchSpec::default()
                };
                let m = Match::resolve(&spec, b.names, &format!("{p}.wan.hosts"), errs);
                (Some(m), (w.rate.bps() as f64 * w.share).round() as u64)
            }
        };
        let voice = c
            .voice
            .as_ref()
            .map(|v| Match::resolve(&v.matches, b.names, &format!("{p}.voice.match"), errs));
        let cac_limit = c.voice.as_ref().and_then(|v| v.cac_limit);
        if cac_limit == Some(0) {
            errs.push(format!("{p}.voice.cac_limit"), "must be at least 1 call");
        }
        let wan = VServer {
            rate_bps: wan_rate,
            ..VServer::default()
        };
        Some(Adwiser {
            conf: c.clone(),
            bypass: c.bypass,
            fifo: VecDeque::new(),
            fifo_bytes: 0,
            phy,
            work: TcpWorkload::default(),
            ap_iface: ap_iface.unwrap_or(0),
            node_addrs: b.names.nodes.iter().map(|n| n.1).collect(),
            queues: c.queues,
            weights: c.weights,
            policy,
            station_policy: FxHashMap::default(),
            fixed_rate: c.rate.map(|r| r.bps()),
            delta: c.delta.bps() as f64,
            interval: c.interval.0,
            poll_interval: c.poll_interval.0,
            poll_delay: c.poll_delay.0,
            limit: c.limit,
            wan_hosts,
            wan_rate,
            voice,
            cac_limit,
            calls: FxHashMap::default(),
            voice_q: VecDeque::new(),
            voice_bytes: 0,
            voice_stats: ClassStats::default(),
            wan,
            wlan: VServer::default(),
            table: FxHashMap::default(),
            answer: None,
            started: false,
            next_poll: None,
            next_tick: SimTime::MAX,
            active: FxHashMap::default(),
            c: 0.0,
            c_star: 0.0,
            measure: c.measure,
            returned: ReturnedBytes::default(),
        })
    }

    /// The A-WLAN service rate C, bit/s (0 before the first poll answer).
    pub fn rate(&self) -> f64 {
        self.c
    }

    /// C* of the last computation, bit/s.
    pub fn c_star(&self) -> f64 {
        self.c_star
    }

    /// The PHY's lowest rate, kb/s.
    fn lowest_kbps(&self) -> u32 {
        self.phy
            .standard
            .rates_kbps()
            .iter()
            .copied()
            .min()
            .unwrap_or(1_000)
    }

    /// C_i of a station at `kbps`.
    fn c_i(&self, kbps: u32) -> f64 {
        tcp_rate_bps(&self.phy, kbps, &self.work)
    }

    /// The weight of a station (address) under the configured weighting.
    fn station_weight(&self, addr: u32) -> f64 {
        let p = self.station_policy.get(&addr).copied().unwrap_or(1.0);
        match self.weights {
            AdwiserWeights::Policy => p,
            AdwiserWeights::Time => p * self.station_c(addr) / 1e6,
        }
    }

    /// C_i of a station the box knows of; an unknown one is taken at the PHY's lowest
    /// rate (the box cannot tell better, and this spares the medium).
    fn station_c(&self, addr: u32) -> f64 {
        match self.table.get(&addr) {
            Some(s) => s.c_i,
            None => self.c_i(self.lowest_kbps()),
        }
    }

    /// The A-WLAN queue key of a station: itself, or its PHY rate class.
    fn wlan_key(&self, addr: u32) -> u32 {
        match self.queues {
            AdwiserQueues::Station => addr,
            AdwiserQueues::Rate => self.table.get(&addr).map_or(self.lowest_kbps(), |s| s.kbps),
        }
    }

    /// The weight of A-WLAN queue `key` (a rate class weighs the sum of its associated
    /// stations', eq. 2: m_i·C_i).
    fn wlan_weight(&self, key: u32) -> f64 {
        match self.queues {
            AdwiserQueues::Station => self.station_weight(key),
            AdwiserQueues::Rate => {
                let w: f64 = self
                    .counted()
                    .iter()
                    .filter(|a| self.wlan_key(**a) == key)
                    .map(|a| self.station_weight(*a))
                    .sum();
                if w > 0.0 {
                    w
                } else {
                    self.station_weight(u32::MAX)
                }
            }
        }
    }

    /// Polls, poll answers and measurement ticks due by `now`, in time order.
    ///
    /// `can_poll`: whether the caller can reach the AP's driver. The simulation gives a
    /// qdisc the links only when it dequeues (the interface asks for a packet), so a poll
    /// falling due during an enqueue waits for the dequeue that follows it at the same
    /// instant; reading the table without the links would give an empty table, and C*
    /// would fall to the lowest rate's C_i.
    fn advance(&mut self, ctx: &QdiscCtx, can_poll: bool) {
        let now = ctx.now;
        if self.next_poll.is_none() {
            self.next_poll = Some(now);
        }
        loop {
            let poll = self.next_poll.unwrap_or(SimTime::MAX);
            let ans = self.answer.as_ref().map_or(SimTime::MAX, |a| a.0);
            let tick = self.next_tick;
            let t = poll.min(ans).min(tick);
            if t > now || (t == poll && !can_poll) {
                break;
            }
            if ans == t {
                let (_, rows) = self.answer.take().expect("answer due");
                self.apply_answer(rows, t);
            } else if poll == t {
                self.answer = Some((t + self.poll_delay, self.read_table(ctx)));
                self.next_poll = Some(t + self.poll_interval);
            } else {
                self.tick(t);
            }
        }
    }

    /// The AP's association table as its driver reports it now: (station address, kb/s).
    fn read_table(&self, ctx: &QdiscCtx) -> Vec<(u32, u32)> {
        ctx.neighbours(self.ap_iface)
            .iter()
            .filter_map(|n| {
                let v = ctx.link_of(self.ap_iface, n.node)?;
                let addr = *self.node_addrs.get(n.node.0 as usize)?;
                Some((addr, (v.rate_bps / 1000) as u32))
            })
            .collect()
    }

    fn apply_answer(&mut self, rows: Vec<(u32, u32)>, t: SimTime) {
        self.table.clear();
        for (addr, kbps) in rows {
            let c_i = self.c_i(kbps);
            self.table.insert(addr, StationInfo { kbps, c_i });
        }
        self.reweigh();
        let cs = self.compute_c_star();
        if cs > 0.0 {
            self.c_star = cs;
        }
        if !self.started {
            self.started = true;
            self.c = match self.fixed_rate {
                Some(r) => r as f64,
                None if self.c_star > 0.0 => self.c_star / 2.0,
                None => self.delta,
            };
            self.next_tick = t + self.interval;
            self.returned.store(0, Ordering::Relaxed);
            self.set_rates(0);
        } else if self.fixed_rate.is_none() {
            self.c = self.c.min(self.c_star.max(self.delta));
        }
    }

    /// The stations C* and the rate classes' weights count: those associated as of the
    /// last poll answer (§III-C.1.c step 3: "the AP continues to be polled ... If there is
    /// any change, then C* is recomputed"; eqs. 2–3 count the m_i stations associated at
    /// each rate), in address order; before the first answer, those seen sending.
    fn counted(&self) -> Vec<u32> {
        let mut v: Vec<u32> = if self.table.is_empty() {
            self.active.keys().copied().collect()
        } else {
            self.table.keys().copied().collect()
        };
        v.sort_unstable();
        v
    }

    /// C* (eq. 1) over the associated stations.
    fn compute_c_star(&self) -> f64 {
        c_star(
            self.counted()
                .iter()
                .map(|&a| (self.station_weight(a), self.station_c(a))),
        )
        .unwrap_or(0.0)
    }

    fn reweigh(&mut self) {
        let keys: Vec<u32> = self.wlan.queues.iter().map(|q| q.key).collect();
        for k in keys {
            let w = self.wlan_weight(k);
            self.wlan.set_weight(k, w);
        }
    }

    /// One measurement interval ended at `t` (§III-C.1.c, §III-C.2).
    fn tick(&mut self, t: SimTime) {
        let (wlan_bits, wlan_max) = self.wlan.take_measurement();
        let (wan_bits, wan_max) = self.wan.take_measurement();
        let secs = self.interval.as_secs_f64();
        let cs = self.compute_c_star();
        if cs > 0.0 {
            self.c_star = cs;
        }
        let returned = self.returned.swap(0, Ordering::Relaxed);
        if self.fixed_rate.is_none() {
            // "Equal to C": the WLAN took all the box offered. With WAN traffic, the
            // LAN share is C − R_WAN of the previous interval, and the WAN share varies
            // on its own; the WLAN took all the box offered when the A-WLAN server was
            // busy all interval (it released its full allowance), or when the total
            // reached C.
            let slack = wlan_max.max(wan_max) as f64;
            let total = (wlan_bits + wan_bits) as f64;
            let lan_full = wlan_bits as f64 + slack >= self.wlan.rate_bps as f64 * secs;
            let released_ok = total + slack >= self.c * secs || (wan_bits > 0 && lan_full);
            let ok = released_ok
                && (self.measure == AdwiserMeasure::Released
                    || carried(8 * returned, total, slack));
            self.c = adapt(self.c, self.c_star.max(self.delta), self.delta, ok);
        }
        self.reweigh();
        self.active.clear();
        self.set_rates((wan_bits as f64 / secs) as u64);
        self.next_tick = t + self.interval;
    }

    /// The A-WLAN server's rate: C less the WAN→WLAN rate (§III-C.2), at least Δ.
    fn set_rates(&mut self, wan_bps: u64) {
        let c = self.c.round() as u64;
        self.wlan.rate_bps = c.saturating_sub(wan_bps).max(self.delta as u64);
    }

    fn call_key(p: &Packet) -> (u64, u64) {
        let a = ((p.tuple.src_addr as u64) << 16) | p.tuple.src_port as u64;
        let b = ((p.tuple.dst_addr as u64) << 16) | p.tuple.dst_port as u64;
        (a.min(b), a.max(b))
    }

    /// The server to release from now, if any: voice first, then whichever paced server
    /// has waited longest (ties: A-WLAN).
    fn pick(&self, now: SimTime) -> Option<Src> {
        if !self.voice_q.is_empty() {
            return Some(Src::Voice);
        }
        if self.bypass {
            // Switched out: what the servers still hold leaves as fast as it can.
            return match (self.wan.qlen > 0, self.wlan.qlen > 0) {
                (true, _) => Some(Src::Wan),
                (false, true) => Some(Src::Wlan),
                _ => None,
            };
        }
        let wlan = self.started && self.wlan.ready(now);
        let wan = self.wan.ready(now);
        match (wan, wlan) {
            (true, true) if self.wan.next_release < self.wlan.next_release => Some(Src::Wan),
            (_, true) => Some(Src::Wlan),
            (true, false) => Some(Src::Wan),
            (false, false) => None,
        }
    }
}

impl Qdisc for Adwiser {
    fn kind(&self) -> &'static str {
        "adwiser"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        let wire = ctx.len_of(pkt);
        if self.bypass {
            if self.fifo.len() as u32 >= self.limit {
                ctx.drop_packet(pkt, DropReason::QdiscOverflow);
                return Verdict::Dropped;
            }
            self.fifo.push_back(pkt);
            self.fifo_bytes += wire as u64;
            return Verdict::Queued;
        }
        self.advance(ctx, false);
        let now = ctx.now;
        let p = ctx.packets.get(pkt);
        if self.voice.as_ref().is_some_and(|m| m.matches(p)) {
            if let Some(limit) = self.cac_limit {
                let key = Self::call_key(p);
                if !self.calls.contains_key(&key) {
                    if self.calls.len() as u32 >= limit {
                        ctx.drop_packet(pkt, DropReason::Policy);
                        self.voice_stats.on_drop(DropReason::Policy, false);
                        return Verdict::Dropped;
                    }
                    self.calls.insert(key, ());
                }
            }
            if self.voice_q.len() as u32 >= self.limit {
                ctx.drop_packet(pkt, DropReason::QdiscOverflow);
                self.voice_stats.on_drop(DropReason::QdiscOverflow, false);
                return Verdict::Dropped;
            }
            ctx.packets.get_mut(pkt).dscp = DSCP_EF;
            self.voice_q.push_back(pkt);
            self.voice_bytes += wire as u64;
            self.voice_stats.on_enqueue(wire);
            return Verdict::Queued;
        }
        let station = p.tuple.dst_addr;
        if !self.station_policy.contains_key(&station) {
            let w = self
                .policy
                .iter()
                .find(|(m, _)| m.matches(p))
                .map_or(1.0, |g| g.1);
            self.station_policy.insert(station, w);
        }
        let newly_active = self.active.insert(station, ()).is_none();
        let from_wan = self.wan_hosts.as_ref().is_some_and(|m| m.matches(p));
        let vbytes = virtual_bytes(p, &self.work);
        let verdict = if from_wan {
            let w = self.station_policy[&station];
            let q = self.wan.queue(station, w);
            if self.wan.queues[q].entries.len() as u32 >= self.limit {
                None
            } else {
                // The WAN link is wired: its share is charged in wire bytes; the bits the
                // packet puts on the WLAN are what is subtracted from C.
                self.wan.enqueue(q, pkt, wire as u64, wire, now);
                Some(())
            }
        } else {
            let key = self.wlan_key(station);
            let w = self.wlan_weight(key);
            let q = self.wlan.queue(key, w);
            if newly_active && self.queues == AdwiserQueues::Rate {
                self.wlan.set_weight(key, w);
            }
            if self.wlan.queues[q].entries.len() as u32 >= self.limit {
                None
            } else {
                self.wlan.enqueue(q, pkt, vbytes, wire, now);
                Some(())
            }
        };
        match verdict {
            Some(()) => Verdict::Queued,
            None => {
                let s = if from_wan {
                    &mut self.wan
                } else {
                    &mut self.wlan
                };
                s.stats.on_drop(DropReason::QdiscOverflow, false);
                ctx.drop_packet(pkt, DropReason::QdiscOverflow);
                Verdict::Dropped
            }
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(pkt) = self.fifo.pop_front() {
            self.fifo_bytes -= ctx.len_of(pkt) as u64;
            return Some(pkt);
        }
        if !self.bypass {
            self.advance(ctx, true);
        }
        let now = ctx.now;
        match self.pick(now)? {
            Src::Voice => {
                let pkt = self.voice_q.pop_front()?;
                let wire = ctx.len_of(pkt);
                self.voice_bytes -= wire as u64;
                let sojourn = now.saturating_sub(ctx.packets.get(pkt).enqueued);
                self.voice_stats.on_dequeue(wire, sojourn);
                Some(pkt)
            }
            src => {
                let s = if src == Src::Wan {
                    &mut self.wan
                } else {
                    &mut self.wlan
                };
                let head = s.peek()?;
                let wire = ctx.len_of(head);
                let p = ctx.packets.get(head);
                let sojourn = now.saturating_sub(p.enqueued);
                // Both servers count the bits the packet puts on the WLAN: the A-WLAN's
                // measured throughput, and R_WAN subtracted from C (§III-C.2).
                s.account(8 * virtual_bytes(p, &self.work));
                s.dequeue(wire, now, sojourn)
            }
        }
    }

    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(&pkt) = self.fifo.front() {
            return Some(pkt);
        }
        if !self.bypass {
            self.advance(ctx, true);
        }
        match self.pick(ctx.now)? {
            Src::Voice => self.voice_q.front().copied(),
            Src::Wan => self.wan.peek(),
            Src::Wlan => self.wlan.peek(),
        }
    }

    fn len(&self) -> usize {
        self.fifo.len() + self.voice_q.len() + self.wan.qlen + self.wlan.qlen
    }

    fn backlog_bytes(&self) -> u64 {
        self.fifo_bytes + self.voice_bytes + self.wan.bytes() + self.wlan.bytes()
    }

    fn next_wakeup(&self, now: SimTime) -> Option<SimTime> {
        if self.is_empty() || !self.fifo.is_empty() {
            return None;
        }
        let mut t = self.next_tick;
        if let Some(a) = &self.answer {
            t = t.min(a.0);
        }
        if let Some(p) = self.next_poll {
            t = t.min(p);
        }
        for s in [&self.wan, &self.wlan] {
            if s.qlen > 0 && s.throttled(now) {
                t = t.min(s.next_release);
            }
        }
        (t > now && t < SimTime::MAX).then_some(t)
    }

    fn report_classes(&self, prefix: &str, parent: &str, out: &mut Vec<ClassReport>) {
        let rows = [
            (
                "voice",
                &self.voice_stats,
                self.voice_q.len(),
                self.voice_bytes,
                0,
            ),
            (
                "wan",
                &self.wan.stats,
                self.wan.qlen,
                self.wan.bytes(),
                self.wan_rate,
            ),
            (
                "wlan",
                &self.wlan.stats,
                self.wlan.qlen,
                self.wlan.bytes(),
                self.c.round() as u64,
            ),
        ];
        for (name, stats, n, bytes, rate) in rows {
            out.push(ClassReport {
                class: format!("{prefix}{name}"),
                parent: parent.to_string(),
                kind: "adwiser",
                qdisc: if name == "voice" { "pfifo" } else { "stfq" },
                rate_bps: rate,
                ceil_bps: self.c_star.round() as u64,
                stats: stats.clone(),
                backlog_packets: n as u64,
                backlog_bytes: bytes,
            });
        }
    }

    fn sample_classes(&self, out: &mut Vec<ClassSample>) {
        out.push(ClassSample::of(
            &self.voice_stats,
            self.voice_q.len() as u64,
            self.voice_bytes,
        ));
        out.push(ClassSample::of(
            &self.wan.stats,
            self.wan.qlen as u64,
            self.wan.bytes(),
        ));
        out.push(ClassSample::of(
            &self.wlan.stats,
            self.wlan.qlen as u64,
            self.wlan.bytes(),
        ));
    }

    /// `tc qdisc change`: switches the box in or out (`bypass`), or sets a fixed `rate`
    /// or the CAC limit; the other keys must stay as they are (replace the qdisc to change
    /// them). Switched in, the box polls the AP at once and starts from C*/2 again.
    /// The WLAN meter on the box (`measure = "carried"`), counting what returns on this
    /// qdisc's interface, the box's side towards the AP.
    fn node_hook(&self, node: &str, _node_addr: u32, iface: u32) -> Option<Box<dyn NodeHook>> {
        (self.measure == AdwiserMeasure::Carried).then(|| {
            Box::new(WlanMeter::new(
                format!("adwiser-wlan-meter:{node}"),
                crate::topology::IfaceId(iface),
                self.work,
                self.returned.clone(),
            )) as Box<dyn NodeHook>
        })
    }

    fn change(&mut self, conf: &super::QdiscConf, b: &BuildCtx, errs: &mut ScenarioError) {
        let super::QdiscConf::Adwiser(c) = conf else {
            return;
        };
        let c: &AdwiserConf = c;
        let mut same = c.clone();
        same.bypass = self.conf.bypass;
        // `measure` is the qdisc's from build time (its meter is attached then): a change
        // need not repeat it and cannot alter it.
        same.measure = self.conf.measure;
        same.rate = self.conf.rate;
        if let (Some(v), Some(old)) = (same.voice.as_mut(), self.conf.voice.as_ref()) {
            v.cac_limit = old.cac_limit;
        }
        if same != self.conf {
            errs.push(
                b.path.clone(),
                "an adwiser change may set only `bypass`, `rate` and `voice.cac_limit`; give the other keys as the qdisc has them, or use `replace`",
            );
            return;
        }
        if Adwiser::from_conf(c, b, errs).is_none() {
            return;
        }
        if self.bypass && !c.bypass {
            self.returned.store(0, Ordering::Relaxed);
            self.started = false;
            self.answer = None;
            self.next_poll = None;
            self.next_tick = SimTime::MAX;
            self.c = 0.0;
        }
        self.bypass = c.bypass;
        self.fixed_rate = c.rate.map(|r| r.bps());
        if let Some(r) = self.fixed_rate {
            if self.started {
                self.c = r as f64;
                self.set_rates(0);
            }
        }
        self.cac_limit = c.voice.as_ref().and_then(|v| v.cac_limit);
        self.conf = c.clone();
        self.conf.measure = self.measure;
    }

    fn reset_stats(&mut self) {
        self.voice_stats.reset();
        self.wan.stats.reset();
        self.wlan.stats.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::wifi::rate::tcp_rate_bps;
    use crate::packet::{FlowId, Location};
    use crate::qdisc::testing::Harness;
    use crate::qdisc::QdiscConf;

    const STA: [u32; 4] = [10, 11, 12, 13];
    const WAN_HOST: u32 = 99;

    fn names() -> NameTable {
        NameTable {
            flows: vec![],
            nodes: vec![
                ("sta0".into(), STA[0]),
                ("sta1".into(), STA[1]),
                ("sta2".into(), STA[2]),
                ("sta3".into(), STA[3]),
                ("inet".into(), WAN_HOST),
            ],
            ifaces: vec!["ap.wlan".into()],
        }
    }

    fn build(h: &Harness, extra: &str) -> Adwiser {
        let toml = format!("kind = \"adwiser\"\nap = \"ap.wlan\"\nstandard = \"802.11b\"\nshort_preamble = true\n{extra}");
        let QdiscConf::Adwiser(c) = toml::from_str(&toml).unwrap() else {
            panic!()
        };
        let names = names();
        let mut errs = ScenarioError::default();
        let q = Adwiser::from_conf(&c, &h.build_ctx(&names), &mut errs).unwrap();
        assert!(errs.is_empty(), "{errs}");
        q
    }

    /// A TCP packet towards station `dst` from `src` carrying `payload` bytes (0: pure ACK).
    fn tcp(h: &mut Harness, src: u32, dst: u32, payload: u32) -> PacketId {
        let mut p = Packet::udp(FlowId(dst), 40 + payload, h.now);
        p.tuple.protocol = Protocol::Tcp;
        p.tuple.src_addr = src;
        p.tuple.dst_addr = dst;
        p.payload_bytes = payload;
        h.packets.alloc(p, Location::Source(dst))
    }

    fn stations(q: &mut Adwiser, rates: &[(u32, u32)]) {
        q.apply_answer(rates.to_vec(), SimTime::ZERO);
    }

    /// Reference: §III-C.3 — "for each ACK, … an ACK and two DATA packets. For a DATA
    /// packet, … a DATA packet and half an ACK", with 1500-B DATA and 40-B ACKs (§II-B).
    #[test]
    fn virtual_bits_of_data_ack_and_other_packets_follow_section_iii_c3() {
        let mut h = Harness::new();
        let w = TcpWorkload::default();
        let d = tcp(&mut h, 1, 2, 1460);
        let a = tcp(&mut h, 1, 2, 0);
        let u = h.packet(0, 200);
        assert_eq!(virtual_bytes(h.packets.get(d), &w), 1500 + 20);
        assert_eq!(virtual_bytes(h.packets.get(a), &w), 40 + 3000);
        assert_eq!(virtual_bytes(h.packets.get(u), &w), 200);
    }

    /// Reference: seed 002 §IV-A.1 — with C_1..3 = 4.89, 3.33, 1.58 Mb/s (two stations
    /// each) and eq. (2) weights, eq. (3) gives C* = 3.26 Mb/s. Our C_i come from the
    /// 802.11b timing (rate.rs); tolerance 3 % as for C_i. Also: eq. (1) with eq. (2)
    /// weights equals eq. (3) (identity, 1e-9).
    #[test]
    fn c_star_of_eq_1_with_time_weights_is_eq_3_and_the_fig_17_value() {
        let mut phy = Phy::new(Standard::B);
        phy.short_preamble = true;
        let w = TcpWorkload::default();
        let c: Vec<f64> = [11_000, 11_000, 5_500, 5_500, 2_000, 2_000]
            .iter()
            .map(|&k| tcp_rate_bps(&phy, k, &w))
            .collect();
        let eq1 = c_star(c.iter().map(|&ci| (ci, ci))).unwrap();
        let eq3 = c.iter().sum::<f64>() / c.len() as f64;
        assert!((eq1 / eq3 - 1.0).abs() < 1e-9);
        assert!((eq1 / 3.26e6 - 1.0).abs() < 0.03, "C* = {eq1}");
        // Equal weights: the harmonic mean (packet-fair shares of bits).
        let h = c_star(c.iter().map(|&ci| (1.0, ci))).unwrap();
        let want = c.len() as f64 / c.iter().map(|x| 1.0 / x).sum::<f64>();
        assert!((h / want - 1.0).abs() < 1e-9);
        assert_eq!(c_star(std::iter::empty()), None);
    }

    /// Reference: §III-C.1.c — C ← min(C*, C + Δ) when the measured throughput equals C,
    /// else C ← C − Δ, Δ = 0.1 Mb/s (exact arithmetic).
    #[test]
    fn rate_adaptation_steps_up_to_c_star_and_down_by_delta() {
        let d = 0.1e6;
        let mut c = 3.0e6;
        c = adapt(c, 3.26e6, d, true);
        assert!((c - 3.1e6).abs() < 1.0);
        c = adapt(c, 3.26e6, d, true);
        assert!((c - 3.2e6).abs() < 1.0);
        c = adapt(c, 3.26e6, d, true);
        assert_eq!(c, 3.26e6, "capped at C*");
        c = adapt(c, 3.26e6, d, false);
        assert!((c - 3.16e6).abs() < 1.0);
        assert_eq!(adapt(0.15e6, 3.26e6, d, false), d, "never below Δ");
    }

    /// Reference: §III-C.3's virtual bits are symmetric: what a download's DATA costs
    /// when released (DATA + ½ ACK) comes back as half of the delayed ACK that
    /// acknowledges it (ACK + 2 DATA, halved), and an upload's ACK released (ACK + 2
    /// DATA) comes back as its two DATA packets — so in a steady state the WLAN meter
    /// counts what the box released, exactly. `carried` then accepts a shortfall of one
    /// packet plus 2 % and refuses a larger one.
    #[test]
    fn returned_virtual_bits_mirror_released_ones_and_carried_tolerates_two_percent() {
        let mut h = Harness::new();
        let w = TcpWorkload::default();
        let data = tcp(&mut h, 1, STA[0], 1460);
        let ack = tcp(&mut h, 1, STA[0], 0);
        let (d, a) = (
            virtual_bytes(h.packets.get(data), &w),
            virtual_bytes(h.packets.get(ack), &w),
        );
        // Download: two DATA released, one ACK returned. Upload: one ACK released, two
        // DATA returned.
        assert_eq!(2 * d, a);
        let released = 1000.0 * 8.0 * d as f64;
        let slack = 8.0 * a as f64;
        assert!(carried(1000 * 8 * d, released, 0.0));
        assert!(carried(
            (0.98 * released) as u64 - slack as u64 + 1,
            released,
            slack
        ));
        assert!(!carried((0.97 * released) as u64, released, slack));
    }

    /// Reference: STFQ (Goyal et al. eqs. 4–5) on §III-C.3's virtual bits. Two stations
    /// of equal weight, one with downloads (DATA, 1520 virtual B) and one with uploads (its
    /// ACKs, 3040 virtual B), both backlogged: the download station gets two packets per
    /// ACK (exactly, over whole rounds), and the server paces each packet by its virtual
    /// bits at C (1 ns rounding).
    #[test]
    fn stfq_on_virtual_bits_releases_two_data_per_ack_paced_at_c() {
        let mut h = Harness::new();
        let mut q = build(&h, "weights = \"policy\"\nrate = \"1Mbit\"");
        for _ in 0..60 {
            let d = tcp(&mut h, 1, STA[0], 1460);
            let a = tcp(&mut h, 1, STA[1], 0);
            h.enqueue(&mut q, d);
            h.enqueue(&mut q, a);
        }
        // The first poll answers after poll_delay (10 ms): nothing leaves before.
        assert_eq!(h.dequeue(&mut q), None);
        assert_eq!(q.next_wakeup(h.now), Some(SimTime::from_millis(10)));
        h.now = SimTime::from_millis(10);
        let (mut data, mut acks) = (0, 0);
        for _ in 0..60 {
            let got = h.peek(&mut q).expect("backlogged, due");
            let p = h.dequeue(&mut q).unwrap();
            assert_eq!(got, p, "peek = dequeue");
            let v = virtual_bytes(h.packets.get(p), &TcpWorkload::default());
            if h.packets.get(p).payload_bytes > 0 {
                data += 1
            } else {
                acks += 1
            }
            assert_eq!(h.dequeue(&mut q), None, "paced");
            let gap = SimTime::transmission(v, 1_000_000);
            assert_eq!(q.next_wakeup(h.now), Some(h.now + gap));
            h.now += gap;
        }
        assert_eq!((data, acks), (40, 20));
    }

    /// Reference: eq. (2) time fairness — stations at 11 and 2 Mb/s, both downloading,
    /// get bits in the ratio C_11/C_2 (= 4.89/1.58 in the paper); STFQ's bound makes the
    /// error at most one packet per queue (2 % here over 300 packets).
    #[test]
    fn time_fair_weights_share_in_the_ratio_of_the_c_i() {
        let mut h = Harness::new();
        let mut q = build(&h, "rate = \"3Mbit\"");
        stations(&mut q, &[(STA[0], 11_000), (STA[1], 2_000)]);
        // The harness has no AP to poll: keep the table given.
        q.next_poll = Some(SimTime::MAX);
        for _ in 0..300 {
            let a = tcp(&mut h, 1, STA[0], 1460);
            let b = tcp(&mut h, 1, STA[1], 1460);
            h.enqueue(&mut q, a);
            h.enqueue(&mut q, b);
        }
        let mut got = [0u32; 2];
        for _ in 0..300 {
            let p = loop {
                if let Some(p) = h.dequeue(&mut q) {
                    break p;
                }
                h.now = q.next_wakeup(h.now).expect("backlogged");
            };
            got[(h.packets.get(p).tuple.dst_addr == STA[1]) as usize] += 1;
        }
        let want = q.c_i(11_000) / q.c_i(2_000);
        let ratio = got[0] as f64 / got[1] as f64;
        assert!(
            (ratio / want - 1.0).abs() < 0.02,
            "{got:?}: {ratio} vs {want}"
        );
    }

    /// Reference: §IV-A.4 — with a CAC limit of 12 "after admitting 12 calls … no more
    /// VoIP calls are admitted"; admitted calls keep flowing, re-marked EF (RFC 3246) so
    /// the AP's EDCA puts them in AC_VO, and go before queued TCP.
    #[test]
    fn call_admission_stops_at_the_limit_and_voice_goes_first_as_ef() {
        let mut h = Harness::new();
        let mut q = build(
            &h,
            "rate = \"1Mbit\"\nvoice = { match = { protocol = \"udp\" }, cac_limit = 12 }",
        );
        let t = tcp(&mut h, 1, STA[0], 1460);
        h.enqueue(&mut q, t);
        let mut admitted = vec![];
        for call in 0..15u16 {
            let p = h.packet_with(call as u32, 200, |p| {
                p.tuple.src_addr = 1;
                p.tuple.dst_addr = STA[1];
                p.tuple.src_port = 5000 + call;
            });
            let v = h.enqueue(&mut q, p);
            assert_eq!(v == Verdict::Queued, call < 12, "call {call}");
            if v == Verdict::Queued {
                admitted.push(p);
            }
        }
        assert!(h.dropped().iter().all(|(_, r)| *r == DropReason::Policy));
        // A second packet of an admitted call is admitted; the reverse direction is the
        // same call.
        let again = h.packet_with(0, 200, |p| {
            p.tuple.src_addr = STA[1];
            p.tuple.dst_addr = 1;
            p.tuple.dst_port = 5000;
        });
        assert_eq!(h.enqueue(&mut q, again), Verdict::Queued);
        admitted.push(again);
        for want in admitted {
            let p = h.dequeue(&mut q).unwrap();
            assert_eq!(p, want);
            assert_eq!(h.packets.get(p).dscp, DSCP_EF);
            assert_eq!(
                crate::link::wifi::edca::classify(DSCP_EF, 0),
                crate::link::wifi::Ac::Vo
            );
        }
    }

    /// Reference: §III-C.2 and §IV-C — the A-WAN inbound server runs at 90 % of the WAN
    /// rate (8 Mb/s → 7.2 Mb/s: one 1500-B packet per 1.667 ms, 1 ns rounding), and after
    /// a measurement interval the A-WLAN server runs at C minus the WAN→WLAN virtual bits
    /// measured in it.
    #[test]
    fn wan_server_runs_at_90_percent_and_its_rate_is_subtracted_from_c() {
        let mut h = Harness::new();
        let mut q = build(
            &h,
            "rate = \"4Mbit\"\nwan = { hosts = [\"inet\"], rate = \"8Mbit\" }\npoll_delay = \"0s\"",
        );
        for _ in 0..2000 {
            let w = tcp(&mut h, WAN_HOST, STA[0], 1460);
            h.enqueue(&mut q, w);
        }
        let mut n = 0u64;
        while h.now < SimTime::from_secs(1) {
            if let Some(p) = h.dequeue(&mut q) {
                assert_eq!(h.packets.get(p).tuple.src_addr, WAN_HOST);
                n += 1;
            }
            h.now = q.next_wakeup(h.now).expect("backlogged");
        }
        let gap = SimTime::transmission(1500, 7_200_000);
        assert_eq!(n, SimTime::from_secs(1).0.div_ceil(gap.0));
        // The tick at 1 s measured n WLAN-virtual packets (1520 B each) from the WAN.
        let lan = tcp(&mut h, 1, STA[1], 1460);
        h.enqueue(&mut q, lan);
        let r_wan = (n - 1) * 1520 * 8; // the packet released at 1 s belongs to the next interval
        let want = 4_000_000 - r_wan.min(4_000_000 - 100_000);
        assert!(
            q.wlan.rate_bps.abs_diff(want) <= 1520 * 8,
            "{} vs {want}",
            q.wlan.rate_bps
        );
    }
}
