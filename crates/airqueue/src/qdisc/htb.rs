//! `htb`: Hierarchical Token Bucket (Linux `net/sched/sch_htb.c`, Devera; user guide
//! "HTB Linux queuing discipline manual"; seed 000 §2.2 uses it over IMQ with SFQ leaves).
//!
//! Classes form a tree. Each class has a token bucket at `rate` (depth `burst`) and one at
//! `ceil` (depth `cburst`), kept in nanoseconds of credit as Linux does. A class's mode is
//! CAN_SEND while its rate tokens are ≥ 0, MAY_BORROW while only its ceil tokens are, and
//! CANT_SEND otherwise (`htb_hysteresis` = 0, the kernel default). Leaves hold the packets
//! in a child discipline (default pfifo with the device's txqueuelen).
//!
//! A backlogged leaf is linked into the "feed" of its parent while it may borrow, up
//! through borrowing ancestors, until a CAN_SEND class, which sits in the "row" of its
//! level for the leaf's `prio` (`htb_activate_prios`). Dequeue serves the direct queue
//! first, then rows level by level from the leaves (level 0) up, and inside a level by
//! `prio` (lower first); inside a row or feed classes take turns in class order by a
//! round-robin pointer, a leaf keeping its turn while its `deficit` for that level lasts
//! (it gains `quantum` when it runs out), exactly as `htb_dequeue_tree`/`htb_lookup_leaf`
//! walk their rb-trees. So: a leaf below its rate sends first; excess bandwidth goes to
//! borrowing leaves by `prio`, and among equal prios in proportion to their quanta. The
//! packet is charged up the tree (`htb_charge_class`): classes at or above the level it
//! was found at pay rate tokens, all pay ceil tokens; mode changes are scheduled in a wait
//! queue per level and applied when due (`htb_do_events`). A leaf therefore borrows from
//! its lowest CAN_SEND ancestor and is capped by every ceil on its path.
//!
//! Defaults as tc computes them (`tc/q_htb.c`): `ceil` = rate; `burst` = rate/HZ + mtu
//! and `cburst` = ceil/HZ + mtu with mtu 1600 B and HZ as a current kernel reports it in
//! `/proc/net/psched` (10⁹ with high-resolution timers, so bursts are ≈ 1600 B; kernels
//! of the seeds' era had HZ 100–1000 and bursts of rate/HZ + 1600, which you can write
//! explicitly); leaf `quantum` = rate (bytes/s) / `r2q` (10), clamped to 1000–200000 B
//! when derived; `prio` 0. Classes are ordered (Linux: by classid) in the order they are
//! written. Classes without `parent` are root classes: like Linux, roots never lend to
//! each other, so put a common parent above classes that should share.
//!
//! Classification: the first leaf whose `match` takes the packet, else `default`; without
//! `default` (tc's `default 0`) unclassified packets go to the **direct queue**, which is
//! unshaped, holds `direct_qlen` packets and is served before every class (the classic
//! pitfall the Linux docs warn about).
//!
//! On a virtual device (IMQ) every round-robin pointer exists once per member interface,
//! so a member's search through rows and feeds never moves another member's turn; a leaf
//! with nothing for the asking member is passed over as Linux passes over a
//! non-work-conserving leaf. Token buckets and deficits are shared: shaping is per class,
//! whichever member sends.

use super::class_stats::{self, ClassStats, ClassView, Stash, WalkedClass};
use super::classify::{Classifier, Match, MatchSpec};
use super::fifo_queue::PacketFifo;
use super::{build_child, BuildCtx, Child, ClassReport, ClassSample, Qdisc, QdiscCtx, Verdict};
use crate::conf::{Bytes, Rate, ScenarioError};
use crate::engine::SimTime;
use crate::packet::{DropReason, PacketId};
use crate::qdisc::QdiscConf;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};

/// TC_HTB_MAXDEPTH: levels 0 (leaves) to 7 (root classes with children).
const MAXDEPTH: usize = 8;
/// TC_HTB_NUMPRIO.
const NUMPRIO: usize = 8;
/// `cl->mbuffer`: the most credit or debt a bucket accrues in one step, 60 s.
const MBUFFER_NS: i64 = 60_000_000_000;
/// tc's default `mtu` added to derived bursts.
const TC_MTU: u64 = 1600;
/// HZ as tc reads it from /proc/net/psched on kernels with high-resolution timers.
const TC_HZ: u64 = 1_000_000_000;

fn default_r2q() -> u32 {
    10
}
fn default_direct_qlen() -> u32 {
    1000
}

/// Parameters of `htb` (`tc qdisc add … htb default X r2q N`, classes `tc class add … htb
/// rate R ceil C burst B cburst CB prio P quantum Q`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HtbConf {
    /// Leaf class that unclassified packets go to. Absent (tc's `default 0`): they go to
    /// the direct queue, unshaped and served before every class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Leaf quanta are rate (bytes/s) / r2q, clamped to 1000–200000 B, unless a class
    /// gives `quantum`. Default: 10.
    #[serde(default = "default_r2q")]
    #[schemars(range(min = 1))]
    pub r2q: u32,
    /// Packets the direct queue holds. Default: txqueuelen 1000.
    #[serde(default = "default_direct_qlen")]
    pub direct_qlen: u32,
    /// The classes, parents before or after their children, in class order.
    pub classes: Vec<HtbClassConf>,
}

