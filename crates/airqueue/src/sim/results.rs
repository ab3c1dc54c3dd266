//! End-of-run results: the summary (JSON) and the flow, queue, class, time-series and
//! driver-queue tables.

use super::conservation::Conservation;
use super::RootQueue;
use super::Simulation;
use crate::engine::SimTime;
use crate::metrics::{Column, QueueStats, Table};
use crate::packet::DropReason;
use crate::qdisc::ClassReport;
use serde::Serialize;

/// Wall-clock measurements; the only part of a result that differs between identical runs.
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    pub wall_seconds: f64,
    pub events_per_second: f64,
}

/// The run summary written as `summary.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub airqueue_version: &'static str,
    pub seed: u64,
    pub sim_seconds: f64,
    pub warmup_seconds: f64,
    pub events: u64,
    pub packets: Conservation,
    pub conservation_ok: bool,
    /// The most packets alive at once (arena high-water mark).
    pub peak_live_packets: u64,
    pub timing: Timing,
    /// The timeline's changes, in the order they applied (absent without `[[at]]`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<super::TimelineRecord>,
}

impl Summary {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("summary serializes")
    }
}

/// Everything a run produces.
pub struct RunResults {
    pub summary: Summary,
    pub flows: Table,
    /// One row per root qdisc: interfaces with their own qdisc, then virtual devices.
    pub queues: Table,
    /// One row per class of every classful qdisc (nested classes as `outer/inner`).
    pub classes: Table,
    pub timeseries: Table,
    /// Further named tables (per-station, per-link … as media and systems add them).
    pub more: Vec<(String, Table)>,
}

/// A root qdisc as the queue table sees it: on an interface or a virtual device.
impl RunResults {
    /// Every result table by name, in a fixed order: `flows`, `queues`, `classes`,
    /// `timeseries`, then the tables media and systems add (`more`). The binding hands
    /// Python all of them, so a new table is purely additive.
    pub fn tables(&self) -> Vec<(&str, &Table)> {
        let core = [
            ("flows", &self.flows),
            ("queues", &self.queues),
            ("classes", &self.classes),
            ("timeseries", &self.timeseries),
        ];
        core.into_iter()
            .chain(self.more.iter().map(|(n, t)| (n.as_str(), t)))
            .collect()
    }

    /// Takes every table by name (same order as [`tables`](Self::tables)).
    pub fn into_tables(self) -> (Summary, Vec<(String, Table)>) {
        let mut all = vec![
            ("flows".to_string(), self.flows),
            ("queues".to_string(), self.queues),
            ("classes".to_string(), self.classes),
            ("timeseries".to_string(), self.timeseries),
        ];
        all.extend(self.more);
        (self.summary, all)
    }
}

fn tcp(x: &super::FlowRt) -> Option<&super::tcp_flow::TcpFlow> {
    match &x.endpoint {
        super::Endpoint::Tcp(t) => Some(t),
        super::Endpoint::Udp(_) | super::Endpoint::Ping(_) | super::Endpoint::Real => None,
    }
}

/// The one connection of a bulk or message flow.
fn only(x: &super::FlowRt) -> Option<&super::tcp_flow::TcpConn> {
    tcp(x).and_then(|t| t.only_connection())
}

fn ms(s: f64) -> f64 {
    s * 1e3
}

impl Simulation {
    /// Collects the results. Call once, after [`Simulation::run`].
    pub fn results(&mut self) -> RunResults {
        let conservation = self.conservation();
        let events = self.events_processed();
        let summary = Summary {
            airqueue_version: crate::VERSION,
            seed: self.seed,
            sim_seconds: self.stop.as_secs_f64(),
            warmup_seconds: self.warmup.as_secs_f64(),
            events,
            conservation_ok: conservation.ok,
            packets: conservation,
            peak_live_packets: self.packets.peak_live() as u64,
            timeline: self.timeline.records.clone(),
            timing: Timing {
                wall_seconds: self.wall_seconds,
                events_per_second: if self.wall_seconds > 0.0 {
                    events as f64 / self.wall_seconds
                } else {
                    0.0
                },
            },
        };
        let flows = self.flow_table();
        let queues = self.queue_table();
        let classes = self.class_table();
        let flow_names: Vec<String> = self.flows.iter().map(|f| f.name.clone()).collect();
        // Time-series queue entities: interface i, then virtual device v at ifaces + v.
        let queue_names: Vec<String> = self.roots.iter().map(|q| q.name.clone()).collect();
        // Class entities: `<queue>/<class>`, in `report_classes` order (= `sample_classes`).
        let class_names: Vec<String> = self
            .roots
            .iter()
            .flat_map(|r| {
                let mut rows = Vec::new();
                r.qdisc.report_classes("", "", &mut rows);
                rows.into_iter().map(|c| format!("{}/{}", r.name, c.class))
            })
            .collect();
        let driver_names: Vec<String> = self
            .drivers
            .iter()
            .map(|d| self.ifaces[d.iface.0 as usize].dev.name.clone())
            .collect();
        let timeseries = std::mem::take(&mut self.timeseries).into_table(
            &flow_names,
            &queue_names,
            &class_names,
            &driver_names,
        );
        let mut more = Vec::new();
        if !self.drivers.is_empty() {
            more.push(("driver_queues".to_string(), self.driver_table()));
        }
        if self.flows.iter().any(|f| f.app == "web") {
            more.push(("pages".to_string(), self.page_table()));
        }
        for m in &self.media {
            m.get().report(self.stop, &mut more);
        }
        for h in &self.hooks {
            h.hook.report(&mut more);
        }
        RunResults {
            summary,
            flows,
            queues,
            classes,
            timeseries,
            more,
        }
    }

