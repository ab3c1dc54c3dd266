//! The checks of `[[cells]]` and `[propagation]` (and of a static route via a cell): names,
//! nodes, the standard's rates, MAC parameters, EDCA, capture, who hears whom. They run on
//! the cells' specs ([`super::spec`]) with what they need of the rest of the scenario passed
//! in (node names, the names the cells share a namespace with, the shared spectrum), so the
//! medium's folder holds its own rules and the format (`crate::scenario::validate`) only
//! calls them. Every problem is collected; nothing here panics on user input.

use super::phy::{mcs_of, Band, Phy, Standard};
use super::spec::{
    AggregationSpec, ApQueuesKind, BandKind, CaptureKind, CellMode, CellSpec, PropagationSpec,
    RateControlKind,
};
use crate::conf::{check_name, unique, Rate, ScenarioError, MIN_MTU};
use crate::link::air::spec::SpectrumSpec;
use std::collections::HashSet;

/// Checks `cells`: a unique name among links, segments and cells, known nodes each once,
/// a known standard with rates of it, sane MAC parameters.
///
/// `taken`: the names of the links and segments (one namespace with the cells); `nodes`:
/// the scenario's nodes; `spectrum`: the shared spectrum, if any (a cell on it cannot
/// use SINR capture).
pub fn check_cells(
    cells: &[CellSpec],
    taken: &HashSet<&str, impl std::hash::BuildHasher>,
    nodes: &HashSet<&str, impl std::hash::BuildHasher>,
    spectrum: Option<&SpectrumSpec>,
    errs: &mut ScenarioError,
) {
    for c in cells {
        let label = format!("cells.{}", c.name);
        check_name(format!("{label}.name"), &c.name, errs);
        if taken.contains(c.name.as_str()) {
            errs.push(
                format!("{label}.name"),
                format!("\"{}\" is also a link's or segment's name; they share one namespace (interfaces are <node>.<name>)", c.name),
            );
        }
        let std = Standard::parse(&c.standard);
        if std.is_none() {
            errs.push(
                format!("{label}.standard"),
                format!(
                    "\"{}\" is not a supported PHY; use \"802.11b\", \"802.11a\", \"802.11g\", \"802.11n\", \"802.11ac\" or \"802.11ax\"",
                    c.standard
                ),
            );
        }
        // The non-HT rates of the cell's standard in its band.
        let legacy: Vec<u32> = match std {
            Some(std) => {
                let band = match (std, c.band) {
                    (Standard::N | Standard::Ax, Some(BandKind::Ghz2_4)) => Band::Ghz2_4,
                    _ => std.default_band(),
                };
                Phy::in_band(std, band)
                    .rates()
                    .into_iter()
                    .filter(|&k| mcs_of(k).is_none())
                    .collect()
            }
            None => Vec::new(),
        };
        if let Some(std) = std {
            check_mcs_phy(c, std, &label, errs);
            check_aggregation(c, std, &label, errs);
        }
        check_aql(c, std, &label, errs);
        let rate_ok = |path: String, r: &Rate, errs: &mut ScenarioError| {
            if let Some(std) = std {
                let ok =
                    r.bps().is_multiple_of(1000) && legacy.contains(&((r.bps() / 1000) as u32));
                if !ok {
                    let list: Vec<String> = legacy
                        .iter()
                        .map(|k| format!("{}Mbit", *k as f64 / 1000.0))
                        .collect();
                    errs.push(
                        path,
                        format!(
                            "{} is not a rate of {}; use one of {}",
                            r,
                            std.name(),
                            list.join(", ")
                        ),
                    );
                }
            }
        };
        if let Some(r) = &c.rate {
            rate_ok(format!("{label}.rate"), r, errs);
        }
        for r in c.basic_rates.iter().flatten() {
            rate_ok(format!("{label}.basic_rates"), r, errs);
        }
        if c.basic_rates.as_ref().is_some_and(|b| b.is_empty()) {
            errs.push(
                format!("{label}.basic_rates"),
                "must name at least one rate; remove the key for the standard's set",
            );
        }
        if c.short_preamble && !legacy.contains(&11_000) && std.is_some() {
            errs.push(
                format!("{label}.short_preamble"),
                "a 5 GHz cell (802.11a, or n/ac/ax at 5 GHz) has no DSSS preamble; remove the key",
            );
        }
        if c.stations.is_empty() {
            errs.push(
                format!("{label}.stations"),
                "a cell needs at least one station, e.g. stations = [{ node = \"sta\" }]",
            );
        }
        check_mode(c, &label, errs);
        let mut seen = HashSet::new();
        for n in c.members() {
            if !nodes.contains(n.as_str()) {
                errs.push(
                    format!("{label}.stations"),
                    format!("\"{n}\" is not a node; add it to [[nodes]] or fix the name"),
                );
            }
            if !seen.insert(n.as_str()) {
                errs.push(
                    format!("{label}.stations"),
                    format!("\"{n}\" is in the cell twice; a node has one interface on a cell"),
                );
            }
        }
        for st in &c.stations {
            if let Some(r) = &st.rate {
                rate_ok(format!("{label}.stations.{}.rate", st.node), r, errs);
            }
            if st.buffer == Some(0) {
                errs.push(
                    format!("{label}.stations.{}.buffer", st.node),
                    "must be at least 1 packet",
                );
            }
            if st.snr_db.is_some() && st.ber.0 > 0.0 {
                errs.push(
                    format!("{label}.stations.{}.snr_db", st.node),
                    "snr_db and ber both set the frame errors; keep one",
                );
            }
            if !st.snr_changes.is_empty() && st.snr_db.is_none() {
                errs.push(
                    format!("{label}.stations.{}.snr_changes", st.node),
                    "needs a starting snr_db, e.g. snr_db = 25",
                );
            }
            if st.snr_changes.len() > 1000 {
                errs.push(
                    format!("{label}.stations.{}.snr_changes", st.node),
                    "at most 1000 changes per station",
                );
            }
            if !(0.0..=1.0).contains(&st.ber.0) {
                errs.push(
                    format!("{label}.stations.{}.ber", st.node),
                    "must be in [0, 1], e.g. 1e-5",
                );
            }
        }
        if c.buffer == 0 || c.ap_buffer == Some(0) {
            errs.push(format!("{label}.buffer"), "must be at least 1 packet");
        }
        let (cw_min, cw_max) = (c.cw_min.unwrap_or(1), c.cw_max.unwrap_or(1023));
        for (k, v) in [("cw_min", cw_min), ("cw_max", cw_max)] {
            if !(v + 1).is_power_of_two() || v > 32767 {
                errs.push(
                    format!("{label}.{k}"),
                    format!("{v} is not 2^k − 1 (≤ 32767); the CW doubles as 2·CW + 1 (§10.3.3), e.g. 15, 31, 1023"),
                );
            }
        }
        if c.cw_min.is_some() && c.cw_max.is_some() && cw_min > cw_max {
            errs.push(format!("{label}.cw_max"), "must not be below cw_min");
        }
        if c.short_retry_limit == 0 || c.long_retry_limit == 0 {
            errs.push(
                format!("{label}.short_retry_limit"),
                "retry limits count attempts and must be at least 1 (defaults 7 and 4)",
            );
        }
        if c.slot.is_some_and(|d| d.time().0 == 0) {
            errs.push(
                format!("{label}.slot"),
                "must be longer than zero, e.g. \"9us\"",
            );
        }
        check_edca(c, &label, errs);
        check_capture(spectrum, c, &label, errs);
        if std.is_some_and(Standard::has_mcs)
            && spectrum.is_some_and(|sp| sp.members.contains(&c.name))
        {
            errs.push(
                format!("{label}.standard"),
                "802.11n/ac/ax cells cannot join the shared Bluetooth [spectrum] yet; remove the cell from spectrum.members",
            );
        }
        if c.airtime_quantum.time().0 == 0 {
            errs.push(
                format!("{label}.airtime_quantum"),
                "must be longer than zero, e.g. \"256us\" (mac80211's default)",
            );
        }
        if c.mtu < MIN_MTU || c.mtu > 2304 {
            errs.push(
                format!("{label}.mtu"),
                format!(
                    "{} is outside {MIN_MTU}…2304 bytes (802.11's largest MSDU)",
                    c.mtu
                ),
            );
        }
    }
    // Cells sharing a channel share one PHY and MAC.
    for (k, c) in cells.iter().enumerate() {
        let Some(ch) = c.channel else { continue };
        if let Some(first) = cells[..k].iter().find(|f| f.channel == Some(ch)) {
            let key = |x: &CellSpec| {
                format!(
                    "{:?}",
                    (
                        &x.standard,
                        x.short_preamble,
                        &x.basic_rates,
                        x.slot,
                        x.sifs,
                        x.cw_min,
                        x.cw_max,
                        x.rts_threshold,
                        x.short_retry_limit,
                        x.long_retry_limit,
                        x.capture,
                        (
                            x.frame_capture,
                            x.band,
                            x.channel_width,
                            x.guard_interval,
                            x.aggregation,
                        ),
                    )
                )
            };
            if key(first) != key(c) {
                errs.push(
                    format!("cells.{}.channel", c.name),
                    format!(
                        "shares channel {ch} with cell \"{}\" but differs in its PHY or MAC keys (standard, band, channel_width, guard_interval, short_preamble, basic_rates, slot, sifs, cw_min, cw_max, rts_threshold, retry limits, capture, frame_capture, aggregation); make them equal or use another channel",
                        first.name
                    ),
                );
            }
        }
    }
    unique("cells", cells.iter().map(|c| c.name.as_str()), errs);
}

