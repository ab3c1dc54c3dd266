//! The medium's statistics: per-port and per-EDCA-function counters since the warm-up,
//! and the tables a cell reports from them — `stations` (one row per port),
//! `access_categories` (one row per EDCA function of a QoS port) and `txqs` (an AP's
//! mac80211 queues, per station and AC). docs/wifi.md describes the columns.

use super::{Cell, Edcaf, NO_AP};
use crate::engine::SimTime;
use crate::link::wifi::edca::Ac;
use crate::metrics::{Column, Table};

/// Counters of one port, since the warm-up.
#[derive(Clone, Debug, Default)]
pub(super) struct StaStats {
    /// Data frames acknowledged.
    pub(super) sent: u64,
    /// Attempts beyond each frame's first.
    pub(super) retries: u64,
    /// Attempts that collided.
    pub(super) collisions: u64,
    /// Attempts corrupted by the channel.
    pub(super) errors: u64,
    pub(super) drops_collision: u64,
    pub(super) drops_channel: u64,
    pub(super) drops_retry: u64,
    /// Air time of this port's exchanges (its frames and the responses to them), ns.
    pub(super) airtime: u64,
    /// Sum over acknowledged frames of the time from reaching the head of the buffer to
    /// the end of the data frame, ns.
    pub(super) access_delay: u64,
    /// Aggregating cells: the PPDUs this port started, as ns-3's traces count them
    /// (`tools/ns3/wifi_ht_saturation.cc`): A-MPDUs of QoS data, their MPDUs, those that
    /// got no BlockAck (a collision or every MPDU corrupted), and BlockAckReqs sent and
    /// unanswered.
    pub(super) data_ppdus: u64,
    pub(super) data_mpdus: u64,
    pub(super) failed_data_ppdus: u64,
    pub(super) bars: u64,
    pub(super) failed_bars: u64,
}

/// Counters of one EDCA function (QoS cells' `access_categories` table), since the
/// warm-up.
#[derive(Clone, Debug, Default)]
pub(super) struct AcStats {
    pub(super) sent: u64,
    pub(super) collisions: u64,
    pub(super) internal: u64,
    pub(super) drops: u64,
    pub(super) access_delay: u64,
    /// Channel accesses won (TXOPs started).
    pub(super) txops: u64,
}

/// Columns of the `stations` table, filled cell by cell.
#[derive(Default)]
pub struct StationRows {
    cell: Vec<String>,
    station: Vec<String>,
    role: Vec<String>,
    rate: Vec<f64>,
    sent: Vec<u64>,
    retries: Vec<u64>,
    collisions: Vec<u64>,
    errors: Vec<u64>,
    drops_collision: Vec<u64>,
    drops_channel: Vec<u64>,
    drops_retry: Vec<u64>,
    airtime: Vec<f64>,
    share: Vec<f64>,
    delay: Vec<f64>,
}

impl Cell {
    /// Appends this cell's rows to the `stations`, `access_categories` and `txqs` tables
    /// of `tables` (see [`crate::link::Medium::report`]), adding the tables it needs.
    pub(super) fn report_tables(&self, now: SimTime, tables: &mut Vec<(String, Table)>) {
        let mut rows = StationRows::default();
        self.rows(now, &mut rows);
        append(table(tables, "stations"), rows.into_columns());
        if let Some(ac) = self.ac_table() {
            append(table(tables, "access_categories"), ac.columns);
        }
        if let Some(t) = self.txq_table(now) {
            append(table(tables, "txqs"), t.columns);
        }
        if let Some(t) = self.ampdu_table() {
            append(table(tables, "ampdus"), t.columns);
        }
    }

    /// The `ampdus` table of an aggregating cell: per port, the PPDUs it started under
    /// block ack and how many got no BlockAck (ns-3's failed PPDUs).
    fn ampdu_table(&self) -> Option<Table> {
        self.agg.as_ref()?;
        let mut t = Table::default();
        let ports = 0..self.sta.len();
        t.push(
            "cell",
            Column::Str(
                ports
                    .clone()
                    .map(|p| self.cells[self.cell_of[p] as usize].clone())
                    .collect(),
            ),
        );
        t.push(
            "station",
            Column::Str(ports.clone().map(|p| self.names[p].clone()).collect()),
        );
        let u =
            |g: fn(&StaStats) -> u64| Column::U64(self.sta.iter().map(|s| g(&s.stats)).collect());
        t.push("data_ppdus", u(|s| s.data_ppdus));
        t.push("data_mpdus", u(|s| s.data_mpdus));
        t.push("failed_data_ppdus", u(|s| s.failed_data_ppdus));
        t.push("block_ack_reqs", u(|s| s.bars));
        t.push("failed_block_ack_reqs", u(|s| s.failed_bars));
        Some(t)
    }

