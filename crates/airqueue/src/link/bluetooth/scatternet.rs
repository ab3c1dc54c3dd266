//! A scatternet: piconets joined by a walk-in slave/slave bridge (thesis, seed 001,
//! §2.1.1, §2.3.2, §3.1.1, §3.2.3, §4.1.2; the walk-in scheme of Mišić, Mišić and Chan,
//! its ref. [29]).
//!
//! **The bridge** is a node that is a slave in two piconets and has one radio: it is in
//! one piconet at a time. It *walks in* — no rendezvous is agreed — and stays **one
//! piconet cycle**: from its arrival until the master has started a visit to every member
//! of the piconet once (the bridge itself among them, polled at its turn in the round
//! robin), then it leaves at the next visit start for the other piconet (§3.1.1: "the
//! bridge will be in a piconet only for one piconet cycle"). Its visit is E-limited with
//! M_b = n·M frames, n the piconet's other active slaves (§3.2.3, Table 3.1: "Scheduling
//! Parameter for bridge = n·M = Bridge buffer size"); the bridge has no L2CAP flow control
//! (§3.3: the bridge implements only the medium and a finite buffer). Its buffer (its L in
//! each piconet) holds `buffer` baseband packets, by default M_b plus the rest of one IP
//! packet: the thesis's bridge relays baseband packets, so a visit of M_b frames brings at
//! most M_b; ours forwards whole IP packets (it reassembles, as the masters do), and a
//! visit may complete one begun in the previous visit. An IP packet that does not fit
//! whole is lost (`qdisc_overflow`; counted in `bridges`).
//!
//! **Polling the bridge** (§4.1.2): the master opens each visit to the bridge with a POLL;
//! an absent bridge does not answer (the thesis's NOT-LISTENING: the POLL slot and the
//! answer slot are lost, 2T, §2.3.2) and the master moves on. A present bridge answers
//! and the exchange continues E-limited up to `limit` frames, the opening POLL included.
//! *Our choice:* the thesis's bridge answers the opening POLL with a NULL and the data
//! follow; ours answers it with the head of its buffer, as any slave answers a POLL
//! (Core 1.2 Vol 2 Part B §8.6.4), which keeps an idle visit one POLL/NULL frame and so
//! the idle cycle in closed form; the thesis's adds one frame (2 slots) per busy visit.
//!
//! **Switching delay** (§2.1.1): the two masters' clocks are free running, so the second
//! piconet's slots start `clock_offset` (uniform in [0, 2T), or set) after the first's.
//! A bridge leaving at a frame boundary of one piconet can be polled in the other only at
//! that piconet's next frame boundary, and only when the master comes to it in its
//! round robin: the thesis's clock synchronisation (0 to 2T) and frame synchronisation
//! (waiting for the frame in progress, up to 8T) delays both follow from the timelines,
//! with no extra constant. The bridge starts in the first piconet.
//!
//! **Events.** Each piconet keeps its one timer and its closed-form idle cycle; the
//! bridge's departure is a frame boundary the timer fires at (at the latest), and its
//! arrival re-plans the other piconet as an arrival of data would. Both piconets are one
//! medium here (as the cells on one channel are), so that the departure from one reaches
//! the other in the same call.

use super::piconet::Piconet;
use crate::engine::SimTime;
use crate::link::{DriverQueue, LinkCtx, LinkView, Medium, MediumBuild, Neighbour, PendingEvents};
use crate::metrics::{Column, Table};
use crate::packet::{Location, NodeId, PacketId};
use crate::topology::IfaceId;

/// How long the bridge stays in a piconet.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Residence {
    /// One piconet cycle: until the master has started a visit to every member once,
    /// the bridge among them, counted from its arrival (the thesis's words, §3.1.1,
    /// §4.1.2, read literally).
    #[default]
    Cycle,
    /// Until its own visit ends: it leaves at the next visit start after the master
    /// polled it, i.e. it stays for the rest of the master's cycle as counted from the
    /// bridge's place in the polling order. Another reading of the thesis's "one piconet
    /// cycle" (§3.1.1: "within one piconet cycle, all the exchange will be done with the
    /// bridge"), not the default: it is the one whose goodput and RTT match the thesis's
    /// scatternet numbers (Figs. 6.7, 6.10, 6.17; docs/reproductions/venugopal-2006.md).
    Visit,
}