    /// One row per web page completed (scenarios with web flows only): the flow, the page's
    /// number within it (from 0), when it was requested, when its last object arrived and
    /// the response time, s. Pages of the warm-up are included (filter on `end_s`).
    fn page_table(&self) -> Table {
        let rows = || {
            self.flows
                .iter()
                .flat_map(|f| f.pages.iter().map(move |p| (f, p)))
        };
        let mut t = Table::default();
        t.push(
            "flow",
            Column::Str(rows().map(|(f, _)| f.name.clone()).collect()),
        );
        let numbers = self.flows.iter().flat_map(|f| 0..f.pages.len() as u64);
        t.push("page", Column::U64(numbers.collect()));
        let secs = |g: fn(&(SimTime, SimTime)) -> SimTime| {
            Column::F64(rows().map(|(_, p)| g(p).as_secs_f64()).collect())
        };
        t.push("start_s", secs(|p| p.0));
        t.push("end_s", secs(|p| p.1));
        t.push("response_s", secs(|p| p.1 - p.0));
        t
    }

    /// Root qdiscs in table order: interfaces with a qdisc of their own, then virtual
    /// devices (whose members have none).
    fn flow_table(&self) -> Table {
        let f = &self.flows;
        let strs = |g: &dyn Fn(&super::FlowRt) -> String| Column::Str(f.iter().map(g).collect());
        let u64s = |g: &dyn Fn(&super::FlowRt) -> u64| Column::U64(f.iter().map(g).collect());
        let f64s = |g: &dyn Fn(&super::FlowRt) -> f64| Column::F64(f.iter().map(g).collect());
        let mut t = Table::default();
        t.push("flow", strs(&|x| x.name.clone()));
        t.push("from", strs(&|x| x.from.clone()));
        t.push("to", strs(&|x| x.to.clone()));
        t.push("transport", strs(&|x| x.transport.to_string()));
        t.push("app", strs(&|x| x.app.to_string()));
        t.push("tx_packets", u64s(&|x| x.stats.tx_packets));
        t.push("tx_bytes", u64s(&|x| x.stats.tx_bytes));
        t.push("rx_packets", u64s(&|x| x.stats.rx_packets));
        t.push("rx_bytes", u64s(&|x| x.stats.rx_bytes));
        let (warmup, stop) = (self.warmup, self.stop);
        t.push(
            "goodput_bps",
            f64s(&|x| {
                // Over the flow's active window within the measurement period.
                let from = x.start.max(warmup);
                let to = x.stop.min(stop);
                let window = to.saturating_sub(from).as_secs_f64();
                if window > 0.0 {
                    x.stats.rx_bytes as f64 * 8.0 / window
                } else {
                    0.0
                }
            }),
        );
        t.push("delay_mean_ms", f64s(&|x| ms(x.stats.delay_mean_s())));
        t.push(
            "delay_min_ms",
            f64s(&|x| {
                if x.stats.rx_packets == 0 {
                    f64::NAN
                } else {
                    ms(x.stats.delay_min.as_secs_f64())
                }
            }),
        );
        t.push("delay_p50_ms", f64s(&|x| ms(x.stats.delay_quantile_s(0.5))));
        t.push(
            "delay_p99_ms",
            f64s(&|x| ms(x.stats.delay_quantile_s(0.99))),
        );
        t.push(
            "delay_max_ms",
            f64s(&|x| {
                if x.stats.rx_packets == 0 {
                    f64::NAN
                } else {
                    ms(x.stats.delay_max.as_secs_f64())
                }
            }),
        );
        t.push("ipdv_mean_ms", f64s(&|x| ms(x.stats.ipdv_mean_s())));
        // TCP columns (0 or NaN for other flows). Counters are since the warm-up, summed over
        // a flow's connections; cwnd statistics cover the whole connection of a bulk or
        // message flow (NaN for web flows, whose connections come and go).
        let counters = |x: &super::FlowRt| tcp(x).map(|t| t.counters_since_reset());
        t.push(
            "retransmits",
            u64s(&|x| counters(x).map_or(0, |c| c.retransmissions)),
        );
        t.push(
            "fast_retransmits",
            u64s(&|x| counters(x).map_or(0, |c| c.fast_retransmits)),
        );
        t.push("timeouts", u64s(&|x| counters(x).map_or(0, |c| c.timeouts)));
        t.push(
            "connections",
            u64s(&|x| counters(x).map_or(0, |c| c.connections)),
        );
        t.push(
            "ecn_reductions",
            u64s(&|x| counters(x).map_or(0, |c| c.ecn_reductions)),
        );
        t.push(
            "local_drops",
            u64s(&|x| counters(x).map_or(0, |c| c.local_drops)),
        );
        // Linux's recovery counters (nstat TcpExt*), 0 without RACK-TLP / F-RTO.
        t.push(
            "tcp_loss_probes",
            u64s(&|x| counters(x).map_or(0, |c| c.tcp_loss_probes)),
        );
        t.push(
            "rack_marked_lost",
            u64s(&|x| counters(x).map_or(0, |c| c.rack_marked_lost)),
        );
        t.push(
            "tcp_lost_retransmit",
            u64s(&|x| counters(x).map_or(0, |c| c.tcp_lost_retransmit)),
        );
        t.push(
            "tcp_spurious_rtos",
            u64s(&|x| counters(x).map_or(0, |c| c.tcp_spurious_rtos)),
        );
        // Where the senders' time went (fractions of the time they were established and
        // stopped for one of the three reasons; NaN for other flows).
        let frac = |x: &super::FlowRt, pick: fn(&super::tcp_flow::TcpCounters) -> f64| {
            counters(x).map_or(f64::NAN, |c| {
                let total = (c.app_limited + c.rwnd_limited + c.cwnd_limited).as_secs_f64();
                if total > 0.0 {
                    pick(&c) / total
                } else {
                    f64::NAN
                }
            })
        };
        t.push(
            "app_limited_frac",
            f64s(&|x| frac(x, |c| c.app_limited.as_secs_f64())),
        );
        t.push(
            "rwnd_limited_frac",
            f64s(&|x| frac(x, |c| c.rwnd_limited.as_secs_f64())),
        );
        t.push(
            "cwnd_limited_frac",
            f64s(&|x| frac(x, |c| c.cwnd_limited.as_secs_f64())),
        );
        // 1 when the flow spent most of its time receive-window-limited: its rate was set by
        // `transport.rcv_buffer`, not by the network (the CLI prints a warning for it).
        t.push(
            "rwnd_limited_warning",
            u64s(&|x| counters(x).map_or(0, |c| u64::from(c.rwnd_limited_fraction() > 0.5))),
        );
        t.push(
            "cwnd_mean_bytes",
            f64s(&|x| {
                only(x)
                    .and_then(|c| c.sender.time_weighted_mean_cwnd(stop))
                    .unwrap_or(f64::NAN)
            }),
        );
        t.push(
            "cwnd_max_bytes",
            f64s(&|x| only(x).map_or(f64::NAN, |c| c.sender.stats().cwnd.max as f64)),
        );
        // Round trips since the warm-up: TCP's RTT samples, ping's echoes.
        t.push("rtt_samples", u64s(&|x| x.rtt.count()));
        t.push("rtt_mean_ms", f64s(&|x| ms(x.rtt.mean_s())));
        t.push("rtt_min_ms", f64s(&|x| ms(x.rtt.min_s())));
        t.push("rtt_p50_ms", f64s(&|x| ms(x.rtt.quantile_s(0.5))));
        t.push("rtt_p99_ms", f64s(&|x| ms(x.rtt.quantile_s(0.99))));
        t.push("rtt_max_ms", f64s(&|x| ms(x.rtt.max_s())));
        // A bulk file: from the flow's start to its last byte at the receiver.
        t.push(
            "completion_s",
            f64s(&|x| {
                tcp(x)
                    .and_then(|t| t.completion.map(|c| (c - t.start).as_secs_f64()))
                    .unwrap_or(f64::NAN)
            }),
        );
        // Web pages completed since the warm-up and their response times (request of the
        // main object to the last byte of the last object).
        t.push("pages_completed", u64s(&|x| x.responses.count()));
        t.push("page_response_mean_s", f64s(&|x| x.responses.mean_s()));
        t.push(
            "page_response_p50_s",
            f64s(&|x| x.responses.quantile_s(0.5)),
        );
        t.push(
            "page_response_p95_s",
            f64s(&|x| x.responses.quantile_s(0.95)),
        );
        t.push("drops", u64s(&|x| x.stats.drops.iter().sum()));
        for r in DropReason::ALL {
            t.push(
                &format!("drops_{}", r.name()),
                u64s(&|x| x.stats.drops[r.index()]),
            );
        }
        t
    }