/// One class of `htb`. A class that is some class's `parent` is an inner class: it shapes
/// and lends but takes no packets itself (no `match`, no `qdisc`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HtbClassConf {
    /// Name of the class (`parent` and `default` refer to it; result tables show it).
    pub name: String,
    /// The parent class. Absent: a root class (tc `parent 1:`); roots do not borrow from
    /// each other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Guaranteed rate, e.g. "3Mbit".
    pub rate: Rate,
    /// The most the class may send, borrowing from ancestors. Default: `rate` (no
    /// borrowing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceil: Option<Rate>,
    /// Bytes that may leave at once at more than `rate` after idling. Default (tc):
    /// rate/HZ + 1600 B ≈ 1600 B on current kernels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<Bytes>,
    /// Like `burst`, for the ceil bucket. Default (tc): ceil/HZ + 1600 B.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cburst: Option<Bytes>,
    /// Priority of a leaf, 0 (first) – 7: spare bandwidth goes to lower values first.
    #[serde(default)]
    #[schemars(range(max = 7))]
    pub prio: u8,
    /// Bytes a leaf sends per turn when it borrows or shares a level. Default: rate
    /// (bytes/s) / r2q, clamped to 1000–200000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantum: Option<Bytes>,
    /// Packets this leaf takes (first matching leaf wins, then `default`).
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub match_: Option<MatchSpec>,
    /// The leaf's child qdisc, any kind (default `pfifo`, limit 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qdisc: Option<Box<QdiscConf>>,
}

impl HtbConf {
    /// Tree and range checks, with the class name in every path.
    pub fn check(&self, path: &str, errs: &mut ScenarioError) {
        super::check_class_names(path, self.classes.iter().map(|c| c.name.as_str()), errs);
        if self.r2q == 0 {
            errs.push(format!("{path}.r2q"), "must be at least 1 (10 is tc's)");
        }
        let index: HashMap<&str, usize> = self
            .classes
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.as_str(), i))
            .collect();
        let known = || {
            let v: Vec<&str> = self.classes.iter().map(|c| c.name.as_str()).collect();
            v.join(", ")
        };
        let mut has_children = vec![false; self.classes.len()];
        for c in &self.classes {
            let p = format!("{path}.classes.{}", c.name);
            if let Some(parent) = &c.parent {
                match index.get(parent.as_str()) {
                    Some(&i) if *parent == c.name => {
                        errs.push(format!("{p}.parent"), "names the class itself");
                        has_children[i] = true;
                    }
                    Some(&i) => has_children[i] = true,
                    None => errs.push(
                        format!("{p}.parent"),
                        format!("\"{parent}\" names no class; classes: {}", known()),
                    ),
                }
            }
            if c.rate.bps() == 0 {
                errs.push(format!("{p}.rate"), "must be above zero, e.g. \"1Mbit\"");
            }
            if let Some(ceil) = c.ceil {
                if ceil.bps() < c.rate.bps() {
                    errs.push(
                        format!("{p}.ceil"),
                        format!(
                            "{ceil} is below the class's rate ({}); ceil must be ≥ rate",
                            c.rate
                        ),
                    );
                }
            }
            if c.prio as usize >= NUMPRIO {
                errs.push(format!("{p}.prio"), format!("{} is outside 0–7", c.prio));
            }
            match c.quantum {
                Some(Bytes(0)) => errs.push(format!("{p}.quantum"), "must be at least 1 byte"),
                Some(Bytes(q)) if q > i32::MAX as u64 => {
                    errs.push(format!("{p}.quantum"), "is larger than 2 GiB; lower it")
                }
                _ => {}
            }
            for (key, b) in [("burst", c.burst), ("cburst", c.cburst)] {
                if b.is_some_and(|b| b.0 > u32::MAX as u64) {
                    errs.push(format!("{p}.{key}"), "is larger than 4 GiB; lower it");
                }
            }
        }
        for (c, &inner) in self.classes.iter().zip(&has_children) {
            let p = format!("{path}.classes.{}", c.name);
            if inner && c.match_.is_some() {
                errs.push(
                    format!("{p}.match"),
                    "this class has children, so it takes no packets; move the match to a leaf",
                );
            }
            if inner && c.qdisc.is_some() {
                errs.push(
                    format!("{p}.qdisc"),
                    "this class has children, so it holds no qdisc; give the qdisc to a leaf",
                );
            }
            if let Some(q) = &c.qdisc {
                super::check(q, &format!("{p}.qdisc"), errs);
            }
        }
        // Cycles and depth: walk up from each class.
        for (i, c) in self.classes.iter().enumerate() {
            let mut depth = 1;
            let mut at = i;
            while let Some(&up) = self.classes[at]
                .parent
                .as_deref()
                .and_then(|n| index.get(n))
            {
                if up == at {
                    break;
                }
                depth += 1;
                at = up;
                if depth > self.classes.len() {
                    errs.push(
                        format!("{path}.classes.{}.parent", c.name),
                        "the parents form a cycle; a class cannot be its own ancestor",
                    );
                    break;
                }
            }
            if depth > MAXDEPTH && depth <= self.classes.len() {
                errs.push(
                    format!("{path}.classes.{}.parent", c.name),
                    format!("the tree is {depth} levels deep here; htb allows 8"),
                );
            }
        }
        if let Some(d) = &self.default {
            match index.get(d.as_str()) {
                None => errs.push(
                    format!("{path}.default"),
                    format!(
                        "\"{d}\" names no class; name a leaf ({}) or remove `default` to send \
                         unclassified packets to the direct queue",
                        known()
                    ),
                ),
                Some(&i) if has_children[i] => errs.push(
                    format!("{path}.default"),
                    format!(
                        "\"{d}\" has children; the default must be a leaf (Linux would \
                         silently use the unshaped direct queue instead)"
                    ),
                ),
                _ => {}
            }
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Mode {
    CantSend,
    MayBorrow,
    CanSend,
}

/// Classes of one row or feed in class order with a round-robin pointer per asking member
/// (the rb-tree, `ptr` and `last_ptr_id` of sch_htb.c). `ptr[s] = Some(c)` implies `c` is
/// in the set.
#[derive(Default)]
struct RrSet {
    ids: Vec<u32>,
    ptr: Vec<Option<u32>>,
    last: Vec<Option<u32>>,
}

impl RrSet {
    fn new(capacity: usize, slots: usize) -> Self {
        RrSet {
            ids: Vec::with_capacity(capacity),
            ptr: vec![None; slots],
            last: vec![None; slots],
        }
    }
    #[inline]
    fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
    #[inline]
    fn insert(&mut self, c: u32) {
        let i = self.ids.partition_point(|&x| x < c);
        debug_assert!(self.ids.get(i) != Some(&c), "class {c} linked twice");
        self.ids.insert(i, c);
    }
    #[inline]
    fn first(&self) -> Option<u32> {
        self.ids.first().copied()
    }
    /// `rb_next`: the next class after `c` in class order.
    #[inline]
    fn next_after(&self, c: u32) -> Option<u32> {
        self.ids.get(self.ids.partition_point(|&x| x <= c)).copied()
    }
    /// `htb_id_find_next_upper`: the first class ≥ `c`.
    #[inline]
    fn first_from(&self, c: u32) -> Option<u32> {
        self.ids.get(self.ids.partition_point(|&x| x < c)).copied()
    }
    #[inline]
    fn remove(&mut self, c: u32) {
        if let Ok(i) = self.ids.binary_search(&c) {
            self.ids.remove(i);
        } else {
            debug_assert!(false, "class {c} unlinked but not linked");
        }
    }
    /// `htb_remove_class_from_row`: pointers at `c` move on to the next class.
    fn remove_from_row(&mut self, c: u32) {
        for s in 0..self.ptr.len() {
            if self.ptr[s] == Some(c) {
                self.ptr[s] = self.next_after(c);
            }
        }
        self.remove(c);
    }
    /// `htb_deactivate_prios`: pointers at `c` are forgotten, remembering `c`.
    fn remove_from_feed(&mut self, c: u32) {
        for s in 0..self.ptr.len() {
            if self.ptr[s] == Some(c) {
                self.last[s] = Some(c);
                self.ptr[s] = None;
            }
        }
        self.remove(c);
    }
    fn add_slot(&mut self) {
        self.ptr.push(None);
        self.last.push(None);
    }
    /// Advances member `s`'s pointer (`htb_next_rb_node`).
    #[inline]
    fn advance(&mut self, s: usize) {
        if let Some(c) = self.ptr[s] {
            self.ptr[s] = self.next_after(c);
        }
    }
}

/// Where a row or feed lives.
#[derive(Copy, Clone, Debug)]
enum SetRef {
    Row(u8, u8),
    Feed(u32, u8),
}

struct Class {
    name: String,
    parent: Option<u32>,
    level: u8,
    prio: u8,
    rate_bps: u64,
    ceil_bps: u64,
    quantum: i64,
    buffer: i64,
    cbuffer: i64,
    tokens: i64,
    ctokens: i64,
    t_c: SimTime,
    mode: Mode,
    /// Bit p set: the class is active at prio p (in a row or its parent's feed).
    prio_activity: u8,
    in_wait: bool,
    deficit: [i64; MAXDEPTH],
    /// Inner classes: the borrowing children per prio.
    feeds: Vec<RrSet>,
    /// Leaves: the child discipline and the class's counters.
    leaf: Option<Child>,
    /// Inner classes: lends/borrows (leaves keep theirs in the child's stats).
    inner_stats: ClassStats,
}

impl Class {
    #[inline]
    fn leaf(&self) -> &Child {
        self.leaf.as_ref().expect("a leaf class")
    }
    #[inline]
    fn leaf_mut(&mut self) -> &mut Child {
        self.leaf.as_mut().expect("a leaf class")
    }
}

impl WalkedClass for Class {
    #[inline]
    fn view(&self) -> ClassView<'_> {
        ClassView {
            name: &self.name,
            parent: self.parent,
            rate_bps: self.rate_bps,
            ceil_bps: self.ceil_bps,
            child: self.leaf.as_ref(),
            lends: self.inner_stats.lends,
            borrows: self.inner_stats.borrows,
        }
    }
    fn reset_stats(&mut self) {
        self.inner_stats.reset();
        if let Some(l) = self.leaf.as_mut() {
            l.reset_stats();
        }
    }
}