/// The HT/VHT/HE keys (`band`, `channel_width`, `guard_interval`, `mcs`,
/// `spatial_streams`): only on n/ac/ax cells, with values the standard allows, every
/// station's MCS/width/stream combination valid (VHT: IEEE 802.11-2020 Tables 21-30 …
/// 21-61), and nothing the HT/VHT/HE cells do not model yet (rate control, SINR capture,
/// the Bluetooth spectrum: checked where those keys are).
fn check_mcs_phy(c: &CellSpec, std: Standard, label: &str, errs: &mut ScenarioError) {
    let name = std.name();
    if !std.has_mcs() {
        let keys = [
            ("band", c.band.is_some()),
            ("channel_width", c.channel_width.is_some()),
            ("guard_interval", c.guard_interval.is_some()),
            ("mcs", c.mcs.is_some()),
            ("spatial_streams", c.spatial_streams.is_some()),
        ];
        for (k, set) in keys {
            if set {
                errs.push(
                    format!("{label}.{k}"),
                    format!("{name} has no {k} key (it is for \"802.11n\", \"802.11ac\" and \"802.11ax\" cells); remove it or change the standard"),
                );
            }
        }
        for st in &c.stations {
            if st.mcs.is_some() || st.spatial_streams.is_some() {
                errs.push(
                    format!("{label}.stations.{}.mcs", st.node),
                    format!("{name} sends at a `rate`, not an MCS; remove mcs/spatial_streams or use standard = \"802.11n\", \"802.11ac\" or \"802.11ax\""),
                );
            }
        }
        return;
    }
    let band = match c.band {
        Some(BandKind::Ghz2_4) => Band::Ghz2_4,
        _ => Band::Ghz5,
    };
    if std == Standard::Ac && band == Band::Ghz2_4 {
        errs.push(
            format!("{label}.band"),
            "802.11ac (VHT) is a 5 GHz PHY; use band = \"5GHz\" (or leave it out), or standard = \"802.11n\"/\"802.11ax\" at 2.4 GHz",
        );
    }
    let widths: &[u32] = match (std, band) {
        (Standard::N, _) | (Standard::Ax, Band::Ghz2_4) => &[20, 40],
        _ => &[20, 40, 80, 160],
    };
    let width = c.channel_width.unwrap_or(20);
    if !widths.contains(&width) {
        errs.push(
            format!("{label}.channel_width"),
            format!(
                "{name} {} has no {width} MHz channels; use one of {widths:?} (MHz)",
                if band == Band::Ghz2_4 {
                    "at 2.4 GHz"
                } else {
                    "at 5 GHz"
                }
            ),
        );
    }
    let gi = c.guard_interval.map_or(800, |d| d.time().0);
    let gis: &[u64] = if std == Standard::Ax {
        &[800, 1600, 3200]
    } else {
        &[800, 400]
    };
    if !gis.contains(&gi) {
        let list: Vec<String> = gis.iter().map(|g| format!("\"{g}ns\"")).collect();
        errs.push(
            format!("{label}.guard_interval"),
            format!(
                "{name} has no {gi} ns guard interval; use {}",
                list.join(" or ")
            ),
        );
    }
    if c.rate.is_some() && c.mcs.is_some() {
        errs.push(
            format!("{label}.mcs"),
            "set the cell's default as either a non-HT `rate` or an `mcs`, not both",
        );
    }
    let top: u32 = match std {
        Standard::N => 31,
        Standard::Ac => 9,
        _ => 11,
    };
    let ss_ok = |ss: Option<u32>, path: String, errs: &mut ScenarioError| {
        match ss {
        Some(_) if std == Standard::N => errs.push(
            path,
            "802.11n numbers its streams into the MCS (mcs = 8·(streams − 1) + 0…7, e.g. 15 for 2 streams of 64-QAM 5/6); remove spatial_streams",
        ),
        Some(n) if !(1..=4).contains(&n) => errs.push(
            path,
            format!("{n} spatial streams are not modelled; use 1 to 4"),
        ),
        _ => {}
    }
    };
    let mcs_ok = |m: Option<u32>, path: String, errs: &mut ScenarioError| {
        if let Some(m) = m {
            if m > top {
                errs.push(
                    path,
                    format!("{name} has MCS 0 to {top}; {m} is out of range (MCS 32 and the unequal-modulation HT MCSs are not modelled)"),
                );
            }
        }
    };
    ss_ok(c.spatial_streams, format!("{label}.spatial_streams"), errs);
    mcs_ok(c.mcs, format!("{label}.mcs"), errs);
    let mut phy = Phy::in_band(std, band);
    phy.width_mhz = width;
    for st in &c.stations {
        let at = format!("{label}.stations.{}", st.node);
        ss_ok(st.spatial_streams, format!("{at}.spatial_streams"), errs);
        mcs_ok(st.mcs, format!("{at}.mcs"), errs);
        if st.rate.is_some() && st.mcs.is_some() {
            errs.push(
                format!("{at}.mcs"),
                "set either a non-HT `rate` or an `mcs`, not both",
            );
        }
        // The combination this station sends at (the builder's precedence).
        if !widths.contains(&width) || st.rate.is_some() || (st.mcs.is_none() && c.rate.is_some()) {
            continue;
        }
        let nss = st.spatial_streams.or(c.spatial_streams).unwrap_or(1);
        let Some(m) = st.mcs.or(c.mcs) else { continue };
        if std != Standard::Ac || m > top || !(1..=4).contains(&nss) {
            continue;
        }
        if !phy.valid_mcs(nss, m as u8) {
            let key = if st.mcs.is_some() {
                format!("{at}.mcs")
            } else {
                format!("{label}.mcs")
            };
            errs.push(
                key,
                format!("VHT MCS {m} with {nss} spatial stream(s) at {width} MHz is not a valid combination (IEEE 802.11-2020 Tables 21-30 … 21-61: MCS 9 needs 3 streams at 20 MHz, MCS 6 is invalid with 3 streams at 80 MHz, MCS 9 with 3 streams at 160 MHz); pick another mcs, spatial_streams or channel_width"),
            );
        }
    }
    for st in &c.stations {
        if st.rate_control.unwrap_or(c.rate_control) != RateControlKind::Fixed {
            errs.push(
                format!("{label}.stations.{}.rate_control", st.node),
                format!("{name} cells have fixed MCSs for now (Minstrel-HT is still to come); use rate_control = \"fixed\" with an `mcs`"),
            );
        }
    }
    if c.capture != CaptureKind::None {
        errs.push(
            format!("{label}.capture"),
            format!("SINR-based reception is not modelled for {name} cells yet; remove capture"),
        );
    }
}

