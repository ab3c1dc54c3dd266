// The reference dumbbell (scenarios/examples/dumbbell.toml) in ns-3, for
// docs/ns3-comparison.md.
//
//   sender --- 100 Mbit, 1 ms --- router --- 10 Mbit, 20 ms --- receiver
//
// pfifo (FifoQueueDisc) limit 100 packets on the router's bottleneck egress, pfifo 1000
// (Linux's txqueuelen, airqueue's default) on every other interface, device queues of one
// packet so that the queue disc is the buffer. Ten bulk TCP NewReno flows (MSS 1448)
// start 10 ms apart and run to the end. TCP is set as airqueue's defaults: initial window
// 1 segment, unlimited initial ssthresh, delayed ACKs (every 2nd segment, 200 ms), min RTO
// 1 s, at most 64 KiB (45 whole segments) unacknowledged, no SACK, no limited transmit,
// timestamps on (so 1448 B of payload fill a 1500 B packet), classic (RFC 6675 pipe)
// recovery rather than ns-3's default PRR. `--tcp=TcpCubic --sack=1` is the CUBIC + SACK
// comparison: TcpCubic with HyStart off (airqueue's slow start is RFC 5681's; ns-3 3.37
// turns HyStart on by default: `--ns3::TcpCubic::HyStart=true` brings it back) and its
// other attributes at ns-3's defaults (β 0.7, C 0.4, fast convergence), which are
// airqueue's. The differences that remain are listed in docs/ns3-comparison.md.
//
// Build with tools/ns3/build.sh; run `dumbbell --help` for the options. The last line of
// the output is one JSON object (with --json, the only output).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

// The ns-3 version the JSON reports: tools/ns3/build.sh defines it from the libraries it
// links; 3.37 (Debian's libns3-dev) when built by hand.
#ifndef AQ_NS3_VERSION
#define AQ_NS3_VERSION "3.37"
#endif

using namespace ns3;

namespace
{

/// What one flow's sender did, counted from its socket's traces.
struct FlowCounters
{
    uint64_t dataSegments = 0;
    uint64_t retransmits = 0;
    uint64_t recoveries = 0; // entries into CA_RECOVERY: fast retransmits
    uint64_t losses = 0;     // entries into CA_LOSS: retransmission timeouts
    bool anySent = false;
    SequenceNumber32 highest{0}; // one past the highest data byte sent
};

void
OnTx(FlowCounters* c, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    const uint32_t len = p->GetSize(); // the payload: the trace's packet has no header
    if (len == 0)
    {
        return;
    }
    c->dataSegments++;
    const SequenceNumber32 end = h.GetSequenceNumber() + len;
    if (c->anySent && end <= c->highest)
    {
        c->retransmits++;
    }
    else
    {
        c->highest = end;
        c->anySent = true;
    }
}

void
OnCongState(FlowCounters* c, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_RECOVERY)
    {
        c->recoveries++;
    }
    else if (now == TcpSocketState::CA_LOSS)
    {
        c->losses++;
    }
}

/// Hooks the counters to the socket the application opened when it started.
void
Hook(Ptr<BulkSendApplication> app, FlowCounters* c)
{
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(app->GetSocket());
    NS_ABORT_MSG_IF(!s, "the bulk sender has no TCP socket");
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, c));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, c));
}

QueueDiscContainer
InstallPfifo(Ptr<NetDevice> dev, uint32_t limit)
{
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::FifoQueueDisc",
                         "MaxSize",
                         QueueSizeValue(QueueSize(std::to_string(limit) + "p")));
    return tch.Install(dev);
}

} // namespace