    /// The `stations` table rows of this cell.
    fn rows(&self, now: SimTime, t: &mut StationRows) {
        let span = now.saturating_sub(self.stats_from).as_secs_f64().max(1e-12);
        for (p, s) in self.sta.iter().enumerate() {
            let st = &s.stats;
            t.cell.push(self.cells[self.cell_of[p] as usize].clone());
            t.station.push(self.names[p].clone());
            let role = match self.ap_of[p] {
                NO_AP => "adhoc",
                _ if self.is_ap(p) => "ap",
                _ => "sta",
            };
            t.role.push(role.into());
            t.rate.push(if self.is_ap(p) {
                0.0
            } else if self.ap_of[p] == NO_AP {
                self.phy.rate_bps(self.rate_kbps[p])
            } else {
                self.phy.rate_bps(self.rate(self.ap_of[p] as usize, p))
            });
            t.sent.push(st.sent);
            t.retries.push(st.retries);
            t.collisions.push(st.collisions);
            t.errors.push(st.errors);
            t.drops_collision.push(st.drops_collision);
            t.drops_channel.push(st.drops_channel);
            t.drops_retry.push(st.drops_retry);
            t.airtime.push(st.airtime as f64 / 1e9);
            t.share.push(st.airtime as f64 / 1e9 / span);
            t.delay.push(if st.sent > 0 {
                st.access_delay as f64 / st.sent as f64 / 1e6
            } else {
                f64::NAN
            });
        }
    }

    /// The `txqs` table of APs with mac80211 queues: per station and AC, the air time the
    /// scheduler charged (both directions) and the TXQ's drops; on an aggregating cell
    /// also the aggregates formed, the MPDUs in them and AQL's largest pending air time.
    fn txq_table(&self, now: SimTime) -> Option<Table> {
        let span = now.saturating_sub(self.stats_from).as_secs_f64().max(1e-12);
        let mut rows: Vec<(usize, usize, usize)> = Vec::new(); // (ap, station, fi)
        for (ap, s) in self.sta.iter().enumerate() {
            let Some(t) = &s.txq else { continue };
            for q in (0..self.sta.len()).filter(|&q| q != ap && self.ap_of[q] as usize == ap) {
                for fi in 0..t.functions() {
                    rows.push((ap, q, fi));
                }
            }
        }
        if rows.is_empty() {
            return None;
        }
        let txq = |r: &(usize, usize, usize)| self.sta[r.0].txq.as_ref().unwrap().stats(r.1, r.2);
        let mut t = Table::default();
        t.push(
            "cell",
            Column::Str(
                rows.iter()
                    .map(|r| self.cells[self.cell_of[r.0] as usize].clone())
                    .collect(),
            ),
        );
        t.push(
            "station",
            Column::Str(rows.iter().map(|r| self.names[r.1].clone()).collect()),
        );
        t.push(
            "ac",
            Column::Str(
                rows.iter()
                    .map(|r| {
                        if self.sta[r.0].count > 1 {
                            Ac::from_index(r.2).name().to_string()
                        } else {
                            "DCF".to_string()
                        }
                    })
                    .collect(),
            ),
        );
        t.push(
            "airtime_s",
            Column::F64(rows.iter().map(|r| txq(r).airtime as f64 / 1e9).collect()),
        );
        t.push(
            "airtime_share",
            Column::F64(
                rows.iter()
                    .map(|r| txq(r).airtime as f64 / 1e9 / span)
                    .collect(),
            ),
        );
        t.push(
            "aqm_drops",
            Column::U64(rows.iter().map(|r| txq(r).aqm_drops).collect()),
        );
        t.push(
            "overlimit_drops",
            Column::U64(rows.iter().map(|r| txq(r).overlimit_drops).collect()),
        );
        if self.agg.is_some() {
            // Aggregates formed from the TXQs (`aggregate.rs`), and with AQL the largest
            // estimated air time the station had pending in the driver.
            t.push(
                "aggregates",
                Column::U64(rows.iter().map(|r| txq(r).aggregates).collect()),
            );
            t.push(
                "mpdus",
                Column::U64(rows.iter().map(|r| txq(r).mpdus).collect()),
            );
            t.push(
                "aql_pending_max_us",
                Column::F64(
                    rows.iter()
                        .map(|r| {
                            if self.sta[r.0].txq.as_ref().unwrap().aql() {
                                txq(r).aql_pending_max as f64 / 1e3
                            } else {
                                f64::NAN
                            }
                        })
                        .collect(),
                ),
            );
        }
        Some(t)
    }

