//! Bluetooth / 802.11b coexistence through the shared spectrum (issue 13 item 6; seed 000
//! §5.4; Golmie, Van Dyck, Soltanian, MSWiM 2001): a saturated piconet beside a saturated
//! 802.11b cell on channel 6, plain hopping, AFH and BIAS.
//!
//! **The overlap bound (closed form).** A Bluetooth packet is hit when its hop falls in
//! the WLAN's band *and* a WLAN frame is on the air during it (ALGORITHMS.md §6, after
//! Shellhammer): `PER ≈ p_f · P_t`. Channel 6 occupies 2426–2448 MHz: hops 25 … 45 lie
//! inside, hops 24 and 46 straddle its edges (half their band) — `p_f` is 22/79 by band
//! width and 23/79 counting every hop that overlaps at all; at 1 m the straddlers are
//! destroyed too (SIR ≈ +2 dB), so `p_f = 23/79 = 0.2911`. A full DH5 is 2.87 ms on the
//! air, longer than a saturated 802.11b exchange cycle (DATA 1.3 ms + SIFS + ACK +
//! DIFS + mean back-off 0.31 ms, gaps under 0.4 ms), so every DH5 overlaps a WLAN frame:
//! `P_t = 1` and the bound is `23/79`. With the link's own channel (BER 1e-5, DH5 PER
//! `1 − (1 − 1e−5)^2712 = 2.67 %`) the expected total is `1 − (1 − 23/79)(1 − 0.0267)`.

mod common;

use airqueue::metrics::Table;
use airqueue::scenario::load_toml_str;
use airqueue::sim::{BuildOptions, RunResults};
use common::*;

const BER: f64 = 1e-5;

/// A piconet `bt` (master m at the origin, slave s1 at (1, 0)) sending saturated DH5
/// traffic m → s1, and (with `wlan`) an 802.11b cell on channel 6 at 11 Mb/s, its
/// station at (0.5, 1) saturated towards its AP at (0.5, −1) — each WLAN radio about 1 m
/// from the Bluetooth radios, 2 m from each other — all on one spectrum; `mode` the
/// piconet's coexistence. At the slave the station's frames arrive 0.4 dB below the
/// master's (−13.4 dB for the 1/22 in band): SIR ≈ 0 dB destroys a hit DH5. At the AP a
/// master's hop arrives 8.8 dB below the station's frame: CCK's BER there destroys most
/// hit frames.
fn scenario(mode: Option<&str>, wlan: bool, bt: bool, dur: &str) -> String {
    let mut s = format!(
        "[run]\nduration = \"{dur}\"\nwarmup = \"10s\"\n\
         [[nodes]]\nname = \"m\"\n[[nodes]]\nname = \"s1\"\n\
         [[nodes]]\nname = \"ap\"\n[[nodes]]\nname = \"sta\"\n"
    );
    let mut members = Vec::new();
    if bt {
        members.push("\"bt\"");
        s += &format!(
            "[[piconets]]\nname = \"bt\"\nmaster = \"m\"\nslaves = [\"s1\"]\n\
             packet_types = [\"DH5\"]\nchannel = {{ ber = {BER} }}\n{}\n",
            mode.map_or(String::new(), |m| format!("coexistence = \"{m}\""))
        );
        s += "[[flows]]\nname = \"bt\"\nfrom = \"m\"\nto = \"s1\"\n\
              app = { kind = \"cbr\", size = 1321, rate = \"1Mbit\" }\n";
    }
    if wlan {
        members.push("\"wlan\"");
        s += "[[cells]]\nname = \"wlan\"\nstandard = \"802.11b\"\nap = \"ap\"\nchannel = 6\n\
              stations = [{ node = \"sta\" }]\n";
        s += "[[flows]]\nname = \"wlan\"\nfrom = \"sta\"\nto = \"ap\"\n\
              app = { kind = \"cbr\", size = 1472, rate = \"10Mbit\" }\n";
    }
    s += &format!(
        "[spectrum]\nmembers = [{}]\n\
         positions = {{ m = [0, 0], s1 = [1, 0], sta = [0.5, 2], ap = [0.5, -1] }}\n",
        members.join(", ")
    );
    s
}