int
main(int argc, char* argv[])
{
    double duration = 60.0;
    std::string bottleneckRate = "10Mbps";
    std::string bottleneckDelay = "20ms";
    std::string accessRate = "100Mbps";
    std::string accessDelay = "1ms";
    uint32_t flows = 10;
    double spacing = 0.010;
    uint32_t limit = 100;
    uint32_t mss = 1448;
    uint32_t window = 65536;
    std::string tcp = "TcpNewReno";
    bool sack = false;
    bool json = false;
    bool stats = true;

    // TCP as airqueue's defaults (crates/airqueue/src/transport/tcp/mod.rs, TcpConfig), set
    // before parsing so that --ns3::<Type>::<Attribute>=<value> can override any of them.
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold",
                       UintegerValue(std::numeric_limits<uint32_t>::max()));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
    // The 64 KiB receive window is enforced at the sender (see --window below); the
    // receiver's buffer is large enough never to limit, with window scaling.
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
    // airqueue never gives up on a connection.
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000000));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold", UintegerValue(3));
    // airqueue's CUBIC starts with RFC 5681 slow start (no HyStart, RFC 9438 §4.10 makes
    // HyStart++ optional); ns-3 3.37's TcpCubic defaults to the original HyStart (Ha and
    // Rhee 2011) on. Its other attributes stay at ns-3's defaults, which match airqueue:
    // Beta 0.7, C 0.4, FastConvergence true (RFC 9438 §4.6, §4.7, §5.1).
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));

    CommandLine cmd(__FILE__);
    cmd.AddValue("duration", "Simulated seconds", duration);
    cmd.AddValue("rate", "Bottleneck rate (ns-3 DataRate: 10Mbps, 1Gbps)", bottleneckRate);
    cmd.AddValue("delay", "Bottleneck one-way delay", bottleneckDelay);
    cmd.AddValue("accessRate", "Access link rate", accessRate);
    cmd.AddValue("accessDelay", "Access link one-way delay", accessDelay);
    cmd.AddValue("flows", "Number of bulk TCP flows", flows);
    cmd.AddValue("spacing", "Seconds between flow starts", spacing);
    cmd.AddValue("limit", "pfifo limit (packets) on the router's bottleneck egress", limit);
    cmd.AddValue("mss", "TCP segment size (payload bytes)", mss);
    cmd.AddValue("window",
                 "Largest window in bytes (airqueue's rcv_buffer), enforced as the send buffer",
                 window);
    cmd.AddValue("tcp", "Congestion control: TcpNewReno, TcpLinuxReno or TcpCubic", tcp);
    cmd.AddValue("sack",
                 "Selective acknowledgments (RFC 2018; ns-3 3.37's default is on, airqueue's "
                 "off); loss recovery stays the RecoveryType's",
                 sack);
    cmd.AddValue("json", "Print only the JSON summary", json);
    cmd.AddValue("stats", "Count retransmissions and recoveries from the socket traces", stats);
    cmd.Parse(argc, argv);

    const auto setupStart = std::chrono::steady_clock::now();
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::" + tcp));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    // airqueue's receiver advertises at most `window` bytes and its sender sends only full
    // segments, so at most floor(window / mss) segments are ever unacknowledged. ns-3 3.37
    // cannot take that limit from the receiver: with SACK off, a sender whose unacknowledged
    // bytes reach the advertised window during fast recovery asks TcpTxBuffer::NextSeg for a
    // segment, gets an empty one (the rule-2 check is `sent <= rwnd`, not `<`) and crashes
    // in TcpRateLinux::SkbSent. A send buffer of whole segments gives the same limit: the
    // buffer holds the unacknowledged bytes, so no more than that can be in flight.
    NS_ABORT_MSG_IF(window < mss, "--window must hold at least one segment");
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(window / mss * mss));

    NodeContainer nodes;
    nodes.Create(3);
    Ptr<Node> sender = nodes.Get(0);
    Ptr<Node> router = nodes.Get(1);
    Ptr<Node> receiver = nodes.Get(2);

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessRate));
    access.SetChannelAttribute("Delay", StringValue(accessDelay));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    NetDeviceContainer accessDevs = access.Install(sender, router);

    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    bottleneck.SetChannelAttribute("Delay", StringValue(bottleneckDelay));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    NetDeviceContainer bottleneckDevs = bottleneck.Install(router, receiver);

    InternetStackHelper stack;
    stack.Install(nodes);

    // Queue discs before the addresses, or Ipv4AddressHelper installs its default
    // (fq_codel) on every device.
    InstallPfifo(accessDevs.Get(0), 1000);
    InstallPfifo(accessDevs.Get(1), 1000);
    QueueDiscContainer bottleneckQdisc = InstallPfifo(bottleneckDevs.Get(0), limit);
    InstallPfifo(bottleneckDevs.Get(1), 1000);

    Ipv4AddressHelper address;
    address.SetBase("10.1.1.0", "255.255.255.0");
    address.Assign(accessDevs);
    address.SetBase("10.1.2.0", "255.255.255.0");
    Ipv4InterfaceContainer bottleneckIfs = address.Assign(bottleneckDevs);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const Ipv4Address receiverAddr = bottleneckIfs.GetAddress(1);
    std::vector<Ptr<PacketSink>> sinks;
    std::vector<Ptr<BulkSendApplication>> senders;
    std::vector<double> starts;
    std::vector<FlowCounters> counters(flows);
    for (uint32_t i = 0; i < flows; ++i)
    {
        const uint16_t port = 5000 + i;
        const double start = i * spacing;
        starts.push_back(start);

        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = sinkHelper.Install(receiver);
        sinkApp.Start(Seconds(0));
        sinkApp.Stop(Seconds(duration));
        sinks.push_back(DynamicCast<PacketSink>(sinkApp.Get(0)));

        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(receiverAddr, port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(mss));
        ApplicationContainer bulkApp = bulk.Install(sender);
        bulkApp.Start(Seconds(start));
        bulkApp.Stop(Seconds(duration));
        Ptr<BulkSendApplication> app = DynamicCast<BulkSendApplication>(bulkApp.Get(0));
        senders.push_back(app);
        if (stats)
        {
            // The socket exists once the application has started.
            Simulator::Schedule(Seconds(start) + NanoSeconds(1), &Hook, app, &counters[i]);
        }
    }

    Simulator::Stop(Seconds(duration));
    const auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    const auto runEnd = std::chrono::steady_clock::now();
    const uint64_t events = Simulator::GetEventCount();

    const double setupSeconds = std::chrono::duration<double>(runStart - setupStart).count();
    const double wallSeconds = std::chrono::duration<double>(runEnd - runStart).count();

    std::vector<double> goodput;
    double total = 0;
    double squares = 0;
    for (uint32_t i = 0; i < flows; ++i)
    {
        const double g = sinks[i]->GetTotalRx() * 8.0 / (duration - starts[i]);
        goodput.push_back(g);
        total += g;
        squares += g * g;
    }
    const double jain = squares > 0 ? total * total / (flows * squares) : 0.0;

    QueueDisc::Stats qs = bottleneckQdisc.Get(0)->GetStats();
    Ptr<PointToPointNetDevice> bdev = DynamicCast<PointToPointNetDevice>(bottleneckDevs.Get(0));
    const uint32_t deviceDrops = bdev->GetQueue()->GetTotalDroppedPackets();

    if (!json)
    {
        std::printf("ns-3 %s%s dumbbell: %u flows, bottleneck %s %s, pfifo %u, %g s simulated\n",
                    tcp.c_str(),
                    sack ? " + SACK" : "",
                    flows,
                    bottleneckRate.c_str(),
                    bottleneckDelay.c_str(),
                    limit,
                    duration);
        std::printf("%-6s %12s %10s %8s %8s %8s\n",
                    "flow",
                    "goodput",
                    "segments",
                    "retx",
                    "fastrtx",
                    "rto");
        for (uint32_t i = 0; i < flows; ++i)
        {
            const FlowCounters& c = counters[i];
            std::printf("bulk%-2u %7.4f Mbit %10" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
                        "\n",
                        i,
                        goodput[i] / 1e6,
                        c.dataSegments,
                        c.retransmits,
                        c.recoveries,
                        c.losses);
        }
        std::printf("total goodput %.4f Mbit/s, Jain's index %.4f\n", total / 1e6, jain);
        std::printf("bottleneck: qdisc drops %u, device queue drops %u, %" PRIu64
                    " IP bytes sent (%.2f%% of the line rate)\n",
                    qs.nTotalDroppedPackets,
                    deviceDrops,
                    qs.nTotalSentBytes,
                    qs.nTotalSentBytes * 8.0 / duration /
                        DataRate(bottleneckRate).GetBitRate() * 100);
        std::printf("events %" PRIu64 ", setup %.3f s, run %.3f s wall, %.0f events/s\n",
                    events,
                    setupSeconds,
                    wallSeconds,
                    events / wallSeconds);
    }

    std::ostringstream out;
    out.precision(10);
    out << "{\"simulator\": \"ns-3\", \"version\": \"" AQ_NS3_VERSION "\", \"tcp\": \"" << tcp
        << "\", \"sack\": " << (sack ? "true" : "false") << ", \"sim_seconds\": " << duration
        << ", \"bottleneck_rate\": \"" << bottleneckRate
        << "\", \"wall_seconds\": " << wallSeconds << ", \"setup_seconds\": " << setupSeconds
        << ", \"events\": " << events << ", \"total_goodput_bps\": " << total
        << ", \"jain_index\": " << jain << ", \"bottleneck_drops\": "
        << qs.nTotalDroppedPackets + deviceDrops
        << ", \"bottleneck_sent_bytes\": " << qs.nTotalSentBytes << ", \"flows\": [";
    for (uint32_t i = 0; i < flows; ++i)
    {
        const FlowCounters& c = counters[i];
        out << (i ? ", " : "") << "{\"flow\": \"bulk" << i << "\", \"goodput_bps\": " << goodput[i]
            << ", \"rx_bytes\": " << sinks[i]->GetTotalRx()
            << ", \"data_segments\": " << c.dataSegments << ", \"retransmits\": " << c.retransmits
            << ", \"fast_retransmits\": " << c.recoveries << ", \"timeouts\": " << c.losses
            << "}";
    }
    out << "]}";
    std::cout << out.str() << std::endl;

    Simulator::Destroy();
    return 0;
}