/// `psched_l2t_ns`: nanoseconds to send `bytes` at `rate_bps` (rounded up).
#[inline]
fn l2t(bytes: u64, rate_bps: u64) -> i64 {
    (bytes * 8_000_000_000).div_ceil(rate_bps) as i64
}

pub struct Htb {
    classes: Vec<Class>,
    classifier: Classifier,
    /// Whether unclassified packets go to the direct queue (no `default`).
    direct_used: bool,
    direct: PacketFifo,
    direct_qlen: u32,
    direct_stats: ClassStats,
    direct_backlog: u64,
    rows: Vec<RrSet>,
    row_mask: [u8; MAXDEPTH],
    wait: Vec<VecDeque<(SimTime, u32)>>,
    near_ev_cache: [SimTime; MAXDEPTH],
    now: SimTime,
    /// Members seen asking (`None`: a real interface); index = pointer slot.
    slots: Vec<Option<u32>>,
    stash: Stash,
    len: usize,
    backlog: u64,
    /// Classes going over their limit (`q->overlimits` in `htb_change_class_mode`).
    overlimits: u64,
}

impl Htb {
    pub fn build(c: &HtbConf, b: &BuildCtx, errs: &mut ScenarioError) -> Htb {
        let n = c.classes.len();
        let index: HashMap<&str, u32> = c
            .classes
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.as_str(), i as u32))
            .collect();
        let parent: Vec<Option<u32>> = c
            .classes
            .iter()
            .map(|cc| cc.parent.as_deref().and_then(|p| index.get(p).copied()))
            .collect();
        let mut has_children = vec![false; n];
        for p in parent.iter().flatten() {
            has_children[*p as usize] = true;
        }
        // Levels top down: root inner classes at 7, their inner children one less; leaves 0.
        let mut level = vec![0u8; n];
        for i in 0..n {
            if !has_children[i] {
                continue;
            }
            let mut depth = 0;
            let mut at = parent[i];
            while let Some(p) = at {
                depth += 1;
                at = parent[p as usize];
                if depth > MAXDEPTH {
                    break;
                }
            }
            level[i] = (MAXDEPTH - 1).saturating_sub(depth) as u8;
        }
        let mut rules = Vec::new();
        let mut classes = Vec::with_capacity(n);
        for (i, cc) in c.classes.iter().enumerate() {
            let rate = cc.rate.bps().max(1);
            let ceil = cc.ceil.map_or(rate, |r| r.bps().max(1));
            let burst = cc.burst.map_or(rate / 8 / TC_HZ + TC_MTU, |x| x.0);
            let cburst = cc.cburst.map_or(ceil / 8 / TC_HZ + TC_MTU, |x| x.0);
            let quantum = cc.quantum.map_or_else(
                || (rate / 8 / c.r2q.max(1) as u64).clamp(1000, 200_000),
                |q| q.0,
            );
            let leaf = if has_children[i] {
                None
            } else {
                if let Some(m) = &cc.match_ {
                    let path = format!("{}.classes.{}.match", b.path, cc.name);
                    rules.push((Match::resolve(m, b.names, &path, errs), i as u32));
                }
                Some(build_child(cc.qdisc.as_deref(), &cc.name, b, errs))
            };
            let children = parent.iter().filter(|p| **p == Some(i as u32)).count();
            let buffer = l2t(burst, rate);
            let cbuffer = l2t(cburst, ceil);
            classes.push(Class {
                name: cc.name.clone(),
                parent: parent[i],
                level: level[i],
                prio: cc.prio.min(NUMPRIO as u8 - 1),
                rate_bps: rate,
                ceil_bps: ceil,
                quantum: quantum as i64,
                buffer,
                cbuffer,
                tokens: buffer,
                ctokens: cbuffer,
                t_c: SimTime::ZERO,
                mode: Mode::CanSend,
                prio_activity: 0,
                in_wait: false,
                deficit: [0; MAXDEPTH],
                feeds: if has_children[i] {
                    (0..NUMPRIO).map(|_| RrSet::new(children, 1)).collect()
                } else {
                    Vec::new()
                },
                leaf,
                inner_stats: ClassStats::default(),
            });
        }
        let default = c
            .default
            .as_deref()
            .and_then(|d| index.get(d).copied())
            .filter(|&d| !has_children[d as usize]);
        let per_level = |l: usize| level.iter().filter(|&&x| x as usize == l).count();
        Htb {
            rows: (0..MAXDEPTH * NUMPRIO)
                .map(|i| RrSet::new(per_level(i / NUMPRIO), 1))
                .collect(),
            wait: (0..MAXDEPTH)
                .map(|l| VecDeque::with_capacity(per_level(l)))
                .collect(),
            classes,
            classifier: Classifier::new(rules, default),
            direct_used: default.is_none(),
            direct: PacketFifo::default(),
            direct_qlen: c.direct_qlen,
            direct_stats: ClassStats::default(),
            direct_backlog: 0,
            row_mask: [0; MAXDEPTH],
            near_ev_cache: [SimTime::ZERO; MAXDEPTH],
            now: SimTime::ZERO,
            slots: vec![None],
            stash: Stash::default(),
            len: 0,
            backlog: 0,
            overlimits: 0,
        }
    }

    #[inline]
    fn set(&mut self, r: SetRef) -> &mut RrSet {
        match r {
            SetRef::Row(l, p) => &mut self.rows[l as usize * NUMPRIO + p as usize],
            SetRef::Feed(c, p) => &mut self.classes[c as usize].feeds[p as usize],
        }
    }

    /// The pointer slot of the asking member, created on its first request.
    #[inline]
    fn slot(&mut self, member: Option<u32>) -> usize {
        if let Some(s) = self.slots.iter().position(|&m| m == member) {
            return s;
        }
        self.slots.push(member);
        self.rows.iter_mut().for_each(RrSet::add_slot);
        for c in &mut self.classes {
            c.feeds.iter_mut().for_each(RrSet::add_slot);
        }
        self.slots.len() - 1
    }

    /// `htb_class_mode`: the mode at `t_c + diff`; for a mode other than CAN_SEND, `diff`
    /// becomes the time until the class may change mode.
    #[inline]
    fn class_mode(&self, c: u32, diff: &mut i64) -> Mode {
        let cl = &self.classes[c as usize];
        let toks = cl.ctokens + *diff;
        if toks < 0 {
            *diff = -toks;
            return Mode::CantSend;
        }
        let toks = cl.tokens + *diff;
        if toks >= 0 {
            return Mode::CanSend;
        }
        *diff = -toks;
        Mode::MayBorrow
    }

    /// `htb_change_class_mode`.
    fn change_class_mode(&mut self, c: u32, diff: &mut i64) {
        let new = self.class_mode(c, diff);
        let old = self.classes[c as usize].mode;
        if new == old {
            return;
        }
        self.overlimits += u64::from(new == Mode::CantSend);
        if self.classes[c as usize].prio_activity != 0 {
            if old != Mode::CantSend {
                self.deactivate_prios(c);
            }
            self.classes[c as usize].mode = new;
            if new != Mode::CantSend {
                self.activate_prios(c);
            }
        } else {
            self.classes[c as usize].mode = new;
        }
    }

    /// `htb_activate_prios`: link `c` into its parent's feeds while it may borrow, up to a
    /// class that can send, which joins its row.
    fn activate_prios(&mut self, mut c: u32) {
        let mut mask = self.classes[c as usize].prio_activity;
        while self.classes[c as usize].mode == Mode::MayBorrow && mask != 0 {
            let Some(p) = self.classes[c as usize].parent else {
                break;
            };
            let mut m = mask;
            while m != 0 {
                let prio = m.trailing_zeros() as usize;
                m &= m - 1;
                let feed = &mut self.classes[p as usize].feeds[prio];
                if !feed.is_empty() {
                    // The parent is already linked at this prio.
                    mask &= !(1 << prio);
                }
                feed.insert(c);
            }
            self.classes[p as usize].prio_activity |= mask;
            c = p;
        }
        if self.classes[c as usize].mode == Mode::CanSend && mask != 0 {
            self.add_class_to_row(c, mask);
        }
    }

    /// `htb_deactivate_prios`: the reverse of [`Self::activate_prios`] (with the old mode).
    fn deactivate_prios(&mut self, mut c: u32) {
        let mut mask = self.classes[c as usize].prio_activity;
        while self.classes[c as usize].mode == Mode::MayBorrow && mask != 0 {
            let Some(p) = self.classes[c as usize].parent else {
                break;
            };
            let mut m = mask;
            mask = 0;
            while m != 0 {
                let prio = m.trailing_zeros() as usize;
                m &= m - 1;
                let feed = &mut self.classes[p as usize].feeds[prio];
                feed.remove_from_feed(c);
                if feed.is_empty() {
                    mask |= 1 << prio;
                }
            }
            self.classes[p as usize].prio_activity &= !mask;
            c = p;
        }
        if self.classes[c as usize].mode == Mode::CanSend && mask != 0 {
            self.remove_class_from_row(c, mask);
        }
    }

    fn add_class_to_row(&mut self, c: u32, mut mask: u8) {
        let level = self.classes[c as usize].level;
        self.row_mask[level as usize] |= mask;
        while mask != 0 {
            let prio = mask.trailing_zeros() as u8;
            mask &= mask - 1;
            self.set(SetRef::Row(level, prio)).insert(c);
        }
    }

    fn remove_class_from_row(&mut self, c: u32, mut mask: u8) {
        let level = self.classes[c as usize].level;
        let mut emptied = 0;
        while mask != 0 {
            let prio = mask.trailing_zeros() as u8;
            mask &= mask - 1;
            let row = self.set(SetRef::Row(level, prio));
            row.remove_from_row(c);
            if row.is_empty() {
                emptied |= 1 << prio;
            }
        }
        self.row_mask[level as usize] &= !emptied;
    }

    /// `htb_activate`: a leaf that got packets joins at its prio.
    fn activate(&mut self, c: u32) {
        let cl = &mut self.classes[c as usize];
        if cl.prio_activity == 0 {
            cl.prio_activity = 1 << cl.prio;
            self.activate_prios(c);
        }
    }

    /// `htb_deactivate`: an emptied leaf leaves its feeds/rows.
    fn deactivate(&mut self, c: u32) {
        debug_assert!(self.classes[c as usize].prio_activity != 0);
        self.deactivate_prios(c);
        self.classes[c as usize].prio_activity = 0;
    }

    /// `htb_add_to_wait_tree`: `c` may change mode in `delay` ns.
    fn add_to_wait(&mut self, c: u32, delay: i64) {
        let mut key = self.now + SimTime(delay.max(0) as u64);
        if key == self.now {
            key += SimTime(1);
        }
        let level = self.classes[c as usize].level as usize;
        let q = &mut self.wait[level];
        let at = q.partition_point(|&(k, _)| k <= key);
        q.insert(at, (key, c));
        self.classes[c as usize].in_wait = true;
        if self.near_ev_cache[level] > key {
            self.near_ev_cache[level] = key;
        }
    }

    fn remove_from_wait(&mut self, c: u32) {
        let level = self.classes[c as usize].level as usize;
        let q = &mut self.wait[level];
        if let Some(i) = q.iter().position(|&(_, x)| x == c) {
            q.remove(i);
        }
        self.classes[c as usize].in_wait = false;
    }

    /// `htb_do_events`: applies the mode changes due at `level`; the next one's time.
    fn do_events(&mut self, level: usize) -> Option<SimTime> {
        loop {
            let &(key, c) = self.wait[level].front()?;
            if key > self.now {
                return Some(key);
            }
            self.wait[level].pop_front();
            self.classes[c as usize].in_wait = false;
            let mut diff = (self.now - self.classes[c as usize].t_c)
                .0
                .min(MBUFFER_NS as u64) as i64;
            self.change_class_mode(c, &mut diff);
            if self.classes[c as usize].mode != Mode::CanSend {
                self.add_to_wait(c, diff);
            }
        }
    }

    /// `htb_lookup_leaf`: the leaf the pointers of member slot `s` lead to from row
    /// (`level`, `prio`), descending through feeds; a feed whose pointer ran off its end
    /// rewinds and moves its parent's pointer on.
    fn lookup_leaf(&mut self, level: u8, prio: u8, s: usize) -> Option<u32> {
        let mut stack = [SetRef::Row(level, prio); MAXDEPTH];
        let mut sp = 0;
        for _ in 0..65_535 {
            let set = self.set(stack[sp]);
            if set.ptr[s].is_none() {
                if let Some(last) = set.last[s] {
                    set.ptr[s] = set.first_from(last);
                }
            }
            set.last[s] = None;
            match set.ptr[s] {
                None => {
                    set.ptr[s] = set.first();
                    if set.ptr[s].is_none() {
                        debug_assert!(false, "htb: empty set on the lookup path");
                        return None;
                    }
                    if sp > 0 {
                        sp -= 1;
                        let up = self.set(stack[sp]);
                        up.ptr[s]?;
                        up.advance(s);
                    }
                }
                Some(c) => {
                    if self.classes[c as usize].level == 0 {
                        return Some(c);
                    }
                    sp += 1;
                    if sp >= MAXDEPTH {
                        debug_assert!(false, "htb: tree deeper than 8 levels");
                        return None;
                    }
                    stack[sp] = SetRef::Feed(c, prio);
                }
            }
        }
        debug_assert!(false, "htb: lookup did not terminate");
        None
    }

    /// Moves the turn on from leaf `c` found at `level`: the leaf's place in its parent's
    /// feed, or in the level-0 row.
    #[inline]
    fn next_turn(&mut self, c: u32, level: u8, prio: u8, s: usize) {
        let r = match (level, self.classes[c as usize].parent) {
            (0, _) | (_, None) => SetRef::Row(0, prio),
            (_, Some(p)) => SetRef::Feed(p, prio),
        };
        self.set(r).advance(s);
    }

    /// `htb_dequeue_tree`: a packet from row (`level`, `prio`) for the asker.
    fn dequeue_tree(
        &mut self,
        prio: u8,
        level: u8,
        s: usize,
        ctx: &mut QdiscCtx,
    ) -> Option<PacketId> {
        let mut start = self.lookup_leaf(level, prio, s)?;
        let mut cl = start;
        let mut guard = 4 * (self.classes.len() + MAXDEPTH);
        let (c, p) = loop {
            guard -= 1;
            if guard == 0 {
                debug_assert!(false, "htb: dequeue_tree did not terminate");
                return None;
            }
            if self.classes[cl as usize].leaf().is_empty() {
                // The child dropped its packets itself; forget the class.
                self.deactivate(cl);
                if self.row_mask[level as usize] & (1 << prio) == 0 {
                    return None;
                }
                let next = self.lookup_leaf(level, prio, s)?;
                if cl == start {
                    start = next;
                }
                cl = next;
                continue;
            }
            let child = self.classes[cl as usize].leaf_mut();
            let before = (child.len(), child.backlog_bytes());
            let got = child.dequeue(ctx);
            let after = (child.len(), child.backlog_bytes());
            self.len = self.len + after.0 - before.0;
            self.backlog = self.backlog + after.1 - before.1;
            if let Some(p) = got {
                break (cl, p);
            }
            // Nothing now: a non-work-conserving leaf, or nothing for this member.
            self.next_turn(cl, level, prio, s);
            cl = self.lookup_leaf(level, prio, s)?;
            if cl == start {
                return None;
            }
        };
        let len = ctx.len_of(p);
        let class = &mut self.classes[c as usize];
        class.deficit[level as usize] -= len as i64;
        if class.deficit[level as usize] < 0 {
            class.deficit[level as usize] += class.quantum;
            self.next_turn(c, level, prio, s);
        }
        if self.classes[c as usize].leaf().is_empty() {
            self.deactivate(c);
        }
        self.charge_class(c, level, len as u64);
        Some(p)
    }

    /// `htb_charge_class`: the packet's cost, leaf to root.
    fn charge_class(&mut self, leaf: u32, level: u8, bytes: u64) {
        let now = self.now;
        let mut at = Some(leaf);
        while let Some(c) = at {
            let cl = &mut self.classes[c as usize];
            let diff = (now - cl.t_c).0.min(MBUFFER_NS as u64) as i64;
            let counters = match cl.leaf.as_mut() {
                Some(child) => &mut child.stats,
                None => &mut cl.inner_stats,
            };
            if cl.level >= level {
                if cl.level == level {
                    counters.lends += 1;
                }
                cl.tokens = accnt(cl.tokens, diff, cl.buffer, l2t(bytes, cl.rate_bps));
            } else {
                counters.borrows += 1;
                cl.tokens += diff;
            }
            cl.ctokens = accnt(cl.ctokens, diff, cl.cbuffer, l2t(bytes, cl.ceil_bps));
            cl.t_c = now;
            let old = cl.mode;
            let mut d = 0;
            self.change_class_mode(c, &mut d);
            let new = self.classes[c as usize].mode;
            if old != new {
                if old != Mode::CanSend && self.classes[c as usize].in_wait {
                    self.remove_from_wait(c);
                }
                if new != Mode::CanSend {
                    self.add_to_wait(c, d);
                }
            }
            at = self.classes[c as usize].parent;
        }
    }

    fn dequeue_inner(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(p) = self.direct.take(ctx) {
            let pk = ctx.packets.get(p);
            self.direct_stats
                .on_dequeue(pk.size_bytes, ctx.now - pk.enqueued);
            let len = ctx.len_of(p) as u64;
            self.direct_backlog -= len;
            self.len -= 1;
            self.backlog -= len;
            return Some(p);
        }
        if self.len == self.direct.len() + self.stash.len() {
            return None;
        }
        let s = self.slot(ctx.member);
        self.now = ctx.now;
        for level in 0..MAXDEPTH {
            if self.now >= self.near_ev_cache[level] {
                let ev = self.do_events(level);
                self.near_ev_cache[level] = ev.unwrap_or(self.now + SimTime::from_secs(1));
            }
            let mask = self.row_mask[level];
            for prio in 0..NUMPRIO as u8 {
                if mask & (1 << prio) == 0 || self.row_mask[level] & (1 << prio) == 0 {
                    continue;
                }
                if let Some(p) = self.dequeue_tree(prio, level as u8, s, ctx) {
                    return Some(p);
                }
            }
        }
        None
    }
}

