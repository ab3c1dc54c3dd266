//! Sampling and the warm-up: the fixed-interval time series (flows, root queues, classes,
//! driver queues) and the statistics reset at `run.warmup`.

use super::{Endpoint, Simulation};
use crate::engine::SimTime;
use crate::metrics::{SeriesKind, SeriesMetric};
use crate::qdisc::ClassSample;

impl Simulation {
    /// Rows each sample adds to the time series: a flow's throughput, cwnd/ssthresh/SRTT
    /// of traced TCP flows, three per root queue, four per class (see [`Self::sample`]).
    pub(super) fn rows_per_sample(&mut self) -> u64 {
        self.collect_class_samples();
        let traced = self.flows.iter().filter(|f| f.traced).count();
        (self.flows.len()
            + 3 * traced
            + 3 * self.roots.len()
            + 4 * self.class_samples.len()
            + 3 * self.drivers.len()) as u64
    }

    /// What this run will hold in memory (see [`super::budget`]).
    pub(super) fn estimate_resources(&mut self) -> super::budget::Estimate {
        let rows = self.rows_per_sample();
        super::budget::Estimate {
            flows: self.flows.len() as u64,
            series_rows: super::budget::series_rows(self.stop.0, self.sample_interval.0, rows),
        }
    }

    pub(super) fn sample(&mut self) {
        let now = self.now;
        let span = (now - self.last_sample).as_secs_f64();
        self.last_sample = now;
        if span <= 0.0 {
            return;
        }
        for (i, f) in self.flows.iter_mut().enumerate() {
            let rx = f.stats.rx_bytes;
            let bytes = since_last_sample(rx, f.rx_bytes_at_last_sample);
            f.rx_bytes_at_last_sample = rx;
            self.timeseries.push(
                now.0,
                SeriesKind::Flow,
                i as u32,
                SeriesMetric::ThroughputBps,
                bytes as f64 * 8.0 / span,
            );
        }
        for (i, f) in self.flows.iter().enumerate() {
            if !f.traced {
                continue;
            }
            let Endpoint::Tcp(t) = &f.endpoint else {
                continue;
            };
            // Bulk and message flows: their one connection (web flows are not traced).
            let Some(c) = t.only_connection() else {
                continue;
            };
            let i = i as u32;
            let ss = c.sender.ssthresh();
            let ss = if ss == crate::transport::tcp::SSTHRESH_INFINITE {
                f64::INFINITY
            } else {
                ss as f64
            };
            let srtt = c.sender.srtt().map_or(f64::NAN, |r| r.as_secs_f64() * 1e3);
            self.timeseries.push(
                now.0,
                SeriesKind::Flow,
                i,
                SeriesMetric::CwndBytes,
                c.sender.cwnd() as f64,
            );
            self.timeseries
                .push(now.0, SeriesKind::Flow, i, SeriesMetric::SsthreshBytes, ss);
            self.timeseries
                .push(now.0, SeriesKind::Flow, i, SeriesMetric::SrttMs, srtt);
        }
        // Root queues: interfaces that have their own qdisc, then virtual devices.
        for (i, root) in self.roots.iter_mut().enumerate() {
            let (qdisc, stats) = (&*root.qdisc, &root.stats);
            let at_last = &mut root.drops_at_last_sample;
            let (p, b) = (qdisc.len() as f64, qdisc.backlog_bytes() as f64);
            let d = stats.drops_total();
            let new_drops = since_last_sample(d, *at_last);
            *at_last = d;
            let i = i as u32;
            self.timeseries
                .push(now.0, SeriesKind::Queue, i, SeriesMetric::BacklogPackets, p);
            self.timeseries
                .push(now.0, SeriesKind::Queue, i, SeriesMetric::BacklogBytes, b);
            self.timeseries.push(
                now.0,
                SeriesKind::Queue,
                i,
                SeriesMetric::Drops,
                new_drops as f64,
            );
        }
        self.sample_classes(now, span);
        self.sample_drivers(now);
    }

    /// The ports whose medium models a driver queue, in medium and port order.
    pub(super) fn driver_ports(&self) -> Vec<super::DriverRt> {
        let mut out = Vec::new();
        for (m, md) in self.media.iter().enumerate() {
            let md = md.get();
            for (port, &iface) in md.ports().iter().enumerate() {
                if md.driver_queue(port).is_some() {
                    out.push(super::DriverRt {
                        medium: m as u32,
                        port: port as u32,
                        iface,
                        drops_at_last_sample: 0,
                    });
                }
            }
        }
        out
    }

