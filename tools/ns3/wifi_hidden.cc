// The hidden-terminal pair (scenarios/validation/hidden-terminal.toml,
// crates/airqueue/tests/wifi_hidden.rs) in ns-3 3.37, for docs/ns3-wifi-comparison.md.
//
// Three ad hoc nodes a, b, c (ns-3's examples/wireless/wifi-hidden-terminal.cc): a and c
// each send saturated UDP (CBR at the PHY rate, 1472-byte datagrams: 1500-byte IP packets)
// to b. A MatrixPropagationLossModel puts 50 dB between a and b and between c and b; a and
// c are 200 dB apart (--hidden=1: they never hear each other) or 50 dB (--hidden=0: one
// collision domain). Basic access or, with --rts=500, RTS/CTS. The DCF is set up as
// airqueue's (wifi_common.h: retry limits 7/4, no MAC queue lifetime, fixed rates, ARP
// filled before the run): 802.11b at 11 Mb/s with control frames at 2 Mb/s (basic rates
// {1, 2}), or --standard=a at 54 Mb/s with control frames at 24 Mb/s (basic {6, 12, 24}).
// ns-3's default preamble detection model is on (4 dB, -82 dBm).
//
// What ns-3 does that airqueue does not: its DSSS error model gives 1 and 2 Mb/s frames the
// 11-chip Barker spreading gain, so an RTS (or CTS, ACK) that a receiver locked onto first
// survives a later equal-power overlap (0 dB SINR): capture of control frames in 802.11b.
// OFDM (--standard=a) has no spreading gain: there any overlap destroys both frames, as in
// airqueue.
//
// Build with tools/ns3/build.sh wifi_hidden; the last line of output is one JSON object.

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

bool g_counting = false;
std::map<std::string, uint64_t> g_frames; // after the warm-up, by type