/// The `aql` key: mac80211's TXQs that form A-MPDUs (with one frame per AC in the
/// hardware AQL never binds), positive limits, the high one not below the low one.
fn check_aql(c: &CellSpec, std: Option<Standard>, label: &str, errs: &mut ScenarioError) {
    let Some(a) = c.aql else { return };
    let at = format!("{label}.aql");
    if c.ap_queues != ApQueuesKind::Mac80211 {
        errs.push(
            at.clone(),
            "airtime queue limits apply to mac80211's TXQs; add ap_queues = \"mac80211\" or remove aql",
        );
    }
    let aggregates = std.is_some_and(|s| s.has_mcs()) && c.aggregation.is_none_or(|g| g.ampdu);
    if !aggregates {
        errs.push(
            at.clone(),
            "AQL is modelled with A-MPDU aggregation (an 802.11n/ac/ax cell with aggregation on); with one frame per AC in the hardware it never binds; remove aql",
        );
    }
    for (k, v, dflt) in [
        ("txq_limit_low", a.txq_limit_low, "5ms"),
        ("txq_limit_high", a.txq_limit_high, "12ms"),
    ] {
        if v.time().0 == 0 {
            errs.push(
                format!("{at}.{k}"),
                format!("must be longer than zero, e.g. \"{dflt}\" (Linux's default)"),
            );
        }
    }
    if a.txq_limit_high.time() < a.txq_limit_low.time() {
        errs.push(
            format!("{at}.txq_limit_high"),
            "must not be below txq_limit_low (Linux's defaults: 5ms low, 12ms high)",
        );
    }
}

