// What tools/ns3/wifi_saturation.cc and tools/ns3/wifi_mixed_rate.cc share: an 802.11b
// cell in ns-3 set up as airqueue's `[[cells]]` (crates/airqueue/src/link/wifi/, docs/wifi.md)
// so that the two simulators run the same DCF on the same PHY. See
// docs/ns3-wifi-comparison.md for what still differs.
//
// - IEEE 802.11b (Clause 16 DSSS/HR-DSSS): slot 20 us, SIFS 10 us, DIFS 50 us, CWmin 31,
//   CWmax 1023 (ns-3's WIFI_STANDARD_80211b defaults, which are airqueue's), long PLCP
//   preamble (192 us; airqueue's default `short_preamble = false`), no QoS (DCF).
// - Fixed rates (ConstantRateWifiManager, or PerStationRateWifiManager below for an AP
//   whose stations have different rates); basic rate set {1, 2} Mb/s on every device, so
//   ACK and CTS go at 2 Mb/s (the highest basic rate not above the eliciting frame's, IEEE
//   802.11-2016 §10.6.6.5.2), as airqueue's; RTS at 2 Mb/s (airqueue: the same rule).
// - Short/long retry limits 7/4 and the RTS threshold as given (ns-3 3.37's MaxSsrc,
//   MaxSlrc, RtsCtsThreshold).
// - Driver buffer: the MAC queue (WifiMacQueue) holds `buffer` packets, with no lifetime
//   (ns-3's default drops frames older than 500 ms; airqueue's buffer never does); above it
//   a pfifo of 1000 packets (airqueue's default qdisc, Linux's txqueuelen), which ns-3's
//   flow control stops while the MAC queue is full, as airqueue's port readiness does.
// - Error-free channel: every node 1 m from the AP (YANS, log-distance loss: about
//   -30 dBm received, 63 dB above the noise floor), so only collisions lose frames.
// - Collisions: ns-3 cannot be made to do exactly what airqueue (and Bianchi) do, where
//   any overlap destroys every frame involved and every receiver then defers EIFS. For
//   802.11b, ns-3 3.37 always uses its DSSS error model (ErrorRateModel hands DSSS modes to
//   DsssErrorRateModel before any subclass is asked), whose 11-chip Barker spreading gain
//   lets a 1 or 2 Mb/s frame survive an equal-power overlap (0 dB SINR): a receiver that
//   locked on to the first of two colliding RTS decodes it (capture). So two settings,
//   --preambleDetection:
//   0 (default): no preamble detection model. A receiver locks on to the first of
//     overlapping frames; an 11 Mb/s data frame then fails its FCS and the receivers defer
//     EIFS, as in airqueue; but one of two colliding RTS (2 Mb/s) gets through.
//   1: ns-3's own default, a preamble detection threshold of 4 dB: overlapping frames of
//     equal power are never detected, so no frame survives a collision (no capture), but
//     the receivers saw no frame and defer only DIFS, not EIFS.
// - Ad hoc MAC (AdhocWifiMac): the same DCF code as an infrastructure BSS (Txop,
//   ChannelAccessManager, FrameExchangeManager) without beacons, probes and association
//   frames, which airqueue does not model. The node called the AP forwards IP packets
//   between its wired and wireless interfaces, as airqueue's AP does.
// - ARP caches filled before the run (NeighborCacheHelper): airqueue has no ARP.

#ifndef AIRQUEUE_NS3_WIFI_COMMON_H
#define AIRQUEUE_NS3_WIFI_COMMON_H

#include "ns3/constant-rate-wifi-manager.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/tcp-recovery-ops.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

// The ns-3 version the JSON reports: tools/ns3/build.sh defines it from the libraries it
// links; 3.37 (Debian's libns3-dev) when built by hand.
#ifndef AQ_NS3_VERSION
#define AQ_NS3_VERSION "3.37"
#endif
// Its minor number, for the few API differences between 3.37 and 3.44 (#if below).
#ifndef AQ_NS3_MINOR
#define AQ_NS3_MINOR 37
#endif

namespace ns3
{

/// ConstantRateWifiManager whose data rate depends on the receiver: the AP of a cell whose
/// stations have different fixed rates (airqueue: "frames between the AP and a station go at
/// the station's fixed `rate`"). Receivers not in the table get DataMode.
class PerStationRateWifiManager : public ConstantRateWifiManager
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::PerStationRateWifiManager")
                                .SetParent<ConstantRateWifiManager>()
                                .SetGroupName("Wifi")
                                .AddConstructor<PerStationRateWifiManager>();
        return tid;
    }

    /// Frames to `address` go at `mode`.
    void SetStationMode(Mac48Address address, WifiMode mode)
    {
        m_modes[address] = mode;
    }

  private:
