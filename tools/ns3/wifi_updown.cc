// Uploads beside downloads through one AP (seed 002 §II-B, Figs. 22 and 23 without the box:
// scenarios/adwiser/fig22-up-down-54.toml, fig23-uploads-54.toml) in ns-3, for
// docs/ns3-wifi-comparison.md and docs/reproductions/hegde-2013.md.
//
//   server --- 100 Mbit, 150 us --- AP ))) 54 Mb/s: down0 … down{M-1}, up0 … up{N-1}
//
// Each `down` station downloads from the server and each `up` station uploads to it, one
// bulk TCP connection each; downloads start at 0, uploads at --upStart. Goodput is counted
// over [--from, --duration]. The paper's testbed is 802.11g; both simulators run this cell
// as 802.11a (OFDM, Clause 17: slot 9 us, SIFS 16 us, CWmin 15), whose exchange timing
// equals an all-ERP 802.11g cell's (SIFS 10 us + the 6 us signal extension) except EIFS
// (802.11g's counts an ACK at 1 Mb/s), and which ns-3's ad hoc MAC runs without the
// 802.11g slot question. Data at 54 Mb/s, control
// frames at 24 Mb/s (basic rates {6, 12, 24}), RTS/CTS above 500 bytes as the scenarios
// (the paper's §IV-B: RTS/CTS for data, basic access for TCP ACKs). Driver buffers of 100
// packets (the AP's `ap_buffer = 100`, the stations' default `buffer`); the AP's qdisc is
// a 1-packet pfifo as in the scenarios, the stations' and the server's airqueue's default
// pfifo of 1000. Every pair of devices at the same loss (InstallOfdmCell says why). The rest
// of the cell as wifi_common.h: retry limits 7/4, no MAC queue lifetime, ARP filled before
// the run, no preamble detection model (a receiver locks on to the first of overlapping
// frames; an OFDM frame never survives an equal-power overlap, in either simulator). TCP
// is airqueue's default NewReno as tools/ns3/dumbbell.cc sets it (initial window 1, delayed
// ACKs every 2nd segment / 200 ms, min RTO 1 s, timestamps, no SACK, classic recovery) with
// window scaling and the scenarios' 8 MiB receive buffer (send buffer the same).
//
// Build with tools/ns3/build.sh wifi_updown; the last line of output is one JSON object.

#include "wifi_common.h"

#include "ns3/applications-module.h"
#include "ns3/point-to-point-module.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <sstream>

using namespace ns3;

namespace
{

bool g_counting = false;
/// Frames put on the air after --from, by transmitter ("ap", "down0", …) and kind ("data",
/// "small": a data frame under 200 bytes, i.e. a TCP ACK; "rts", "cts", "ack").
std::map<std::string, std::map<std::string, uint64_t>> g_frames;
std::map<Mac48Address, std::string> g_names;

void
OnPsduTx(std::string context, WifiConstPsduMap psdus, WifiTxVector, double)
{
    if (!g_counting)
    {
        return;
    }
    // context: /NodeList/<n>/DeviceList/<d>/...; the transmitter's name by its address.
    for (const auto& [id, psdu] : psdus)
    {
        const WifiMacHeader& h = psdu->GetHeader(0);
        std::string kind = h.IsRts()   ? "rts"
                           : h.IsCts() ? "cts"
                           : h.IsAck() ? "ack"
                           : h.IsData() ? (psdu->GetSize() < 200 ? "small" : "data")
                                        : "other";
        std::string who = "?";
        if (h.IsData() || h.IsRts())
        {
            auto it = g_names.find(h.GetAddr2());
            who = it == g_names.end() ? "?" : it->second;
        }
        else
        {
            who = "responses";
        }
        g_frames[who][kind]++;
    }
}

/// An 802.11a cell: `ap` first, then `stations`, every device at 54 Mb/s with control
/// frames at 24 Mb/s. Every pair of devices is 46.68 dB apart (the log-distance loss at
/// 1 m: about -30.7 dBm received, no channel errors), so every receiver gets overlapping
/// frames at equal power, as in airqueue's cell (one collision domain without positions,
/// where any overlap destroys every frame). Positions on a circle would not do: with two
/// stations 2 m apart, a station hears the AP 9 dB above the other station, and ns-3's
/// default (table-based) error model then decodes a 24 Mb/s RTS through the overlap —
/// capture that airqueue's cell does not model.
NetDeviceContainer
InstallOfdmCell(Ptr<Node> ap, const NodeContainer& stations, uint32_t rtsThreshold)
{
    Ptr<MatrixPropagationLossModel> loss = CreateObject<MatrixPropagationLossModel>();
    loss->SetDefaultLoss(46.6777);
    Ptr<YansWifiChannel> channel = CreateObject<YansWifiChannel>();
    channel->SetPropagationLossModel(loss);
    channel->SetPropagationDelayModel(CreateObject<ConstantSpeedPropagationDelayModel>());
    YansWifiPhyHelper phy;
    phy.SetChannel(channel);
    phy.DisablePreambleDetectionModel();
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211a);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue("OfdmRate54Mbps"),
                                 "ControlMode",
                                 StringValue("OfdmRate24Mbps"),
                                 "RtsCtsThreshold",
                                 UintegerValue(rtsThreshold));
    NodeContainer all(ap);
    all.Add(stations);
    NetDeviceContainer devices = wifi.Install(phy, mac, all);

    // The matrix loss model needs a mobility model on each node; positions do not matter.
    MobilityHelper mobility;
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(all);
    return devices;
}

} // namespace