/// One piconet's view of its walk-in bridge: which slave it is, how it is polled, when it
/// is present, and what happened to it there.
#[derive(Clone, Debug)]
pub struct WalkIn {
    /// The bridge's slave index in this piconet.
    pub j: usize,
    /// Frames per visit, the opening POLL included (M_b + 1).
    pub limit: u32,
    /// Its buffer in this piconet, baseband packets (M_b).
    pub buffer: u32,
    /// Present for frames that start at or after this instant; `SimTime::MAX`: away.
    arrive: SimTime,
    /// Visits the master started since the bridge arrived.
    visits: u32,
    /// How long it stays.
    residence: Residence,
    /// The master started a visit to it since it arrived.
    served: bool,
    /// It left at this instant (taken by the scatternet, which moves it on).
    pub(super) left: Option<SimTime>,
    warmup: SimTime,
    /// From the warm-up on: residences ended, time present, polls it did not answer, IP
    /// packets its buffer could not take.
    pub residences: u64,
    present_ns: u64,
    pub absent_polls: u64,
    pub buffer_drops: u64,
}

impl WalkIn {
    /// A bridge at slave index `j`, present from the start or away.
    pub fn new(j: usize, limit: u32, buffer: u32, present: bool, warmup: SimTime) -> Self {
        WalkIn {
            j,
            limit,
            buffer,
            arrive: if present { SimTime::ZERO } else { SimTime::MAX },
            visits: 0,
            residence: Residence::Cycle,
            served: false,
            left: None,
            warmup,
            residences: 0,
            present_ns: 0,
            absent_polls: 0,
            buffer_drops: 0,
        }
    }

    /// Stays as `residence` says (default: one cycle, the thesis's).
    pub fn set_residence(&mut self, residence: Residence) {
        self.residence = residence;
    }

    /// When it arrives or arrived (`SimTime::MAX`: away, not yet on its way here).
    #[inline]
    pub fn arrival(&self) -> SimTime {
        self.arrive
    }

    #[inline]
    pub fn present(&self, t: SimTime) -> bool {
        self.arrive <= t
    }

    /// It walks in at `at`.
    pub fn arrive(&mut self, at: SimTime) {
        self.arrive = at;
        self.visits = 0;
        self.served = false;
    }

    /// The master starts a visit to slave `slave` at `t`.
    #[inline]
    pub fn visit_started(&mut self, t: SimTime, slave: usize) {
        if self.present(t) {
            self.visits += 1;
            self.served |= slave == self.j;
        }
    }

    /// `k` idle frames from the boundary `since` happened, the first (to slave `cursor`
    /// of `n`) continuing a visit if `cont`: each other one started a visit, frame i to
    /// slave (cursor + i) mod n; those at or after the arrival count.
    pub fn count_idle_visits(&mut self, since: SimTime, cont: bool, k: u64, cursor: usize, n: u32) {
        if self.arrive == SimTime::MAX {
            return;
        }
        let first = self.first_counted(since, cont);
        self.visits += k.saturating_sub(first) as u32;
        if first < k && self.next_to_me(first, cursor, n) < k {
            self.served = true;
        }
    }

    /// The index of the first idle frame at or after index `from` that addresses the
    /// bridge (frame i addresses slave (cursor + i) mod n).
    fn next_to_me(&self, from: u64, cursor: usize, n: u32) -> u64 {
        let n = u64::from(n.max(1));
        let at = (cursor as u64 + from) % n;
        from + (self.j as u64 + n - at) % n
    }

    /// The index of the first idle frame from `t` that starts a visit while present.
    fn first_counted(&self, t: SimTime, cont: bool) -> u64 {
        let at = self
            .arrive
            .saturating_sub(t)
            .0
            .div_ceil(super::polling::IDLE_FRAME.0);
        at.max(u64::from(cont))
    }

    /// At the boundary `t` where a new visit would start in a piconet of `n` members: a
    /// bridge that has seen `n` visits start since it came (one cycle) leaves now.
    pub fn depart_if_done(&mut self, t: SimTime, n: u32) {
        let done = match self.residence {
            Residence::Cycle => self.visits >= n,
            Residence::Visit => self.served,
        };
        if self.present(t) && done {
            let from = self.arrive.max(self.warmup);
            if t > from {
                self.present_ns += (t - from).0;
            }
            if t >= self.warmup {
                self.residences += 1;
            }
            self.arrive = SimTime::MAX;
            self.visits = 0;
            self.served = false;
            self.left = Some(t);
        }
    }

    /// While nothing but idle frames happen from the boundary `t` (`cont`: the first one
    /// continues a visit; frame i addresses slave (cursor + i) mod n), the index of the
    /// frame at whose start the bridge leaves a piconet of `n` members; `None` while it
    /// is away and not on its way.
    pub fn departure_frame(&self, t: SimTime, cont: bool, n: u32, cursor: usize) -> Option<u64> {
        if self.arrive == SimTime::MAX {
            return None;
        }
        let first = if self.present(t) {
            u64::from(cont)
        } else {
            self.first_counted(t, cont)
        };
        match self.residence {
            Residence::Cycle => Some(first + u64::from(n.saturating_sub(self.visits))),
            Residence::Visit if self.served => Some(first),
            // It leaves at the start of the frame after the idle visit that polls it.
            Residence::Visit => Some(self.next_to_me(first, cursor, n) + 1),
        }
    }

