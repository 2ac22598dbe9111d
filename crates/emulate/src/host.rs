//! The two ends of each flow: a sender and a receiver namespace, each holding one TUN
//! device whose other side is the forwarder, and the built-in bulk sender and receiver
//! on real kernel sockets.
//!
//! Sockets are created by a thread that entered the namespace (a socket belongs to the
//! namespace it was created in) and then used from ordinary threads. The sender's
//! poller thread stays in the sender namespace, reads `TCP_INFO` every millisecond
//! (timeouts, completion) and the namespace's counters every 10 ms (undo events).

use crate::kernel::{self, KernelSettings, TcpInfo, RECORDED, SYSCTLS};
use crate::sandbox::{ip, Sandbox};
use crate::sys;
use anyhow::Context;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream, UdpSocket};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The port the receiver listens on (inside its own namespace).
pub const PORT: u16 = 5001;

/// Flow i's namespaces, devices and addresses.
pub struct FlowHost {
    pub sender_ns: String,
    pub receiver_ns: String,
    pub sender_tun: File,
    pub receiver_tun: File,
    pub receiver_addr: Ipv4Addr,
    /// Sysctls as read back in the sender namespace (the receiver's are the same).
    pub sysctls: BTreeMap<String, String>,
}

fn addr(side: u8, i: usize) -> Ipv4Addr {
    Ipv4Addr::new(10, side, (i / 250) as u8, (i % 250) as u8 + 1)
}

/// Creates flow `i`'s namespaces and devices and applies `k`'s sysctls in both.
pub fn setup_flow(sb: &mut Sandbox, i: usize, k: &KernelSettings) -> anyhow::Result<FlowHost> {
    let (sa, ra) = (addr(201, i), addr(202, i));
    let sender_ns = sb.add_netns(&format!("s{i}"))?;
    let receiver_ns = sb.add_netns(&format!("r{i}"))?;
    let sender_tun = one_end(sb.prefix(), &sender_ns, &format!("s{i}"), sa, ra, k)?;
    let receiver_tun = one_end(sb.prefix(), &receiver_ns, &format!("r{i}"), ra, sa, k)?;
    let sysctls = sys::in_netns(&sender_ns, || {
        let mut m = BTreeMap::new();
        for name in SYSCTLS.iter().chain(RECORDED) {
            if let Some(v) = kernel::read_sysctl(name) {
                m.insert((*name).to_owned(), v);
            }
        }
        Ok(m)
    })?;
    Ok(FlowHost {
        sender_ns,
        receiver_ns,
        sender_tun,
        receiver_tun,
        receiver_addr: ra,
        sysctls,
    })
}

/// Configures namespace `ns`: sysctls, a TUN device `<prefix><role>` with address
/// `me` and a route to `peer` through it, loopback up.
fn one_end(
    prefix: &str,
    ns: &str,
    role: &str,
    me: Ipv4Addr,
    peer: Ipv4Addr,
    k: &KernelSettings,
) -> anyhow::Result<File> {
    let dev = format!("{prefix}{role}");
    let sysctls = k.sysctls.clone();
    let dev2 = dev.clone();
    let tun = sys::in_netns(ns, move || {
        for conf in ["all", "default"] {
            std::fs::write(format!("/proc/sys/net/ipv6/conf/{conf}/disable_ipv6"), "1")?;
        }
        kernel::write_sysctl("tcp_no_metrics_save", "1")?;
        for (name, v) in &sysctls {
            kernel::write_sysctl(name, v)?;
        }
        sys::open_tun(&dev2)
    })
    .with_context(|| format!("setting up namespace {ns}"))?;
    let (me, peer) = (me.to_string(), peer.to_string());
    ip(&["-n", ns, "link", "set", "lo", "up"])?;
    ip(&["-n", ns, "addr", "add", &me, "peer", &peer, "dev", &dev])?;
    ip(&["-n", ns, "link", "set", &dev, "up"])?;
    Ok(tun)
}

