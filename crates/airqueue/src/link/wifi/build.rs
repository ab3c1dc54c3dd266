//! Building an 802.11 medium from validated `[[cells]]` entries ([`super::spec`], checked by
//! [`super::checks`]): the PHY and MAC parameters, each port's rate, buffer, errors, EDCA
//! set, queues and rate control ([`build_cell`]), who hears whom under `[propagation]`
//! ([`hearing_of`]) and SINR capture ([`capture_of`]). The builders take the specs, the
//! ports' topology ids and the seed and times, never the simulation's types, so the
//! simulation (`crate::sim`) only calls them.

use super::dcf::hearing::{Capture, Hearing};
use super::spec::{
    ApQueuesKind, CellMode, CellSpec, CellStationSpec, PropagationSpec, RateControlKind,
};
use super::{BssConf, Cell, DcfConf, EdcaParams, Phy, PortConf, RateControl, Standard};
use crate::conf::Rate;
use crate::engine::SimTime;
use crate::packet::NodeId;
use crate::topology::IfaceId;

/// A QoS cell's EDCA parameter set: the defaults of IEEE 802.11-2016 Table 9-137 for its
/// PHY, with the cell's `edca` overrides per access category.
fn edca_params(phy: &Phy, c: &CellSpec) -> [EdcaParams; 4] {
    use super::Ac;
    let mut p = super::edca::default_params(phy);
    for (ac, o) in [
        (Ac::Bk, &c.edca.bk),
        (Ac::Be, &c.edca.be),
        (Ac::Vi, &c.edca.vi),
        (Ac::Vo, &c.edca.vo),
    ] {
        let Some(o) = o else { continue };
        let e = &mut p[ac as usize];
        if let Some(v) = o.aifsn {
            e.aifsn = v;
        }
        if let Some(v) = o.cw_min {
            e.cw_min = v;
        }
        if let Some(v) = o.cw_max {
            e.cw_max = v;
        }
        if let Some(d) = o.txop {
            e.txop = d.time();
        }
    }
    p
}

/// A station's PHY data rate (of [`cell_rate_id`]).
pub fn cell_rate(c: &CellSpec, st: &CellStationSpec) -> Rate {
    let phy = cell_phy(c);
    Rate(phy.rate_bps(cell_rate_id(c, st, &phy)).round() as u64)
}

/// A station's PHY rate id ([`super::phy::mcs_id`]): its own `rate` or `mcs`, else the
/// cell's `rate` or `mcs`, else the standard's highest rate (b/a/g) or highest valid
/// MCS with the station's streams (n/ac/ax).
pub fn cell_rate_id(c: &CellSpec, st: &CellStationSpec, phy: &Phy) -> u32 {
    use super::phy::mcs_id;
    let kbps = |r: Rate| (r.bps() / 1000) as u32;
    let nss = st.spatial_streams.or(c.spatial_streams).unwrap_or(1);
    let of_mcs = |mcs: u32| match phy.standard {
        Standard::N => mcs_id(mcs / 8 + 1, (mcs % 8) as u8),
        _ => mcs_id(nss, mcs as u8),
    };
    if let Some(r) = st.rate {
        return kbps(r);
    }
    if let Some(m) = st.mcs {
        return of_mcs(m);
    }
    if let Some(r) = c.rate {
        return kbps(r);
    }
    if let Some(m) = c.mcs {
        return of_mcs(m);
    }
    if phy.standard.has_mcs() {
        let nss = if phy.standard == Standard::N { 1 } else { nss };
        return (0..=11u8)
            .rev()
            .map(|m| mcs_id(nss, m))
            .find(|&id| phy.has_rate(id))
            .unwrap_or(mcs_id(1, 0));
    }
    *phy.standard.rates_kbps().iter().max().unwrap()
}

/// A validated cell's PHY: its standard in its band, width and guard interval, with the
/// MAC timing overrides.
pub fn cell_phy(c: &CellSpec) -> Phy {
    use super::phy::Band;
    use super::spec::BandKind;
    let std = Standard::parse(&c.standard).expect("validated");
    let band = match c.band {
        Some(BandKind::Ghz2_4) => Band::Ghz2_4,
        Some(BandKind::Ghz5) => Band::Ghz5,
        None => std.default_band(),
    };
    let mut phy = Phy::in_band(std, band);
    if let Some(w) = c.channel_width {
        phy.width_mhz = w;
    }
    if let Some(gi) = c.guard_interval {
        phy.gi_ns = gi.time().0 as u32;
    }
    phy.short_preamble = c.short_preamble;
    if let Some(d) = c.slot {
        phy.slot = d.time();
    }
    if let Some(d) = c.sifs {
        phy.sifs = d.time();
    }
    if let Some(v) = c.cw_min {
        phy.cw_min = v;
    }
    if let Some(v) = c.cw_max {
        phy.cw_max = v;
    }
    if let Some(b) = &c.basic_rates {
        phy.basic_kbps = b.iter().map(|r| (r.bps() / 1000) as u32).collect();
        phy.basic_kbps.sort_unstable();
        phy.basic_kbps.dedup();
    }
    phy
}

