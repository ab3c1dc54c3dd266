//! Fixed-interval time series in long format: (time, kind, entity, metric, value).

use super::table::{Column, Table};

/// Metrics sampled every `sample_interval`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum SeriesMetric {
    /// Flow: payload bits received during the interval / interval length.
    ThroughputBps = 0,
    /// Queue: packets queued at the sampling instant.
    BacklogPackets,
    /// Queue: bytes queued at the sampling instant.
    BacklogBytes,
    /// Queue: packets dropped during the interval.
    Drops,
    /// TCP flow with `trace = true`: congestion window at the sampling instant.
    CwndBytes,
    /// TCP flow with `trace = true`: slow-start threshold (infinite before the first loss).
    SsthreshBytes,
    /// TCP flow with `trace = true`: smoothed RTT (RFC 6298 SRTT) in milliseconds.
    SrttMs,
}

impl SeriesMetric {
    const NAMES: [&'static str; 7] = [
        "throughput_bps",
        "backlog_packets",
        "backlog_bytes",
        "drops",
        "cwnd_bytes",
        "ssthresh_bytes",
        "srtt_ms",
    ];
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// Whether a row is about a flow, a queue (root qdisc), a class of a classful qdisc or a
/// driver queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum SeriesKind {
    Flow = 0,
    Queue = 1,
    /// Class: backlog at the instant, and throughput and drops over the interval.
    Class = 2,
    /// A port's driver (hardware) queue below its qdisc: backlog at the instant, drops
    /// over the interval.
    Driver = 3,
}

/// Rows appended during the run; converted to a [`Table`] at the end.
#[derive(Default)]
pub struct TimeSeries {
    time_ns: Vec<u64>,
    kind: Vec<u8>,
    entity: Vec<u32>,
    metric: Vec<u8>,
    value: Vec<f64>,
}

impl TimeSeries {
    pub fn with_capacity(n: usize) -> Self {
        TimeSeries {
            time_ns: Vec::with_capacity(n),
            kind: Vec::with_capacity(n),
            entity: Vec::with_capacity(n),
            metric: Vec::with_capacity(n),
            value: Vec::with_capacity(n),
        }
    }

    #[inline]
    pub fn push(&mut self, t_ns: u64, kind: SeriesKind, entity: u32, metric: SeriesMetric, v: f64) {
        self.time_ns.push(t_ns);
        self.kind.push(kind as u8);
        self.entity.push(entity);
        self.metric.push(metric as u8);
        self.value.push(v);
    }

    pub fn len(&self) -> usize {
        self.time_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_ns.is_empty()
    }

    /// Columns `time_s, kind, name, metric, value`; names are categorical codes.
    pub fn into_table(
        self,
        flow_names: &[String],
        queue_names: &[String],
        class_names: &[String],
        driver_names: &[String],
    ) -> Table {
        // Categories must be unique: a flow and a queue may share a name.
        let mut categories: Vec<String> = Vec::new();
        let mut index = std::collections::HashMap::new();
        let mut code_of = |name: &String| -> u32 {
            *index.entry(name.clone()).or_insert_with(|| {
                categories.push(name.clone());
                (categories.len() - 1) as u32
            })
        };
        let flow_codes: Vec<u32> = flow_names.iter().map(&mut code_of).collect();
        let queue_codes: Vec<u32> = queue_names.iter().map(&mut code_of).collect();
        let class_codes: Vec<u32> = class_names.iter().map(&mut code_of).collect();
        let driver_codes: Vec<u32> = driver_names.iter().map(&mut code_of).collect();
        let codes: Vec<u32> = self
            .kind
            .iter()
            .zip(&self.entity)
            .map(|(&k, &e)| {
                let codes = match k {
                    k if k == SeriesKind::Flow as u8 => &flow_codes,
                    k if k == SeriesKind::Queue as u8 => &queue_codes,
                    k if k == SeriesKind::Class as u8 => &class_codes,
                    _ => &driver_codes,
                };
                codes[e as usize]
            })
            .collect();
        let mut t = Table::default();
        t.push(
            "time_s",
            Column::F64(self.time_ns.iter().map(|&n| n as f64 / 1e9).collect()),
        );
        t.push(
            "kind",
            Column::Cat {
                codes: self.kind.iter().map(|&k| k as u32).collect(),
                categories: vec![
                    "flow".into(),
                    "queue".into(),
                    "class".into(),
                    "driver".into(),
                ],
            },
        );
        t.push("name", Column::Cat { codes, categories });
        t.push(
            "metric",
            Column::Cat {
                codes: self.metric.iter().map(|&m| m as u32).collect(),
                categories: SeriesMetric::NAMES.iter().map(|s| s.to_string()).collect(),
            },
        );
        t.push("value", Column::F64(self.value));
        t
    }
}