int
main(int argc, char* argv[])
{
    double duration = 60.0;
    double from = 20.0;
    double upStart = 0.0;
    uint32_t up = 1;
    uint32_t down = 1;
    uint32_t buffer = 100;
    uint32_t apQdisc = 1;
    uint32_t mss = 1448;
    uint32_t window = 8 << 20;
    uint32_t rts = 500;
    uint32_t seed = 1;
    bool json = false;

    ConfigureAirqueueTcpDefaults();

    CommandLine cmd(__FILE__);
    cmd.AddValue("duration", "Simulated seconds", duration);
    cmd.AddValue("from", "Goodput is counted from this second on", from);
    cmd.AddValue("upStart", "When the uploads start (s); downloads start at 0", upStart);
    cmd.AddValue("up", "Stations uploading to the server", up);
    cmd.AddValue("down", "Stations downloading from the server", down);
    cmd.AddValue("buffer", "Driver buffer (MAC queue) of every device, packets", buffer);
    cmd.AddValue("apQdisc", "The AP's pfifo above its driver buffer, packets", apQdisc);
    cmd.AddValue("mss", "TCP segment size (payload bytes)", mss);
    cmd.AddValue("window", "Receive and send buffer, bytes (the scenarios' rcv_buffer)", window);
    cmd.AddValue("rts", "RTS threshold, bytes of MPDU (2347: off)", rts);
    cmd.AddValue("seed", "ns-3 RngRun", seed);
    cmd.AddValue("json", "Print only the JSON summary", json);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(from >= duration, "--from must be before --duration");
    NS_ABORT_MSG_IF(up + down == 0, "name at least one station (--up, --down)");
    RngSeedManager::SetRun(seed);

    const auto setupStart = std::chrono::steady_clock::now();
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(window));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(window / mss * mss));
    ConfigureCellDefaults(buffer);

    NodeContainer server;
    server.Create(1);
    NodeContainer apNode;
    apNode.Create(1);
    NodeContainer stations;
    stations.Create(down + up);

    PointToPointHelper lan;
    lan.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    lan.SetChannelAttribute("Delay", StringValue("150us"));
    lan.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    NetDeviceContainer lanDevs = lan.Install(server.Get(0), apNode.Get(0));
    NetDeviceContainer wifiDevs = InstallOfdmCell(apNode.Get(0), stations, rts);

    InternetStackHelper stack;
    stack.Install(server);
    stack.Install(apNode);
    stack.Install(stations);
    InstallPfifo(lanDevs.Get(0), 1000);
    InstallPfifo(lanDevs.Get(1), 1000);
    QueueDiscContainer apQ = InstallPfifo(wifiDevs.Get(0), apQdisc);
    for (uint32_t i = 1; i < wifiDevs.GetN(); ++i)
    {
        InstallPfifo(wifiDevs.Get(i), 1000);
    }

    Ipv4AddressHelper address;
    address.SetBase("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer lanIfs = address.Assign(lanDevs);
    address.SetBase("10.0.0.0", "255.255.0.0");
    Ipv4InterfaceContainer wifiIfs = address.Assign(wifiDevs);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    NeighborCacheHelper().PopulateNeighborCache();

    // Station i (0-based): downloads for i < down, uploads after.
    std::vector<std::string> names;
    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < down + up; ++i)
    {
        const bool isDown = i < down;
        names.push_back(isDown ? "down" + std::to_string(i) : "up" + std::to_string(i - down));
        const uint16_t port = 5000 + i;
        Ptr<Node> receiver = isDown ? stations.Get(i) : server.Get(0);
        Ptr<Node> sender = isDown ? server.Get(0) : stations.Get(i);
        const Ipv4Address to = isDown ? wifiIfs.GetAddress(i + 1) : lanIfs.GetAddress(0);
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(receiver);
        s.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(to, port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(mss));
        ApplicationContainer b = bulk.Install(sender);
        b.Start(Seconds(isDown ? 0.0 : upStart));
        b.Stop(Seconds(duration));
    }

    g_names[Mac48Address::ConvertFrom(wifiDevs.Get(0)->GetAddress())] = "ap";
    for (uint32_t i = 0; i < names.size(); ++i)
    {
        g_names[Mac48Address::ConvertFrom(wifiDevs.Get(i + 1)->GetAddress())] = names[i];
    }
    Config::Connect("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyTxPsduBegin",
                    MakeCallback(&OnPsduTx));
    std::vector<uint64_t> atFrom(names.size(), 0);
    Simulator::Schedule(Seconds(from), [&]() {
        g_counting = true;
        for (uint32_t i = 0; i < names.size(); ++i)
        {
            atFrom[i] = sinks[i]->GetTotalRx();
        }
    });

    Simulator::Stop(Seconds(duration));
    const auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    const auto runEnd = std::chrono::steady_clock::now();
    const double setupSeconds = std::chrono::duration<double>(runStart - setupStart).count();
    const double wallSeconds = std::chrono::duration<double>(runEnd - runStart).count();

    std::vector<double> goodput;
    for (uint32_t i = 0; i < names.size(); ++i)
    {
        goodput.push_back((sinks[i]->GetTotalRx() - atFrom[i]) * 8.0 / (duration - from));
    }
    QueueDisc::Stats qs = apQ.Get(0)->GetStats();
    Ptr<WifiMacQueue> apQueue =
        DynamicCast<WifiNetDevice>(wifiDevs.Get(0))->GetMac()->GetTxopQueue(AC_BE_NQOS);
    const uint64_t apDrops = qs.nTotalDroppedPackets + apQueue->GetTotalDroppedPackets();

    if (!json)
    {
        std::printf("ns-3 802.11a 54 Mb/s: %u down, %u up (from %g s), goodput over %g-%g s\n",
                    down,
                    up,
                    upStart,
                    from,
                    duration);
        for (uint32_t i = 0; i < names.size(); ++i)
        {
            std::printf("%-6s %8.4f Mbit/s\n", names[i].c_str(), goodput[i] / 1e6);
        }
        std::printf("AP drops %" PRIu64 "\n", apDrops);
        for (const auto& [who, kinds] : g_frames)
        {
            std::printf("  frames from %-9s", who.c_str());
            for (const auto& [kind, n] : kinds)
            {
                std::printf(" %s %" PRIu64, kind.c_str(), n);
            }
            std::printf("\n");
        }
    }
    std::ostringstream out;
    out.precision(10);
    out << "{\"simulator\": \"ns-3\", \"version\": \"" AQ_NS3_VERSION "\", \"seed\": " << seed
        << ", \"sim_seconds\": " << duration << ", \"from_seconds\": " << from
        << ", \"up_start_seconds\": " << upStart << ", \"wall_seconds\": " << wallSeconds
        << ", \"setup_seconds\": " << setupSeconds << ", \"ap_drops\": " << apDrops
        << ", \"flows\": [";
    for (uint32_t i = 0; i < names.size(); ++i)
    {
        out << (i ? ", " : "") << "{\"flow\": \"" << names[i]
            << "\", \"goodput_bps\": " << goodput[i] << "}";
    }
    out << "]}";
    std::cout << out.str() << std::endl;
    Simulator::Destroy();
    return 0;
}
