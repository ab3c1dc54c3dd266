//! A flow's transport end, built for its path (part of the flows phase): a UDP source or
//! a ping with its packet pattern, or a TCP connection with its application, each refused
//! (a problem at the key to change) when its packets exceed the path's MTU.

use crate::app::{
    video_interval, voice_packets, AppSpec, ArrivalDistribution, BulkSpec, CbrSpec, MessageSpec,
    OnoffSpec, Pattern, PingSource, PingSpec, PoissonSpec, UdpSource, VideoSpec, VoicePhase,
    VoiceSpec, WebSession, ICMP_ECHO_HEADER_BYTES,
};
use crate::conf::{Duration, Rate, ScenarioError};
use crate::engine::{stream, SimRng, SimTime};
use crate::packet::{IPV4_HEADER_BYTES, UDP_HEADER_BYTES};
use crate::scenario::{FlowSpec, TcpSpec, TransportSpec};
use crate::sim::tcp_flow::{config_of, TcpApp, TcpFlow, TCP_WIRE_HEADER_BYTES};
use crate::sim::Endpoint;
use rand::Rng;

/// Destination port of every flow's sink (iperf's classic port).
pub(super) const SINK_PORT: u16 = 5001;
/// Port of a web flow's server.
const HTTP_PORT: u16 = 80;

/// Builds the transport end of a flow, or records why it cannot run on its path.
pub(super) fn endpoint_of(
    f: &FlowSpec,
    index: usize,
    seed: u64,
    stop: SimTime,
    path_mtu: u32,
    label: &str,
    errs: &mut ScenarioError,
) -> Option<Endpoint> {
    let end = FlowEnd {
        f,
        index,
        seed,
        stop,
        path_mtu,
        label,
    };
    match &f.transport {
        TransportSpec::Udp(_) => end.udp(errs),
        TransportSpec::Tcp(t) => end.tcp(t, errs),
    }
}

/// What building a flow's transport end reads: the flow, its index, the run's seed, when
/// it stops, its path's MTU and its label for problems.
#[derive(Clone, Copy)]
struct FlowEnd<'a> {
    f: &'a FlowSpec,
    index: usize,
    seed: u64,
    stop: SimTime,
    path_mtu: u32,
    label: &'a str,
}

