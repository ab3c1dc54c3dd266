//! The last phase of the build: the timeline's changes checked against what was built,
//! the build's problems reported, the capture files opened, the simulation assembled and
//! checked against the memory budget, and its first events scheduled.

use super::Builder;
use crate::conf::ScenarioError;
use crate::engine::{EventId, EventQueue, SimTime};
use crate::event::Event;
use crate::metrics::TimeSeries;
use crate::packet::PacketArena;
use crate::qdisc::DropSink;
use crate::sim::far::FarEvents;
use crate::sim::tcp_flow::TcpApp;
use crate::sim::{Endpoint, FlowRt, Simulation};
use crate::topology::Routes;

impl Builder<'_> {
    /// The simulation, or every problem the build found.
    pub(super) fn finish(
        mut self,
        routes: Routes,
        flows: Vec<FlowRt>,
    ) -> Result<Simulation, ScenarioError> {
        let s = self.s;
        let timeline = crate::sim::timeline::build_timeline(
            s,
            &self.media,
            &self.roots,
            &self.flow_names,
            &self.names,
            self.seed,
            &mut self.errs,
        );
        self.errs.into_result()?;
        // Files are created only once the scenario is known to build.
        let capture = match &self.opts.capture {
            None => None,
            Some(spec) => {
                let c = crate::sim::capture::Capture::open(spec, &self.iface_medium_name)
                    .map_err(|(path, message)| ScenarioError::single(path, message))?;
                Some(Box::new(c))
            }
        };

        let duration = s.run.duration.time();
        let sample_interval = s.run.sample_interval.time();
        let samples = (duration.0 / sample_interval.0.max(1)) as usize + 1;
        let mut sim = Simulation {
            now: SimTime::ZERO,
            stop: duration,
            warmup: s.run.warmup.time(),
            sample_interval,
            seed: self.seed,
            events: EventQueue::with_capacity(1024),
            timers: self.timers,
            timer_owners: self.timer_owners,
            far: Default::default(),
            packets: PacketArena::new(),
            nodes: self.nodes,
            ifaces: self.ifaces,
            ports: self.ports,
            hot: Vec::new(),
            media: self.media,
            roots: self.roots,
            hooks: self.hooks,
            routes,
            // Reserve for the expected rows, capped: long runs grow the buffers as they go.
            timeseries: TimeSeries::with_capacity(
                samples
                    .saturating_mul(flows.len() + 3 * (self.dev_names.len() + s.virtual_devs.len()))
                    .min(1 << 20),
            ),
            flows,
            class_samples: Vec::new(),
            class_at_last_sample: Vec::new(),
            drivers: Vec::new(),
            drops: DropSink::new(),
            ledger: Default::default(),
            last_sample: SimTime::ZERO,
            wall_seconds: 0.0,
            capture,
            scratch_sizes: Vec::new(),
            link_fx: Vec::with_capacity(16),
            hook_fx: Vec::new(),
            timeline,
            estimate: Default::default(),
            warnings: Vec::new(),
            real: None,
        };
        sim.hot = sim.hot_ifaces();
        sim.drivers = sim.driver_ports();
        sim.estimate = sim.estimate_resources();
        crate::sim::budget::check(&sim.estimate, &self.budget, &self.interval_text)?;
        if let Some(w) = crate::sim::budget::large(&sim.estimate, &self.budget) {
            self.warnings.push(w);
        }
        if let Some(w) = self
            .opts
            .max_memory
            .and_then(crate::sim::budget::given_above_limits)
        {
            self.warnings.push(w);
        }
        sim.warnings = crate::sim::warnings::capped(self.warnings);
        sim.schedule_initial_events();
        Ok(sim)
    }
}

impl Simulation {
    fn schedule_initial_events(&mut self) {
        for m in 0..self.media.len() {
            self.with_medium(m as u32, |md, cx| md.get_mut().start(cx));
        }
        let mut far: Vec<(SimTime, EventId, Event)> = Vec::new();
        for i in 0..self.flows.len() {
            if self.flows[i].awaiting_call {
                continue; // starts when its call arrives
            }
            let first = match &mut self.flows[i].endpoint {
                Endpoint::Udp(source) => source.first(),
                Endpoint::Ping(source) => source.first(),
                Endpoint::Tcp(t) => match &mut t.app {
                    TcpApp::Bulk(_) | TcpApp::Web(_) => Some(t.start),
                    TcpApp::Message(arrivals) => arrivals.first(),
                },
                Endpoint::Real => None,
            };
            if let Some(t) = first {
                let id = self.events.reserve();
                far.push((t, id, Event::AppSend(i as u32)));
                self.flows[i].app_event = Some(id);
            }
            // A bulk transfer stops writing at the flow's `stop` (an AppSend after its start).
            let flow = &self.flows[i];
            if let Endpoint::Tcp(t) = &flow.endpoint {
                if matches!(t.app, TcpApp::Bulk(_)) && flow.stop < self.stop {
                    far.push((flow.stop, self.events.reserve(), Event::AppSend(i as u32)));
                }
            }
        }
        if self.warmup.0 > 0 {
            far.push((self.warmup, self.events.reserve(), Event::WarmupEnd));
        }
        self.events.schedule(self.sample_interval, Event::Sample);
        for q in &mut self.roots {
            q.stats.reset(SimTime::ZERO);
        }
        // Flows' starts and stops, the warm-up's end and the timeline's changes wait
        // outside the event queue until each is the earliest of them (`sim::far`),
        // numbered here, where they were met.
        self.timeline_events(&mut far);
        self.far = FarEvents::new(far, &mut self.events);
    }
}