    /// Each driver queue's backlog at the instant and drops over the interval (what
    /// `ethtool -S` or mac80211's debugfs `aqm` read every `sample_interval` would show).
    fn sample_drivers(&mut self, now: SimTime) {
        for (i, d) in self.drivers.iter_mut().enumerate() {
            let Some(q) = self.media[d.medium as usize]
                .get()
                .driver_queue(d.port as usize)
            else {
                continue;
            };
            let (p, b) = q.stats.current();
            let drops = q.stats.drops_total();
            let new_drops = since_last_sample(drops, d.drops_at_last_sample);
            d.drops_at_last_sample = drops;
            let (i, ts) = (i as u32, &mut self.timeseries);
            ts.push(
                now.0,
                SeriesKind::Driver,
                i,
                SeriesMetric::BacklogPackets,
                p as f64,
            );
            ts.push(
                now.0,
                SeriesKind::Driver,
                i,
                SeriesMetric::BacklogBytes,
                b as f64,
            );
            ts.push(
                now.0,
                SeriesKind::Driver,
                i,
                SeriesMetric::Drops,
                new_drops as f64,
            );
        }
    }

    /// Fills `class_samples` with every class of every root qdisc, in class-table order
    /// (the first call also sizes the baselines: the set of classes never changes).
    pub(super) fn collect_class_samples(&mut self) {
        self.class_samples.clear();
        for r in &self.roots {
            let q = &r.qdisc;
            q.sample_classes(&mut self.class_samples);
        }
        let n = self.class_samples.len();
        if self.class_at_last_sample.len() != n {
            self.class_at_last_sample.resize(n, ClassSample::default());
        }
    }

    /// Per-class backlog, throughput (bytes dequeued) and drops of every classful root
    /// qdisc, as `tc -s class show` run every `sample_interval` would show them.
    fn sample_classes(&mut self, now: SimTime, span: f64) {
        self.collect_class_samples();
        for (k, (s, last)) in self
            .class_samples
            .iter()
            .zip(self.class_at_last_sample.iter_mut())
            .enumerate()
        {
            let k = k as u32;
            let bytes = since_last_sample(s.dequeued_bytes, last.dequeued_bytes);
            let drops = since_last_sample(s.drops, last.drops);
            *last = *s;
            let ts = &mut self.timeseries;
            ts.push(
                now.0,
                SeriesKind::Class,
                k,
                SeriesMetric::BacklogPackets,
                s.backlog_packets as f64,
            );
            ts.push(
                now.0,
                SeriesKind::Class,
                k,
                SeriesMetric::BacklogBytes,
                s.backlog_bytes as f64,
            );
            ts.push(
                now.0,
                SeriesKind::Class,
                k,
                SeriesMetric::ThroughputBps,
                bytes as f64 * 8.0 / span,
            );
            ts.push(
                now.0,
                SeriesKind::Class,
                k,
                SeriesMetric::Drops,
                drops as f64,
            );
        }
    }

    pub(super) fn reset_statistics(&mut self) {
        let now = self.now;
        // The counters restart from zero; what they counted since the last sample still
        // belongs to the next sample's interval, so the baselines are rebased.
        self.collect_class_samples();
        for (last, s) in self
            .class_at_last_sample
            .iter_mut()
            .zip(&self.class_samples)
        {
            last.dequeued_bytes = rebase(last.dequeued_bytes, s.dequeued_bytes);
            last.drops = rebase(last.drops, s.drops);
        }
        for f in &mut self.flows {
            f.rx_bytes_at_last_sample = rebase(f.rx_bytes_at_last_sample, f.stats.rx_bytes);
            f.stats.reset();
            f.rtt.reset();
            f.responses.reset();
            if let Endpoint::Tcp(t) = &mut f.endpoint {
                t.reset_counters();
            }
        }
        for q in &mut self.roots {
            q.drops_at_last_sample = rebase(q.drops_at_last_sample, q.stats.drops_total());
            q.stats.reset(now);
            q.qdisc.reset_stats();
        }
        for d in &mut self.drivers {
            if let Some(q) = self.media[d.medium as usize]
                .get()
                .driver_queue(d.port as usize)
            {
                d.drops_at_last_sample = rebase(d.drops_at_last_sample, q.stats.drops_total());
            }
        }
        for m in &mut self.media {
            m.get_mut().warmup_end(now);
        }
    }
}

/// What a counter counted since the last sample, given the baseline kept then.
#[inline]
pub(super) fn since_last_sample(counter: u64, baseline: u64) -> u64 {
    counter.wrapping_sub(baseline)
}

/// The baseline to keep when a counter that stood at `counter` restarts from zero (the
/// warm-up end): minus what it counted since the last sample, modulo 2⁶⁴, so that the
/// next [`since_last_sample`] adds those units back and the interval across the warm-up
/// is neither cut short nor reported as zero.
#[inline]
pub(super) fn rebase(baseline: u64, counter: u64) -> u64 {
    baseline.wrapping_sub(counter)
}