/// The `aggregation` key: only on n/ac/ax cells, limits within the standard's (IEEE
/// 802.11-2020 §10.12.2 A-MPDU lengths, §10.25.2 windows), and nothing the aggregating
/// medium does not model yet (A-MSDU, RTS/CTS).
fn check_aggregation(c: &CellSpec, std: Standard, label: &str, errs: &mut ScenarioError) {
    use super::{ampdu, block_ack};
    let a = c.aggregation.unwrap_or(AggregationSpec {
        ampdu: std.has_mcs(),
        max_ampdu_bytes: None,
        max_mpdus: None,
        amsdu: false,
        tail_reception: false,
    });
    if c.aggregation.is_none() && !std.has_mcs() {
        return;
    }
    let at = format!("{label}.aggregation");
    let name = std.name();
    let (Some(max_bytes), Some(window)) = (ampdu::max_ampdu_bytes(std), block_ack::max_window(std))
    else {
        errs.push(
            at,
            format!("{name} has no A-MPDU aggregation or block ack (they are HT, VHT and HE features); remove aggregation or use standard = \"802.11n\", \"802.11ac\" or \"802.11ax\""),
        );
        return;
    };
    if let Some(b) = a.max_ampdu_bytes {
        if b == 0 || b > max_bytes {
            errs.push(
                format!("{at}.max_ampdu_bytes"),
                format!("{name} A-MPDUs are 1 to {max_bytes} bytes long; {b} is not (n 65535, ac 1048575, ax 6500631)"),
            );
        }
    }
    if let Some(w) = a.max_mpdus {
        if w == 0 || w > window {
            let only = if w > 64 && w <= 256 {
                " (256 is an 802.11ax window)"
            } else {
                ""
            };
            errs.push(
                format!("{at}.max_mpdus"),
                format!(
                    "{name} block ack windows hold 1 to {window} MPDUs; {w} is not allowed{only}"
                ),
            );
        }
    }
    if a.amsdu {
        errs.push(
            format!("{at}.amsdu"),
            "A-MSDU aggregation is not modelled yet; use amsdu = false",
        );
    }
    if !a.ampdu {
        if a.tail_reception {
            errs.push(
                format!("{at}.tail_reception"),
                "tail_reception is how a receiver keeps an A-MPDU's MPDUs through a collision; it needs ampdu = true (or remove tail_reception)",
            );
        }
        return;
    }
    for st in &c.stations {
        if st.rate.is_some() || (st.mcs.is_none() && c.rate.is_some()) {
            errs.push(
                format!("{label}.stations.{}.rate", st.node),
                "a station at a non-HT rate sends non-HT PPDUs, which carry no A-MPDU; give it an mcs or set aggregation = { ampdu = false } on the cell",
            );
        }
    }
    if c.rts_threshold < 2347 {
        errs.push(
            format!("{at}.ampdu"),
            "RTS/CTS before A-MPDUs is not modelled yet; leave rts_threshold at 2347 or use aggregation = { ampdu = false }",
        );
    }
}