/// The medium of validated `[[cells]]` entries on one channel (they agree on the PHY and
/// MAC keys); each with its (interface, node) pairs, the AP's first.
pub fn build_cell(
    bsses: &[(&CellSpec, &[(IfaceId, NodeId)])],
    dev_names: &[String],
    seed: u64,
    stats_from: SimTime,
) -> Cell {
    use crate::channel::BitErrors;
    let c = bsses[0].0;
    let phy = cell_phy(c);
    let conf = DcfConf {
        rts_threshold: c.rts_threshold,
        short_retry_limit: c.short_retry_limit,
        long_retry_limit: c.long_retry_limit,
    };
    let port_confs = |c: &CellSpec, ends: &[(IfaceId, NodeId)]| -> Vec<PortConf> {
        ends.iter()
            .enumerate()
            .map(|(p, &(iface, node))| {
                // An infrastructure cell's first port is the AP; an ad hoc cell has none.
                let st = match c.ap {
                    Some(_) => (p > 0).then(|| &c.stations[p - 1]),
                    None => Some(&c.stations[p]),
                };
                PortConf {
                    name: dev_names[iface.0 as usize].clone(),
                    iface,
                    node,
                    rate_kbps: st.map_or(0, |st| cell_rate_id(c, st, &phy)),
                    buffer: match st {
                        None => c.ap_buffer.unwrap_or(c.buffer),
                        Some(st) => st.buffer.unwrap_or(c.buffer),
                    },
                    errors: match st {
                        Some(st) if st.ber.0 > 0.0 => BitErrors::Ber(st.ber.0),
                        _ => BitErrors::None,
                    },
                    edca: c.qos.then(|| edca_params(&phy, c)),
                    txq: (st.is_none() && c.ap_queues == ApQueuesKind::Mac80211).then(|| {
                        super::txq::TxqConf {
                            quantum: c.airtime_quantum.time(),
                            airtime_fair: c.airtime_fairness,
                            aql: c.aql.map(|a| super::txq::AqlConf {
                                limit_low: a.txq_limit_low.time(),
                                limit_high: a.txq_limit_high.time(),
                                threshold: a.threshold.time(),
                            }),
                        }
                    }),
                    rate_control: st.map_or(RateControl::Fixed, |st| {
                        use RateControlKind as K;
                        match st.rate_control.unwrap_or(c.rate_control) {
                            K::Fixed => RateControl::Fixed,
                            K::Minstrel => RateControl::Minstrel,
                            K::Arf => RateControl::Arf { adaptive: false },
                            K::Aarf => RateControl::Arf { adaptive: true },
                        }
                    }),
                    snr_db: st.and_then(|st| st.snr_db),
                    snr_changes: st.map_or(Vec::new(), |st| {
                        st.snr_changes
                            .iter()
                            .map(|ch| (ch.at.time(), ch.snr_db))
                            .collect()
                    }),
                }
            })
            .collect()
    };
    let confs: Vec<(String, Vec<PortConf>)> = bsses
        .iter()
        .map(|&(c, ends)| (c.name.clone(), port_confs(c, ends)))
        .collect();
    let refs: Vec<BssConf<'_>> = confs
        .iter()
        .zip(bsses)
        .map(|((n, p), (c, _))| BssConf {
            name: n.clone(),
            adhoc: c.mode == CellMode::Adhoc,
            ports: p.as_slice(),
        })
        .collect();
    let mut cell = Cell::shared(phy, conf, &refs, seed, stats_from);
    if let Some(agg) = aggregation_of(c) {
        cell.set_aggregation(agg, seed);
    }
    cell
}

/// A validated n/ac/ax cell's aggregation: on unless `ampdu = false`, with ns-3's
/// defaults (65 535-byte A-MPDUs, the standard's window); `None` for b/a/g cells.
pub fn aggregation_of(c: &CellSpec) -> Option<super::AggConf> {
    use super::{ampdu, block_ack};
    let std = Standard::parse(&c.standard).expect("validated");
    let window = block_ack::max_window(std)?;
    let max = ampdu::max_ampdu_bytes(std)?;
    let a = c.aggregation.unwrap_or(super::spec::AggregationSpec {
        ampdu: true,
        max_ampdu_bytes: None,
        max_mpdus: None,
        amsdu: false,
        tail_reception: false,
    });
    a.ampdu.then(|| super::AggConf {
        max_bytes: a.max_ampdu_bytes.unwrap_or(65_535).min(max),
        window: a.max_mpdus.unwrap_or(window),
        tail_reception: a.tail_reception,
    })
}