    fn queue_table(&self) -> Table {
        let q = &self.roots;
        let now = self.now;
        let strs = |g: &dyn Fn(&RootQueue) -> String| Column::Str(q.iter().map(g).collect());
        let u64s = |g: &dyn Fn(&RootQueue) -> u64| Column::U64(q.iter().map(g).collect());
        let f64s = |g: &dyn Fn(&RootQueue) -> f64| Column::F64(q.iter().map(g).collect());
        let mut t = Table::default();
        t.push("queue", strs(&|x| x.name.to_string()));
        t.push("dev", strs(&|x| x.dev.name.clone()));
        t.push("kind", strs(&|x| x.kind.to_string()));
        t.push("rate_bps", u64s(&|x| x.dev.rate_bps));
        t.push("enqueued_packets", u64s(&|x| x.stats.enqueued_packets));
        t.push("enqueued_bytes", u64s(&|x| x.stats.enqueued_bytes));
        t.push("dequeued_packets", u64s(&|x| x.stats.dequeued_packets));
        t.push("dequeued_bytes", u64s(&|x| x.stats.dequeued_bytes));
        t.push("drops", u64s(&|x| x.stats.drops_total()));
        for r in DropReason::ALL {
            t.push(
                &format!("drops_{}", r.name()),
                u64s(&|x| x.stats.drops[r.index()]),
            );
        }
        t.push("marks", u64s(&|x| x.stats.marks));
        // `tc -s qdisc show`'s other counters. No requeues happen here: a medium asks for
        // a packet only when it can send it (Linux requeues when the driver refuses one).
        t.push("overlimits", u64s(&|x| x.qdisc.overlimits()));
        t.push("requeues", u64s(&|_| 0));
        t.push(
            "backlog_mean_packets",
            f64s(&|x| x.stats.mean_backlog(now).0),
        );
        t.push("backlog_mean_bytes", f64s(&|x| x.stats.mean_backlog(now).1));
        t.push("backlog_max_packets", u64s(&|x| x.stats.max_backlog(now).0));
        t.push("backlog_max_bytes", u64s(&|x| x.stats.max_backlog(now).1));
        t.push("backlog_end_packets", u64s(&|x| x.qdisc.len() as u64));
        t.push("sojourn_mean_ms", f64s(&|x| ms(x.stats.sojourn_mean_s())));
        t.push(
            "sojourn_p50_ms",
            f64s(&|x| ms(x.stats.sojourn_quantile_s(0.5))),
        );
        t.push(
            "sojourn_p99_ms",
            f64s(&|x| ms(x.stats.sojourn_quantile_s(0.99))),
        );
        t
    }

