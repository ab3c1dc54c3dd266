// The mixed-rate TCP download cell (scenarios/adwiser/mixed-rate-downloads.toml; seed 002
// Fig. 1, the performance anomaly) in ns-3, for docs/ns3-wifi-comparison.md.
//
//   server --- 100 Mbit, 1 ms --- AP ))) 802.11b: fast0, fast1 at 11 Mb/s,
//                                                 mid0, mid1 at 5.5 Mb/s, slow0, slow1 at 2 Mb/s
//
// One bulk TCP download from the server to each station, all starting at 0; 60 s simulated,
// the first 5 s a warm-up that is not counted. The AP's driver buffer holds 100 packets
// (`buffer = 100`), every interface has airqueue's default pfifo of 1000 packets above its
// device. TCP is airqueue's default NewReno as tools/ns3/dumbbell.cc sets it (initial window
// 1, delayed ACKs every 2nd segment / 200 ms, min RTO 1 s, timestamps, no SACK, classic
// recovery), with a 256 KiB window (`rcv_buffer = "256KiB"`) enforced as the send buffer.
// The cell is set up as airqueue's (wifi_common.h lists how, and what still differs).
//
// Build with tools/ns3/build.sh; `wifi_mixed_rate --help` prints the options. The last line
// of the output is one JSON object (with --json, the only output).

#include "wifi_common.h"

