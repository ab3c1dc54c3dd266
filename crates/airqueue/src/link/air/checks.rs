//! The checks of `[spectrum]` and of the piconets' `coexistence`: members that can share
//! the 2.4 GHz band, positions, powers, the path loss. They run on the spectrum's spec
//! ([`super::spec`]) with the piconets and cells it names passed in, so the shared air holds
//! its own rules and the format (`crate::scenario::validate`) only calls them. Every
//! problem is collected; nothing here panics on user input.

use super::spec::SpectrumSpec;
use crate::conf::ScenarioError;
use crate::link::bluetooth::coexist::Avoidance;
use crate::link::bluetooth::spec::PiconetSpec;
use crate::link::wifi::spec::CellSpec;
use std::collections::HashSet;

/// Checks `spectrum` and the piconets' `coexistence`: members are piconets or 802.11b/g
/// cells with a `channel` in 1 … 14, each named once; positions name known nodes and are
/// finite; powers and the noise figure are finite, `min_distance` positive; a piconet's
/// `coexistence` is "none", "afh" or "bias" and needs the piconet on the spectrum.
///
/// `piconets` and `cells`: the scenario's; `nodes`: its nodes.
pub fn check_spectrum(
    spectrum: Option<&SpectrumSpec>,
    piconets: &[PiconetSpec],
    cells: &[CellSpec],
    nodes: &HashSet<&str, impl std::hash::BuildHasher>,
    errs: &mut ScenarioError,
) {
    let members: Vec<&str> = spectrum.map_or(Vec::new(), |sp| {
        sp.members.iter().map(|m| m.as_str()).collect()
    });
    for p in piconets {
        let Some(mode) = &p.coexistence else { continue };
        let path = format!("piconets.{}.coexistence", p.name);
        if Avoidance::parse(mode).is_none() {
            errs.push(
                path.clone(),
                format!("unknown \"{mode}\"; write \"none\", \"afh\" or \"bias\""),
            );
        }
        if !members.contains(&p.name.as_str()) {
            errs.push(
                path,
                format!(
                    "needs the piconet on the shared spectrum; add \"{}\" to spectrum.members",
                    p.name
                ),
            );
        }
    }
    let Some(sp) = spectrum else { return };
    let mut seen = HashSet::new();
    for m in &sp.members {
        if !seen.insert(m.as_str()) {
            errs.push("spectrum.members", format!("\"{m}\" is listed twice"));
        }
        if piconets.iter().any(|p| p.name == *m) {
            continue;
        }
        match cells.iter().find(|c| c.name == *m) {
            Some(c) => {
                if c.standard != "802.11b" && c.standard != "802.11g" {
                    errs.push(
                        "spectrum.members",
                        format!("cell \"{m}\" is {}; only 2.4 GHz cells (802.11b or 802.11g) share the band with Bluetooth", c.standard),
                    );
                }
                if !matches!(c.channel, Some(1..=14)) {
                    errs.push(
                        format!("cells.{m}.channel"),
                        "a cell on the spectrum needs its 2.4 GHz channel; set channel = 1 … 14",
                    );
                }
            }
            None => errs.push(
                "spectrum.members",
                format!("\"{m}\" is no piconet or cell; name one of [[piconets]] or [[cells]]"),
            ),
        }
    }
    for (node, xy) in &sp.positions {
        if !nodes.contains(node.as_str()) {
            errs.push(
                format!("spectrum.positions.{node}"),
                format!("unknown node \"{node}\"; add it to [[nodes]]"),
            );
        }
        if !xy.iter().all(|v| v.is_finite()) {
            errs.push(
                format!("spectrum.positions.{node}"),
                "coordinates must be finite numbers of metres, e.g. [1.5, 0]",
            );
        }
    }
    for (v, key) in [
        (sp.bluetooth_power_dbm, "bluetooth_power_dbm"),
        (sp.wlan_power_dbm, "wlan_power_dbm"),
        (sp.noise_figure_db, "noise_figure_db"),
    ] {
        if !v.is_finite() {
            errs.push(format!("spectrum.{key}"), "must be a finite number of dB");
        }
    }
    if !(sp.min_distance.is_finite() && sp.min_distance > 0.0) {
        errs.push(
            "spectrum.min_distance",
            format!(
                "{} must be a positive number of metres, e.g. 0.1",
                sp.min_distance
            ),
        );
    }
    if let crate::channel::PathLossConf::LogDistance {
        exponent,
        reference_distance_m,
        ..
    } = sp.path_loss
    {
        if !(exponent.is_finite() && exponent > 0.0) {
            errs.push("spectrum.path_loss.exponent", "must be positive, e.g. 3");
        }
        if !(reference_distance_m.is_finite() && reference_distance_m > 0.0) {
            errs.push(
                "spectrum.path_loss.reference_distance_m",
                "must be positive, e.g. 1",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn members_share_the_2_4_ghz_band() {
        let p: PiconetSpec = serde_json::from_value(
            json!({ "name": "p1", "master": "m", "slaves": ["s"], "coexistence": "afh" }),
        )
        .unwrap();
        let c: CellSpec = serde_json::from_value(json!({
            "name": "w", "standard": "802.11a", "ap": "ap", "stations": [{ "node": "sta" }],
        }))
        .unwrap();
        let nodes: HashSet<&str> = ["m", "s", "ap", "sta"].into();
        let paths = |errs: &ScenarioError| -> Vec<String> {
            errs.problems.iter().map(|p| p.path.clone()).collect()
        };
        // `coexistence` needs the piconet on a spectrum.
        let mut errs = ScenarioError::default();
        check_spectrum(None, std::slice::from_ref(&p), &[], &nodes, &mut errs);
        assert_eq!(paths(&errs), ["piconets.p1.coexistence"]);
        // An 802.11a cell (5 GHz, no channel) cannot be a member.
        let sp: SpectrumSpec = serde_json::from_value(json!({ "members": ["p1", "w"] })).unwrap();
        let mut errs = ScenarioError::default();
        check_spectrum(Some(&sp), &[p], &[c], &nodes, &mut errs);
        assert_eq!(paths(&errs), ["spectrum.members", "cells.w.channel"]);
    }
}