    /// Time present from the warm-up to `now`.
    pub fn present_time(&self, now: SimTime) -> SimTime {
        let mut ns = self.present_ns;
        let from = self.arrive.max(self.warmup);
        if self.arrive != SimTime::MAX && now > from {
            ns += (now - from).0;
        }
        SimTime(ns)
    }
}

/// Piconets joined by one walk-in bridge, as one medium: the ports of the first piconet,
/// then the second's (each piconet keeps its interfaces `<node>.<piconet>`).
pub struct Scatternet {
    name: String,
    piconets: Vec<Piconet>,
    piconet_names: Vec<String>,
    bridge_node: String,
    ports: Vec<IfaceId>,
    /// Each piconet's first port.
    first: Vec<usize>,
}

impl Scatternet {
    /// `piconets[0]` holds the bridge at the start; each has its [`WalkIn`] set.
    pub fn new(piconets: Vec<Piconet>, piconet_names: Vec<String>, bridge_node: String) -> Self {
        let mut ports = Vec::new();
        let mut first = Vec::new();
        for p in &piconets {
            first.push(ports.len());
            ports.extend_from_slice(p.ports());
        }
        Scatternet {
            name: piconet_names.join("+"),
            piconets,
            piconet_names,
            bridge_node,
            ports,
            first,
        }
    }

    /// The piconet of a port and the port's index in it.
    fn at(&self, port: usize) -> (usize, usize) {
        let k = self.first.iter().rposition(|&f| f <= port).unwrap_or(0);
        (k, port - self.first[k])
    }

    /// Moves the bridge on: a departure from one piconet is an arrival in the other.
    fn settle(&mut self, cx: &mut LinkCtx<'_>) {
        loop {
            let mut moved = false;
            for k in 0..self.piconets.len() {
                if let Some(t) = self.piconets[k].take_departure() {
                    let other = (k + 1) % self.piconets.len();
                    self.piconets[other].bridge_arrives(t, cx);
                    moved = true;
                }
            }
            if !moved {
                return;
            }
        }
    }

    /// Rows of table `bridges`: one per (bridge, piconet).
    fn bridge_rows(&self, now: SimTime, t: &mut Table) {
        let span = now.saturating_sub(self.warmup()).as_secs_f64().max(1e-12);
        let here: Vec<(&String, &WalkIn)> = self
            .piconet_names
            .iter()
            .zip(&self.piconets)
            .filter_map(|(name, p)| p.bridge().map(|b| (name, b)))
            .collect();
        let u = |f: &dyn Fn(&WalkIn) -> u64| Column::U64(here.iter().map(|(_, b)| f(b)).collect());
        let present: Vec<f64> = here
            .iter()
            .map(|(_, b)| b.present_time(now).as_secs_f64())
            .collect();
        let cols: Vec<(&str, Column)> = vec![
            (
                "bridge",
                Column::Str(vec![self.bridge_node.clone(); here.len()]),
            ),
            (
                "piconet",
                Column::Str(here.iter().map(|(n, _)| (*n).clone()).collect()),
            ),
            ("residences", u(&|b| b.residences)),
            ("present_s", Column::F64(present.clone())),
            (
                "present_share",
                Column::F64(present.iter().map(|p| p / span).collect()),
            ),
            ("absent_polls", u(&|b| b.absent_polls)),
            ("buffer_drops", u(&|b| b.buffer_drops)),
            ("limit", u(&|b| u64::from(b.limit - 1))),
            ("buffer", u(&|b| u64::from(b.buffer))),
        ];
        if t.columns.is_empty() {
            for (name, c) in cols {
                t.push(name, c);
            }
            return;
        }
        for ((_, dst), (_, src)) in t.columns.iter_mut().zip(cols) {
            match (dst, src) {
                (Column::Str(a), Column::Str(b)) => a.extend(b),
                (Column::U64(a), Column::U64(b)) => a.extend(b),
                (Column::F64(a), Column::F64(b)) => a.extend(b),
                _ => unreachable!("bridges columns agree"),
            }
        }
    }

    fn warmup(&self) -> SimTime {
        self.piconets
            .iter()
            .find_map(|p| p.bridge().map(|b| b.warmup))
            .unwrap_or(SimTime::ZERO)
    }
}