    /// The `access_categories` table of the QoS ports: one row per EDCA function.
    fn ac_table(&self) -> Option<Table> {
        let qos: Vec<&Edcaf> = self
            .fns
            .iter()
            .filter(|f| self.sta[f.port as usize].count > 1)
            .collect();
        if qos.is_empty() {
            return None;
        }
        let mut t = Table::default();
        let port = |f: &&Edcaf| f.port as usize;
        t.push(
            "cell",
            Column::Str(
                qos.iter()
                    .map(|f| self.cells[self.cell_of[port(f)] as usize].clone())
                    .collect(),
            ),
        );
        t.push(
            "station",
            Column::Str(qos.iter().map(|f| self.names[port(f)].clone()).collect()),
        );
        t.push(
            "ac",
            Column::Str(qos.iter().map(|f| f.ac.name().to_string()).collect()),
        );
        let u = |g: fn(&AcStats) -> u64| Column::U64(qos.iter().map(|f| g(&f.stats)).collect());
        t.push("frames_sent", u(|s| s.sent));
        t.push("txops", u(|s| s.txops));
        t.push("collisions", u(|s| s.collisions));
        t.push("internal_collisions", u(|s| s.internal));
        t.push("drops", u(|s| s.drops));
        t.push(
            "mean_access_delay_ms",
            Column::F64(
                qos.iter()
                    .map(|f| {
                        if f.stats.sent > 0 {
                            f.stats.access_delay as f64 / f.stats.sent as f64 / 1e6
                        } else {
                            f64::NAN
                        }
                    })
                    .collect(),
            ),
        );
        Some(t)
    }
}

/// The table `name` of `tables`, added empty if it is not there yet.
fn table<'a>(tables: &'a mut Vec<(String, Table)>, name: &str) -> &'a mut Table {
    match tables.iter().position(|(n, _)| n == name) {
        Some(i) => &mut tables[i].1,
        None => {
            tables.push((name.into(), Table::default()));
            &mut tables.last_mut().unwrap().1
        }
    }
}

impl StationRows {
    fn into_columns(self) -> Vec<(String, Column)> {
        let r = self;
        vec![
            ("cell".into(), Column::Str(r.cell)),
            ("station".into(), Column::Str(r.station)),
            ("role".into(), Column::Str(r.role)),
            ("phy_rate_bps".into(), Column::F64(r.rate)),
            ("frames_sent".into(), Column::U64(r.sent)),
            ("retries".into(), Column::U64(r.retries)),
            ("collisions".into(), Column::U64(r.collisions)),
            ("channel_errors".into(), Column::U64(r.errors)),
            ("drops_collision".into(), Column::U64(r.drops_collision)),
            ("drops_channel_error".into(), Column::U64(r.drops_channel)),
            ("drops_retry_limit".into(), Column::U64(r.drops_retry)),
            ("airtime_s".into(), Column::F64(r.airtime)),
            ("airtime_share".into(), Column::F64(r.share)),
            ("mean_access_delay_ms".into(), Column::F64(r.delay)),
        ]
    }
}

/// Appends the rows `cols` to table `t` (creating its columns when it is empty).
fn append(t: &mut Table, cols: Vec<(String, Column)>) {
    if t.columns.is_empty() {
        for (n, c) in cols {
            t.push(&n, c);
        }
        return;
    }
    for ((_, dst), (_, src)) in t.columns.iter_mut().zip(cols) {
        match (dst, src) {
            (Column::Str(a), Column::Str(b)) => a.extend(b),
            (Column::U64(a), Column::U64(b)) => a.extend(b),
            (Column::F64(a), Column::F64(b)) => a.extend(b),
            _ => unreachable!("a cell table's columns have fixed types"),
        }
    }
}
