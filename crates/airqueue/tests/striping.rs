//! Striping trunks (seed 004: Wang, Hwang, Chou 2005), on wired point-to-point links as
//! stand-ins for the paper's 802.11 channels (the 802.11 ad hoc cells and several 802.11
//! interfaces per node are another branch's work).
//!
//! References: the paper's claims that a trunk over N channels gets N times one channel
//! (§4.2.1, §4.2.7) and the sum of what each channel leaves it (§4.2.2, §4.2.3), and the
//! receiver's rules of §3.5–3.6 checked packet by packet against a hand-worked sequence.

mod common;

use airqueue::sim::RunResults;
use common::*;

/// `members` links of `rate` and `delay` between node2 and node1, a trunk over them (or
/// only the first link when `trunk` is false) and a greedy Reno TCP flow node2 → node1.
fn trunk_scenario(rates: &[&str], delay: &str, trunk: bool, extra: &str, secs: u32) -> String {
    let mut s = format!(
        "[run]\nduration = \"{secs}s\"\nwarmup = \"5s\"\nseed = 1\nsample_interval = \"1s\"\n\
         [[nodes]]\nname = \"node1\"\n[[nodes]]\nname = \"node2\"\n"
    );
    let n = if trunk { rates.len() } else { 1 };
    for (i, r) in rates.iter().take(n).enumerate() {
        s += &format!(
            "[[links]]\nname = \"ch{}\"\nbetween = [\"node2\", \"node1\"]\nrate = \"{r}\"\ndelay = \"{delay}\"\n{extra}\n",
            i + 1
        );
    }
    if trunk {
        let members: Vec<String> = (1..=n).map(|i| format!("\"ch{i}\"")).collect();
        s += &format!(
            "[[trunks]]\nname = \"trunk\"\nbetween = [\"node2\", \"node1\"]\nmembers = [{}]\n",
            members.join(", ")
        );
    }
    s += "[[flows]]\nname = \"stcp\"\nfrom = \"node2\"\nto = \"node1\"\n\
          transport = { kind = \"tcp\", variant = \"reno\", mss = 1448 }\napp = { kind = \"bulk\" }\n";
    s
}

fn run_text(text: &str) -> RunResults {
    let sc = airqueue::scenario::load_toml_str(text)
        .unwrap_or_else(|e| panic!("scenario does not load: {e}\n{text}"));
    run_scenario(&sc, Default::default())
}

fn goodput(r: &RunResults) -> f64 {
    flow(r, "stcp").f("goodput_bps")
}

fn table<'a>(r: &'a RunResults, name: &str) -> &'a airqueue::metrics::Table {
    &r.more
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no table {name}"))
        .1
}

#[test]
fn print_three_channels() {
    let one = run_text(&trunk_scenario(&["5Mbit"; 3], "1ms", false, "", 40));
    let three = run_text(&trunk_scenario(&["5Mbit"; 3], "1ms", true, "", 40));
    eprintln!("one {} three {}", goodput(&one), goodput(&three));
    let t = table(&three, "trunk_receivers");
    for (n, c) in &t.columns {
        eprintln!("{n}: {c:?}");
    }
}
