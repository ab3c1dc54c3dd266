//! Quantities written with units, as `tc` and the papers write them.
//!
//! - [`Rate`]: `"10Mbit"`, `"723.2kbit"`, `"1Gbit"`, `"9600bit"` (SI multipliers, as tc's
//!   `kbit` = 1000 bit/s; `Kibit` etc. are 1024-based). tc reads `mbps` as *megabytes* per
//!   second, a classic mistake, so `…bps` spellings are rejected with a hint instead.
//! - [`Duration`]: `"20ms"`, `"1.5s"`, `"100us"`, `"250ns"`, `"2min"`.
//! - [`Bytes`]: a plain integer (bytes, as tc's `limit`) or `"1500B"`, `"64KiB"`, `"1.5kB"`.
//! - [`Probability`]: a number in [0, 1] or a percentage string `"1%"`, as netem writes it.
//!
//! Bare numbers are refused for rates and durations: the unit is what makes a scenario
//! readable, and tc's unit-less defaults (bytes per second, microseconds) surprise people.

use crate::engine::SimTime;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

fn split_number(s: &str) -> Option<(f64, &str)> {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '+'))
        .unwrap_or(s.len());
    // 'e' may be the start of a unit only in theory; none of ours start with 'e'.
    let (num, unit) = s.split_at(end);
    let v: f64 = num.parse().ok()?;
    if !v.is_finite() || v < 0.0 {
        return None;
    }
    Some((v, unit))
}

/// A bit rate in bits per second.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    pub fn parse(s: &str) -> Result<Rate, String> {
        let fix = "write e.g. \"10Mbit\", \"723.2kbit\" or \"1Gbit\"";
        let t = s.trim();
        if t != s || t.contains(' ') {
            return Err(format!("\"{s}\" is not a rate (no spaces inside); {fix}"));
        }
        let Some((v, unit)) = split_number(t) else {
            return Err(format!("\"{s}\" is not a rate; {fix}"));
        };
        let mult = match unit.to_ascii_lowercase().as_str() {
            "bit" => 1.0,
            "kbit" => 1e3,
            "mbit" => 1e6,
            "gbit" => 1e9,
            "tbit" => 1e12,
            "kibit" => 1024.0,
            "mibit" => 1024.0 * 1024.0,
            "gibit" => 1024.0 * 1024.0 * 1024.0,
            u if u.ends_with("bps") => {
                return Err(format!(
                    "\"{s}\" is ambiguous (tc reads \"mbps\" as megabytes per second); {fix}"
                ))
            }
            "" => return Err(format!("\"{s}\" has no unit; {fix}")),
            _ => return Err(format!("\"{s}\" is not a rate; {fix}")),
        };
        let bps = (v * mult).round();
        if bps < 1.0 {
            return Err(format!("\"{s}\" is below 1 bit/s; {fix}"));
        }
        if bps > 1e15 {
            return Err(format!("\"{s}\" is above 1 Pbit/s; {fix}"));
        }
        Ok(Rate(bps as u64))
    }

    pub fn bps(self) -> u64 {
        self.0
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        for (div, unit) in [
            (1_000_000_000u64, "Gbit"),
            (1_000_000, "Mbit"),
            (1_000, "kbit"),
        ] {
            if b >= div && b.is_multiple_of(div) {
                return write!(f, "{}{}", b / div, unit);
            }
        }
        write!(f, "{b}bit")
    }
}

/// A span of simulated time.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration(pub SimTime);

impl Duration {
    pub fn parse(s: &str) -> Result<Duration, String> {
        let fix = "write e.g. \"20ms\", \"1.5s\", \"100us\" or \"2min\"";
        let t = s.trim();
        if t != s || t.contains(' ') {
            return Err(format!(
                "\"{s}\" is not a duration (no spaces inside); {fix}"
            ));
        }
        let Some((v, unit)) = split_number(t) else {
            return Err(format!("\"{s}\" is not a duration; {fix}"));
        };
        let ns_per = match unit {
            "ns" | "nsec" => 1.0,
            "us" | "µs" | "usec" => 1e3,
            "ms" | "msec" => 1e6,
            "s" | "sec" => 1e9,
            "min" => 60e9,
            "h" => 3600e9,
            "" => return Err(format!("\"{s}\" has no unit; {fix}")),
            _ => return Err(format!("\"{s}\" is not a duration; {fix}")),
        };
        let ns = (v * ns_per).round();
        if ns > 1e18 {
            return Err(format!("\"{s}\" is too long (more than 31 years); {fix}"));
        }
        Ok(Duration(SimTime(ns as u64)))
    }

