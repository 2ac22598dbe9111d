// Single bulk transfers on the papers' paths for ns-3 3.44 (built by
// scripts/validate_ns3.py against the PyPI wheel ns3==3.44.post0), the ns-3 side of
// docs/src/validation-ns3.md. Not part of the Rust workspace.
//
//   ns3_paths defaults
//       prints ns-3's own defaults of the TCP attributes the page compares
//   ns3_paths bulk RATE DELAY QUEUE BYTES [FREEZE_AT_S FREEZE_FOR_S]...
//       one TCP transfer of BYTES over a single full-duplex point-to-point link of RATE
//       (e.g. 30kbps) and one-way DELAY (e.g. 300ms), QUEUE waiting packets in front of
//       each direction's transmitter; each FREEZE pair holds both directions'
//       transmitters for FREEZE_FOR_S seconds from FREEZE_AT_S. Prints one key=value line.
//
// TCP: NewReno congestion control with classic (RFC 6582/6675) loss recovery instead of
// ns-3's default PRR (spikelab has no PRR outside its linux profile), MSS 1000; every
// other TCP attribute keeps ns-3's default (printed by `defaults`), and the spikelab
// scenarios of scripts/validate_ns3.py set spikelab to those values.
//
// The queue: a queue disc that can hold its packets (HoldQueueDisc below) in front of
// a device queue of one packet, so the two together hold QUEUE waiting packets, and a
// freeze stops the transmitter at the next packet boundary (the packet being sent and
// the one in the device's queue still go; spikelab's after-queue freeze stops
// mid-packet).
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace ns3;

namespace {

// A FIFO queue disc of MaxSize packets whose dequeue returns nothing while held.
class HoldQueueDisc : public QueueDisc {
  public:
    static TypeId GetTypeId() {
        static TypeId tid =
            TypeId("HoldQueueDisc")
                .SetParent<QueueDisc>()
                .AddConstructor<HoldQueueDisc>()
                .AddAttribute("MaxSize", "The most packets the queue disc holds",
                              QueueSizeValue(QueueSize("100p")),
                              MakeQueueSizeAccessor(&QueueDisc::SetMaxSize,
                                                    &QueueDisc::GetMaxSize),
                              MakeQueueSizeChecker());
        return tid;
    }

    HoldQueueDisc() : QueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE) {}

    void SetHeld(bool held) {
        m_held = held;
        if (!held) {
            Run();
        }
    }

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override {
        if (GetCurrentSize() + item > GetMaxSize()) {
            DropBeforeEnqueue(item, "queue full");
            return false;
        }
        return GetInternalQueue(0)->Enqueue(item);
    }

    Ptr<QueueDiscItem> DoDequeue() override {
        return m_held ? nullptr : GetInternalQueue(0)->Dequeue();
    }

    bool CheckConfig() override {
        if (GetNInternalQueues() == 0) {
            AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
                "MaxSize", QueueSizeValue(GetMaxSize())));
        }
        return true;
    }

    void InitializeParams() override {}

    bool m_held = false;
};

NS_OBJECT_ENSURE_REGISTERED(HoldQueueDisc);

void PrintDefaults() {
    const char* names[][2] = {
        {"ns3::TcpL4Protocol", "SocketType"},     {"ns3::TcpL4Protocol", "RecoveryType"},
        {"ns3::TcpL4Protocol", "RttEstimatorType"}, {"ns3::TcpSocket", "SegmentSize"},
        {"ns3::TcpSocket", "InitialCwnd"},        {"ns3::TcpSocket", "InitialSlowStartThreshold"},
        {"ns3::TcpSocket", "DelAckCount"},        {"ns3::TcpSocket", "DelAckTimeout"},
        {"ns3::TcpSocket", "RcvBufSize"},         {"ns3::TcpSocket", "SndBufSize"},
        {"ns3::TcpSocket", "ConnTimeout"},        {"ns3::TcpSocket", "DataRetries"},
        {"ns3::TcpSocketBase", "MinRto"},         {"ns3::TcpSocketBase", "ClockGranularity"},
        {"ns3::TcpSocketBase", "Timestamp"},      {"ns3::TcpSocketBase", "Sack"},
        {"ns3::TcpSocketBase", "WindowScaling"},  {"ns3::TcpSocketBase", "LimitedTransmit"},
        {"ns3::TcpSocketBase", "ReTxThreshold"},  {"ns3::TcpSocketBase", "UseEcn"},
        {"ns3::RttEstimator", "InitialEstimation"}, {"ns3::RttMeanDeviation", "Alpha"},
        {"ns3::RttMeanDeviation", "Beta"},
    };
    for (auto& n : names) {
        TypeId t = TypeId::LookupByName(n[0]);
        TypeId::AttributeInformation info;
        if (!t.LookupAttributeByName(n[1], &info)) {
            std::printf("%s::%s = (none)\n", n[0], n[1]);
            continue;
        }
        std::printf("%s::%s = %s\n", n[0], n[1],
                    info.initialValue->SerializeToString(info.checker).c_str());
    }
}