    /// One row per driver (hardware) queue below an interface's qdisc, for the media that
    /// model one ([`crate::link::Medium::driver_queue`]), with the queue table's counters
    /// since the warm-up: what `ethtool -S` and mac80211's debugfs show beside `tc -s
    /// qdisc`.
    fn driver_table(&self) -> Table {
        let now = self.now;
        let rows: Vec<(&str, &str, crate::link::DriverQueue<'_>)> = self
            .drivers
            .iter()
            .filter_map(|d| {
                let md = self.media[d.medium as usize].get();
                let q = md.driver_queue(d.port as usize)?;
                Some((
                    self.ifaces[d.iface.0 as usize].dev.name.as_str(),
                    md.name(),
                    q,
                ))
            })
            .collect();
        type Row<'a> = (&'a str, &'a str, crate::link::DriverQueue<'a>);
        let strs = |g: &dyn Fn(&Row) -> String| Column::Str(rows.iter().map(g).collect());
        let u64s = |g: &dyn Fn(&QueueStats) -> u64| {
            Column::U64(rows.iter().map(|r| g(r.2.stats)).collect())
        };
        let f64s = |g: &dyn Fn(&QueueStats) -> f64| {
            Column::F64(rows.iter().map(|r| g(r.2.stats)).collect())
        };
        let mut t = Table::default();
        t.push("interface", strs(&|r| r.0.to_string()));
        t.push("medium", strs(&|r| r.1.to_string()));
        t.push("kind", strs(&|r| r.2.kind.to_string()));
        t.push(
            "limit_packets",
            Column::U64(rows.iter().map(|r| r.2.limit_packets).collect()),
        );
        t.push("enqueued_packets", u64s(&|x| x.enqueued_packets));
        t.push("enqueued_bytes", u64s(&|x| x.enqueued_bytes));
        t.push("dequeued_packets", u64s(&|x| x.dequeued_packets));
        t.push("dequeued_bytes", u64s(&|x| x.dequeued_bytes));
        t.push("drops", u64s(&|x| x.drops_total()));
        for r in DropReason::ALL {
            t.push(
                &format!("drops_{}", r.name()),
                u64s(&|x| x.drops[r.index()]),
            );
        }
        t.push("backlog_mean_packets", f64s(&|x| x.mean_backlog(now).0));
        t.push("backlog_mean_bytes", f64s(&|x| x.mean_backlog(now).1));
        t.push("backlog_max_packets", u64s(&|x| x.max_backlog(now).0));
        t.push("backlog_max_bytes", u64s(&|x| x.max_backlog(now).1));
        t.push("backlog_end_packets", u64s(&|x| x.current().0));
        t.push("sojourn_mean_ms", f64s(&|x| ms(x.sojourn_mean_s())));
        t.push("sojourn_p50_ms", f64s(&|x| ms(x.sojourn_quantile_s(0.5))));
        t.push("sojourn_p99_ms", f64s(&|x| ms(x.sojourn_quantile_s(0.99))));
        t
    }

