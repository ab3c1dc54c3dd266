//! What a cell is made of — its BSSs, their ports and the MAC settings — and how the
//! medium is built from them: ports in BSS order (an infrastructure BSS's AP first), one
//! channel-access function per port (DCF) or four (EDCA), the random streams of each port,
//! and the optional per-station medium ([`super::hearing`]) and shared spectrum.

use super::channel_access::{Backoff, Ifs};
use super::contention::Contention;
use super::hearing::{self, Spatial};
use super::rates::{ber_table, rate_ctl};
use super::stats::{AcStats, StaStats};
use super::{Cell, DriverLedger, Edcaf, Outcome, Sta, NO_AP};
use crate::channel::{BitErrorModel, BitErrors};
use crate::engine::{stream, SimTime, TimerId};
use crate::link::wifi::coexist::CellAir;
use crate::link::wifi::edca::{Ac, EdcaParams};
use crate::link::wifi::phy::{Phy, DATA_OVERHEAD_BYTES};
use crate::link::wifi::txq::{ApQueues, TxqConf};
use crate::link::Neighbour;
use crate::packet::NodeId;
use crate::topology::IfaceId;
use std::collections::VecDeque;

/// One BSS of a medium: its name, whether it is an IBSS (ad hoc: every port reaches every
/// other, no AP) and its ports (an infrastructure BSS: the AP first).
pub struct BssConf<'a> {
    pub name: String,
    pub adhoc: bool,
    pub ports: &'a [PortConf],
}

/// Bytes a QoS data frame adds to a non-QoS one: the QoS Control field (§9.2.4.5).
pub const QOS_CONTROL_BYTES: u32 = 2;

/// Per-cell MAC settings (the PHY's are in [`Phy`]).
#[derive(Clone, Debug)]
pub struct DcfConf {
    /// MPDUs longer than this (bytes) are preceded by RTS/CTS.
    pub rts_threshold: u32,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
}

impl Default for DcfConf {
    /// dot11RTSThreshold off (Linux's default, 2347 = larger than any MPDU), retry limits
    /// 7 and 4 (dot11ShortRetryLimit, dot11LongRetryLimit).
    fn default() -> Self {
        DcfConf {
            rts_threshold: 2347,
            short_retry_limit: 7,
            long_retry_limit: 4,
        }
    }
}

/// One port of the cell: the AP (port 0) or a station.
pub struct PortConf {
    /// The interface's name, `<node>.<cell>` (streams and the stations table use it).
    pub name: String,
    pub iface: IfaceId,
    pub node: NodeId,
    /// PHY rate of frames between this station and the AP, kbit/s (the AP's own is unused).
    pub rate_kbps: u32,
    /// Driver buffer, packets.
    pub buffer: u32,
    /// Bit errors of data frames between this station and the AP (either direction).
    pub errors: BitErrors,
    /// EDCA parameters per access category (BK, BE, VI, VO) when the BSS has QoS; `None`:
    /// the DCF.
    pub edca: Option<[EdcaParams; 4]>,
    /// An AP's mac80211 queues (per-station FQ-CoDel, airtime fairness) instead of a
    /// driver FIFO of `buffer` packets; stations: `None`.
    pub txq: Option<TxqConf>,
    /// Who chooses a station's link rate (both directions): its fixed `rate_kbps`,
    /// Minstrel, ARF or AARF.
    pub rate_control: RateControl,
    /// A station's SNR, dB: its frames' errors follow the modulation's BER at the rate
    /// of each attempt (instead of `errors`); and its changes, `(when, snr_db)`.
    pub snr_db: Option<f64>,
    pub snr_changes: Vec<(SimTime, f64)>,
}

/// How the PHY rate of a station's frames (and the AP's to it) is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RateControl {
    /// The station's fixed rate (the seeds' setting).
    #[default]
    Fixed,
    /// Linux mac80211's Minstrel ([`crate::link::wifi::minstrel`]).
    Minstrel,
    /// ARF, or AARF (`adaptive`) ([`crate::link::wifi::arf`]).
    Arf { adaptive: bool },
}

