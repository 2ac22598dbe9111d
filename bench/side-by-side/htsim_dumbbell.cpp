// The side-by-side dumbbell for htsim (github Broadcom/csg-htsim, library sim/ at
// commit 841d9e7): N long TCP flows, each with its own 1 Gbit/s access links, share one
// bottleneck. Only htsim's own classes are used (Queue, Pipe, TcpSrc, TcpSink,
// TcpRtxTimerScanner, EventList); this file builds the topology and prints one line of
// key=value pairs for run.sh. Built by build-htsim.sh; not part of the Rust workspace.
//
//   htsim_dumbbell [flows] [bottleneck_mbps] [queue_packets] [seconds] [seed]
//
// Mapping of spikelab's dumbbell (scenarios in this folder): htsim has no header/payload
// split, so its packet is the 1052 wire bytes of an MSS-1000 segment with timestamps;
// spikelab's 150-packet receiver window is htsim's window cap (_maxcwnd); htsim's queue
// limit counts the packet in service, so an access queue of 51 packets holds what
// spikelab's 50-packet queue plus its transmitter hold.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "config.h"
#include "eventlist.h"
#include "network.h"
#include "pipe.h"
#include "queue.h"
#include "route.h"
#include "tcp.h"

namespace {

struct Args {
    int flows = 100;
    double bottleneck_mbps = 100;
    int queue_packets = 500;
    double seconds = 60;
    unsigned seed = 1;
};

Args parse(int argc, char** argv) {
    Args a;
    if (argc > 1) a.flows = std::atoi(argv[1]);
    if (argc > 2) a.bottleneck_mbps = std::atof(argv[2]);
    if (argc > 3) a.queue_packets = std::atoi(argv[3]);
    if (argc > 4) a.seconds = std::atof(argv[4]);
    if (argc > 5) a.seed = static_cast<unsigned>(std::atoi(argv[5]));
    return a;
}

// One direction of a link: htsim's serialising queue, then its propagation pipe.
struct Hop {
    Queue* queue;
    Pipe* pipe;
};

Hop hop(EventList& ev, linkspeed_bps rate, int packets, double ms) {
    return Hop{new Queue(rate, memFromPkt(packets), ev, nullptr), new Pipe(timeFromMs(ms), ev)};
}

void add(Route* r, const Hop& h) {
    r->push_back(h.queue);
    r->push_back(h.pipe);
}

}  // namespace

int main(int argc, char** argv) {
    const Args a = parse(argc, argv);
    std::srand(a.seed);
    srand48(a.seed);
    const int packet_bytes = 1052;
    const int window_packets = 150;
    const int access_queue = 51;
    Packet::set_packet_size(packet_bytes);

    EventList ev;
    ev.setEndtime(timeFromSec(a.seconds));
    TcpRtxTimerScanner scanner(timeFromMs(10), ev);

    const linkspeed_bps access = speedFromMbps(static_cast<uint64_t>(1000));
    const linkspeed_bps bottleneck = speedFromMbps(a.bottleneck_mbps);
    const Hop fwd = hop(ev, bottleneck, a.queue_packets, 20);
    const Hop rev = hop(ev, bottleneck, a.queue_packets, 20);

    std::vector<TcpSink*> sinks;
    for (int i = 0; i < a.flows; i++) {
        TcpSrc* src = new TcpSrc(nullptr, nullptr, ev);
        TcpSink* sink = new TcpSink();
        src->_maxcwnd = window_packets * packet_bytes;
        scanner.registerTcp(*src);
        // Data: sender access link, bottleneck, receiver access link, receiver.
        Route* out = new Route();
        add(out, hop(ev, access, access_queue, 1));
        add(out, fwd);
        add(out, hop(ev, access, access_queue, 1));
        out->push_back(sink);
        // ACKs: the same links in the reverse direction.
        Route* back = new Route();
        add(back, hop(ev, access, access_queue, 1));
        add(back, rev);
        add(back, hop(ev, access, access_queue, 1));
        back->push_back(src);
        // Starts drawn uniformly in the first second, as spikelab's scenario does.
        src->connect(*out, *back, *sink, timeFromSec(drand()));
        sinks.push_back(sink);
    }

    unsigned long long events = 0;
    while (ev.doNextEvent()) {
        events++;
    }
    unsigned long long delivered = 0;
    for (TcpSink* s : sinks) {
        delivered += s->_cumulative_ack / packet_bytes;
    }
    std::printf("tool=htsim flows=%d events=%llu delivered_packets=%llu\n", a.flows, events,
                delivered);
    return 0;
}