#if AQ_NS3_MINOR >= 44
    // ns-3 3.44: widths are MHz_u (double), and GetChannelWidthForTransmission is gone.
    WifiTxVector DoGetDataTxVector(WifiRemoteStation* station, MHz_u allowedWidth) override
#else
    WifiTxVector DoGetDataTxVector(WifiRemoteStation* station, uint16_t allowedWidth) override
#endif
    {
        auto it = m_modes.find(station->m_state->m_address);
        WifiMode mode;
        if (it != m_modes.end())
        {
            mode = it->second;
        }
        else
        {
            WifiModeValue v;
            GetAttribute("DataMode", v);
            mode = v.Get();
        }
#if AQ_NS3_MINOR >= 44
        return WifiTxVector(
            mode,
            GetDefaultTxPowerLevel(),
            GetPreambleForTransmission(mode.GetModulationClass(), GetShortPreambleEnabled()),
            NanoSeconds(800),
            1,
            1,
            0,
            std::min(GetPhy()->GetChannelWidth(), allowedWidth),
            false);
#else
        return WifiTxVector(
            mode,
            GetDefaultTxPowerLevel(),
            GetPreambleForTransmission(mode.GetModulationClass(), GetShortPreambleEnabled()),
            800,
            1,
            1,
            0,
            GetChannelWidthForTransmission(mode, allowedWidth),
            false);
#endif
    }

    std::map<Mac48Address, WifiMode> m_modes;
};

NS_OBJECT_ENSURE_REGISTERED(PerStationRateWifiManager);

/// The ns-3 WifiMode of an 802.11b rate in Mb/s (1, 2, 5.5, 11).
inline WifiMode
DsssMode(double mbps)
{
    if (mbps == 1)
    {
        return WifiMode("DsssRate1Mbps");
    }
    if (mbps == 2)
    {
        return WifiMode("DsssRate2Mbps");
    }
    if (mbps == 5.5)
    {
        return WifiMode("DsssRate5_5Mbps");
    }
    if (mbps == 11)
    {
        return WifiMode("DsssRate11Mbps");
    }
    NS_ABORT_MSG("802.11b rates are 1, 2, 5.5 and 11 Mb/s, not " << mbps);
    return WifiMode();
}

/// airqueue's default TCP, as tools/ns3/dumbbell.cc sets it (see there for why): NewReno
/// with classic recovery, initial window 1, delayed ACKs every 2nd segment / 200 ms, min
/// RTO 1 s (1 ms clock, 1 s initial RTT estimate), window scaling, timestamps, no limited
/// transmit, 3 duplicate ACKs, no SACK, no Nagle. Segment size and buffers are the
/// program's. Call before creating any socket.
inline void
ConfigureAirqueueTcpDefaults()
{
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpNewReno"));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold",
                       UintegerValue(std::numeric_limits<uint32_t>::max()));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000000));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold", UintegerValue(3));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
}

/// Defaults every cell needs; call before creating any wifi object.
inline void
ConfigureCellDefaults(uint32_t buffer)
{
    Config::SetDefault("ns3::WifiMacQueue::MaxSize",
                       QueueSizeValue(QueueSize(std::to_string(buffer) + "p")));
    // No lifetime in the driver buffer (ns-3: 500 ms).
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(1e6)));
#if AQ_NS3_MINOR >= 44
    // ns-3 3.44 made MaxSsrc/MaxSlrc obsolete: one limit, WifiMac::FrameRetryLimit, counts
    // the attempts of every frame (its default, 7). A data frame above the RTS threshold
    // then gets 7 attempts, not the 4 of 3.37's long retry limit (see
    // docs/ns3-wifi-comparison.md).
    Config::SetDefault("ns3::WifiMac::FrameRetryLimit", UintegerValue(7));
#else
    Config::SetDefault("ns3::WifiRemoteStationManager::MaxSsrc", UintegerValue(7));
    Config::SetDefault("ns3::WifiRemoteStationManager::MaxSlrc", UintegerValue(4));
#endif
    Config::SetDefault("ns3::WifiRemoteStationManager::FragmentationThreshold",
                       UintegerValue(2346));
}