fn socket_with(k: &KernelSettings, receiver: bool) -> std::io::Result<OwnedFd> {
    // SAFETY: socket(2); the descriptor is owned from here on.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor nobody else owns.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    let tcp = libc::IPPROTO_TCP;
    sys::set_int_opt(fd, tcp, libc::TCP_MAXSEG, k.maxseg as i32, "TCP_MAXSEG")?;
    if receiver {
        sys::set_int_opt(fd, libc::SOL_SOCKET, libc::SO_REUSEADDR, 1, "SO_REUSEADDR")?;
        sys::set_int_opt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_RCVBUF,
            k.rcvbuf as i32,
            "SO_RCVBUF",
        )?;
        let clamp = k.window_clamp as i32;
        sys::set_int_opt(fd, tcp, libc::TCP_WINDOW_CLAMP, clamp, "TCP_WINDOW_CLAMP")?;
    } else {
        sys::set_congestion(fd, &k.congestion)?;
    }
    Ok(owned)
}

fn sockaddr(a: Ipv4Addr, port: u16) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(a).to_be(),
        },
        sin_zero: [0; 8],
    }
}

/// A listening receiver socket inside `ns`.
pub fn listen_in(ns: &str, k: &KernelSettings) -> anyhow::Result<TcpListener> {
    let k = k.clone();
    let fd = sys::in_netns(ns, move || {
        let fd = socket_with(&k, true)?;
        let sa = sockaddr(Ipv4Addr::UNSPECIFIED, PORT);
        // SAFETY: bind and listen with a valid sockaddr_in.
        let ok = unsafe {
            libc::bind(
                fd.as_raw_fd(),
                (&sa as *const libc::sockaddr_in).cast(),
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            ) == 0
                && libc::listen(fd.as_raw_fd(), 4) == 0
        };
        if !ok {
            return Err(std::io::Error::last_os_error());
        }
        Ok(fd)
    })
    .with_context(|| format!("receiver socket in {ns}"))?;
    Ok(TcpListener::from(fd))
}

/// An unconnected sender socket inside `ns`.
pub fn sender_socket_in(ns: &str, k: &KernelSettings) -> anyhow::Result<TcpStream> {
    let k = k.clone();
    let fd = sys::in_netns(ns, move || socket_with(&k, false))
        .with_context(|| format!("sender socket in {ns}"))?;
    Ok(TcpStream::from(fd))
}

/// A kernel timeout seen by the poller: `total_rto` grew between two readings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeoutObs {
    /// When the growth was seen (ns since the origin).
    pub seen: u64,
    /// The previous reading (the timeout fired in between).
    pub before: u64,
    pub rto_us: u32,
    pub rtt_us: u32,
    pub backoff: u8,
    pub in_recovery: bool,
    pub established: bool,
}

/// An undo counter that grew (ns since the origin, counter name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndoObs {
    pub seen: u64,
    pub counter: &'static str,
}

/// Counters whose growth is a kernel verdict "spurious".
pub const UNDO_COUNTERS: &[&str] = &[
    "TcpExt.TCPSpuriousRTOs",
    "TcpExt.TCPLossUndo",
    "TcpExt.TCPDSACKUndo",
];

/// What the sender side reports.
#[derive(Clone, Debug, Default)]
pub struct SenderReport {
    pub started: u64,
    pub completed: Option<u64>,
    pub timeouts: Vec<TimeoutObs>,
    pub undos: Vec<UndoObs>,
    pub final_info: TcpInfo,
    /// Every change of TCP_INFO seen by the 1 ms poller (ns since the origin), when
    /// the flow's plan asks for the series (`spikelab emulate --tcp-info`).
    pub series: Vec<(u64, TcpInfo)>,
    /// Every change of the receiver's side of TCP_INFO (its accepted socket), seen by
    /// the same poller, with [`Self::series`].
    pub receiver_series: Vec<(u64, kernel::ReceiverInfo)>,
    pub counters: BTreeMap<String, u64>,
    /// The congestion-control module the kernel ran (read back from the socket).
    pub congestion: String,
    pub error: Option<String>,
}

/// What a flow's built-in application does: the engine's workloads
/// (`spikelab_engine::Workload`, `FlowKind::Cbr`) on kernel sockets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum App {
    /// Write `bytes` at once (TCP).
    Bulk { bytes: u64 },
    /// Write one message of `bytes`, the next only when everything written is
    /// acknowledged, `messages` times (TCP, `TCP_NODELAY`).
    PingPong { messages: u64, bytes: u64 },
    /// One UDP datagram of `payload` bytes every `interval` from the start until `stop`
    /// (or the end of the run).
    Cbr {
        payload: u32,
        interval: Duration,
        stop: Option<Duration>,
    },
}