    pub fn time(self) -> SimTime {
        self.0
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A size in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bytes(pub u64);

impl Bytes {
    pub fn parse(s: &str) -> Result<Bytes, String> {
        let fix = "write a whole number of bytes or e.g. \"1500B\", \"64KiB\", \"1MB\"";
        let t = s.trim();
        if t != s || t.contains(' ') {
            return Err(format!("\"{s}\" is not a size (no spaces inside); {fix}"));
        }
        let Some((v, unit)) = split_number(t) else {
            return Err(format!("\"{s}\" is not a size; {fix}"));
        };
        let mult = match unit {
            "B" | "b" | "" => 1.0,
            "kB" | "KB" => 1e3,
            "MB" => 1e6,
            "GB" => 1e9,
            "KiB" | "k" | "kb" | "K" => 1024.0,
            "MiB" | "m" | "mb" | "M" => 1024.0 * 1024.0,
            "GiB" | "g" | "gb" | "G" => 1024.0 * 1024.0 * 1024.0,
            _ => return Err(format!("\"{s}\" is not a size; {fix}")),
        };
        let b = v * mult;
        if b.fract() != 0.0 {
            return Err(format!("\"{s}\" is not a whole number of bytes; {fix}"));
        }
        Ok(Bytes(b as u64))
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B", self.0)
    }
}

/// A probability in [0, 1].
#[derive(Copy, Clone, Debug, PartialEq, PartialOrd, Default)]
pub struct Probability(pub f64);

impl Probability {
    pub fn parse_str(s: &str) -> Result<Probability, String> {
        let fix = "write a number in [0, 1] such as 0.01, or a percentage such as \"1%\"";
        let Some(pct) = s.strip_suffix('%') else {
            return Err(format!("\"{s}\" is not a probability; {fix}"));
        };
        match pct.parse::<f64>() {
            Ok(v) if (0.0..=100.0).contains(&v) => Ok(Probability(v / 100.0)),
            _ => Err(format!("\"{s}\" is not a probability; {fix}")),
        }
    }
    pub fn from_f64(v: f64) -> Result<Probability, String> {
        if (0.0..=1.0).contains(&v) {
            Ok(Probability(v))
        } else {
            Err(format!(
                "{v} is not a probability; write a number in [0, 1] (0.01 for 1 %) or \"1%\""
            ))
        }
    }
}

macro_rules! string_unit_serde {
    ($ty:ident, $what:literal, $pattern:literal, $example:literal) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        write!(f, "a {} with a unit, e.g. {}", $what, $example)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$ty, E> {
                        $ty::parse(s).map_err(E::custom)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$ty, E> {
                        Err(E::custom(format!(
                            "{v} has no unit; write a {} with a unit, e.g. {}",
                            $what, $example
                        )))
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$ty, E> {
                        Err(E::custom(format!(
                            "{v} is not a {}; write e.g. {}",
                            $what, $example
                        )))
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$ty, E> {
                        Err(E::custom(format!(
                            "{v} has no unit; write a {} with a unit, e.g. {}",
                            $what, $example
                        )))
                    }
                }
                d.deserialize_any(V)
            }
        }
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }
        impl JsonSchema for $ty {
            fn schema_name() -> Cow<'static, str> {
                stringify!($ty).into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({
                    "type": "string",
                    "pattern": $pattern,
                    "description": concat!("A ", $what, " with a unit, e.g. ", $example),
                })
            }
        }
    };
}

string_unit_serde!(
    Rate,
    "rate",
    "^[0-9.eE+]+([kKmMgGtT]|[kKmMgG][iI])?[bB][iI][tT]$",
    "\"10Mbit\""
);
string_unit_serde!(
    Duration,
    "duration",
    "^[0-9.eE+]+(ns|nsec|us|µs|usec|ms|msec|s|sec|min|h)$",
    "\"20ms\""
);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a size: a whole number of bytes or e.g. \"64KiB\"")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Bytes, E> {
                Bytes::parse(s).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Bytes, E> {
                // The toml deserializer hands every integer over as i64.
                u64::try_from(v).map(Bytes).map_err(|_| {
                    E::custom(format!(
                        "{v} is negative; a size is a whole number of bytes ≥ 0"
                    ))
                })
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Bytes, E> {
                Err(E::custom(format!(
                    "{v} is not a whole number of bytes; write e.g. 1500 or \"1500B\""
                )))
            }
        }
        d.deserialize_any(V)
    }
}
impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}
impl JsonSchema for Bytes {
    fn schema_name() -> Cow<'static, str> {
        "Bytes".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A size: a whole number of bytes, or a string such as \"1500B\", \"64KiB\", \"1MB\"",
            "anyOf": [
                {"type": "integer", "minimum": 0},
                {"type": "string", "pattern": "^[0-9.eE+]+(B|b|kB|KB|MB|GB|KiB|MiB|GiB|k|kb|K|m|mb|M|g|gb|G)?$"}
            ]
        })
    }
}