impl Cell {
    /// One BSS alone on its channel: `ports[0]` is the AP.
    pub fn new(
        name: String,
        phy: Phy,
        conf: DcfConf,
        ports: &[PortConf],
        seed: u64,
        stats_from: SimTime,
    ) -> Cell {
        let bss = BssConf {
            name,
            adhoc: false,
            ports,
        };
        Cell::shared(phy, conf, &[bss], seed, stats_from)
    }

    /// Several BSSs on one channel (co-channel cells, or one node's IBSS trunks on the
    /// same channel); the medium takes the first cell's name.
    pub fn shared(
        phy: Phy,
        conf: DcfConf,
        bsses: &[BssConf<'_>],
        seed: u64,
        stats_from: SimTime,
    ) -> Cell {
        let mut ap_of = Vec::new();
        let mut cell_of = Vec::new();
        let mut ports: Vec<&PortConf> = Vec::new();
        for (c, bss) in bsses.iter().enumerate() {
            let ap = if bss.adhoc { NO_AP } else { ports.len() as u32 };
            for pc in bss.ports.iter() {
                ap_of.push(ap);
                cell_of.push(c as u32);
                ports.push(pc);
            }
        }
        let neighbours = neighbour_lists(&ports, &ap_of, &cell_of);
        let mut fns = Vec::new();
        // b/a/g: the standard's rates ascending, as before; n/ac/ax add the MCSs.
        let rates = phy.rates();
        let sta = ports
            .iter()
            .enumerate()
            .map(|(p, pc)| {
                let name = &bsses[cell_of[p] as usize].name;
                let is_ap = ap_of[p] as usize == p;
                let who = &pc.name;
                let first = fns.len() as u32;
                let params: Vec<(Ac, EdcaParams)> = match &pc.edca {
                    Some(e) => Ac::ALL.iter().map(|&ac| (ac, e[ac as usize])).collect(),
                    None => vec![(Ac::Be, EdcaParams::dcf(&phy))],
                };
                for (ac, par) in params {
                    fns.push(Edcaf {
                        port: p as u32,
                        ac,
                        txop: par.txop,
                        buf: VecDeque::new(),
                        backoff: Backoff::new(&par),
                        src: 0,
                        lrc: 0,
                        collided: false,
                        corrupted: false,
                        tx_at: SimTime::MAX,
                        head_since: SimTime::ZERO,
                        txop_from: None,
                        chain: None,
                        attempt_rate: 0,
                        stats: AcStats::default(),
                        discarded: None,
                    });
                }
                Sta {
                    len: 0,
                    cap: if pc.txq.is_some() {
                        usize::MAX
                    } else {
                        pc.buffer as usize
                    },
                    first,
                    count: fns.len() as u32 - first,
                    overhead: DATA_OVERHEAD_BYTES
                        + if pc.edca.is_some() {
                            QOS_CONTROL_BYTES
                        } else {
                            0
                        },
                    rng: stream(seed, &format!("cell:{name}:backoff:{who}")),
                    errors_up: BitErrorModel::new(
                        pc.errors,
                        stream(seed, &format!("cell:{name}:ber:{who}:up")),
                    ),
                    errors_down: BitErrorModel::new(
                        if is_ap { BitErrors::None } else { pc.errors },
                        stream(seed, &format!("cell:{name}:ber:{who}:down")),
                    ),
                    quality_up: None,
                    quality_down: None,
                    stats: StaStats::default(),
                    rc_up: rate_ctl(pc.rate_control, &phy, &rates, || {
                        stream(seed, &format!("cell:{name}:minstrel:{who}:up"))
                    }),
                    rc_down: rate_ctl(pc.rate_control, &phy, &rates, || {
                        stream(seed, &format!("cell:{name}:minstrel:{who}:down"))
                    }),
                    ber_of_rate: pc.snr_db.map(|snr| ber_table(&rates, &phy, snr)),
                    snr_changes: pc.snr_changes.clone(),
                    txq: pc.txq.clone().map(|c| {
                        Box::new(ApQueues::new(
                            c,
                            ports.len(),
                            pc.edca.map_or(1, |_| 4),
                            &format!("cell:{name}:{who}"),
                            seed,
                        ))
                    }),
                }
            })
            .collect();
        Cell {
            ifs: Ifs::of(&phy),
            phy,
            conf,
            name: bsses[0].name.clone(),
            ap_of,
            cell_of,
            cells: bsses.iter().map(|b| b.name.clone()).collect(),
            ports: ports.iter().map(|p| p.iface).collect(),
            names: ports.iter().map(|p| p.name.clone()).collect(),
            nodes: ports.iter().map(|p| p.node).collect(),
            rate_kbps: ports.iter().map(|p| p.rate_kbps).collect(),
            neighbours,
            ap_backlog: vec![0; ports.len()],
            dq: DriverLedger::new(ports.len()),
            idle_from: SimTime::ZERO,
            on_air: Vec::with_capacity(fns.len()),
            air: Vec::with_capacity(fns.len()),
            outcome: Outcome::Success,
            timer: TimerId(u32::MAX),
            stats_from,
            sta,
            cont: Contention::new(fns.iter().map(|f| f.backoff.aifsn())),
            fns,
            rates,
            coex: None,
            associated: vec![true; ports.len()],
            hx: None,
            agg: None,
        }
    }

    /// Gives the medium partial hearing ([`super::hearing`]): carrier sense, NAV, EIFS and
    /// reception per station. `auto_snr[p]`: port `p`'s link errors follow the SNR of
    /// each frame (positions, no `ber`/`snr_db` of its own).
    pub fn set_hearing(&mut self, map: hearing::Hearing, auto_snr: Vec<bool>) {
        self.hx = Some(Box::new(Spatial::new(map, auto_snr, self.fns.len())));
    }

    /// Turns on SINR-based reception (`capture = "sinr"`, see [`super::hearing`]): the per-station
    /// medium runs, with everyone decoding everyone if no hearing was given; port `p` draws
    /// its reception outcomes from `cell:<name>:capture:<interface>`.
    pub fn set_capture(&mut self, cap: hearing::Capture, seed: u64) {
        if self.hx.is_none() {
            let n = self.ports.len();
            let map = hearing::Hearing::graph(n, |_, _| hearing::Level::Decode);
            self.set_hearing(map, vec![false; n]);
        }
        let hx = self.hx.as_deref_mut().expect("just set");
        hx.set_capture(cap, &self.name, &self.names, seed);
    }

    /// Puts the cell's radios on a shared spectrum (see [`crate::link::wifi::coexist`]).
    pub fn attach_air(&mut self, air: CellAir) {
        self.coex = Some(Box::new(air));
    }
}

/// Whom each port reaches: an AP its stations, a station its AP, an IBSS member every
/// other member of its cell, in port order.
fn neighbour_lists(ports: &[&PortConf], ap_of: &[u32], cell_of: &[u32]) -> Vec<Vec<Neighbour>> {
    (0..ports.len())
        .map(|p| {
            if ap_of[p] == NO_AP {
                // An IBSS: every other member of the same cell, in port order.
                (0..ports.len())
                    .filter(|&q| q != p && cell_of[q] == cell_of[p])
                    .map(|q| Neighbour {
                        node: ports[q].node,
                        iface: ports[q].iface,
                    })
                    .collect()
            } else if ap_of[p] as usize == p {
                (0..ports.len())
                    .filter(|&q| q != p && ap_of[q] as usize == p)
                    .map(|q| Neighbour {
                        node: ports[q].node,
                        iface: ports[q].iface,
                    })
                    .collect()
            } else {
                let ap = ports[ap_of[p] as usize];
                vec![Neighbour {
                    node: ap.node,
                    iface: ap.iface,
                }]
            }
        })
        .collect()
}
