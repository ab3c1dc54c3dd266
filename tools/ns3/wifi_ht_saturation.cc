// Saturated HT / VHT / HE cells with A-MPDU aggregation in ns-3 (3.44 or later only): the
// ns-3 reference for airqueue's HT/VHT/HE PHYs and their A-MPDU model (issue 36). Results
// are committed under tools/ns3/results/ (wifi_ht_saturation.json, with the command).
//
// One infrastructure BSS in the 5 GHz band: an AP (ApWifiMac) and n stations (StaWifiMac),
// every station 1 m from the AP (YANS channel, log-distance loss: about -30 dBm received,
// some 58 dB above the 80 MHz noise floor, so only collisions lose frames). Each station
// sends UDP datagrams of 1472 B (1500 B IP packets) to a sink on the AP at a constant rate
// above what the cell can carry (--offered, a multiple of the PHY rate shared by n), so its
// queues never empty: saturated uplink. Single user, one spatial stream, fixed rate
// (ConstantRateWifiManager):
//
//   --standard=ht   802.11n,  channel 36, 20 MHz, HtMcs7, long GI (800 ns):  65 Mb/s
//   --standard=vht  802.11ac, channel 42, 80 MHz, VhtMcs9, long GI (800 ns): 390 Mb/s
//   --standard=he   802.11ax, channel 42, 80 MHz, HeMcs11, GI 800 ns:        600.5 Mb/s
//
// What is left at ns-3's defaults, and reported in the JSON so that a change shows:
// - A-MPDU: WifiMac::BE_MaxAmpduSize (the largest A-MPDU in bytes: 65 535 unless
//   --maxAmpdu says otherwise, for all three standards), the Block Ack window
//   (WifiMac::MpduBufferSize, 64), the PPDU duration limit (aPPDUMaxTime, 5.484 ms), no
//   A-MSDU (BE_MaxAmsduSize 0). Block Ack agreements are set up by ADDBA on the first
//   frames, before the measurement window.
// - EDCA: best effort (AC_BE: AIFSN 3, CWmin 15, CWmax 1023), no TXOP limit; immediate
//   Block Ack; control responses (Block Ack, ACK) at the highest mandatory OFDM rate not
//   above the data rate (24 Mb/s).
// - Retries: WifiMac::FrameRetryLimit 7. No RTS/CTS (RtsCtsThreshold 65535) unless --rts.
// - Driver buffer: WifiMacQueue 500 packets (ns-3's default), without its 500 ms lifetime
//   (airqueue's buffer never drops by age); above it pfifo 1000 (airqueue's default qdisc).
// - Collisions: as tools/ns3/wifi_common.h, --preambleDetection=0 (default) removes the
//   preamble detection model: a receiver locks on to the first of overlapping frames,
//   which then fails (0 dB SINR cannot carry MCS 7 and above) and it defers EIFS, as in
//   airqueue. --preambleDetection=1 is ns-3's default model (4 dB threshold).
//
// Timeline: the stations associate first, with no data traffic (under saturated traffic the
// last of 50 stations would wait seconds for their association to get through). Then the
// AP stops sending beacons (airqueue's cells have none; under saturation ns-3's stations
// also lost their association for missed beacons: StaWifiMac::MaxMissedBeacons is set to
// its maximum). Once
// every station is associated (time A, reported; at most --assocTimeout), each starts its
// UDP source, 97 us apart; Block Ack agreements are set up by ADDBA on the first frames.
// The measurement window is [A + --warmup, A + --duration]; the run stops at its end.
// Reported over the window: aggregate goodput (UDP payload received by the AP), data PPDUs
// sent by the stations and how many failed (no ACK / Block Ack: a collision, since the
// channel has no errors), MPDUs per data PPDU, and the event loop's wall time
// (Simulator::Run(), the whole run, association included) and events.
//
// Build with `NS3_PREFIX=... tools/ns3/build.sh wifi_ht_saturation` (see build.sh); run
// `wifi_ht_saturation-ns3.44 --help` for the options. The last line of the output is one
// JSON object (with --json, the only output).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#ifndef AQ_NS3_VERSION
#define AQ_NS3_VERSION "unknown"
#endif

using namespace ns3;