impl<'de> Deserialize<'de> for Probability {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Probability;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a probability: a number in [0, 1] or \"1%\"")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Probability, E> {
                Probability::parse_str(s).map_err(E::custom)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Probability, E> {
                Probability::from_f64(v).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Probability, E> {
                Probability::from_f64(v as f64).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Probability, E> {
                Probability::from_f64(v as f64).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}
impl Serialize for Probability {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0)
    }
}
impl JsonSchema for Probability {
    fn schema_name() -> Cow<'static, str> {
        "Probability".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A probability: a number in [0, 1], or a percentage string such as \"1%\"",
            "anyOf": [
                {"type": "number", "minimum": 0, "maximum": 1},
                {"type": "string", "pattern": "^[0-9.]+%$"}
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_use_tc_si_multipliers() {
        assert_eq!(Rate::parse("10Mbit").unwrap().bps(), 10_000_000);
        assert_eq!(Rate::parse("723.2kbit").unwrap().bps(), 723_200);
        assert_eq!(Rate::parse("1Gbit").unwrap().bps(), 1_000_000_000);
        assert_eq!(Rate::parse("1Kibit").unwrap().bps(), 1024);
        assert_eq!(Rate::parse("9600bit").unwrap().bps(), 9600);
    }

    #[test]
    fn ambiguous_or_spaced_rates_are_rejected_with_a_fix() {
        let e = Rate::parse("10 mbps").unwrap_err();
        assert!(e.contains("\"10Mbit\""), "{e}");
        let e = Rate::parse("10mbps").unwrap_err();
        assert!(e.contains("megabytes"), "{e}");
        assert!(Rate::parse("10").is_err());
        assert!(Rate::parse("fast").is_err());
        assert!(Rate::parse("0bit").is_err());
    }

    #[test]
    fn durations_parse_to_exact_nanoseconds() {
        assert_eq!(
            Duration::parse("20ms").unwrap().time(),
            SimTime::from_millis(20)
        );
        assert_eq!(
            Duration::parse("437.5ms").unwrap().time(),
            SimTime(437_500_000)
        );
        assert_eq!(
            Duration::parse("100us").unwrap().time(),
            SimTime::from_micros(100)
        );
        assert_eq!(
            Duration::parse("2min").unwrap().time(),
            SimTime::from_secs(120)
        );
        assert!(Duration::parse("20").is_err());
        assert!(Duration::parse("-1s").is_err());
    }

    #[test]
    fn sizes_accept_integers_and_iec_units() {
        assert_eq!(Bytes::parse("1500B").unwrap(), Bytes(1500));
        assert_eq!(Bytes::parse("64KiB").unwrap(), Bytes(65536));
        assert_eq!(Bytes::parse("1.5kB").unwrap(), Bytes(1500));
        assert!(Bytes::parse("1.5B").is_err());
    }

    #[test]
    fn probabilities_accept_fractions_and_percentages() {
        assert_eq!(Probability::parse_str("1%").unwrap().0, 0.01);
        assert!(Probability::from_f64(1.5).is_err());
        assert!(Probability::parse_str("0.5").is_err());
    }

    #[test]
    fn display_round_trips() {
        for s in ["10Mbit", "723200bit", "1Gbit", "9600bit"] {
            let r = Rate::parse(s).unwrap();
            assert_eq!(Rate::parse(&r.to_string()).unwrap(), r);
        }
        for s in ["20ms", "437500us", "60s", "1ns"] {
            let d = Duration::parse(s).unwrap();
            assert_eq!(Duration::parse(&d.to_string()).unwrap(), d);
        }
    }

    #[test]
    fn sizes_deserialize_from_toml_integers_and_reject_negatives() {
        #[derive(Deserialize)]
        struct T {
            b: Bytes,
        }
        // toml hands integers over as i64, unlike serde_json (u64).
        assert_eq!(toml::from_str::<T>("b = 1500").unwrap().b, Bytes(1500));
        let e = toml::from_str::<T>("b = -1").err().unwrap().to_string();
        assert!(e.contains("negative"), "{e}");
    }
}