// What one transfer counts, from the sender socket's traces.
struct Counts {
    uint64_t retransmissions = 0;
    uint64_t expiries = 0;  // every RTO expiry (the RTO doubled)
    uint64_t episodes = 0;  // entries into CA_LOSS
    double completed_s = -1;
    uint32_t goal = 0;  // the ACK number that acknowledges the last byte
};

void OnRetx(Counts* c, Ptr<const Packet>, const TcpHeader&, const Address&, const Address&,
            Ptr<const TcpSocketBase>) {
    c->retransmissions++;
}

void OnCongState(Counts* c, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now) {
    if (now == TcpSocketState::CA_LOSS) {
        c->episodes++;
    }
}

// ns-3's ReTxTimeout sets RTO = min(2 RTO, 60 s); an RTT sample sets it from SRTT and
// RTTVAR, which gives exactly twice the old value only by coincidence.
void OnRto(Counts* c, Time old, Time now) {
    if (now == Min(old * 2, Seconds(60)) && now != old) {
        c->expiries++;
    }
}

void OnAck(Counts* c, SequenceNumber32, SequenceNumber32 now) {
    if (c->completed_s < 0 && now.GetValue() >= c->goal) {
        c->completed_s = Simulator::Now().GetSeconds();
        Simulator::Stop();
    }
}

void Hook(Ptr<BulkSendApplication> app, Counts* c) {
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(app->GetSocket());
    s->TraceConnectWithoutContext("Retransmission", MakeBoundCallback(&OnRetx, c));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, c));
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, c));
    s->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&OnAck, c));
}

uint64_t g_drops = 0;

void OnDrop(Ptr<const QueueDiscItem>) {
    g_drops++;
}

void SetHeld(std::vector<Ptr<HoldQueueDisc>> qs, bool held) {
    for (auto& q : qs) {
        q->SetHeld(held);
    }
}

int Bulk(int argc, char** argv) {
    if (argc < 6 || (argc - 6) % 2 != 0) {
        std::fprintf(stderr, "usage: ns3_paths bulk RATE DELAY QUEUE BYTES [AT_S FOR_S]...\n");
        return 2;
    }
    std::string rate = argv[2], delay = argv[3];
    int queue = std::atoi(argv[4]);
    uint32_t bytes = std::strtoul(argv[5], nullptr, 10);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpNewReno"));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName("ns3::TcpClassicRecovery")));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1000));

    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetChannelAttribute("Delay", StringValue(delay));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));
    NetDeviceContainer devs = p2p.Install(nodes);
    InternetStackHelper stack;
    stack.Install(nodes);
    TrafficControlHelper tc;
    tc.SetRootQueueDisc("HoldQueueDisc", "MaxSize",
                        QueueSizeValue(QueueSize(std::to_string(queue - 1) + "p")));
    QueueDiscContainer qds = tc.Install(devs);
    std::vector<Ptr<HoldQueueDisc>> holds;
    for (uint32_t i = 0; i < qds.GetN(); i++) {
        holds.push_back(DynamicCast<HoldQueueDisc>(qds.Get(i)));
        qds.Get(i)->TraceConnectWithoutContext("Drop", MakeCallback(&OnDrop));
    }
    Ipv4AddressHelper addr("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = addr.Assign(devs);

    const uint16_t port = 5000;
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    sink.Install(nodes.Get(1)).Start(Seconds(0));
    BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(ifs.GetAddress(1), port));
    bulk.SetAttribute("MaxBytes", UintegerValue(bytes));
    bulk.SetAttribute("SendSize", UintegerValue(1000));
    ApplicationContainer app = bulk.Install(nodes.Get(0));
    app.Start(Seconds(0));

    Counts c;
    c.goal = bytes + 1;  // the SYN takes sequence number 0
    Simulator::Schedule(NanoSeconds(1), &Hook, DynamicCast<BulkSendApplication>(app.Get(0)), &c);
    for (int k = 6; k + 1 < argc; k += 2) {
        double at = std::atof(argv[k]), dur = std::atof(argv[k + 1]);
        Simulator::Schedule(Seconds(at), &SetHeld, holds, true);
        Simulator::Schedule(Seconds(at + dur), &SetHeld, holds, false);
    }
    Simulator::Stop(Seconds(3600));
    Simulator::Run();
    std::printf("tool=ns3 completed_s=%.9f retransmissions=%llu expiries=%llu episodes=%llu "
                "drops=%llu\n",
                c.completed_s, static_cast<unsigned long long>(c.retransmissions),
                static_cast<unsigned long long>(c.expiries),
                static_cast<unsigned long long>(c.episodes),
                static_cast<unsigned long long>(g_drops));
    Simulator::Destroy();
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "defaults") {
        PrintDefaults();
        return 0;
    }
    if (mode == "bulk") {
        return Bulk(argc, argv);
    }
    std::fprintf(stderr, "usage: ns3_paths defaults | bulk RATE DELAY QUEUE BYTES [AT_S FOR_S]...\n");
    return 2;
}