fn run(toml: &str) -> RunResults {
    let s = load_toml_str(toml).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    let r = run_scenario(&s, BuildOptions::default());
    assert_conserved(&r);
    r
}

fn table<'a>(r: &'a RunResults, name: &str) -> &'a Table {
    &r.more
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no table {name}"))
        .1
}

/// (sent, lost) DH5 packets of the piconet from the warm-up on.
fn bt_per(r: &RunResults) -> (u64, u64, f64) {
    let t = table(r, "piconet_links");
    let sent = t.u64s("down_sent")[0];
    let lost = t.u64s("down_lost")[0];
    (sent, lost, lost as f64 / sent as f64)
}

fn air(r: &RunResults, col: &str) -> u64 {
    table(r, "piconet_air").u64s(col)[0]
}

fn own_per() -> f64 {
    1.0 - (1.0 - BER).powi(2712)
}

/// Golmie et al. / ALGORITHMS.md §6: beside a saturated 802.11b cell the piconet's DH5
/// PER equals the overlap bound `1 − (1 − 23/79·P_t)(1 − PER_own)` with P_t = 1 (module
/// doc) within 3 σ + 0.01, and the WLAN's goodput drops below 90 % of what it carries
/// alone; alone, the piconet loses only its own channel's share (within 3 σ).
#[test]
fn beside_a_saturated_wlan_bluetooth_per_reaches_the_overlap_bound_and_wlan_goodput_drops() {
    let both = run(&scenario(None, true, true, "40s"));
    let (n, lost, per) = bt_per(&both);
    let bound = 1.0 - (1.0 - 23.0 / 79.0) * (1.0 - own_per());
    let sd = (bound * (1.0 - bound) / n as f64).sqrt();
    eprintln!(
        "plain hopping: DH5 PER {per:.4} ({lost} of {n}) vs bound {bound:.4} (σ {sd:.4}); \
         interfered {} of {}",
        air(&both, "interfered"),
        air(&both, "packets")
    );
    assert!((per - bound).abs() <= 3.0 * sd + 0.01, "{per} vs {bound}");
    assert_eq!(air(&both, "used_channels"), 79);

    let alone = run(&scenario(None, false, true, "40s"));
    let (n0, _, per0) = bt_per(&alone);
    let sd0 = (own_per() * (1.0 - own_per()) / n0 as f64).sqrt();
    eprintln!("piconet alone: PER {per0:.4} vs own {:.4}", own_per());
    assert!((per0 - own_per()).abs() <= 3.0 * sd0, "{per0}");
    assert_eq!(air(&alone, "interfered"), 0);

    let wlan_alone = run(&scenario(None, true, false, "40s"));
    let g_alone = flow(&wlan_alone, "wlan").f("goodput_bps");
    let g_both = flow(&both, "wlan").f("goodput_bps");
    eprintln!(
        "WLAN goodput alone {:.3} Mb/s, beside the piconet {:.3} Mb/s",
        g_alone / 1e6,
        g_both / 1e6
    );
    assert!(g_both < 0.9 * g_alone, "{g_both} vs {g_alone}");
}

/// AFH (Bluetooth Core 1.2; seed 000 ref. [18]): after the first classification windows
/// (the 10 s warm-up) the hop set excludes the WLAN's channels, keeps at least 20, and
/// the PER falls to the link's own channel error rate within 3 σ + 0.005; the WLAN gets
/// most of its goodput back.
#[test]
fn with_afh_bluetooth_per_falls_to_the_channels_own_error_rate() {
    let r = run(&scenario(Some("afh"), true, true, "40s"));
    let (n, lost, per) = bt_per(&r);
    let own = own_per();
    let sd = (own * (1.0 - own) / n as f64).sqrt();
    let used = air(&r, "used_channels");
    eprintln!(
        "AFH: DH5 PER {per:.4} ({lost} of {n}) vs own {own:.4}; {used} channels used, {} bad",
        air(&r, "bad_channels")
    );
    assert!((per - own).abs() <= 3.0 * sd + 0.005, "{per} vs {own}");
    assert!((20..=79 - 21).contains(&used), "{used}");
    let g_alone = flow(&run(&scenario(None, true, false, "40s")), "wlan").f("goodput_bps");
    let g = flow(&r, "wlan").f("goodput_bps");
    eprintln!(
        "WLAN goodput beside AFH {:.3} Mb/s, alone {:.3}",
        g / 1e6,
        g_alone / 1e6
    );
    assert!(g > 0.9 * g_alone, "{g} vs {g_alone}");
}

