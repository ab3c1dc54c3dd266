// The DCF saturation cell (scenarios/validation/dcf-saturation.toml) in ns-3, for
// docs/ns3-wifi-comparison.md.
//
// n 802.11b stations at 11 Mb/s, each a saturated UDP source (CBR at 11 Mb/s of 1472-byte
// datagrams: 1500-byte IP packets, 1536-byte MPDUs) towards the AP; basic access or, with
// --rts=500, RTS/CTS. 20 s simulated, the first second a warm-up that is not counted. The
// cell is set up as airqueue's (wifi_common.h lists how, and what still differs: above all
// collisions, where --preambleDetection chooses between ns-3's two behaviours).
//
// Build with tools/ns3/build.sh; `wifi_saturation --help` prints the options. The last line
// of the output is one JSON object (with --json, the only output).

#include "wifi_common.h"

#include "ns3/applications-module.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <sstream>

using namespace ns3;

namespace
{

/// Frames put on the air, by frame type and mode ("DATA DsssRate11Mbps"), to check the
/// rates; and, after the warm-up, the data frames, RTS, CTS and ACKs. A station's channel
/// access is its data frame (basic access) or its RTS; the ACK or CTS answers the successful
/// ones, so the others are the collisions (the channel is otherwise error-free).
std::map<std::string, uint64_t> g_txModes;
bool g_counting = false;
uint64_t g_data = 0;
uint64_t g_rts = 0;
uint64_t g_cts = 0;
uint64_t g_ack = 0;

void
OnPsduTx(WifiConstPsduMap psdus, WifiTxVector txVector, double)
{
    for (const auto& [id, psdu] : psdus)
    {
        const WifiMacHeader& h = psdu->GetHeader(0);
        g_txModes[std::string(h.GetTypeString()) + " " + txVector.GetMode().GetUniqueName()]++;
        if (g_counting)
        {
            g_data += h.IsData();
            g_rts += h.IsRts();
            g_cts += h.IsCts();
            g_ack += h.IsAck();
        }
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t n = 10;
    double duration = 20.0;
    double warmup = 1.0;
    double rate = 11;
    uint32_t rts = 2347;
    uint32_t size = 1472;
    double offered = 11;
    uint32_t buffer = 100;
    bool json = false;
    bool preambleDetection = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("n", "Number of saturated stations", n);
    cmd.AddValue("duration", "Simulated seconds", duration);
    cmd.AddValue("warmup", "Seconds not counted at the start", warmup);
    cmd.AddValue("rate", "The stations' PHY rate, Mb/s (1, 2, 5.5, 11)", rate);
    cmd.AddValue("rts", "RTS threshold, bytes of MPDU (2347: off; 500: RTS/CTS)", rts);
    cmd.AddValue("size", "UDP payload bytes per datagram", size);
    cmd.AddValue("offered",
                 "Each station's CBR rate, Mb/s (11: the validated saturation workload; any "
                 "rate above a station's share saturates it)",
                 offered);
    cmd.AddValue("buffer", "Driver buffer (MAC queue) packets", buffer);
    cmd.AddValue("preambleDetection",
                 "ns-3's preamble detection model (4 dB): colliding frames are never detected "
                 "(no capture, but DIFS rather than EIFS after a collision); see wifi_common.h",
                 preambleDetection);
    cmd.AddValue("json", "Print only the JSON summary", json);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(n == 0, "--n must be at least 1");
    NS_ABORT_MSG_IF(warmup >= duration, "--warmup must be shorter than --duration");

    const auto setupStart = std::chrono::steady_clock::now();
    ConfigureCellDefaults(buffer);

    NodeContainer apNode;
    apNode.Create(1);
    NodeContainer stations;
    stations.Create(n);
    NetDeviceContainer devices =
        InstallCell(apNode.Get(0), stations, std::vector<double>(n, rate), rts, preambleDetection);

    InternetStackHelper stack;
    stack.Install(apNode);
    stack.Install(stations);
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        InstallPfifo(devices.Get(i), 1000);
    }
    Ipv4AddressHelper address;
    address.SetBase("10.0.0.0", "255.255.0.0");
    Ipv4InterfaceContainer ifs = address.Assign(devices);
    NeighborCacheHelper().PopulateNeighborCache();

    // One sink per station on the AP, one CBR source on each station (airqueue's `cbr` app
    // at `offered` Mbit, 11 by default, starting at 0).
    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < n; ++i)
    {
        const uint16_t port = 9000 + i;
        PacketSinkHelper sink("ns3::UdpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(apNode.Get(0));
        s.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));