/// A cell's `mode`: an infrastructure cell names its `ap`; an ad hoc cell (IBSS) has none,
/// at least two stations, and not (yet) the keys that need an AP or a per-peer rate
/// control.
fn check_mode(c: &CellSpec, label: &str, errs: &mut ScenarioError) {
    match c.mode {
        CellMode::Infrastructure => {
            if c.ap.is_none() {
                errs.push(
                    format!("{label}.ap"),
                    "an infrastructure cell needs its access point, e.g. ap = \"ap\" (or mode = \"adhoc\" for an IBSS without one)",
                );
            }
        }
        CellMode::Adhoc => {
            if c.ap.is_some() {
                errs.push(
                    format!("{label}.ap"),
                    "an ad hoc cell (IBSS) has no access point; list every node in `stations` and remove `ap`",
                );
            }
            if c.stations.len() == 1 {
                errs.push(
                    format!("{label}.stations"),
                    "an ad hoc cell needs at least two stations to reach each other",
                );
            }
            if c.ap_queues != ApQueuesKind::Driver || c.ap_buffer.is_some() {
                errs.push(
                    format!("{label}.ap_queues"),
                    "an ad hoc cell has no AP queues; remove ap_queues and ap_buffer",
                );
            }
            for st in &c.stations {
                if st.rate_control.unwrap_or(c.rate_control) != RateControlKind::Fixed
                    || st.snr_db.is_some()
                {
                    errs.push(
                        format!("{label}.stations.{}.rate_control", st.node),
                        "rate control (Minstrel, ARF, AARF) and snr_db are not yet supported in ad hoc cells (they need one rate control per peer); use a fixed `rate` and `ber`",
                    );
                }
            }
        }
    }
}

