//! Cost of drawing one packet's fate on a channel (issue 11 target: ≤ 50 ns for BER and
//! Gilbert-Elliott).
//!
//! - `ber`: a constant-BER model (1e-5) and a 1500-byte packet (12 000 bits): one `exp` and
//!   one uniform draw.
//! - `gilbert_elliott`: the thesis's chain (seed 001: ρG = 437.5 ms, ρB = 55.8 ms, P_G =
//!   6.8979e-5, P_B = 1.263e-3) and DH5 packets (2712 bits, 3.125 ms on the air) one every
//!   3.75 ms, so the lazy chain advances as in a run (a state change every ~66 packets on
//!   average, and packets spanning a change).
//! - `gemodel`: netem's per-packet chain (p = 1 %, r = 10 %): two uniform draws.
//!
//! One iteration is one packet.

use airqueue::channel::{
    BitErrorModel, BitErrors, GeModel, GeModelParams, GilbertElliott, GilbertElliottParams,
};
use airqueue::engine::{stream, SimTime};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

fn channel(c: &mut Criterion) {
    let mut g = c.benchmark_group("channel");
    g.throughput(Throughput::Elements(1));
    g.measurement_time(Duration::from_secs(3));

    let mut ber = BitErrorModel::new(BitErrors::Ber(1e-5), stream(1, "bench:ber"));
    g.bench_function("ber", |b| b.iter(|| black_box(ber.lost(black_box(12_000)))));

    let p = GilbertElliottParams {
        mean_good: SimTime::from_micros(437_500),
        mean_bad: SimTime::from_micros(55_800),
        ber_good: 6.8979e-5,
        ber_bad: 1.263e-3,
    };
    let mut ge = GilbertElliott::new(p, stream(1, "bench:ge"), SimTime::ZERO);
    let mut t = 0u64;
    g.bench_function("gilbert_elliott", |b| {
        b.iter(|| {
            t += 3_750_000;
            black_box(ge.lost(SimTime(t), SimTime(t + 3_125_000), black_box(2712)))
        })
    });

    let mut gem = GeModel::new(
        GeModelParams {
            p: 0.01,
            r: 0.1,
            loss_bad: 1.0,
            loss_good: 0.0,
        },
        stream(1, "bench:gemodel"),
    );
    g.bench_function("gemodel", |b| b.iter(|| black_box(gem.lost())));
    g.finish();
}

criterion_group!(benches, channel);
criterion_main!(benches);