/// BIAS (Golmie et al., seed 000 ref. [20]): the hop set stays 79 channels, the master
/// defers the frames on hops classified bad, and the PER stays at the channel's own
/// error rate within 3 σ + 0.005.
#[test]
fn bias_keeps_per_low_without_shrinking_the_hop_set() {
    let r = run(&scenario(Some("bias"), true, true, "40s"));
    let (n, lost, per) = bt_per(&r);
    let own = own_per();
    let sd = (own * (1.0 - own) / n as f64).sqrt();
    eprintln!(
        "BIAS: DH5 PER {per:.4} ({lost} of {n}) vs own {own:.4}; {} deferred frames, {} bad channels",
        air(&r, "deferred_frames"),
        air(&r, "bad_channels")
    );
    assert_eq!(air(&r, "used_channels"), 79);
    assert!(air(&r, "deferred_frames") > 0);
    assert!((per - own).abs() <= 3.0 * sd + 0.005, "{per} vs {own}");
}

/// Without `[spectrum]` nothing changes: the same piconet and cell, as separate media,
/// give the results of a run where neither is a member (the default path).
#[test]
fn members_only_interfere_when_listed() {
    let none =
        scenario(None, true, true, "12s").replace("members = [\"bt\", \"wlan\"]", "members = []");
    let r = run(&none);
    assert!(r.more.iter().all(|(n, _)| n != "piconet_air"));
    let (_, _, per) = bt_per(&r);
    assert!(per < 0.1, "{per}");
}