impl FlowEnd<'_> {
    /// The flow's own random stream (`flow:<name>`).
    fn rng(&self) -> SimRng {
        stream(self.seed, &format!("flow:{}", self.f.name))
    }

    /// Whether `payload` with `headers` fits the path's MTU; if not, a problem at `key`.
    fn fits(&self, payload: u32, headers: u32, key: &str, errs: &mut ScenarioError) -> bool {
        let (label, path_mtu) = (self.label, self.path_mtu);
        if payload as u64 + headers as u64 > path_mtu as u64 {
            errs.push(
                format!("{label}.{key}"),
                format!(
                    "{payload} B of payload + {headers} B of headers exceed the path MTU ({path_mtu} B); use at most {} (airqueue does not fragment)",
                    path_mtu.saturating_sub(headers)
                ),
            );
            return false;
        }
        true
    }

    /// A UDP source (or a ping) with the pattern of its application.
    fn udp(&self, errs: &mut ScenarioError) -> Option<Endpoint> {
        let FlowEnd { f, seed, stop, .. } = *self;
        let start = f.start.time();
        let udp_headers = IPV4_HEADER_BYTES + UDP_HEADER_BYTES;
        // A voice source's offset of its first packet (`phase = "random"`).
        let mut phase = SimTime::ZERO;
        let (pattern, size, key) = match &f.app {
            AppSpec::Cbr(CbrSpec {
                size,
                rate,
                interval,
            }) => (
                Pattern::Cbr {
                    interval: interval_of(*size, *rate, *interval),
                },
                *size,
                "app.size",
            ),
            AppSpec::Poisson(PoissonSpec {
                size,
                rate,
                interval,
            }) => (
                UdpSource::poisson(interval_of(*size, *rate, *interval)),
                *size,
                "app.size",
            ),
            AppSpec::Onoff(OnoffSpec {
                size,
                rate,
                on,
                off,
                distribution,
            }) => (
                Pattern::OnOff {
                    interval: SimTime::transmission(*size as u64, rate.bps()),
                    on_mean: on.time(),
                    off_mean: off.time(),
                    distribution: *distribution,
                    on_until: SimTime::ZERO,
                },
                *size,
                "app.size",
            ),
            AppSpec::Voice(VoiceSpec {
                codec,
                frames_per_packet,
                header,
                phase: voice_phase,
            }) => {
                let (size, interval) = voice_packets(*codec, *frames_per_packet, *header);
                if *voice_phase == VoicePhase::Random {
                    let mut r = stream(seed, &format!("flow:{}:phase", f.name));
                    phase = SimTime(r.random_range(0..interval.0.max(1)));
                }
                (Pattern::Cbr { interval }, size, "app.frames_per_packet")
            }
            AppSpec::Video(VideoSpec {
                packets_per_second,
                size,
            }) => (
                Pattern::Cbr {
                    interval: video_interval(*packets_per_second),
                },
                *size,
                "app.size",
            ),
            AppSpec::Ping(PingSpec { size, interval }) => {
                if !self.fits(
                    *size,
                    IPV4_HEADER_BYTES + ICMP_ECHO_HEADER_BYTES,
                    "app.size",
                    errs,
                ) {
                    return None;
                }
                return Some(Endpoint::Ping(Box::new(PingSource::new(
                    *size,
                    interval.time(),
                    start,
                    stop,
                    self.rng(),
                ))));
            }
            AppSpec::Bulk(_) | AppSpec::Message(_) | AppSpec::Web(_) => {
                unreachable!("validated: bulk, message and web need TCP")
            }
        };
        if !self.fits(size, udp_headers, key, errs) {
            return None;
        }
        Some(Endpoint::Udp(Box::new(UdpSource::new(
            size,
            start + phase,
            stop,
            pattern,
            self.rng(),
        ))))
    }

    /// A TCP connection carrying its application (bulk, messages, web pages).
    fn tcp(&self, t: &TcpSpec, errs: &mut ScenarioError) -> Option<Endpoint> {
        let FlowEnd {
            f,
            index,
            stop,
            label,
            ..
        } = *self;
        let start = f.start.time();
        if !self.fits(t.mss, TCP_WIRE_HEADER_BYTES, "transport.mss", errs) {
            return None;
        }
        let web = matches!(f.app, AppSpec::Web(_));
        let cfg = config_of(t, web);
        if let Err(e) = cfg.validate() {
            errs.push(format!("{label}.transport"), e.to_string());
            return None;
        }
        let (app, first_port, server_port) = match &f.app {
            AppSpec::Bulk(BulkSpec { bytes }) => (
                TcpApp::Bulk(bytes.map(|b| b.0)),
                index as u32,
                f.port.unwrap_or(SINK_PORT),
            ),
            AppSpec::Message(MessageSpec {
                size,
                rate,
                interval,
                distribution,
            }) => {
                let iv = interval_of(*size, *rate, *interval);
                let pattern = match distribution {
                    ArrivalDistribution::Poisson => UdpSource::poisson(iv),
                    ArrivalDistribution::Constant => Pattern::Cbr { interval: iv },
                };
                let arrivals = UdpSource::new(*size, start, stop, pattern, self.rng());
                (
                    TcpApp::Message(arrivals),
                    index as u32,
                    f.port.unwrap_or(SINK_PORT),
                )
            }
            // A web client uses a new port per connection: start in the upper half of
            // the dynamic range, away from the single ports of the other flows.
            AppSpec::Web(spec) => (
                TcpApp::Web(Box::new(WebSession::new(spec, self.rng()))),
                8192 + (index as u32 * 512) % 8192,
                f.port.unwrap_or(HTTP_PORT),
            ),
            other => {
                errs.push(
                    format!("{label}.app"),
                    format!(
                        "a {} source runs over UDP; use app = {{ kind = \"bulk\" }}, \"message\" or \"web\" with TCP",
                        other.kind()
                    ),
                );
                return None;
            }
        };
        Some(Endpoint::Tcp(Box::new(TcpFlow::new(
            cfg,
            app,
            start,
            t.trace,
            first_port,
            server_port,
        ))))
    }
}

/// The mean interval of a source given as `rate` or `interval` (validated: exactly one).
fn interval_of(size: u32, rate: Option<Rate>, interval: Option<Duration>) -> SimTime {
    match (rate, interval) {
        (_, Some(i)) => i.time(),
        (Some(r), None) => SimTime::transmission(size as u64, r.bps()),
        (None, None) => unreachable!("validated: rate or interval"),
    }
}