/// Who hears whom among a cell medium's ports (`at`: each port's node and station entry,
/// in port order) under a validated `[propagation]`, and per port whether its link's frame
/// errors follow the SNR; `None` for a hearing graph in which everyone decodes everyone
/// (unless `per_station`): the shared-slot medium then applies unchanged.
pub fn hearing_of(
    pr: &PropagationSpec,
    at: &[(&str, Option<&CellStationSpec>)],
) -> Option<(Hearing, Vec<bool>)> {
    use super::dcf::hearing::{Level, RadioModel};
    use crate::channel::{noise_floor_dbm, PathLoss, PathLossConf, Position, Track};
    let n = at.len();
    let placed = !pr.positions.is_empty();
    let map = if placed {
        let f_hz = pr.frequency_mhz * 1e6;
        let path_loss = match &pr.path_loss {
            None => PathLoss::LogDistance {
                reference_m: 1.0,
                reference_loss_db: 46.6777,
                exponent: 3.0,
            },
            Some(PathLossConf::Friis) => PathLoss::Friis { frequency_hz: f_hz },
            Some(PathLossConf::LogDistance {
                exponent,
                reference_distance_m,
                reference_loss_db,
            }) => PathLoss::LogDistance {
                reference_m: *reference_distance_m,
                reference_loss_db: reference_loss_db.unwrap_or_else(|| {
                    crate::channel::propagation::friis_loss_db(*reference_distance_m, f_hz)
                }),
                exponent: *exponent,
            },
        };
        let tracks = at
            .iter()
            .map(|&(node, _)| {
                let xy = pr.positions.get(node).copied().unwrap_or([0.0, 0.0]);
                let legs: Vec<(SimTime, Position)> = pr
                    .motion
                    .iter()
                    .filter(|m| m.node == node)
                    .map(|m| {
                        (
                            m.at.time(),
                            Position::new(m.velocity[0], m.velocity[1], 0.0),
                        )
                    })
                    .collect();
                Track::new(Position::new(xy[0], xy[1], 0.0), &legs)
            })
            .collect();
        Hearing::positions(
            tracks,
            RadioModel {
                tx_power_dbm: pr.tx_power_dbm,
                path_loss,
                rx_threshold_dbm: pr.rx_threshold_dbm,
                cs_threshold_dbm: pr.cs_threshold_dbm.unwrap_or(pr.rx_threshold_dbm),
                noise_dsss_dbm: noise_floor_dbm(22e6, pr.noise_figure_db),
                noise_ofdm_dbm: noise_floor_dbm(20e6, pr.noise_figure_db),
            },
        )
    } else {
        let pair = |list: &[[String; 2]], a: &str, b: &str| {
            list.iter()
                .any(|[x, y]| (x == a && y == b) || (x == b && y == a))
        };
        Hearing::graph(n, |p, r| {
            let (a, b) = (at[p].0, at[r].0);
            if a == b || pair(&pr.hears, a, b) {
                Level::Decode
            } else if pair(&pr.senses, a, b) {
                Level::Sense
            } else {
                Level::None
            }
        })
    };
    // With positions frame errors depend on each pair's distance: always per station.
    if map.complete() && !pr.per_station && !placed {
        return None;
    }
    let auto_snr = at
        .iter()
        .map(|&(_, st)| placed && st.is_none_or(|st| st.ber.0 == 0.0 && st.snr_db.is_none()))
        .collect();
    Some((map, auto_snr))
}

/// SINR-based reception of a cell with `capture = "sinr"`: noise floors from
/// `[propagation]`'s noise figure (7 dB without one), the nominal power of frames without
/// positions, ns-3's frame capture model (5 dB, 16 µs) if asked for.
pub fn capture_of(c: &CellSpec, pr: Option<&PropagationSpec>) -> Capture {
    use super::dcf::hearing::{dbm_to_mw, NOMINAL_RX_DBM};
    use crate::channel::noise_floor_dbm;
    let nf = pr.map_or(7.0, |p| p.noise_figure_db);
    Capture {
        noise_dsss_mw: dbm_to_mw(noise_floor_dbm(22e6, nf)),
        noise_ofdm_mw: dbm_to_mw(noise_floor_dbm(20e6, nf)),
        nominal_mw: dbm_to_mw(NOMINAL_RX_DBM),
        frame_capture: c.frame_capture.then_some((5.0, SimTime::from_micros(16))),
    }
}