namespace
{

/// What the stations' MACs and PHYs did inside the measurement window.
struct Counters
{
    bool measuring = false;
    uint64_t dataPpdus = 0;    // PPDUs carrying QoS data sent by stations
    uint64_t aggregated = 0;   // of which A-MPDUs (including single-MPDU S-MPDUs)
    uint64_t dataMpdus = 0;    // MPDUs in those PPDUs
    uint64_t failedPpdus = 0;  // no ACK / Block Ack came back (Mpdu/PsduResponseTimeout)
    uint64_t nackedMpdus = 0;  // MPDUs a Block Ack (or its absence) reported lost
    uint64_t droppedMpdus = 0; // MPDUs dropped (retry limit, queue full, ...)
    uint64_t otherPpdus = 0;   // stations' non-data PPDUs (ADDBA, association, ...)
    std::map<std::string, uint64_t> otherTypes; // ... by the first MPDU's type
};

Counters g;

/// --trace: one line per PPDU any device starts inside the measurement window.
std::FILE* g_trace = nullptr;
/// Device index (0 the AP) of each MAC address, for the trace's receiver column.
std::map<Mac48Address, uint32_t> g_devOf;
/// Receiving stations' PHY outcomes inside the window (what a station that does not
/// transmit sees of a collision): headers decoded (PHY-RXSTART), payloads received,
/// receptions dropped by reason.
uint64_t g_rxHeaderOk = 0;
std::map<std::string, uint64_t> g_rxDrop;

/// Writes one --trace line: start (ns), device (0 the AP, i the i-th station), kind (D data,
/// R BlockAckReq, A BlockAck, O other), MPDUs, duration (ns), receiver device (-1: group).
void
TracePpdu(uint32_t dev, WifiConstPsduMap psduMap, WifiTxVector txVector)
{
    if (!g.measuring || !g_trace)
    {
        return;
    }
    const auto& psdu = psduMap.begin()->second;
    char kind = 'O';
    int to = -1;
    if (psdu->GetNMpdus() > 0)
    {
        if (auto it = g_devOf.find(psdu->GetAddr1()); it != g_devOf.end())
        {
            to = static_cast<int>(it->second);
        }
        const auto& h = psdu->GetHeader(0);
        kind = h.IsQosData() ? 'D' : h.IsBlockAckReq() ? 'R' : h.IsBlockAck() ? 'A' : 'O';
    }
    const Time d = WifiPhy::CalculateTxDuration(psduMap, txVector, WIFI_PHY_BAND_5GHZ);
    std::fprintf(g_trace,
                 "%" PRId64 " %u %c %zu %" PRId64 " %d\n",
                 Simulator::Now().GetNanoSeconds(),
                 dev,
                 kind,
                 psdu->GetNMpdus(),
                 d.GetNanoSeconds(),
                 to);
}

void
OnPsduTxBegin(WifiConstPsduMap psduMap, WifiTxVector, double)
{
    if (!g.measuring)
    {
        return;
    }
    for (const auto& [staId, psdu] : psduMap)
    {
        if (psdu->GetNMpdus() > 0 && psdu->GetHeader(0).IsQosData())
        {
            g.dataPpdus++;
            g.dataMpdus += psdu->GetNMpdus();
            if (psdu->IsAggregate())
            {
                g.aggregated++;
            }
        }
        else
        {
            g.otherPpdus++;
            g.otherTypes[psdu->GetNMpdus() > 0 ? psdu->GetHeader(0).GetTypeString() : "empty"]++;
        }
    }
}

void
OnMpduTimeout(uint8_t, Ptr<const WifiMpdu> mpdu, const WifiTxVector&)
{
    if (g.measuring && mpdu->GetHeader().IsQosData())
    {
        g.failedPpdus++;
    }
}

void
OnPsduTimeout(uint8_t, Ptr<const WifiPsdu> psdu, const WifiTxVector&)
{
    if (g.measuring && psdu->GetNMpdus() > 0 && psdu->GetHeader(0).IsQosData())
    {
        g.failedPpdus++;
    }
}

void
OnNacked(Ptr<const WifiMpdu>)
{
    if (g.measuring)
    {
        g.nackedMpdus++;
    }
}

void
OnDropped(WifiMacDropReason, Ptr<const WifiMpdu>)
{
    if (g.measuring)
    {
        g.droppedMpdus++;
    }
}

struct Standard
{
    WifiStandard standard;
    std::string channel; // ChannelSettings: {number, width, band, primary20 index}
    std::string mode;    // the data WifiMode
    double widthMhz;
};

Standard
StandardNamed(const std::string& name, int mcs)
{
    if (name == "ht")
    {
        return {WIFI_STANDARD_80211n, "{36, 20, BAND_5GHZ, 0}", "HtMcs" + std::to_string(mcs), 20};
    }
    if (name == "vht")
    {
        return {WIFI_STANDARD_80211ac, "{42, 80, BAND_5GHZ, 0}", "VhtMcs" + std::to_string(mcs), 80};
    }
    if (name == "he")
    {
        return {WIFI_STANDARD_80211ax, "{42, 80, BAND_5GHZ, 0}", "HeMcs" + std::to_string(mcs), 80};
    }
    NS_ABORT_MSG("--standard is ht, vht or he, not " << name);
    return {};
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string standardName = "he";
    int mcs = -1; // the standard's highest: HT 7, VHT 9, HE 11
    uint32_t n = 10;
    double duration = 10.0;
    double warmup = 1.0;
    uint32_t payload = 1472;
    double offeredFactor = 1.5;
    uint32_t maxAmpdu = 0; // 0: ns-3's default
    uint32_t rts = 65535;
    bool preambleDetection = false;
    uint32_t seed = 1;
    double assocTimeout = 5.0;
    bool json = false;
    std::string tracePath;
    bool equalLoss = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("standard", "ht (802.11n 20 MHz), vht (802.11ac 80 MHz) or he (802.11ax 80 MHz)",
                 standardName);
    cmd.AddValue("mcs", "MCS (default: HT 7, VHT 9, HE 11)", mcs);
    cmd.AddValue("n", "Number of stations", n);
    cmd.AddValue("duration", "Simulated seconds of traffic (after association)", duration);
    cmd.AddValue("warmup", "Seconds of traffic before the measurement window (ADDBA)", warmup);
    cmd.AddValue("payload", "UDP payload bytes of a datagram", payload);
    cmd.AddValue("offered",
                 "Each station's offered load, as a multiple of the PHY rate divided by n",
                 offeredFactor);
    cmd.AddValue("maxAmpdu", "WifiMac::BE_MaxAmpduSize in bytes (0: ns-3's default)", maxAmpdu);
    cmd.AddValue("rts", "RTS threshold in bytes (65535: no RTS)", rts);
    cmd.AddValue("preambleDetection", "Keep ns-3's preamble detection model", preambleDetection);
    cmd.AddValue("seed", "RngRun", seed);
    cmd.AddValue("assocTimeout",
                 "Start the traffic at this time even if not every station is associated",
                 assocTimeout);
    cmd.AddValue("json", "Print only the JSON summary", json);
    cmd.AddValue("trace",
                 "Write every PPDU started in the window to this file: start ns, device "
                 "(0 AP), kind (D data, R BlockAckReq, A BlockAck, O other), MPDUs, duration ns",
                 tracePath);
    cmd.AddValue("equalLoss",
                 "Every pair of devices at the 1 m loss (46.6777 dB), as wifi_updown.cc: a "
                 "third station hears two colliding stations at equal power",
                 equalLoss);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(n < 1, "--n must be at least 1");
    NS_ABORT_MSG_IF(warmup >= duration, "--warmup must be shorter than --duration");
    NS_ABORT_MSG_IF(assocTimeout <= 0, "--assocTimeout must be positive");
    if (mcs < 0)
    {
        mcs = standardName == "ht" ? 7 : standardName == "vht" ? 9 : 11;
    }
    const Standard std = StandardNamed(standardName, mcs);
    RngSeedManager::SetRun(seed);

    const auto setupStart = std::chrono::steady_clock::now();
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(1e6)));
    Config::SetDefault("ns3::WifiRemoteStationManager::RtsCtsThreshold", UintegerValue(rts));
    // No beacons once the traffic runs (see startTraffic), so no station may give up its
    // association for missing them.
    Config::SetDefault("ns3::StaWifiMac::MaxMissedBeacons",
                       UintegerValue(std::numeric_limits<uint32_t>::max()));

    NodeContainer apNode;
    apNode.Create(1);
    NodeContainer stas;
    stas.Create(n);

    YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
    YansWifiPhyHelper phy;
    if (equalLoss)
    {
        Ptr<YansWifiChannel> ch = CreateObject<YansWifiChannel>();
        Ptr<MatrixPropagationLossModel> loss = CreateObject<MatrixPropagationLossModel>();
        loss->SetDefaultLoss(46.6777);
        ch->SetPropagationLossModel(loss);
        ch->SetPropagationDelayModel(CreateObject<ConstantSpeedPropagationDelayModel>());
        phy.SetChannel(ch);
    }
    else
    {
        phy.SetChannel(channel.Create());
    }
    phy.Set("ChannelSettings", StringValue(std.channel));
    if (!preambleDetection)
    {
        phy.DisablePreambleDetectionModel();
    }

    WifiHelper wifi;
    wifi.SetStandard(std.standard);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue(std.mode),
                                 "ControlMode",
                                 StringValue("OfdmRate24Mbps"));
    // Long guard interval (800 ns) for all three: HT/VHT short GI off (ns-3's default),
    // HE's GI set from its 3200 ns default to 800 ns.
    wifi.ConfigHtOptions("ShortGuardIntervalSupported", BooleanValue(false));
    if (std.standard == WIFI_STANDARD_80211ax)
    {
        wifi.ConfigHeOptions("GuardInterval", TimeValue(NanoSeconds(800)));
    }

    WifiMacHelper mac;
    const Ssid ssid("airqueue");
    if (maxAmpdu > 0)
    {
        mac.SetType("ns3::StaWifiMac",
                    "Ssid",
                    SsidValue(ssid),
                    "BE_MaxAmpduSize",
                    UintegerValue(maxAmpdu));
    }
    else
    {
        mac.SetType("ns3::StaWifiMac", "Ssid", SsidValue(ssid));
    }
    NetDeviceContainer staDevs = wifi.Install(phy, mac, stas);
    mac.SetType("ns3::ApWifiMac", "Ssid", SsidValue(ssid));
    NetDeviceContainer apDevs = wifi.Install(phy, mac, apNode);

    MobilityHelper mobility;
    Ptr<ListPositionAllocator> positions = CreateObject<ListPositionAllocator>();
    positions->Add(Vector(0, 0, 0));
    for (uint32_t i = 0; i < n; ++i)
    {
        const double a = 2 * M_PI * i / n;
        positions->Add(Vector(std::cos(a), std::sin(a), 0));
    }
    mobility.SetPositionAllocator(positions);
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    NodeContainer all(apNode);
    all.Add(stas);
    mobility.Install(all);

    InternetStackHelper stack;
    stack.Install(all);
    // pfifo 1000 (airqueue's default qdisc) before the addresses, or ns-3 installs its
    // default (mq + fq_codel) on the wifi devices.
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize("1000p")));
    tch.Install(apDevs);
    tch.Install(staDevs);
    Ipv4AddressHelper address;
    address.SetBase("10.1.0.0", "255.255.0.0");
    Ipv4InterfaceContainer apIf = address.Assign(apDevs);
    address.Assign(staDevs);
    NeighborCacheHelper().PopulateNeighborCache();

    Ptr<WifiNetDevice> apDev = DynamicCast<WifiNetDevice>(apDevs.Get(0));
    const WifiMode mode(std.mode);
    const double phyRate =
        mode.GetDataRate(MHz_u{std.widthMhz}, NanoSeconds(800), 1); // bit/s, one stream
    const double perSta = offeredFactor * phyRate / n;

    const uint16_t port = 9;
    PacketSinkHelper sinkHelper("ns3::UdpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApp = sinkHelper.Install(apNode.Get(0));
    sinkApp.Start(Seconds(0));
    Ptr<PacketSink> sink = DynamicCast<PacketSink>(sinkApp.Get(0));

    OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(apIf.GetAddress(0), port));
    onoff.SetConstantRate(DataRate(static_cast<uint64_t>(perSta)), payload);

    if (!tracePath.empty())
    {
        g_trace = std::fopen(tracePath.c_str(), "w");
        NS_ABORT_MSG_IF(!g_trace, "cannot write " << tracePath);
        g_devOf[Mac48Address::ConvertFrom(apDevs.Get(0)->GetAddress())] = 0;
        for (uint32_t i = 0; i < n; ++i)
        {
            g_devOf[Mac48Address::ConvertFrom(staDevs.Get(i)->GetAddress())] = i + 1;
        }
        DynamicCast<WifiNetDevice>(apDevs.Get(0))
            ->GetPhy()
            ->TraceConnectWithoutContext(
                "PhyTxPsduBegin",
                Callback<void, WifiConstPsduMap, WifiTxVector, double>(
                    [](WifiConstPsduMap m, WifiTxVector v, double) { TracePpdu(0, m, v); }));
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<WifiNetDevice> d = DynamicCast<WifiNetDevice>(staDevs.Get(i));
        d->GetPhy()->TraceConnectWithoutContext("PhyTxPsduBegin", MakeCallback(&OnPsduTxBegin));
        if (g_trace)
        {
            d->GetPhy()->TraceConnectWithoutContext(
                "PhyTxPsduBegin",
                Callback<void, WifiConstPsduMap, WifiTxVector, double>(
                    [i](WifiConstPsduMap m, WifiTxVector v, double) { TracePpdu(i + 1, m, v); }));
        }
        d->GetPhy()->TraceConnectWithoutContext(
            "PhyRxPayloadBegin",
            Callback<void, WifiTxVector, Time>([](WifiTxVector, Time) {
                if (g.measuring)
                {
                    g_rxHeaderOk++;
                }
            }));
        d->GetPhy()->TraceConnectWithoutContext(
            "PhyRxDrop",
            Callback<void, Ptr<const Packet>, WifiPhyRxfailureReason>(
                [](Ptr<const Packet>, WifiPhyRxfailureReason r) {
                    if (g.measuring)
                    {
                        std::ostringstream o;
                        o << r;
                        g_rxDrop[o.str()]++;
                    }
                }));
        d->GetMac()->TraceConnectWithoutContext("MpduResponseTimeout", MakeCallback(&OnMpduTimeout));
        d->GetMac()->TraceConnectWithoutContext("PsduResponseTimeout", MakeCallback(&OnPsduTimeout));
        d->GetMac()->TraceConnectWithoutContext("NAckedMpdu", MakeCallback(&OnNacked));
        d->GetMac()->TraceConnectWithoutContext("DroppedMpdu", MakeCallback(&OnDropped));
    }

    uint64_t rxAtWarmup = 0;
    uint32_t associated = 0;     // stations associated when the traffic started
    uint32_t associatedEnd = 0;  // and at the end
    uint64_t assocEvents = 0;    // Assoc trace firings (re-associations included)
    uint64_t deassocEvents = 0;  // DeAssoc trace firings (missed beacons, ...)
    double trafficStart = -1;    // A: when the traffic started
    auto countAssociated = [&]() {
        uint32_t c = 0;
        for (uint32_t i = 0; i < n; ++i)
        {
            auto m = DynamicCast<StaWifiMac>(DynamicCast<WifiNetDevice>(staDevs.Get(i))->GetMac());
            c += m->IsAssociated() ? 1 : 0;
        }
        return c;
    };
    // Starts the UDP sources (installed now: Node::AddApplication initialises an application
    // added while the simulation runs), the measurement and the end of the run.
    std::function<void()> startTraffic = [&]() {
        if (trafficStart >= 0)
        {
            return;
        }
        trafficStart = Simulator::Now().GetSeconds();
        associated = countAssociated();
        // airqueue's cells have no beacons; ns-3's AP would send one every 102.4 ms, each
        // contending with the saturated stations.
        apDev->GetMac()->SetAttribute("BeaconGeneration", BooleanValue(false));
        for (uint32_t i = 0; i < n; ++i)
        {
            ApplicationContainer app = onoff.Install(stas.Get(i));
            app.Start(MicroSeconds(97 * i));
        }
        Simulator::Schedule(Seconds(warmup), [&]() {
            rxAtWarmup = sink->GetTotalRx();
            g.measuring = true;
        });
        Simulator::Stop(Seconds(duration));
    };
    for (uint32_t i = 0; i < n; ++i)
    {
        auto m = DynamicCast<StaWifiMac>(DynamicCast<WifiNetDevice>(staDevs.Get(i))->GetMac());
        m->TraceConnectWithoutContext("Assoc",
                                      Callback<void, Mac48Address>([&](Mac48Address) {
                                          assocEvents++;
                                          if (countAssociated() == n)
                                          {
                                              Simulator::ScheduleNow(startTraffic);
                                          }
                                      }));
        m->TraceConnectWithoutContext("DeAssoc",
                                      Callback<void, Mac48Address>(
                                          [&](Mac48Address) { deassocEvents++; }));
    }
    Simulator::Schedule(Seconds(assocTimeout), [&]() { startTraffic(); });

    const auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    const auto runEnd = std::chrono::steady_clock::now();
    const uint64_t events = Simulator::GetEventCount();
    associatedEnd = countAssociated();
    const double setupSeconds = std::chrono::duration<double>(runStart - setupStart).count();
    const double wallSeconds = std::chrono::duration<double>(runEnd - runStart).count();

    const double window = duration - warmup;
    const uint64_t rxBytes = sink->GetTotalRx() - rxAtWarmup;
    const double goodput = rxBytes * 8.0 / window;
    const double failedRate = g.dataPpdus ? double(g.failedPpdus) / g.dataPpdus : 0.0;
    const double mpdusPerPpdu = g.dataPpdus ? double(g.dataMpdus) / g.dataPpdus : 0.0;
    Ptr<WifiMac> staMac = DynamicCast<WifiNetDevice>(staDevs.Get(0))->GetMac();
    const uint32_t effMaxAmpdu = staMac->GetMaxAmpduSize(AC_BE);
    const uint16_t bufferSize = staMac->GetMpduBufferSize();

    if (!json)
    {
        std::printf("ns-3 %s %s %s, %u stations, %g s (window %g s): goodput %.3f Mbit/s, "
                    "%" PRIu64 " data PPDUs, %.4f failed, %.2f MPDUs per PPDU; "
                    "traffic from %.3f s with %u/%u associated; events %" PRIu64
                    ", run %.3f s wall\n",
                    AQ_NS3_VERSION,
                    standardName.c_str(),
                    std.mode.c_str(),
                    n,
                    duration,
                    window,
                    goodput / 1e6,
                    g.dataPpdus,
                    failedRate,
                    mpdusPerPpdu,
                    trafficStart,
                    associated,
                    n,
                    events,
                    wallSeconds);
    }

    std::ostringstream out;
    out.precision(10);
    out << "{\"simulator\": \"ns-3\", \"version\": \"" AQ_NS3_VERSION "\", \"standard\": \""
        << standardName << "\", \"mode\": \"" << std.mode << "\", \"channel\": \"" << std.channel
        << "\", \"width_mhz\": " << std.widthMhz << ", \"guard_interval_ns\": 800"
        << ", \"phy_rate_bps\": " << phyRate << ", \"n\": " << n << ", \"sim_seconds\": "
        << duration << ", \"warmup_seconds\": " << warmup << ", \"payload_bytes\": " << payload
        << ", \"offered_bps_per_station\": " << perSta << ", \"rts_threshold\": " << rts
        << ", \"preamble_detection\": " << (preambleDetection ? "true" : "false")
        << ", \"max_ampdu_bytes\": " << effMaxAmpdu << ", \"block_ack_buffer\": " << bufferSize
        << ", \"seed\": " << seed << ", \"traffic_start_seconds\": " << trafficStart
        << ", \"associated_at_traffic_start\": " << associated
        << ", \"associated_at_end\": " << associatedEnd << ", \"assoc_events\": " << assocEvents
        << ", \"deassoc_events\": " << deassocEvents
        << ", \"goodput_bps\": " << goodput << ", \"rx_bytes\": " << rxBytes
        << ", \"data_ppdus\": " << g.dataPpdus << ", \"ampdus\": " << g.aggregated
        << ", \"data_mpdus\": " << g.dataMpdus << ", \"failed_ppdus\": " << g.failedPpdus
        << ", \"failed_ppdu_rate\": " << failedRate << ", \"mpdus_per_ppdu\": " << mpdusPerPpdu
        << ", \"nacked_mpdus\": " << g.nackedMpdus << ", \"dropped_mpdus\": " << g.droppedMpdus
        << ", \"other_sta_ppdus\": " << g.otherPpdus << ", \"other_sta_ppdu_types\": {";
    for (auto it = g.otherTypes.begin(); it != g.otherTypes.end(); ++it)
    {
        out << (it == g.otherTypes.begin() ? "" : ", ") << "\"" << it->first << "\": " << it->second;
    }
    out << "}, \"sta_rx_header_ok\": " << g_rxHeaderOk << ", \"sta_rx_drops\": {";
    for (auto it = g_rxDrop.begin(); it != g_rxDrop.end(); ++it)
    {
        out << (it == g_rxDrop.begin() ? "" : ", ") << "\"" << it->first << "\": " << it->second;
    }
    out << "}, \"equal_loss\": " << (equalLoss ? "true" : "false");
    out << ", \"wall_seconds\": " << wallSeconds
        << ", \"setup_seconds\": " << setupSeconds << ", \"events\": " << events << "}";
    std::cout << out.str() << std::endl;

    if (g_trace)
    {
        std::fclose(g_trace);
    }
    Simulator::Destroy();
    return 0;
}