        OnOffHelper src("ns3::UdpSocketFactory", InetSocketAddress(ifs.GetAddress(0), port));
        src.SetConstantRate(DataRate(offered * 1e6), size);
        ApplicationContainer a = src.Install(stations.Get(i));
        a.Start(Seconds(0));
        a.Stop(Seconds(duration));
    }

    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyTxPsduBegin",
                                  MakeCallback(&OnPsduTx));

    // Received bytes at the end of the warm-up.
    std::vector<uint64_t> atWarmup(n, 0);
    Simulator::Schedule(Seconds(warmup), [&]() {
        g_counting = true;
        for (uint32_t i = 0; i < n; ++i)
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

    std::vector<double> throughput;
    double total = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        const double t = (sinks[i]->GetTotalRx() - atWarmup[i]) * 8.0 / (duration - warmup);
        throughput.push_back(t);
        total += t;
    }

    const uint64_t accesses = g_rts > 0 ? g_rts : g_data;
    const uint64_t answered = g_rts > 0 ? g_cts : g_ack;
    const double collisionsPerAccess =
        accesses ? double(accesses - answered) / double(accesses) : 0.0;

    if (!json)
    {
        std::printf("ns-3 802.11b saturation: %u stations at %g Mb/s, RTS threshold %u, "
                    "%u-byte datagrams, %g s simulated (%g s warm-up)\n",
                    n,
                    rate,
                    rts,
                    size,
                    duration,
                    warmup);
        for (uint32_t i = 0; i < n; ++i)
        {
            std::printf("up%-3u %8.4f Mbit/s\n", i, throughput[i] / 1e6);
        }
        std::printf("total %.4f Mbit/s (UDP payload)\n", total / 1e6);
        std::printf("frames on the air by type and mode:\n");
        for (const auto& [k, v] : g_txModes)
        {
            std::printf("  %-28s %10" PRIu64 "\n", k.c_str(), v);
        }
        std::printf("after the warm-up: %" PRIu64 " channel accesses, %.4f of them collided\n",
                    accesses,
                    collisionsPerAccess);
        std::printf("events %" PRIu64 ", setup %.3f s, run %.3f s wall, %.0f events/s\n",
                    events,
                    setupSeconds,
                    wallSeconds,
                    events / wallSeconds);
    }

    std::ostringstream out;
    out.precision(10);
    out << "{\"simulator\": \"ns-3\", \"version\": \"" AQ_NS3_VERSION "\", \"n\": " << n
        << ", \"rate_mbps\": " << rate << ", \"rts_threshold\": " << rts
        << ", \"preamble_detection\": " << (preambleDetection ? "true" : "false")
        << ", \"sim_seconds\": " << duration << ", \"warmup_seconds\": " << warmup
        << ", \"wall_seconds\": " << wallSeconds << ", \"setup_seconds\": " << setupSeconds
        << ", \"events\": " << events << ", \"throughput_bps\": " << total
        << ", \"accesses\": " << accesses << ", \"collisions_per_access\": " << collisionsPerAccess
        << ", \"stations_bps\": [";
    for (uint32_t i = 0; i < n; ++i)
    {
        out << (i ? ", " : "") << throughput[i];
    }
    out << "]}";
    std::cout << out.str() << std::endl;

    Simulator::Destroy();
    return 0;
}