/// Basic rate set {1, 2} Mb/s (the non-HR/DSSS mandatory rates, as ns-3's own
/// infrastructure AP announces): control responses at 2 Mb/s. ns-3's ad hoc MAC would put
/// every mandatory 802.11b rate in it the first time it meets a peer (so ACKs would go at
/// the data rate); so at time 0 each device learns its peers' rates here, and its basic set
/// is only {1, 2}.
inline void
UseDsssBasicRates(const NetDeviceContainer& devices)
{
    std::vector<Mac48Address> addresses;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        addresses.push_back(Mac48Address::ConvertFrom(devices.Get(i)->GetAddress()));
    }
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<WifiNetDevice> device = DynamicCast<WifiNetDevice>(devices.Get(i));
        Simulator::Schedule(Seconds(0), [device, addresses]() {
            Ptr<WifiRemoteStationManager> manager = device->GetRemoteStationManager();
            manager->Reset();
            manager->AddBasicMode(WifiMode("DsssRate1Mbps"));
            manager->AddBasicMode(WifiMode("DsssRate2Mbps"));
            for (const Mac48Address& peer : addresses)
            {
                if (peer == Mac48Address::ConvertFrom(device->GetAddress()))
                {
                    continue;
                }
                for (const WifiMode& mode : device->GetPhy()->GetModeList())
                {
                    manager->AddSupportedMode(peer, mode);
                }
                manager->RecordDisassociated(peer); // no longer "brand new"
            }
        });
    }
}

/// One 802.11b cell: `ap` and `stations[i]` at `staRates[i]` Mb/s on one YANS channel,
/// with or without ns-3's preamble detection model (see the top of this file). Returns the
/// devices, the AP's first.
inline NetDeviceContainer
InstallCell(Ptr<Node> ap,
            const NodeContainer& stations,
            const std::vector<double>& staRates,
            uint32_t rtsThreshold,
            bool preambleDetection)
{
    NS_ABORT_MSG_IF(staRates.size() != stations.GetN(), "one rate per station");
    YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    if (!preambleDetection)
    {
        phy.DisablePreambleDetectionModel();
    }

    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");

    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211b);
    const StringValue ctl("DsssRate2Mbps");
    const UintegerValue rts(rtsThreshold);

    NetDeviceContainer devices;
    // The AP: the station's rate towards each station (filled in below).
    wifi.SetRemoteStationManager("ns3::PerStationRateWifiManager",
                                 "DataMode",
                                 StringValue("DsssRate11Mbps"),
                                 "ControlMode",
                                 ctl,
                                 "RtsCtsThreshold",
                                 rts);
    devices.Add(wifi.Install(phy, mac, ap));
    for (uint32_t i = 0; i < stations.GetN(); ++i)
    {
        wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                     "DataMode",
                                     StringValue(DsssMode(staRates[i]).GetUniqueName()),
                                     "ControlMode",
                                     ctl,
                                     "RtsCtsThreshold",
                                     rts);
        devices.Add(wifi.Install(phy, mac, stations.Get(i)));
    }

    auto apManager = DynamicCast<PerStationRateWifiManager>(
        DynamicCast<WifiNetDevice>(devices.Get(0))->GetRemoteStationManager());
    for (uint32_t i = 0; i < stations.GetN(); ++i)
    {
        apManager->SetStationMode(Mac48Address::ConvertFrom(devices.Get(i + 1)->GetAddress()),
                                  DsssMode(staRates[i]));
    }
    UseDsssBasicRates(devices);

    // The AP at the centre, the stations on a circle of 1 m around it: equal received
    // power at the AP, no capture, no channel errors.
    MobilityHelper mobility;
    Ptr<ListPositionAllocator> positions = CreateObject<ListPositionAllocator>();
    positions->Add(Vector(0, 0, 0));
    for (uint32_t i = 0; i < stations.GetN(); ++i)
    {
        const double a = 2 * M_PI * i / stations.GetN();
        positions->Add(Vector(std::cos(a), std::sin(a), 0));
    }
    mobility.SetPositionAllocator(positions);
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    NodeContainer all(ap);
    all.Add(stations);
    mobility.Install(all);
    return devices;
}

/// pfifo with `limit` packets on `device` (airqueue's default qdisc: limit 1000).
inline QueueDiscContainer
InstallPfifo(Ptr<NetDevice> device, uint32_t limit)
{
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::FifoQueueDisc",
                         "MaxSize",
                         QueueSizeValue(QueueSize(std::to_string(limit) + "p")));
    return tch.Install(device);
}

} // namespace ns3

#endif