/// POLL and NULL on the air (Core v1.1 Vol. 2 Part B §4.4.1: access code + header,
/// 126 µs). An idle piconet (no traffic: the closed-form POLL/NULL cycle, a frame every
/// 1.25 ms) beside a saturated 802.11b cell on channel 6 at 11 Mb/s. Geometry (x axis):
/// station at 0, its AP at −0.2 m, the slave at 0.5 m, the master at 1 m — the WLAN's
/// own signal is 25–30 dB above the Bluetooth radios at the AP (so its frames survive and
/// its back-off stays at CWmin), while at the slave the station's frames arrive at
/// SIR ≈ −0.6 dB (the AP's ACKs +2.3 dB; straddling hops 3 dB better), which destroys a
/// POLL. Closed form (the overlap model of the module docs): a POLL is lost iff its hop
/// overlaps channel 6 (23/79, straddlers included) and a WLAN frame is on the air during
/// it: P_t = 1 − E[(G − 126 µs)⁺]/E[cycle], G = DIFS + back-off = 50 + 20k µs, k uniform
/// on 0…31 (CWmin 31), cycle = DIFS + back-off + DATA 1310 µs (1500-B IP, long preamble,
/// §16.2.3.5) + SIFS 10 + ACK 248 µs = 1928 µs on average; E[(20k − 76)⁺] = 239.75 µs,
/// P_t = 0.8757, PER = 23/79 · P_t = 0.2549. Tolerance 3 σ + 0.01 (a POLL overlapping a
/// frame by a few µs may survive). The slave answers exactly the POLLs it heard. Beside
/// the AP of the first test's
/// geometry, the idle piconet's POLL/NULLs also cost the WLAN goodput (it interfered
/// with nothing before they were on the air).
#[test]
fn an_idle_piconets_poll_null_cycle_is_on_the_air() {
    let s = "[run]\nduration = \"40s\"\nwarmup = \"10s\"\n\
         [[nodes]]\nname = \"m\"\n[[nodes]]\nname = \"s1\"\n\
         [[nodes]]\nname = \"ap\"\n[[nodes]]\nname = \"sta\"\n\
         [[piconets]]\nname = \"bt\"\nmaster = \"m\"\nslaves = [\"s1\"]\npacket_types = [\"DH5\"]\n\
         [[cells]]\nname = \"wlan\"\nstandard = \"802.11b\"\nap = \"ap\"\nchannel = 6\n\
         stations = [{ node = \"sta\" }]\n\
         [[flows]]\nname = \"wlan\"\nfrom = \"sta\"\nto = \"ap\"\n\
         app = { kind = \"cbr\", size = 1472, rate = \"10Mbit\" }\n\
         [spectrum]\nmembers = [\"bt\", \"wlan\"]\n\
         positions = { sta = [0, 0], ap = [-0.2, 0], s1 = [0.5, 0], m = [1, 0] }\n";
    let r = run(s);
    let (polls, polls_lost) = (air(&r, "polls"), air(&r, "polls_interfered"));
    let (nulls, nulls_lost) = (air(&r, "nulls"), air(&r, "nulls_interfered"));
    let per = polls_lost as f64 / polls as f64;
    let pt = 1.0 - 239.75 / 1928.0;
    let want = 23.0 / 79.0 * pt;
    let sd = (want * (1.0 - want) / polls as f64).sqrt();
    let frames = table(&r, "piconet_links").u64s("poll_null_frames")[0];
    eprintln!(
        "idle POLL/NULL: {frames} frames; POLL PER {per:.4} ({polls_lost} of {polls}) vs \
         23/79·P_t = {want:.4} (σ {sd:.4}); NULL lost {nulls_lost} of {nulls}"
    );
    // 30 s of frames every 1.25 ms, all idle (±1 at the window edges).
    assert!(frames.abs_diff(24_000) <= 1, "{frames}");
    assert!(
        polls.abs_diff(frames) <= 20,
        "a POLL per frame: {polls} of {frames}"
    );
    assert!((per - want).abs() <= 3.0 * sd + 0.01, "{per} vs {want}");
    assert_eq!(nulls, polls - polls_lost, "a NULL per POLL heard");
    assert!(nulls_lost > 0);

    // Beside the first test's WLAN (its AP 1.1 m from both Bluetooth radios): an idle
    // piconet now costs the WLAN goodput.
    let idle_bt = run(&scenario(None, true, true, "40s").replace(
        "[[flows]]\nname = \"bt\"\nfrom = \"m\"\nto = \"s1\"\n\
              app = { kind = \"cbr\", size = 1321, rate = \"1Mbit\" }\n",
        "",
    ));
    assert!(table(&idle_bt, "piconet_links").u64s("down_sent")[0] == 0);
    let wlan_alone = run(&scenario(None, true, false, "40s"));
    let g_alone = flow(&wlan_alone, "wlan").f("goodput_bps");
    let g_idle = flow(&idle_bt, "wlan").f("goodput_bps");
    eprintln!(
        "WLAN goodput alone {:.3} Mb/s, beside an idle piconet {:.3} Mb/s",
        g_alone / 1e6,
        g_idle / 1e6
    );
    assert!(g_idle < 0.95 * g_alone, "{g_idle} vs {g_alone}");
}

/// A pfifo that records the link quality its interface's driver reports towards the
/// packet's next hop at every dequeue (what a qdisc such as `cif-q` with
/// `csi = "link_quality"` reads).
struct QualityProbe {
    inner: airqueue::qdisc::Pfifo,
    seen: std::sync::Arc<std::sync::Mutex<Vec<f64>>>,
}