impl App {
    /// Payload bytes the application writes (TCP); 0 for CBR, which has no end.
    pub fn tcp_bytes(&self) -> u64 {
        match *self {
            App::Bulk { bytes } => bytes,
            App::PingPong { messages, bytes } => messages * bytes,
            App::Cbr { .. } => 0,
        }
    }

    /// Segments of `mss` bytes the workload needs at least (the engine's count:
    /// ping-pong's messages each start a segment).
    pub fn min_segments(&self, mss: u64) -> u64 {
        let mss = mss.max(1);
        match *self {
            App::Bulk { bytes } => bytes.div_ceil(mss),
            App::PingPong { messages, bytes } => messages * bytes.div_ceil(mss),
            App::Cbr { .. } => 0,
        }
    }

    pub fn is_tcp(&self) -> bool {
        !matches!(self, App::Cbr { .. })
    }
}

/// A flow's sockets, created inside its namespaces.
pub enum Sockets {
    Tcp {
        sender: TcpStream,
        listener: TcpListener,
    },
    Udp {
        sender: UdpSocket,
        receiver: UdpSocket,
    },
}

/// Creates flow `app`'s sockets: the sender's in `sender_ns`, the receiver's in
/// `receiver_ns`.
pub fn sockets_in(
    sender_ns: &str,
    receiver_ns: &str,
    app: &App,
    k: &KernelSettings,
) -> anyhow::Result<Sockets> {
    Ok(match app {
        App::Cbr { .. } => Sockets::Udp {
            sender: udp_in(sender_ns, None)?,
            receiver: udp_in(receiver_ns, Some(PORT))?,
        },
        App::PingPong { .. } => {
            let sender = sender_socket_in(sender_ns, k)?;
            sender.set_nodelay(true)?;
            Sockets::Tcp {
                sender,
                listener: listen_in(receiver_ns, k)?,
            }
        }
        App::Bulk { .. } => Sockets::Tcp {
            sender: sender_socket_in(sender_ns, k)?,
            listener: listen_in(receiver_ns, k)?,
        },
    })
}

/// A UDP socket inside `ns`, bound to `port` (any port if `None`).
fn udp_in(ns: &str, port: Option<u16>) -> anyhow::Result<UdpSocket> {
    let s = sys::in_netns(ns, move || {
        let s = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, port.unwrap_or(0)))?;
        s.set_read_timeout(Some(Duration::from_millis(50)))?;
        Ok(s)
    })
    .with_context(|| format!("UDP socket in {ns}"))?;
    Ok(s)
}

/// One flow's running endpoints.
pub struct Endpoints {
    /// Every socket of the flow, shut down by [`Endpoints::stop`].
    sockets: Vec<Arc<dyn AsRawFd + Send + Sync>>,
    accepted: Arc<Mutex<Option<Arc<TcpStream>>>>,
    /// The receive window the scenario set on the listener (TCP flows).
    clamp: Option<i32>,
    pub done: Arc<AtomicBool>,
    abort: Arc<AtomicBool>,
    pub report: Arc<Mutex<SenderReport>>,
    pub received: Arc<Mutex<u64>>,
    /// Set once the sending application's first write has returned (TCP flows).
    first_write: Option<Arc<AtomicBool>>,
    threads: Vec<JoinHandle<()>>,
}

/// Everything a flow's endpoints need.
pub struct FlowPlan {
    pub sender_ns: String,
    pub receiver_addr: Ipv4Addr,
    pub start: Duration,
    pub app: App,
    /// Keep every change of TCP_INFO ([`SenderReport::series`]).
    pub tcp_info_series: bool,
}

fn since(origin: Instant) -> u64 {
    origin.elapsed().as_nanos() as u64
}

fn sleep_until(t: Instant, abort: &AtomicBool) -> bool {
    while Instant::now() < t {
        if abort.load(Ordering::SeqCst) {
            return false;
        }
        std::thread::sleep((t - Instant::now()).min(Duration::from_millis(20)));
    }
    true
}

