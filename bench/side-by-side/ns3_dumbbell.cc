// The side-by-side dumbbell for ns-3 3.44 (built by build-ns3.sh against the PyPI wheel
// ns3==3.44.post0): N bulk TCP flows, each with its own 1 Gbit/s 1 ms access links, share
// one bottleneck. Prints one key=value line for run.sh. Not part of the Rust workspace.
//
//   ns3_dumbbell [flows] [bottleneck_mbps] [queue_packets] [seconds] [seed] [perflow [classic]]
//
// With a sixth argument `perflow` it first prints one line per flow (bytes its sink
// received, retransmissions, RTO expiries) and the packets the device queues dropped,
// for scripts/validate_ns3.py; without it the output is the one line run.sh reads.
//
// The same network as dumbbell.toml: MSS 1000 with timestamps and SACK (ns-3's
// defaults), NewReno, initial window 10, a 150 000-byte receive buffer (the 150-packet
// window), drop-tail device queues of 50 (access) and the given size (bottleneck) and no
// queue discs, starts uniform in the first second.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-layout-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace ns3;

namespace {

// Per-flow counts from the sender socket's traces (`perflow` only).
struct FlowCounts {
    uint64_t retransmissions = 0;
    uint64_t expiries = 0;
};

uint64_t g_drops = 0;

void OnRetx(FlowCounts* c, Ptr<const Packet>, const TcpHeader&, const Address&, const Address&,
            Ptr<const TcpSocketBase>) {
    c->retransmissions++;
}

// ns-3's ReTxTimeout sets RTO = min(2 RTO, 60 s); an RTT sample gives exactly twice the
// old value only by coincidence.
void OnRto(FlowCounts* c, Time old, Time now) {
    if (now == Min(old * 2, Seconds(60)) && now != old) {
        c->expiries++;
    }
}

void OnDrop(Ptr<const Packet>) {
    g_drops++;
}

void Hook(Ptr<BulkSendApplication> app, FlowCounts* c) {
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(app->GetSocket());
    s->TraceConnectWithoutContext("Retransmission", MakeBoundCallback(&OnRetx, c));
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, c));
}

PointToPointHelper link(const std::string& rate, const std::string& delay, int packets) {
    PointToPointHelper p;
    p.SetDeviceAttribute("DataRate", StringValue(rate));
    p.SetChannelAttribute("Delay", StringValue(delay));
    p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
               QueueSizeValue(QueueSize(std::to_string(packets) + "p")));
    return p;
}

}  // namespace

int main(int argc, char** argv) {
    int flows = argc > 1 ? std::atoi(argv[1]) : 100;
    double mbps = argc > 2 ? std::atof(argv[2]) : 100;
    int queue = argc > 3 ? std::atoi(argv[3]) : 500;
    double seconds = argc > 4 ? std::atof(argv[4]) : 60;
    uint32_t seed = argc > 5 ? std::atoi(argv[5]) : 1;
    bool perflow = argc > 6 && std::string(argv[6]) == "perflow";
    // A seventh argument `classic` replaces ns-3's default loss recovery (PRR, RFC 6937)
    // by TcpClassicRecovery (cwnd = ssthresh on entry), as spikelab's modern profile does.
    bool classic = argc > 7 && std::string(argv[7]) == "classic";
    RngSeedManager::SetSeed(seed);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpNewReno"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1000));
    if (classic) {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TypeId::LookupByName("ns3::TcpClassicRecovery")));
    }
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(150000));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 20));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));

    PointToPointHelper access = link("1Gbps", "1ms", 50);
    PointToPointHelper bottleneck =
        link(std::to_string(mbps) + "Mbps", "20ms", queue);
    PointToPointDumbbellHelper d(flows, access, flows, access, bottleneck);

    InternetStackHelper stack;
    d.InstallStack(stack);
    d.AssignIpv4Addresses(Ipv4AddressHelper("10.1.0.0", "255.255.255.0"),
                          Ipv4AddressHelper("10.2.0.0", "255.255.255.0"),
                          Ipv4AddressHelper("10.3.0.0", "255.255.255.0"));
    // Drop-tail device queues only, as in the other two tools: no queue discs (address
    // assignment installs ns-3's default one, so they are removed after it).
    TrafficControlHelper tc;
    for (uint32_t i = 0; i < NodeList::GetNNodes(); i++) {
        Ptr<Node> n = NodeList::GetNode(i);
        for (uint32_t k = 0; k < n->GetNDevices(); k++) {
            if (n->GetDevice(k)->GetObject<PointToPointNetDevice>()) {
                tc.Uninstall(n->GetDevice(k));
            }
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    if (perflow) {
        // Without a queue disc a full device queue stops the traffic-control layer,
        // which drops what arrives (its TcDrop trace): the device queue itself rarely does.
        bool ok = Config::ConnectWithoutContextFailSafe(
                      "/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/TxQueue/Drop",
                      MakeCallback(&OnDrop)) &&
                  Config::ConnectWithoutContextFailSafe(
                      "/NodeList/*/$ns3::TrafficControlLayer/TcDrop", MakeCallback(&OnDrop));
        if (!ok) {
            std::fprintf(stderr, "ns3_dumbbell: cannot trace drops\n");
            return 1;
        }
    }
    Ptr<UniformRandomVariable> start = CreateObject<UniformRandomVariable>();
    std::vector<FlowCounts> counts(flows);
    ApplicationContainer sinks;
    for (int i = 0; i < flows; i++) {
        const uint16_t port = 5000;
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        sinks.Add(sink.Install(d.GetRight(i)));
        BulkSendHelper bulk("ns3::TcpSocketFactory",
                            InetSocketAddress(d.GetRightIpv4Address(i), port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(1000));
        ApplicationContainer app = bulk.Install(d.GetLeft(i));
        double at = start->GetValue(0, 1);
        app.Start(Seconds(at));
        if (perflow) {
            Simulator::Schedule(Seconds(at) + NanoSeconds(1), &Hook,
                                DynamicCast<BulkSendApplication>(app.Get(0)), &counts[i]);
        }
    }
    sinks.Start(Seconds(0));

    Simulator::Stop(Seconds(seconds));
    Simulator::Run();
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < sinks.GetN(); i++) {
        uint64_t rx = DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx();
        bytes += rx;
        if (perflow) {
            std::printf("flow=%u rx_bytes=%llu retransmissions=%llu expiries=%llu\n", i,
                        static_cast<unsigned long long>(rx),
                        static_cast<unsigned long long>(counts[i].retransmissions),
                        static_cast<unsigned long long>(counts[i].expiries));
        }
    }
    if (perflow) {
        std::printf("drops=%llu\n", static_cast<unsigned long long>(g_drops));
    }
    std::printf("tool=ns3 flows=%d events=%llu delivered_packets=%llu\n", flows,
                static_cast<unsigned long long>(Simulator::GetEventCount()),
                static_cast<unsigned long long>(bytes / 1000));
    Simulator::Destroy();
    return 0;
}