    /// Every class of every root qdisc, with its counters (since the warm-up).
    fn class_table(&self) -> Table {
        let mut rows: Vec<(&str, ClassReport)> = Vec::new();
        let mut buf = Vec::new();
        for r in &self.roots {
            r.qdisc.report_classes("", "", &mut buf);
            rows.extend(buf.drain(..).map(|c| (r.name.as_str(), c)));
        }
        let strs =
            |g: &dyn Fn(&(&str, ClassReport)) -> String| Column::Str(rows.iter().map(g).collect());
        let u64s =
            |g: &dyn Fn(&ClassReport) -> u64| Column::U64(rows.iter().map(|(_, c)| g(c)).collect());
        let f64s =
            |g: &dyn Fn(&ClassReport) -> f64| Column::F64(rows.iter().map(|(_, c)| g(c)).collect());
        let mut t = Table::default();
        t.push("queue", strs(&|(q, _)| q.to_string()));
        t.push("class", strs(&|(_, c)| c.class.clone()));
        t.push("parent", strs(&|(_, c)| c.parent.clone()));
        t.push("kind", strs(&|(_, c)| c.kind.to_string()));
        t.push("qdisc", strs(&|(_, c)| c.qdisc.to_string()));
        t.push("rate_bps", u64s(&|c| c.rate_bps));
        t.push("ceil_bps", u64s(&|c| c.ceil_bps));
        t.push("enqueued_packets", u64s(&|c| c.stats.enqueued_packets));
        t.push("enqueued_bytes", u64s(&|c| c.stats.enqueued_bytes));
        t.push("dequeued_packets", u64s(&|c| c.stats.dequeued_packets));
        t.push("dequeued_bytes", u64s(&|c| c.stats.dequeued_bytes));
        t.push("drops", u64s(&|c| c.stats.drops_total()));
        for r in DropReason::ALL {
            t.push(
                &format!("drops_{}", r.name()),
                u64s(&|c| c.stats.drops[r.index()]),
            );
        }
        t.push("marks", u64s(&|c| c.stats.marks));
        t.push("lends", u64s(&|c| c.stats.lends));
        t.push("borrows", u64s(&|c| c.stats.borrows));
        t.push("backlog_end_packets", u64s(&|c| c.backlog_packets));
        t.push("backlog_end_bytes", u64s(&|c| c.backlog_bytes));
        t.push("sojourn_mean_ms", f64s(&|c| ms(c.stats.sojourn_mean_s())));
        t.push(
            "sojourn_p50_ms",
            f64s(&|c| ms(c.stats.sojourn_quantile_s(0.5))),
        );
        t.push(
            "sojourn_p99_ms",
            f64s(&|c| ms(c.stats.sojourn_quantile_s(0.99))),
        );
        t
    }
}