/// `htb_accnt_tokens`/`htb_accnt_ctokens`: refill by `diff` up to `buffer`, pay `cost`,
/// never owing more than `mbuffer`.
#[inline]
fn accnt(tokens: i64, diff: i64, buffer: i64, cost: i64) -> i64 {
    let toks = (tokens + diff).min(buffer) - cost;
    if toks <= -MBUFFER_NS {
        1 - MBUFFER_NS
    } else {
        toks
    }
}

impl Qdisc for Htb {
    fn kind(&self) -> &'static str {
        "htb"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        let len = ctx.len_of(pkt);
        let Some(c) = self.classifier.classify(ctx.packets.get(pkt)) else {
            if (self.direct.len() as u64) < self.direct_qlen as u64 {
                self.direct.push_back(pkt);
                self.direct_stats.on_enqueue(len);
                self.direct_backlog += len as u64;
                self.len += 1;
                self.backlog += len as u64;
                return Verdict::Queued;
            }
            self.direct_stats.on_drop(DropReason::QdiscOverflow, false);
            ctx.drop_packet(pkt, DropReason::QdiscOverflow);
            return Verdict::Dropped;
        };
        let child = self.classes[c as usize].leaf_mut();
        let before = (child.len(), child.backlog_bytes());
        let v = child.enqueue(pkt, ctx);
        let after = (child.len(), child.backlog_bytes());
        self.len = self.len + after.0 - before.0;
        self.backlog = self.backlog + after.1 - before.1;
        if after.0 > 0 {
            self.activate(c);
        }
        v
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(p) = self.stash.take(ctx.member) {
            self.len -= 1;
            self.backlog -= ctx.len_of(p) as u64;
            return Some(p);
        }
        self.dequeue_inner(ctx)
    }

    /// Linux's `qdisc_peek_dequeued`: the decision is made, the packet kept for the next
    /// dequeue.
    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(p) = self.stash.peek(ctx.member) {
            return Some(p);
        }
        let p = self.dequeue_inner(ctx)?;
        let len = ctx.len_of(p);
        self.stash.put(ctx.member, p, len);
        self.len += 1;
        self.backlog += len as u64;
        Some(p)
    }

    fn len(&self) -> usize {
        self.len
    }

    fn backlog_bytes(&self) -> u64 {
        self.backlog
    }

    /// The next pending mode change, or a non-work-conserving leaf's own wakeup.
    fn next_wakeup(&self, now: SimTime) -> Option<SimTime> {
        let events = self.wait.iter().filter_map(|q| q.front().map(|&(k, _)| k));
        let leaves = self
            .classes
            .iter()
            .filter(|c| c.prio_activity != 0)
            .filter_map(|c| c.leaf.as_ref())
            .filter_map(|l| l.qdisc.next_wakeup(now));
        events.chain(leaves).filter(|&t| t > now).min()
    }

    fn serves_members(&self) -> bool {
        true
    }

    fn report_classes(&self, prefix: &str, parent: &str, out: &mut Vec<ClassReport>) {
        if self.direct_used {
            out.push(ClassReport {
                class: format!("{prefix}(direct)"),
                parent: parent.to_string(),
                kind: "htb",
                qdisc: "",
                rate_bps: 0,
                ceil_bps: 0,
                stats: self.direct_stats.clone(),
                backlog_packets: self.direct.len() as u64,
                backlog_bytes: self.direct_backlog,
            });
        }
        class_stats::report_classes("htb", &self.classes, prefix, parent, out);
    }

    fn sample_classes(&self, out: &mut Vec<ClassSample>) {
        if self.direct_used {
            let n = self.direct.len() as u64;
            out.push(ClassSample::of(&self.direct_stats, n, self.direct_backlog));
        }
        class_stats::sample_classes(&self.classes, out);
    }

    fn overlimits(&self) -> u64 {
        self.overlimits
    }

    fn reset_stats(&mut self) {
        self.overlimits = 0;
        self.direct_stats.reset();
        class_stats::reset_classes(&mut self.classes);
    }
}