impl Endpoints {
    /// Starts the flow's application: for TCP the receiver (accept and read to the
    /// end) and the sender (connect at `origin + start`, write, poll TCP_INFO until
    /// everything is acknowledged); for CBR the datagram sender and a counting sink.
    pub fn start(p: FlowPlan, sockets: Sockets, origin: Instant) -> Endpoints {
        let mut e = Endpoints {
            sockets: Vec::new(),
            accepted: Arc::new(Mutex::new(None)),
            clamp: None,
            done: Arc::new(AtomicBool::new(false)),
            abort: Arc::new(AtomicBool::new(false)),
            report: Arc::new(Mutex::new(SenderReport::default())),
            received: Arc::new(Mutex::new(0)),
            first_write: None,
            threads: Vec::new(),
        };
        match sockets {
            Sockets::Tcp { sender, listener } => e.start_tcp(p, sender, listener, origin),
            Sockets::Udp { sender, receiver } => e.start_cbr(p, sender, receiver, origin),
        }
        e
    }

    fn start_tcp(
        &mut self,
        p: FlowPlan,
        sender: TcpStream,
        listener: TcpListener,
        origin: Instant,
    ) {
        self.clamp = listener_clamp(&listener);
        let (sender, listener) = (Arc::new(sender), Arc::new(listener));
        self.sockets = vec![sender.clone(), listener.clone()];
        let (l, acc, rec) = (listener, self.accepted.clone(), self.received.clone());
        let receiver = std::thread::spawn(move || receive(&l, &acc, &rec));
        let written = Arc::new(AtomicBool::new(false));
        let first = Arc::new(AtomicBool::new(false));
        self.first_write = Some(first.clone());
        let start_at = origin + p.start;
        let (s, w, ab, rep) = (
            sender.clone(),
            Written {
                all: written.clone(),
                first,
            },
            self.abort.clone(),
            self.report.clone(),
        );
        let (ra, app) = (p.receiver_addr, p.app);
        let writer = std::thread::spawn(move || {
            if let Err(err) = send(&s, ra, app, start_at, &ab, &w) {
                if !ab.load(Ordering::SeqCst) {
                    rep.lock().unwrap().error = Some(err.to_string());
                }
            }
        });
        let (s, ab, rep, done) = (
            sender,
            self.abort.clone(),
            self.report.clone(),
            self.done.clone(),
        );
        let (ns, series) = (p.sender_ns.clone(), p.tcp_info_series);
        let accepted = self.accepted.clone();
        let poller = std::thread::spawn(move || {
            if let Err(err) = sys::enter_netns(&ns) {
                rep.lock().unwrap().error = Some(err.to_string());
                return;
            }
            let flags = PollFlags { series, accepted };
            poll(&s, origin, start_at, &written, &ab, &done, &rep, flags);
        });
        self.threads = vec![receiver, writer, poller];
    }

    fn start_cbr(&mut self, p: FlowPlan, sender: UdpSocket, receiver: UdpSocket, origin: Instant) {
        let App::Cbr {
            payload,
            interval,
            stop,
        } = p.app
        else {
            unreachable!("UDP sockets are made for CBR flows only")
        };
        let (sender, receiver) = (Arc::new(sender), Arc::new(receiver));
        self.sockets = vec![sender.clone(), receiver.clone()];
        let (r, ab, rec) = (receiver, self.abort.clone(), self.received.clone());
        let sink = std::thread::spawn(move || sink(&r, &ab, &rec));
        let (ab, rep) = (self.abort.clone(), self.report.clone());
        let to = std::net::SocketAddrV4::new(p.receiver_addr, PORT);
        let (start, stop) = (origin + p.start, stop.map(|s| origin + s));
        let source = std::thread::spawn(move || {
            if let Err(err) = cbr(&sender, to, payload, interval, start, stop, &ab) {
                if !ab.load(Ordering::SeqCst) {
                    rep.lock().unwrap().error = Some(err.to_string());
                }
            }
        });
        self.threads = vec![sink, source];
    }

    /// Set once the sending application's first write has returned (TCP flows).
    pub fn first_write(&self) -> Option<Arc<AtomicBool>> {
        self.first_write.clone()
    }