/// A cell's `capture`: SINR-based reception runs the per-station medium, which has no
/// EDCA and no shared Bluetooth spectrum yet; `frame_capture` needs it.
fn check_capture(
    spectrum: Option<&SpectrumSpec>,
    c: &CellSpec,
    label: &str,
    errs: &mut ScenarioError,
) {
    if c.capture == CaptureKind::None {
        if c.frame_capture {
            errs.push(
                format!("{label}.frame_capture"),
                "frame capture needs SINR-based reception; add capture = \"sinr\" or remove frame_capture",
            );
        }
        return;
    }
    if c.qos {
        errs.push(
            format!("{label}.capture"),
            "SINR-based reception (the per-station medium) does not support EDCA yet; remove qos or capture",
        );
    }
    if spectrum.is_some_and(|sp| sp.members.contains(&c.name)) {
        errs.push(
            format!("{label}.capture"),
            "a cell on the shared Bluetooth [spectrum] cannot use capture = \"sinr\" yet; remove one of them",
        );
    }
}

/// A cell's `edca` overrides: only with `qos`, AIFSN 1…15, CWs 2^k − 1 in order.
fn check_edca(c: &CellSpec, label: &str, errs: &mut ScenarioError) {
    let e = &c.edca;
    if !c.qos && !e.is_default() {
        errs.push(
            format!("{label}.edca"),
            "EDCA parameters need qos = true; add it or remove edca",
        );
    }
    for (ac, o) in [("bk", &e.bk), ("be", &e.be), ("vi", &e.vi), ("vo", &e.vo)] {
        let Some(o) = o else { continue };
        let path = format!("{label}.edca.{ac}");
        if o.aifsn.is_some_and(|a| !(1..=15).contains(&a)) {
            errs.push(
                format!("{path}.aifsn"),
                "must be in 1…15 (the AIFSN field has 4 bits; non-AP stations use ≥ 2)",
            );
        }
        for (k, v) in [("cw_min", o.cw_min), ("cw_max", o.cw_max)] {
            if let Some(v) = v {
                if !(v + 1).is_power_of_two() || v > 32767 {
                    errs.push(
                        format!("{path}.{k}"),
                        format!("{v} is not 2^k − 1 (≤ 32767), e.g. 3, 7, 15"),
                    );
                }
            }
        }
        if let (Some(a), Some(b)) = (o.cw_min, o.cw_max) {
            if a > b {
                errs.push(format!("{path}.cw_max"), "must not be below cw_min");
            }
        }
    }
}