impl Medium for Scatternet {
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
        let (k, p) = self.at(port);
        self.piconets[k].neighbours(p)
    }

    fn attach(&mut self, b: &mut MediumBuild<'_>) {
        for (k, p) in self.piconets.iter_mut().enumerate() {
            let timer = b.timer(k as u32);
            p.set_timer(timer);
        }
    }

    fn start(&mut self, cx: &mut LinkCtx<'_>) {
        for p in &mut self.piconets {
            p.start(cx);
            // The bridge's residences run from the start, traffic or not.
            p.replan(cx);
        }
        self.settle(cx);
    }

    fn ready(&self, port: usize) -> bool {
        let (k, p) = self.at(port);
        self.piconets[k].ready(p)
    }

    fn send(&mut self, port: usize, pkt: PacketId, cx: &mut LinkCtx<'_>) {
        let (k, p) = self.at(port);
        self.piconets[k].send(p, pkt, cx);
        self.settle(cx);
    }

    fn on_event(&mut self, _key: u16, _cx: &mut LinkCtx<'_>) {
        unreachable!("a scatternet schedules only its piconets' timers")
    }

    fn on_timer(&mut self, key: u32, cx: &mut LinkCtx<'_>) {
        self.piconets[key as usize].on_timer(0, cx);
        self.settle(cx);
    }

    fn view(&self, port: usize, neighbour: NodeId) -> Option<LinkView> {
        let (k, p) = self.at(port);
        self.piconets[k].view(p, neighbour)
    }

    fn driver_queue(&self, port: usize) -> Option<DriverQueue<'_>> {
        let (k, p) = self.at(port);
        self.piconets[k].driver_queue(p)
    }

    fn warmup_end(&mut self, now: SimTime) {
        for p in &mut self.piconets {
            p.warmup_end(now);
        }
    }

    fn held(&self, out: &mut Vec<(Location, u64)>) {
        for p in &self.piconets {
            p.held(out);
        }
    }

    fn audit(&self, pending: &PendingEvents, out: &mut Vec<(Location, String)>) {
        for p in &self.piconets {
            p.audit(pending, out);
        }
    }

    fn report(&self, now: SimTime, tables: &mut Vec<(String, Table)>) {
        for p in &self.piconets {
            p.report(now, tables);
        }
        let t = match tables.iter().position(|(n, _)| n == "bridges") {
            Some(i) => &mut tables[i].1,
            None => {
                tables.push(("bridges".into(), Table::default()));
                &mut tables.last_mut().unwrap().1
            }
        };
        self.bridge_rows(now, t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::bluetooth::polling::IDLE_FRAME;

    /// Stepping idle frames one by one (frame i a visit to slave (cursor + i) mod n), the
    /// bridge leaves where the closed form says, for both residences, every bridge index
    /// and cursor; and counting the first m idle frames in one go (`count_idle_visits`)
    /// leaves the rest of the plan unchanged.
    #[test]
    fn departure_frame_equals_stepping() {
        let n = 3u32;
        for residence in [Residence::Cycle, Residence::Visit] {
            for j in 0..n as usize {
                for cursor in 0..n as usize {
                    for cont in [false, true] {
                        for arrive_frames in [0u64, 1, 2, 5] {
                            for offset in [0u64, 1, 600_000] {
                                check_departure(
                                    residence,
                                    j,
                                    cursor,
                                    cont,
                                    arrive_frames,
                                    offset,
                                    n,
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    fn check_departure(
        residence: Residence,
        j: usize,
        cursor: usize,
        cont: bool,
        arrive_frames: u64,
        offset: u64,
        n: u32,
    ) {
        let t = SimTime(10 * IDLE_FRAME.0);
        let arrive = SimTime(t.0 + arrive_frames * IDLE_FRAME.0).saturating_sub(SimTime(offset));
        let fresh = || {
            let mut b = WalkIn::new(j, 6, 5, false, SimTime::ZERO);
            b.set_residence(residence);
            b.arrive(arrive);
            b
        };
        let label = format!("{residence:?} j {j} cursor {cursor} cont {cont} arrive {arrive:?}");
        let planned = fresh().departure_frame(t, cont, n, cursor).unwrap();
        // Step: frame i at t + i·2T starts a visit unless it continues one.
        let mut b = fresh();
        let mut stepped = None;
        for i in 0..100u64 {
            let ti = SimTime(t.0 + i * IDLE_FRAME.0);
            if i > 0 || !cont {
                b.depart_if_done(ti, n);
                if b.left.is_some() {
                    stepped = Some(i);
                    break;
                }
                b.visit_started(ti, (cursor + i as usize) % n as usize);
            }
        }
        assert_eq!(Some(planned), stepped, "{label}");
        // The first m idle frames counted at once, then planned from frame m.
        for m in 1..planned {
            let mut b = fresh();
            b.count_idle_visits(t, cont, m, cursor, n);
            let tm = SimTime(t.0 + m * IDLE_FRAME.0);
            let rest = b.departure_frame(tm, false, n, (cursor + m as usize) % n as usize);
            assert_eq!(rest, Some(planned - m), "{label} m {m}");
        }
    }
}