impl Htb {
    /// Tokens of class `name` in bytes at rate (tests: inspecting the buckets).
    #[cfg(test)]
    fn tokens_bytes(&self, name: &str) -> (i64, i64) {
        let c = self.classes.iter().find(|c| c.name == name).unwrap();
        (
            c.tokens * c.rate_bps as i64 / 8_000_000_000,
            c.ctokens * c.ceil_bps as i64 / 8_000_000_000,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::classify::NameTable;
    use crate::qdisc::testing::Harness;

    fn names() -> NameTable {
        NameTable {
            flows: (0..4).map(|i| format!("f{i}")).collect(),
            nodes: vec![],
            ifaces: vec!["a.wlan".into(), "a.bt".into()],
        }
    }

    fn build(h: &Harness, v: serde_json::Value) -> Htb {
        let c: HtbConf = serde_json::from_value(v).unwrap();
        let mut errs = ScenarioError::default();
        c.check("qdiscs.h", &mut errs);
        let n = names();
        let q = Htb::build(&c, &h.build_ctx(&n), &mut errs);
        assert!(errs.is_empty(), "{errs}");
        q
    }

    fn check(v: serde_json::Value) -> Vec<String> {
        let c: HtbConf = serde_json::from_value(v).unwrap();
        let mut errs = ScenarioError::default();
        c.check("qdiscs.h", &mut errs);
        errs.problems.into_iter().map(|p| p.path).collect()
    }

    /// Reference: tc/q_htb.c defaults: ceil = rate, burst = rate/HZ + mtu (1600) with HZ
    /// = 10⁹, quantum = rate/r2q clamped to [1000, 200000]; buckets start full.
    #[test]
    fn defaults_follow_tc() {
        let h = Harness::new();
        let q = build(
            &h,
            serde_json::json!({"classes": [
                {"name": "slow", "rate": "64kbit"},
                {"name": "mid", "rate": "8Mbit"},
                {"name": "fast", "rate": "1Gbit"}
            ]}),
        );
        let qu: Vec<i64> = q.classes.iter().map(|c| c.quantum).collect();
        // 8000 B/s / 10 = 800 → 1000; 1e6 B/s / 10 = 100000; 1.25e8 / 10 → 200000.
        assert_eq!(qu, [1000, 100_000, 200_000]);
        assert_eq!(q.tokens_bytes("mid"), (1600, 1600));
        assert_eq!(q.classes[1].ceil_bps, 8_000_000);
    }

    /// Reference: hand-worked token arithmetic of htb_charge_class/htb_class_mode: a root
    /// leaf at 10 Mbit (ceil = rate) with buckets of 15000 B is CAN_SEND while its tokens
    /// are ≥ 0, so 11 packets of 1500 B leave at t = 0 (15000 → 0 → −1500 B); the class
    /// is then CANT_SEND and its mode change is due exactly when the debt is repaid,
    /// 1500 B at 10 Mbit = 1.2 ms.
    #[test]
    fn a_leaf_sends_its_burst_then_waits_for_tokens() {
        let mut h = Harness::new();
        let mut q = build(
            &h,
            serde_json::json!({"default": "a", "classes": [
                {"name": "a", "rate": "10Mbit", "burst": 15000, "cburst": 15000}
            ]}),
        );
        for _ in 0..12 {
            let p = h.packet(0, 1500);
            h.enqueue(&mut q, p);
        }
        // Tokens 15000 B: packets 1–10 bring them to 0 (CAN_SEND), the 11th to −1500 B
        // (MAY_BORROW; a root cannot borrow), so 11 leave at t = 0.
        for i in 0..11 {
            assert!(h.dequeue(&mut q).is_some(), "packet {i}");
        }
        assert_eq!(h.dequeue(&mut q), None);
        // −1500 B at 10 Mbit is 1.2 ms of debt (both buckets: rate = ceil).
        assert_eq!(q.next_wakeup(h.now), Some(SimTime::from_micros(1200)));
        h.now = SimTime::from_micros(1199);
        assert_eq!(h.dequeue(&mut q), None);
        h.now = SimTime::from_micros(1200);
        assert!(h.dequeue(&mut q).is_some());
    }

    /// Reference: Linux HTB serves the direct queue first and unshaped when `default`
    /// names no class (tc `default 0`), the classic pitfall; classified packets wait for
    /// their class's tokens.
    #[test]
    fn without_default_unclassified_packets_bypass_shaping_first() {
        let mut h = Harness::new();
        let mut q = build(
            &h,
            serde_json::json!({"classes": [
                {"name": "a", "rate": "1Mbit", "burst": 1500, "match": {"flow": "f0"}}
            ]}),
        );
        let a: Vec<_> = (0..3).map(|_| h.packet(0, 1500)).collect();
        let d: Vec<_> = (0..3).map(|_| h.packet(1, 1500)).collect();
        for &x in a.iter().chain(&d) {
            h.enqueue(&mut q, x);
        }
        let out: Vec<_> = std::iter::from_fn(|| h.dequeue(&mut q)).collect();
        // The direct queue first, unshaped; then a's 1500 B bucket lets two 1500 B packets
        // go at t = 0 (a class sends while its tokens are ≥ 0: 1500 → 0 → −1500 B).
        assert_eq!(out, [d[0], d[1], d[2], a[0], a[1]]);
        let mut rows = Vec::new();
        q.report_classes("", "", &mut rows);
        assert_eq!(rows[0].class, "(direct)");
        assert_eq!(rows[0].stats.dequeued_packets, 3);
    }

    /// Reference: htb_dequeue's level order and htb_charge_class's borrow accounting:
    /// while a leaf has rate tokens it is served at level 0 and lends to itself; once it
    /// exceeds its rate it is served through its parent's feed and borrows.
    #[test]
    fn a_leaf_over_its_rate_borrows_from_its_parent() {
        let mut h = Harness::new();
        let mut q = build(
            &h,
            serde_json::json!({"default": "a", "classes": [
                {"name": "root", "rate": "10Mbit", "burst": 30000, "cburst": 30000},
                {"name": "a", "parent": "root", "rate": "1Mbit", "ceil": "10Mbit",
                 "burst": 3000, "cburst": 30000}
            ]}),
        );
        for _ in 0..10 {
            let p = h.packet(0, 1500);
            h.enqueue(&mut q, p);
        }
        let sent = std::iter::from_fn(|| h.dequeue(&mut q)).count();
        // a's rate bucket (3000 B) pays for 3 packets at level 0 (tokens 3000 → 1500 → 0
        // → −1500 B, CAN_SEND until negative); then a may borrow and the other 7 leave
        // through root's feed at level 7, paid by root's rate tokens (30000 → 19500 B) and
        // a's ceil tokens (30000 → 15000 B). Nothing runs out: all 10 leave at t = 0.
        assert_eq!(sent, 10);
        let mut rows = Vec::new();
        q.report_classes("", "", &mut rows);
        let a = rows.iter().find(|r| r.class == "a").unwrap();
        assert_eq!((a.stats.lends, a.stats.borrows), (3, 7));
        let root = rows.iter().find(|r| r.class == "root").unwrap();
        assert_eq!(root.stats.lends, 7);
        assert_eq!(root.stats.dequeued_packets, 10);
        assert_eq!(root.parent, "");
        assert_eq!(a.parent, "root");
    }

    #[test]
    fn check_reports_tree_problems_at_the_class() {
        let paths = check(serde_json::json!({"default": "root", "classes": [
            {"name": "root", "rate": "10Mbit", "match": {}},
            {"name": "a", "parent": "root", "rate": "5Mbit", "ceil": "4Mbit"},
            {"name": "b", "parent": "nowhere", "rate": "1Mbit"},
        ]}));
        assert_eq!(
            paths,
            [
                "qdiscs.h.classes.a.ceil",
                "qdiscs.h.classes.b.parent",
                "qdiscs.h.classes.root.match",
                "qdiscs.h.default"
            ]
        );
        let cyc = check(serde_json::json!({"classes": [
            {"name": "x", "parent": "y", "rate": "1Mbit"},
            {"name": "y", "parent": "x", "rate": "1Mbit"},
        ]}));
        assert!(
            cyc.contains(&"qdiscs.h.classes.x.parent".to_string()),
            "{cyc:?}"
        );
        let unknown = check(serde_json::json!({"default": "zz", "classes": [
            {"name": "x", "rate": "1Mbit"}
        ]}));
        assert_eq!(unknown, ["qdiscs.h.default"]);
    }
}