/// Checks `propagation`: positions or `hears`/`senses` (not both), naming known nodes;
/// with positions every cell member placed; finite coordinates, velocities and powers; a
/// carrier-sense threshold not above the receive threshold; no QoS cell and no cell on
/// the shared spectrum (the per-station medium does not model EDCA or Bluetooth yet).
///
/// `cells`: the scenario's cells; `spectrum`: the shared spectrum, if any; `nodes`: the
/// scenario's nodes.
pub fn check_propagation(
    propagation: Option<&PropagationSpec>,
    cells: &[CellSpec],
    spectrum: Option<&SpectrumSpec>,
    nodes: &HashSet<&str, impl std::hash::BuildHasher>,
    errs: &mut ScenarioError,
) {
    let Some(pr) = propagation else { return };
    let known = |n: &str, path: String, errs: &mut ScenarioError| {
        if !nodes.contains(n) {
            errs.push(path, format!("unknown node \"{n}\"; add it to [[nodes]]"));
        }
    };
    for c in cells {
        let agg = c.aggregation.is_none_or(|a| a.ampdu);
        if agg && Standard::parse(&c.standard).is_some_and(Standard::has_mcs) {
            errs.push(
                format!("cells.{}.aggregation", c.name),
                "A-MPDU aggregation is not modelled with [propagation] (the per-station medium) yet; set aggregation = { ampdu = false } on this cell",
            );
        }
    }
    if !pr.positions.is_empty() {
        for c in cells {
            if Standard::parse(&c.standard).is_some_and(Standard::has_mcs) {
                errs.push(
                    format!("cells.{}.standard", c.name),
                    "802.11n/ac/ax cells do not take [propagation] positions yet (their SNR model per MCS and width is still to come); use a hearing graph (hears) or per-station snr_db",
                );
            }
        }
    }
    for (node, xy) in &pr.positions {
        known(node, format!("propagation.positions.{node}"), errs);
        if !xy.iter().all(|v| v.is_finite()) {
            errs.push(
                format!("propagation.positions.{node}"),
                "coordinates must be finite numbers of metres, e.g. [100, 0]",
            );
        }
    }
    let graph = !pr.hears.is_empty() || !pr.senses.is_empty();
    if graph && !pr.positions.is_empty() {
        errs.push(
            "propagation.hears",
            "give either positions or a hearing graph (hears/senses), not both",
        );
    }
    if !graph && pr.positions.is_empty() {
        errs.push(
            "propagation.positions",
            "say who hears whom: node positions, e.g. positions = { a = [0, 0], b = [100, 0] }, or hears = [[\"a\", \"b\"]]",
        );
    }
    for (key, list) in [("hears", &pr.hears), ("senses", &pr.senses)] {
        for (i, [a, b]) in list.iter().enumerate() {
            known(a, format!("propagation.{key}[{i}]"), errs);
            known(b, format!("propagation.{key}[{i}]"), errs);
        }
    }
    for (i, m) in pr.motion.iter().enumerate() {
        known(&m.node, format!("propagation.motion[{i}].node"), errs);
        if !m.velocity.iter().all(|v| v.is_finite()) {
            errs.push(
                format!("propagation.motion[{i}].velocity"),
                "must be finite m/s, e.g. [0.7, 0]",
            );
        }
        if pr.positions.is_empty() {
            errs.push(
                format!("propagation.motion[{i}]"),
                "motion needs positions; place the nodes with `positions`",
            );
        }
    }
    for (v, key) in [
        (pr.tx_power_dbm, "tx_power_dbm"),
        (pr.rx_threshold_dbm, "rx_threshold_dbm"),
        (pr.noise_figure_db, "noise_figure_db"),
    ] {
        if !v.is_finite() {
            errs.push(
                format!("propagation.{key}"),
                "must be a finite number of dB(m)",
            );
        }
    }
    if !(pr.frequency_mhz.is_finite() && pr.frequency_mhz > 0.0) {
        errs.push("propagation.frequency_mhz", "must be positive, e.g. 2437");
    }
    if let Some(cs) = pr.cs_threshold_dbm {
        if !cs.is_finite() || cs > pr.rx_threshold_dbm {
            errs.push(
                "propagation.cs_threshold_dbm",
                format!(
                    "{cs} must be a finite power not above rx_threshold_dbm ({}): a radio senses at least what it decodes",
                    pr.rx_threshold_dbm
                ),
            );
        }
    }
    if let Some(crate::channel::PathLossConf::LogDistance {
        exponent,
        reference_distance_m,
        ..
    }) = &pr.path_loss
    {
        if !(exponent.is_finite() && *exponent > 0.0) {
            errs.push("propagation.path_loss.exponent", "must be positive, e.g. 3");
        }
        if !(reference_distance_m.is_finite() && *reference_distance_m > 0.0) {
            errs.push(
                "propagation.path_loss.reference_distance_m",
                "must be positive, e.g. 1",
            );
        }
    }
    let on_spectrum: Vec<&str> = spectrum.map_or(Vec::new(), |sp| {
        sp.members.iter().map(|m| m.as_str()).collect()
    });
    for c in cells {
        if !pr.positions.is_empty() {
            for m in c.members() {
                if !pr.positions.contains_key(m) {
                    errs.push(
                        format!("propagation.positions.{m}"),
                        format!("node \"{m}\" of cell \"{}\" has no position; place every cell member, e.g. {m} = [0, 0]", c.name),
                    );
                }
            }
        }
        if c.qos {
            errs.push(
                format!("cells.{}.qos", c.name),
                "partial hearing ([propagation]) does not support EDCA yet; remove qos or [propagation]",
            );
        }
        if on_spectrum.contains(&c.name.as_str()) {
            errs.push(
                "spectrum.members",
                format!("cell \"{}\" cannot be on the shared spectrum with [propagation] yet; remove one of them", c.name),
            );
        }
    }
}