#include "ns3/applications-module.h"
#include "ns3/point-to-point-module.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <sstream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    double duration = 60.0;
    double warmup = 5.0;
    uint32_t buffer = 100;
    uint32_t mss = 1448;
    uint32_t window = 256 * 1024;
    uint32_t rts = 2347;
    bool json = false;
    bool preambleDetection = false;

    ConfigureAirqueueTcpDefaults();
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4 << 20));

    CommandLine cmd(__FILE__);
    cmd.AddValue("duration", "Simulated seconds", duration);
    cmd.AddValue("warmup", "Seconds not counted at the start", warmup);
    cmd.AddValue("buffer", "The AP's driver buffer (MAC queue), packets", buffer);
    cmd.AddValue("mss", "TCP segment size (payload bytes)", mss);
    cmd.AddValue("window", "Largest window in bytes (airqueue's rcv_buffer)", window);
    cmd.AddValue("rts", "RTS threshold, bytes of MPDU (2347: off)", rts);
    cmd.AddValue("preambleDetection",
                 "ns-3's preamble detection model (4 dB): colliding frames are never detected "
                 "(no capture, but DIFS rather than EIFS after a collision); see wifi_common.h",
                 preambleDetection);
    cmd.AddValue("json", "Print only the JSON summary", json);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(warmup >= duration, "--warmup must be shorter than --duration");
    NS_ABORT_MSG_IF(window < mss, "--window must hold at least one segment");

    const auto setupStart = std::chrono::steady_clock::now();
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(window / mss * mss));
    ConfigureCellDefaults(buffer);

    const std::vector<std::string> names{"fast0", "fast1", "mid0", "mid1", "slow0", "slow1"};
    const std::vector<double> rates{11, 11, 5.5, 5.5, 2, 2};

    NodeContainer server;
    server.Create(1);
    NodeContainer apNode;
    apNode.Create(1);
    NodeContainer stations;
    stations.Create(names.size());

    PointToPointHelper lan;
    lan.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    lan.SetChannelAttribute("Delay", StringValue("1ms"));
    lan.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    NetDeviceContainer lanDevs = lan.Install(server.Get(0), apNode.Get(0));
    NetDeviceContainer wifiDevs = InstallCell(apNode.Get(0), stations, rates, rts, preambleDetection);

    InternetStackHelper stack;
    stack.Install(server);
    stack.Install(apNode);
    stack.Install(stations);
    InstallPfifo(lanDevs.Get(0), 1000);
    InstallPfifo(lanDevs.Get(1), 1000);
    QueueDiscContainer apQdisc = InstallPfifo(wifiDevs.Get(0), 1000);
    for (uint32_t i = 1; i < wifiDevs.GetN(); ++i)
    {
        InstallPfifo(wifiDevs.Get(i), 1000);
    }

    Ipv4AddressHelper address;
    address.SetBase("10.1.1.0", "255.255.255.0");
    address.Assign(lanDevs);
    address.SetBase("10.0.0.0", "255.255.0.0");
    Ipv4InterfaceContainer wifiIfs = address.Assign(wifiDevs);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    NeighborCacheHelper().PopulateNeighborCache();

    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < names.size(); ++i)
    {
        const uint16_t port = 5000 + i;
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(stations.Get(i));
        s.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));

        BulkSendHelper bulk("ns3::TcpSocketFactory",
                            InetSocketAddress(wifiIfs.GetAddress(i + 1), port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(mss));
        ApplicationContainer b = bulk.Install(server.Get(0));
        b.Start(Seconds(0));
        b.Stop(Seconds(duration));
    }

    std::vector<uint64_t> atWarmup(names.size(), 0);
    Simulator::Schedule(Seconds(warmup), [&]() {
        for (uint32_t i = 0; i < names.size(); ++i)
        {
            atWarmup[i] = sinks[i]->GetTotalRx();
        }
    });

    Simulator::Stop(Seconds(duration));
    const auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    const auto runEnd = std::chrono::steady_clock::now();
    const uint64_t events = Simulator::GetEventCount();
    const double setupSeconds = std::chrono::duration<double>(runStart - setupStart).count();
    const double wallSeconds = std::chrono::duration<double>(runEnd - runStart).count();

    std::vector<double> goodput;
    double total = 0;
    for (uint32_t i = 0; i < names.size(); ++i)
    {
        const double g = (sinks[i]->GetTotalRx() - atWarmup[i]) * 8.0 / (duration - warmup);
        goodput.push_back(g);
        total += g;
    }
    QueueDisc::Stats qs = apQdisc.Get(0)->GetStats();
    Ptr<WifiMacQueue> apQueue =
        DynamicCast<WifiNetDevice>(wifiDevs.Get(0))->GetMac()->GetTxopQueue(AC_BE_NQOS);
    const uint64_t apDrops = qs.nTotalDroppedPackets + apQueue->GetTotalDroppedPackets();

    if (!json)
    {
        std::printf("ns-3 802.11b mixed-rate TCP downloads, AP buffer %u, %g s simulated "
                    "(%g s warm-up)\n",
                    buffer,
                    duration,
                    warmup);
        for (uint32_t i = 0; i < names.size(); ++i)
        {
            std::printf("%-6s %4.1f Mb/s  %8.4f Mbit/s\n", names[i].c_str(), rates[i], goodput[i] / 1e6);
        }
        std::printf("total %.4f Mbit/s (TCP payload), AP drops %" PRIu64 "\n", total / 1e6, apDrops);
        std::printf("events %" PRIu64 ", setup %.3f s, run %.3f s wall, %.0f events/s\n",
                    events,
                    setupSeconds,
                    wallSeconds,
                    events / wallSeconds);
    }

    std::ostringstream out;
    out.precision(10);
    out << "{\"simulator\": \"ns-3\", \"version\": \"" AQ_NS3_VERSION "\", \"sim_seconds\": " << duration
        << ", \"warmup_seconds\": " << warmup << ", \"wall_seconds\": " << wallSeconds
        << ", \"setup_seconds\": " << setupSeconds << ", \"events\": " << events
        << ", \"total_goodput_bps\": " << total << ", \"ap_drops\": " << apDrops
        << ", \"flows\": [";
    for (uint32_t i = 0; i < names.size(); ++i)
    {
        out << (i ? ", " : "") << "{\"flow\": \"" << names[i] << "\", \"rate_mbps\": " << rates[i]
            << ", \"goodput_bps\": " << goodput[i] << "}";
    }
    out << "]}";
    std::cout << out.str() << std::endl;

    Simulator::Destroy();
    return 0;
}