impl airqueue::qdisc::Qdisc for QualityProbe {
    fn kind(&self) -> &'static str {
        "quality_probe"
    }
    fn enqueue(
        &mut self,
        pkt: airqueue::packet::PacketId,
        ctx: &mut airqueue::qdisc::QdiscCtx,
    ) -> airqueue::qdisc::Verdict {
        self.inner.enqueue(pkt, ctx)
    }
    fn dequeue(
        &mut self,
        ctx: &mut airqueue::qdisc::QdiscCtx,
    ) -> Option<airqueue::packet::PacketId> {
        let p = self.inner.dequeue(ctx)?;
        let hop = ctx.packets.get(p).next_hop;
        if let Some(q) = ctx.link(hop).and_then(|v| v.quality) {
            self.seen.lock().unwrap().push(q);
        }
        Some(p)
    }
    fn peek(&mut self, ctx: &mut airqueue::qdisc::QdiscCtx) -> Option<airqueue::packet::PacketId> {
        self.inner.peek(ctx)
    }
    fn len(&self) -> usize {
        self.inner.len()
    }
    fn backlog_bytes(&self) -> u64 {
        self.inner.backlog_bytes()
    }
}

/// HCI `Read_Link_Quality` follows the POLL/NULL exchanges (Core v1.1 Vol. 2 Part E
/// §4.7.13: the quality of the link as the controller measures it; here the EWMA, weight
/// 1/16, of the answers the master receives intact — NULLs, and a missing answer when
/// the slave missed its POLL). The idle piconet of the previous test, with one 100-B
/// packet from the master every second (the slave never sends data): the master's link
/// quality towards the slave, read at each of those packets' dequeue, must exist (before
/// this round nothing refreshed an idle link's estimate: no data ever came back) and its
/// mean over the 30 readings must be the fraction of frames whose answer arrived, from the
/// `piconet_air` counts, within 0.06 (the EWMA's standard deviation at p ≈ 0.57 is 0.09
/// per reading, 0.016 for the mean of 30; the probe's data frame adds one answer per second).
#[test]
fn the_masters_link_quality_follows_the_poll_null_answers() {
    let s = "[run]\nduration = \"40s\"\nwarmup = \"10s\"\n\
         [[nodes]]\nname = \"m\"\n[[nodes]]\nname = \"s1\"\n\
         [[nodes]]\nname = \"ap\"\n[[nodes]]\nname = \"sta\"\n\
         [[piconets]]\nname = \"bt\"\nmaster = \"m\"\nslaves = [\"s1\"]\npacket_types = [\"DH5\"]\n\
         [[cells]]\nname = \"wlan\"\nstandard = \"802.11b\"\nap = \"ap\"\nchannel = 6\n\
         stations = [{ node = \"sta\" }]\n\
         [[flows]]\nname = \"wlan\"\nfrom = \"sta\"\nto = \"ap\"\n\
         app = { kind = \"cbr\", size = 1472, rate = \"10Mbit\" }\n\
         [[flows]]\nname = \"probe\"\nfrom = \"m\"\nto = \"s1\"\nstart = \"10.5s\"\n\
         app = { kind = \"cbr\", size = 72, interval = \"1s\" }\n\
         [spectrum]\nmembers = [\"bt\", \"wlan\"]\n\
         positions = { sta = [0, 0], ap = [-0.2, 0], s1 = [0.5, 0], m = [1, 0] }\n";
    let sc = load_toml_str(s).unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let probe = QualityProbe {
        inner: airqueue::qdisc::Pfifo::new(1000),
        seen: seen.clone(),
    };
    let r = run_with_qdisc(&sc, "m.bt", Box::new(probe));
    assert_conserved(&r);
    let seen = seen.lock().unwrap().clone();
    let polls = air(&r, "polls") as f64;
    let answered = (air(&r, "nulls") - air(&r, "nulls_interfered")) as f64;
    let want = answered / polls;
    let mean = seen.iter().sum::<f64>() / seen.len() as f64;
    eprintln!(
        "master's link quality: mean {mean:.3} over {} readings vs answers received {want:.3}",
        seen.len()
    );
    assert!(seen.len() >= 29, "{} readings", seen.len());
    assert!((mean - want).abs() <= 0.06, "{mean} vs {want}");
}