void
OnPsduTx(WifiConstPsduMap psdus, WifiTxVector txVector, double)
{
    if (!g_counting)
    {
        return;
    }
    for (const auto& [id, psdu] : psdus)
    {
        const WifiMacHeader& h = psdu->GetHeader(0);
        g_frames[std::string(h.GetTypeString()) + " " + txVector.GetMode().GetUniqueName()]++;
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    double duration = 10.0;
    double warmup = 1.0;
    uint32_t rts = 2347;
    uint32_t size = 1472;
    uint32_t buffer = 100;
    bool hidden = true;
    std::string standard = "b";
    uint32_t seed = 1;
    bool json = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("duration", "Simulated seconds", duration);
    cmd.AddValue("warmup", "Seconds not counted at the start", warmup);
    cmd.AddValue("rts", "RTS threshold, bytes of MPDU (2347: off; 500: RTS/CTS)", rts);
    cmd.AddValue("size", "UDP payload bytes per datagram", size);
    cmd.AddValue("buffer", "Driver buffer (MAC queue) packets", buffer);
    cmd.AddValue("hidden", "a and c cannot hear each other (else one collision domain)", hidden);
    cmd.AddValue("standard", "b (11 Mb/s) or a (54 Mb/s)", standard);
    cmd.AddValue("seed", "ns-3 RngRun", seed);
    cmd.AddValue("json", "Print only the JSON summary", json);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(standard != "a" && standard != "b", "--standard is a or b");
    RngSeedManager::SetRun(seed);

    const auto setupStart = std::chrono::steady_clock::now();
    ConfigureCellDefaults(buffer);
    const bool b = standard == "b";
    const std::string dataMode = b ? "DsssRate11Mbps" : "OfdmRate54Mbps";
    const std::string ctlMode = b ? "DsssRate2Mbps" : "OfdmRate24Mbps";
    const std::string rate = b ? "11Mbps" : "54Mbps";

    NodeContainer nodes;
    nodes.Create(3);
    MobilityHelper mobility;
    Ptr<ListPositionAllocator> positions = CreateObject<ListPositionAllocator>();
    for (int i = 0; i < 3; ++i)
    {
        positions->Add(Vector(i, 0, 0));
    }
    mobility.SetPositionAllocator(positions);
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(nodes);

    Ptr<MatrixPropagationLossModel> loss = CreateObject<MatrixPropagationLossModel>();
    loss->SetDefaultLoss(200);
    auto mm = [&](int i) { return nodes.Get(i)->GetObject<MobilityModel>(); };
    loss->SetLoss(mm(0), mm(1), 50);
    loss->SetLoss(mm(2), mm(1), 50);
    if (!hidden)
    {
        loss->SetLoss(mm(0), mm(2), 50);
    }
    Ptr<YansWifiChannel> channel = CreateObject<YansWifiChannel>();
    channel->SetPropagationLossModel(loss);
    channel->SetPropagationDelayModel(CreateObject<ConstantSpeedPropagationDelayModel>());

    YansWifiPhyHelper phy;
    phy.SetChannel(channel);
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    WifiHelper wifi;
    wifi.SetStandard(b ? WIFI_STANDARD_80211b : WIFI_STANDARD_80211a);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue(dataMode),
                                 "ControlMode",
                                 StringValue(ctlMode),
                                 "RtsCtsThreshold",
                                 UintegerValue(rts));
    NetDeviceContainer devices = wifi.Install(phy, mac, nodes);
    if (b)
    {
        // Basic rates {1, 2} Mb/s: control responses at 2 Mb/s.
        UseDsssBasicRates(devices);
    }

    InternetStackHelper stack;
    stack.Install(nodes);
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        InstallPfifo(devices.Get(i), 1000);
    }
    Ipv4AddressHelper address;
    address.SetBase("10.0.0.0", "255.255.0.0");
    Ipv4InterfaceContainer ifs = address.Assign(devices);
    NeighborCacheHelper().PopulateNeighborCache();

    std::vector<Ptr<PacketSink>> sinks;
    const uint32_t senders[2] = {0, 2};
    for (uint32_t j = 0; j < 2; ++j)
    {
        const uint16_t port = 9000 + j;
        PacketSinkHelper sink("ns3::UdpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(nodes.Get(1));
        s.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));
        OnOffHelper src("ns3::UdpSocketFactory", InetSocketAddress(ifs.GetAddress(1), port));
        src.SetConstantRate(DataRate(rate), size);
        ApplicationContainer a = src.Install(nodes.Get(senders[j]));
        a.Start(Seconds(0));
        a.Stop(Seconds(duration));
    }
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyTxPsduBegin",
                                  MakeCallback(&OnPsduTx));
    std::vector<uint64_t> atWarmup(2, 0);
    Simulator::Schedule(Seconds(warmup), [&]() {
        g_counting = true;
        for (uint32_t j = 0; j < 2; ++j)
        {
            atWarmup[j] = sinks[j]->GetTotalRx();
        }
    });

    Simulator::Stop(Seconds(duration));
    const auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    const auto runEnd = std::chrono::steady_clock::now();
    const double wallSeconds = std::chrono::duration<double>(runEnd - runStart).count();
    const double setupSeconds = std::chrono::duration<double>(runStart - setupStart).count();
    double bps[2];
    for (uint32_t j = 0; j < 2; ++j)
    {
        bps[j] = (sinks[j]->GetTotalRx() - atWarmup[j]) * 8.0 / (duration - warmup);
    }
    if (!json)
    {
        std::printf("ns-3 hidden terminals: 802.11%s, hidden %d, RTS threshold %u\n",
                    standard.c_str(),
                    hidden,
                    rts);
        std::printf("a->b %.4f Mbit/s, c->b %.4f Mbit/s (UDP payload)\n", bps[0] / 1e6, bps[1] / 1e6);
        for (const auto& [k, v] : g_frames)
        {
            std::printf("  %-28s %10" PRIu64 "\n", k.c_str(), v);
        }
    }
    std::ostringstream out;
    out.precision(10);
    out << "{\"simulator\": \"ns-3\", \"version\": \"" AQ_NS3_VERSION "\", \"standard\": \"" << standard
        << "\", \"hidden\": " << (hidden ? "true" : "false") << ", \"rts_threshold\": " << rts
        << ", \"seed\": " << seed << ", \"sim_seconds\": " << duration
        << ", \"warmup_seconds\": " << warmup << ", \"wall_seconds\": " << wallSeconds
        << ", \"setup_seconds\": " << setupSeconds << ", \"flows_bps\": [" << bps[0] << ", "
        << bps[1] << "]}";
    std::cout << out.str() << std::endl;
    Simulator::Destroy();
    return 0;
}