/// A static route via a cell: the next hop is one of the node's neighbours there (an ad
/// hoc cell: any other member; a station: its AP; the AP: its stations), named when there
/// are several.
///
/// The route is at `node` and names `next_hop` (if it does); `label` is its path.
pub fn check_cell_next_hop(
    c: &CellSpec,
    node: &str,
    next_hop: Option<&String>,
    label: &str,
    errs: &mut ScenarioError,
) {
    if !c.members().any(|n| *n == node) {
        return; // reported as a `via` that is not the node's
    }
    let neighbours: Vec<&String> = match (&c.mode, &c.ap) {
        (CellMode::Infrastructure, Some(ap)) if *ap != node => vec![ap],
        _ => c.members().filter(|n| **n != node).collect(),
    };
    match next_hop {
        None if neighbours.len() > 1 => errs.push(
            format!("{label}.next_hop"),
            format!(
                "node \"{}\" has {} neighbours on cell \"{}\"; say which one to hand packets to, e.g. next_hop = \"{}\"",
                node,
                neighbours.len(),
                c.name,
                neighbours[0]
            ),
        ),
        Some(h) if !neighbours.contains(&h) => errs.push(
            format!("{label}.next_hop"),
            format!(
                "\"{h}\" is not a neighbour of \"{}\" on cell \"{}\"; its neighbours there are: {}",
                node,
                c.name,
                neighbours.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(", ")
            ),
        ),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cell(v: serde_json::Value) -> CellSpec {
        serde_json::from_value(v).unwrap()
    }

    fn paths(errs: &ScenarioError) -> Vec<&str> {
        errs.problems.iter().map(|p| p.path.as_str()).collect()
    }

    #[test]
    fn a_cell_is_checked_with_only_the_names_around_it() {
        let c = cell(json!({
            "name": "wlan", "standard": "802.11g", "ap": "ap",
            "stations": [{ "node": "sta", "rate": "5Mbit" }],
            "edca": { "vo": { "aifsn": 0 } },
        }));
        let nodes: HashSet<&str> = ["ap", "sta"].into();
        let taken: HashSet<&str> = ["wlan"].into();
        let mut errs = ScenarioError::default();
        check_cells(std::slice::from_ref(&c), &taken, &nodes, None, &mut errs);
        assert_eq!(
            paths(&errs),
            [
                "cells.wlan.name",
                "cells.wlan.stations.sta.rate",
                "cells.wlan.edca",
                "cells.wlan.edca.vo.aifsn",
            ]
        );
    }

    #[test]
    fn a_route_via_a_cell_names_a_neighbour_when_there_are_several() {
        let c = cell(json!({
            "name": "wlan", "standard": "802.11b", "ap": "ap",
            "stations": [{ "node": "a" }, { "node": "b" }],
        }));
        let mut errs = ScenarioError::default();
        // A station's one neighbour is its AP; the AP has two; stations do not reach
        // each other directly.
        check_cell_next_hop(&c, "a", None, "routes[0]", &mut errs);
        check_cell_next_hop(&c, "ap", None, "routes[1]", &mut errs);
        check_cell_next_hop(&c, "a", Some(&"b".to_string()), "routes[2]", &mut errs);
        assert_eq!(paths(&errs), ["routes[1].next_hop", "routes[2].next_hop"]);
    }
}
