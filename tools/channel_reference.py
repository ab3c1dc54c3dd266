"""Reference BER(SNR) values for crates/airqueue/src/channel/modulation.rs, from the cited
formulas evaluated independently with mpmath at 50 digits (see docs/channels.md).

Prints the Rust `reference` module (test data): 6 SNR points per modulation and the SNR at
which each curve reaches BER 1e-5.
"""

import mpmath as mp

mp.mp.dps = 50


def q(x):
    return mp.erfc(x / mp.sqrt(2)) / 2


def sep16(e):
    beta = mp.sqrt(2 * e)
    f = lambda x: (2 * mp.ncdf(x + beta) - 1) ** 7 * mp.npdf(x)  # noqa: E731
    return 1 - mp.quad(f, [-beta, 0, mp.inf])


def union(p, d0, a, step, b):
    dd = mp.sqrt(4 * p * (1 - p))
    return min(mp.mpf(1), sum(ad * dd ** (d0 + step * i) for i, ad in enumerate(a)) / (2 * b))


HALF = (10, [36, 211, 1404, 11633, 77433, 502690, 3322763, 21292910, 134365911], 2, 1)
TWO_THIRDS = (6, [3, 70, 285, 1276, 6160, 27128, 117019, 498860, 2103891, 8784123], 1, 2)
THREE_QUARTERS = (
    5,
    [42, 201, 1492, 10469, 62935, 379644, 2253373, 13073811, 75152755, 428005675],
    1,
    3,
)

CONST = {
    "bpsk": lambda s: mp.erfc(mp.sqrt(s)) / 2,
    "qpsk": lambda s: mp.erfc(mp.sqrt(s / 2)) / 2,
    "qam16": lambda s: mp.mpf(3) / 4 * mp.erfc(mp.sqrt(s / 10)) / 2,
    "qam64": lambda s: mp.mpf(7) / 12 * mp.erfc(mp.sqrt(s / 42)) / 2,
}
OFDM = {
    6: ("bpsk", HALF),
    9: ("bpsk", THREE_QUARTERS),
    12: ("qpsk", HALF),
    18: ("qpsk", THREE_QUARTERS),
    24: ("qam16", HALF),
    36: ("qam16", THREE_QUARTERS),
    48: ("qam64", TWO_THIRDS),
    54: ("qam64", THREE_QUARTERS),
}


def ber(name, s):
    s = mp.mpf(s)
    if name == "Dsss1":
        return mp.exp(-22 * s) / 2
    if name == "Dsss2":
        x = 11 * s
        c = (mp.sqrt(2) + 1) / mp.sqrt(8 * mp.pi * mp.sqrt(2))
        return min(mp.mpf(1) / 2, c / mp.sqrt(x) * mp.exp(-(2 - mp.sqrt(2)) * x))
    if name == "Cck5_5":
        sep = sep16(2 * s * 22 / mp.mpf(1.375) / 4)
        return 1 - (1 - sep) ** (mp.mpf(1) / 4)
    if name == "Cck11":
        s16 = sep16(4 * s * 22 / mp.mpf(1.375) / 8 / 2)
        sep = 1 - (1 - s16) ** 2
        return 1 - (1 - sep) ** (mp.mpf(1) / 8)
    if name == "Gfsk":
        return mp.exp(-s / 2) / 2
    rate = int(name[5:-1])
    const, (d0, a, step, b) = OFDM[rate]
    return union(CONST[const](s), d0, a, step, b)


CASES = {
    "Dsss1": [-12, -10, -8, -6, -4, -2],
    "Dsss2": [-8, -6, -4, -2, 0, 2],
    "Cck5_5": [-4, -2, 0, 2, 4, 6],
    "Cck11": [-2, 0, 2, 4, 6, 8],
    "Ofdm(6)": [2, 3, 4, 5, 6, 7],
    "Ofdm(9)": [4, 5, 6, 7, 8, 9],
    "Ofdm(12)": [5, 6, 7, 8, 9, 10],
    "Ofdm(18)": [7, 8, 9, 10, 11, 12],
    "Ofdm(24)": [10, 11, 12, 13, 14, 15],
    "Ofdm(36)": [14, 15, 16, 17, 18, 19],
    "Ofdm(48)": [18, 19, 20, 21, 22, 23],
    "Ofdm(54)": [19, 20, 21, 22, 23, 24],
    "Gfsk": [6, 8, 10, 12, 14, 16],
}


def threshold(name, target=mp.mpf("1e-5")):
    lo, hi = mp.mpf(-20), mp.mpf(40)
    for _ in range(60):
        mid = (lo + hi) / 2
        if ber(name, mp.mpf(10) ** (mid / 10)) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def mobility():
    """PER of a 12 224-bit CCK 11 frame, 25 mW, Friis at 2437 MHz, 22 MHz + 7 dB noise
    figure: distance and time (from 1 m at 0.7 m/s) where it crosses 1 % and 99 %."""
    c, f = 299792458, mp.mpf("2.437e9")
    noise = 10 * mp.log10(mp.mpf("1.380649e-23") * 290 * mp.mpf("22e6") * 1000) + 7

    def per(d):
        loss = 20 * mp.log10(4 * mp.pi * d * f / c)
        snr = mp.mpf(10) ** ((14 - loss - noise) / 10)
        return 1 - (1 - ber("Cck11", snr)) ** 12224

    for target in (mp.mpf("0.01"), mp.mpf("0.99")):
        lo, hi = mp.mpf(1), mp.mpf(3000)
        for _ in range(50):
            mid = (lo + hi) / 2
            if per(mid) < target:
                lo = mid
            else:
                hi = mid
        print(f"    // PER {target}: {mp.nstr(lo, 8)} m, t = {mp.nstr((lo - 1) / 0.7, 8)} s")


def main():
    print("    pub const POINTS: [Points; 13] = [")
    for name, pts in CASES.items():
        rel = "1e-6" if name.startswith("Cck") else "1e-9"
        vals = ", ".join(
            f"({p:.1f}, {mp.nstr(ber(name, mp.mpf(10) ** (mp.mpf(p) / 10)), 17)})" for p in pts
        )
        print(f"        ({name}, {rel}, &[{vals}]),")
    print("    ];")
    print("    pub const THRESHOLDS_1E5: [(Modulation, f64); 13] = [")
    for name in CASES:
        print(f"        ({name}, {mp.nstr(threshold(name), 8)}),")
    print("    ];")
    mobility()


if __name__ == "__main__":
    main()