    /// What the forwarder watches of this flow's receiving application (TCP flows).
    pub fn receiving_app(&self) -> Option<ReceivingApp> {
        let clamp = self.clamp?;
        let (accepted, read) = (self.accepted.clone(), self.received.clone());
        Some(ReceivingApp {
            accepted,
            clamp,
            read,
        })
    }

    /// Stops everything: shuts the sockets down (unblocking their threads) and joins.
    pub fn stop(mut self) {
        self.abort.store(true, Ordering::SeqCst);
        for s in &self.sockets {
            sys::shutdown(s.as_raw_fd());
        }
        if let Some(a) = self.accepted.lock().unwrap().as_ref() {
            sys::shutdown(a.as_raw_fd());
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// The engine's CBR source (`on_cbr_send`): a datagram at the start and then every
/// `interval`, until `stop`. Sends are scheduled on the absolute grid, so a late
/// wake-up does not shift the ones after it.
fn cbr(
    s: &UdpSocket,
    to: std::net::SocketAddrV4,
    payload: u32,
    interval: Duration,
    start: Instant,
    stop: Option<Instant>,
    abort: &AtomicBool,
) -> std::io::Result<()> {
    let buf = vec![0x5au8; payload as usize];
    let mut next = start;
    loop {
        if !sleep_until(next, abort) || stop.is_some_and(|t| next >= t) {
            return Ok(());
        }
        match s.send_to(&buf, to) {
            // A full device queue drops the datagram, as a full NIC would.
            Err(e) if e.raw_os_error() == Some(libc::ENOBUFS) => {}
            r => {
                r?;
            }
        }
        next += interval;
    }
}

/// Counts the payload bytes of every datagram that arrives, until aborted.
fn sink(s: &UdpSocket, abort: &AtomicBool, rec: &Mutex<u64>) {
    let mut buf = vec![0u8; 1 << 16];
    while !abort.load(Ordering::SeqCst) {
        if let Ok(n) = s.recv(&mut buf) {
            *rec.lock().unwrap() += n as u64;
        }
    }
}

/// Holds the scenario's receive window on an accepted socket. Linux (6.7 and later)
/// replaces a socket's `TCP_WINDOW_CLAMP` with `tcp_win_from_space(sk_rcvbuf)` whenever
/// its receive-buffer scaling ratio changes (`tcp_measure_rcv_mss()`), which happens at
/// the first full-sized segment: measured on 6.18 over veth, a 150,000 B clamp became
/// 1,073,437 B (rcvbuf 1.2 MB x 229/256) once data flowed, and the emulated receiver
/// advertised up to 262,140 B. So the clamp is set again whenever the kernel moved it.
/// Returns whether it had to set the clamp again.
fn hold_window_clamp(s: &TcpStream, clamp: i32) -> bool {
    let (fd, tcp, opt) = (s.as_raw_fd(), libc::IPPROTO_TCP, libc::TCP_WINDOW_CLAMP);
    let moved = sys::get_int_opt(fd, tcp, opt, "TCP_WINDOW_CLAMP").is_ok_and(|v| v != clamp);
    if moved {
        let _ = sys::set_int_opt(fd, tcp, opt, clamp, "TCP_WINDOW_CLAMP");
    }
    moved
}

/// What the forwarder watches of a flow's receiving application (TCP flows), right
/// after each data segment it writes into the receiver's device.
///
/// **The window clamp** ([`ReceivingApp::hold_clamp`]). The write runs the receiving
/// kernel's softirq to its end (`tun_get_user` -> `netif_receive_skb`, unless the
/// socket is owned by the reading thread, when `release_sock` runs the backlog), so
/// when it returns the segment that replaced the clamp (`tcp_measure_rcv_mss`) has
/// been processed and its immediate ACK sent, and no later segment has been: the
/// replaced clamp acts on exactly that segment (its `tcp_grow_window` step and its
/// ACK, as the `linux` profile models), never on the next ones. Re-setting it from
/// the reading thread alone (as before) left it to the scheduler: the recorded pcaps
/// of the real paths show 2 to 27 ACKs above the clamp, one extra quick ACK per
/// growth step.
///
/// **The read** ([`ReceivingApp::wait_read`]). The model's receiving application
/// reads every in-order byte the moment it arrives, and Linux sends some ACKs from
/// that read, not from the softirq: a full-sized segment carrying PSH marks
/// `ICSK_ACK_PUSHED` (`tcp_measure_rcv_mss`) and `__tcp_cleanup_rbuf` acknowledges
/// it once the read has emptied the receive queue, about 50 us after the delivery.
/// Segments written back to back inside that time (a cellular trace's burst) were
/// ACKed together or apart as the reading thread's wake-up raced the forwarder's
/// next write. So the forwarder writes the next packet only once the application
/// has read everything the kernel has received in order.
#[derive(Clone)]
pub struct ReceivingApp {
    accepted: Arc<Mutex<Option<Arc<TcpStream>>>>,
    clamp: i32,
    /// Bytes the reading thread's `read` calls have returned (set after each returns).
    read: Arc<Mutex<u64>>,
}

/// How a wait for the receiving application's read ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadWait {
    /// It had already read everything received in order.
    Nothing,
    /// It read everything received in order while the forwarder waited.
    Read,
    /// The deadline passed first.
    TimedOut,
}

impl ReceivingApp {
    /// Sets the clamp again if the kernel moved it; whether it did.
    pub fn hold_clamp(&self) -> bool {
        match self.accepted.lock().unwrap().as_ref() {
            Some(s) => hold_window_clamp(s, self.clamp),
            None => false,
        }
    }

    /// Has the receiver's application accepted the connection yet?
    pub fn accepted(&self) -> bool {
        self.accepted.lock().unwrap().is_some()
    }

    /// Waits (until `deadline`) for the application's reads to return every byte the
    /// kernel has received in order (`tcpi_bytes_received`).
    pub fn wait_read(&self, deadline: Instant) -> ReadWait {
        let Some(s) = self.accepted.lock().unwrap().clone() else {
            return ReadWait::Nothing;
        };
        let mut waited = false;
        loop {
            let Ok(raw) = sys::tcp_info(s.as_raw_fd()) else {
                return ReadWait::Nothing;
            };
            let received = crate::kernel::TcpInfo::parse(&raw).bytes_received;
            match (*self.read.lock().unwrap() >= received, waited) {
                (true, false) => return ReadWait::Nothing,
                (true, true) => return ReadWait::Read,
                _ if Instant::now() >= deadline => return ReadWait::TimedOut,
                _ => {}
            }
            waited = true;
            std::thread::sleep(Duration::from_micros(10));
        }
    }
}

/// The clamp the scenario set on the listening socket (accepted sockets inherit it).
fn listener_clamp(l: &TcpListener) -> Option<i32> {
    let (tcp, opt) = (libc::IPPROTO_TCP, libc::TCP_WINDOW_CLAMP);
    sys::get_int_opt(l.as_raw_fd(), tcp, opt, "TCP_WINDOW_CLAMP").ok()
}

fn receive(l: &TcpListener, acc: &Mutex<Option<Arc<TcpStream>>>, rec: &Mutex<u64>) {
    // As the forwarder: the application answers at once, not when the scheduler lets it.
    sys::make_timely();
    let Ok((stream, _)) = l.accept() else { return };
    let stream = Arc::new(stream);
    // The forwarder holds the window clamp from here (`ReceivingApp`).
    *acc.lock().unwrap() = Some(stream.clone());
    let mut buf = vec![0u8; 1 << 16];
    while let Ok(n) = (&*stream).read(&mut buf) {
        if n == 0 {
            break;
        }
        *rec.lock().unwrap() += n as u64;
    }
}

/// What the sending application has written: its first write, and everything.
struct Written {
    first: Arc<AtomicBool>,
    all: Arc<AtomicBool>,
}

fn send(
    s: &TcpStream,
    ra: Ipv4Addr,
    app: App,
    start_at: Instant,
    abort: &AtomicBool,
    written: &Written,
) -> std::io::Result<()> {
    // The application connects at its start and writes as soon as `connect` returns
    // (as the model's does): a normal-priority thread on a busy machine woke 0.1 to
    // 20 ms after the SYN-ACK.
    sys::make_timely();
    // Everything the first write needs is ready before the handshake.
    let chunk = vec![0x5au8; CHUNK];
    if let App::Bulk { bytes } = app {
        hold_whole_transfer(s, bytes)?;
    }
    if !sleep_until(start_at, abort) {
        return Ok(());
    }
    let sa = sockaddr(ra, PORT);
    // SAFETY: connect with a valid sockaddr_in on our socket.
    let r = unsafe {
        libc::connect(
            s.as_raw_fd(),
            (&sa as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    match app {
        App::Bulk { bytes } => {
            write_bytes(s, &chunk, bytes)?;
            written.first.store(true, Ordering::SeqCst);
        }
        App::PingPong { messages, bytes } => {
            for m in 0..messages {
                if m > 0 && !wait_all_acked(s, abort)? {
                    return Ok(());
                }
                write_bytes(s, &chunk, bytes)?;
                written.first.store(true, Ordering::SeqCst);
            }
        }
        App::Cbr { .. } => unreachable!("a TCP socket is made for TCP flows only"),
    }
    written.all.store(true, Ordering::SeqCst);
    Ok(())
}

/// A bulk transfer's bytes are all there at its start, as the model's `bulk` workload
/// has them: the send buffer is locked large enough to take the whole transfer
/// (`SO_SNDBUFFORCE`, root; the kernel doubles it, and counts each skb's overhead
/// against it), so no write ever waits for room. With the kernel's own buffer
/// (46,080 B after the handshake, `tcp_sndbuf_expand`, grown only once the sender ran
/// dry) the first 64 KiB write blocked after its first 65,160-byte skb; its 376-byte
/// tail then left as a segment of its own, or not, as autocorking raced the
/// forwarder's reads (8 of 17 recordings of one trace), which no model of the kernel's
/// TCP could follow.
fn hold_whole_transfer(s: &TcpStream, bytes: u64) -> std::io::Result<()> {
    let want = (2 * bytes + (1 << 20)).min(i32::MAX as u64 / 2) as i32;
    let fd = s.as_raw_fd();
    sys::set_int_opt(
        fd,
        libc::SOL_SOCKET,
        libc::SO_SNDBUFFORCE,
        want,
        "SO_SNDBUFFORCE",
    )
}

/// The largest write: 1 MiB, the `linux` profile's application write
/// (`tcp_sendmsg_locked`'s PSH marks restart at each write's start).
const CHUNK: usize = spikelab_tcp::stacks::linux::send_queue::APP_WRITE_BYTES as usize;

/// Writes `bytes` in writes of at most `chunk`'s length: each returns at once into a
/// buffer that holds the whole transfer, and between them the socket's backlog (the
/// ACKs that arrived meanwhile) is processed.
fn write_bytes(s: &TcpStream, chunk: &[u8], bytes: u64) -> std::io::Result<()> {
    let mut left = bytes;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        (&*s).write_all(&chunk[..n])?;
        left -= n as u64;
    }
    Ok(())
}

/// Ping-pong's rule (the engine's `maybe_write_next_message`: the next message when
/// `all_acked()`): waits until the kernel has nothing unacknowledged or unsent,
/// checking `TCP_INFO` every 100 us. `false` when aborted.
fn wait_all_acked(s: &TcpStream, abort: &AtomicBool) -> std::io::Result<bool> {
    loop {
        let info = TcpInfo::parse(&sys::tcp_info(s.as_raw_fd())?);
        if info.unacked == 0 && info.notsent_bytes == 0 {
            return Ok(true);
        }
        if abort.load(Ordering::SeqCst) {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_micros(100));
    }
}

/// What the poller keeps beyond timeouts, undos and completion.
struct PollFlags {
    /// Every change of TCP_INFO, the sender's and the receiver's.
    series: bool,
    /// The receiver's accepted socket, once accepted.
    accepted: Arc<Mutex<Option<Arc<TcpStream>>>>,
}

/// The receiver's side of TCP_INFO now, once its socket is accepted.
fn receiver_info(accepted: &Mutex<Option<Arc<TcpStream>>>) -> Option<kernel::ReceiverInfo> {
    let s = accepted.lock().unwrap().clone()?;
    let raw = sys::tcp_info(s.as_raw_fd()).ok()?;
    Some(kernel::ReceiverInfo::parse(&raw))
}

/// Every millisecond: TCP_INFO (timeouts, completion, and with `flags.series` every
/// change of it); every 10 ms: the undo counters.
#[allow(clippy::too_many_arguments)]
fn poll(
    s: &TcpStream,
    origin: Instant,
    start_at: Instant,
    written: &AtomicBool,
    abort: &AtomicBool,
    done: &AtomicBool,
    rep: &Mutex<SenderReport>,
    flags: PollFlags,
) {
    sys::make_timely();
    if !sleep_until(start_at, abort) {
        return;
    }
    rep.lock().unwrap().started = since(origin);
    let fd = s.as_raw_fd();
    let mut prev = TcpInfo::default();
    let mut prev_rcv = kernel::ReceiverInfo::default();
    let mut prev_t = since(origin);
    let mut undo = kernel::read_counters().unwrap_or_default();
    let bbr = flags.series && sys::congestion(fd).is_ok_and(|n| n == "bbr");
    let mut tick = 0u64;
    while !abort.load(Ordering::SeqCst) {
        // `written` is read before the snapshot: a snapshot taken after the app's last
        // write holds it, so an empty queue there means every byte was acknowledged.
        // Read after it, a snapshot from before a ping-pong's last message (the previous
        // one acknowledged, nothing queued) ended the transfer one message early when
        // the poller was preempted between the two reads.
        let all_written = written.load(Ordering::SeqCst);
        let Ok(raw) = sys::tcp_info(fd) else { break };
        let now = since(origin);
        let mut info = TcpInfo::parse(&raw);
        if bbr {
            info.bbr = sys::tcp_cc_info(fd)
                .ok()
                .and_then(|b| kernel::BbrInfo::parse(&b));
        }
        let rcv = flags
            .series
            .then(|| receiver_info(&flags.accepted))
            .flatten();
        let mut r = rep.lock().unwrap();
        if flags.series && info != prev {
            r.series.push((now, info));
        }
        if let Some(rcv) = rcv.filter(|v| *v != prev_rcv) {
            r.receiver_series.push((now, rcv));
            prev_rcv = rcv;
        }
        for _ in prev.total_rto..info.total_rto {
            r.timeouts.push(TimeoutObs {
                seen: now,
                before: prev_t,
                rto_us: if prev.rto_us > 0 {
                    prev.rto_us
                } else {
                    info.rto_us
                },
                rtt_us: prev.rtt_us,
                backoff: info.backoff,
                in_recovery: prev.ca_state == kernel::CA_RECOVERY,
                established: prev.state == 1,
            });
        }
        tick += 1;
        if tick.is_multiple_of(10) {
            note_undos(&mut undo, now, &mut r);
        }
        let complete =
            all_written && info.state == 1 && info.unacked == 0 && info.notsent_bytes == 0;
        if complete && r.completed.is_none() {
            r.completed = Some(now);
            done.store(true, Ordering::SeqCst);
        }
        drop(r);
        prev = info;
        prev_t = now;
        if done.load(Ordering::SeqCst) {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let mut r = rep.lock().unwrap();
    note_undos(&mut undo, since(origin), &mut r);
    r.final_info = sys::tcp_info(fd)
        .map(|b| TcpInfo::parse(&b))
        .unwrap_or(prev);
    r.counters = kernel::read_counters().unwrap_or_default();
    r.congestion = sys::congestion(fd).unwrap_or_default();
}

fn note_undos(last: &mut BTreeMap<String, u64>, now: u64, r: &mut SenderReport) {
    let Ok(c) = kernel::read_counters() else {
        return;
    };
    for name in UNDO_COUNTERS {
        let (old, new) = (
            last.get(*name).copied().unwrap_or(0),
            c.get(*name).copied().unwrap_or(0),
        );
        for _ in old..new {
            r.undos.push(UndoObs {
                seen: now,
                counter: name,
            });
        }
    }
    *last = c;
}

/// The counters of namespace `ns` now (read from a thread inside it).
pub fn counters_in(ns: &str) -> BTreeMap<String, u64> {
    sys::in_netns(ns, kernel::read_counters).unwrap_or_default()
}
