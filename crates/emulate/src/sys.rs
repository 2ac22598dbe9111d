//! The raw Linux calls the emulator needs, each wrapped once: entering a network
//! namespace (`setns(2)`), creating a TUN device (`TUNSETIFF`, Documentation/networking/
//! tuntap.rst), waiting on descriptors with a nanosecond timeout (`ppoll(2)`), socket
//! options and `TCP_INFO`, the forwarder thread's timer slack and scheduling class,
//! and the SIGINT/SIGTERM flag.

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

fn check(ret: libc::c_int, what: &str) -> io::Result<libc::c_int> {
    if ret < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("{what}: {e}")));
    }
    Ok(ret)
}

/// Moves the calling thread (only it) into the network namespace `/run/netns/<name>`
/// that `ip netns add` created.
pub fn enter_netns(name: &str) -> io::Result<()> {
    let f = File::open(format!("/run/netns/{name}"))
        .map_err(|e| io::Error::new(e.kind(), format!("namespace {name}: {e}")))?;
    // SAFETY: a valid descriptor of a namespace file; CLONE_NEWNET affects this thread.
    check(
        unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) },
        "setns",
    )?;
    Ok(())
}

/// Runs `f` on a new thread inside namespace `name` and returns its result.
pub fn in_netns<T: Send + 'static>(
    name: &str,
    f: impl FnOnce() -> io::Result<T> + Send + 'static,
) -> io::Result<T> {
    let name = name.to_owned();
    std::thread::spawn(move || {
        enter_netns(&name)?;
        f()
    })
    .join()
    .map_err(|_| io::Error::other("a namespace helper thread panicked"))?
}

/// `struct ifreq` as TUNSETIFF reads it: the name, then the flags (a 40-byte union).
#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// Creates TUN device `name` (IFF_TUN | IFF_NO_PI: each read or write is one raw IP
/// packet) in the calling thread's namespace; non-blocking. The device lives as long as
/// the returned file.
pub fn open_tun(name: &str) -> io::Result<File> {
    if name.len() >= libc::IFNAMSIZ {
        return Err(io::Error::other(format!("device name {name} is too long")));
    }
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/net/tun")?;
    let mut req = IfReq {
        name: [0; libc::IFNAMSIZ],
        flags: (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short,
        _pad: [0; 22],
    };
    req.name[..name.len()].copy_from_slice(name.as_bytes());
    // SAFETY: TUNSETIFF reads and writes one `struct ifreq`, which `req` is.
    check(
        unsafe { libc::ioctl(f.as_raw_fd(), libc::TUNSETIFF, &mut req) },
        "TUNSETIFF",
    )?;
    set_nonblocking(f.as_raw_fd())?;
    Ok(f)
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: plain fcntl on a descriptor we own.
    let flags = check(unsafe { libc::fcntl(fd, libc::F_GETFL) }, "fcntl")?;
    check(
        unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) },
        "fcntl",
    )?;
    Ok(())
}

/// Waits until one of `fds` is readable or `timeout` passes; returns which are readable.
pub fn wait_readable(fds: &[RawFd], timeout: Duration, ready: &mut Vec<usize>) -> io::Result<()> {
    let mut pfds: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ts = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: `pfds` is a valid array of `pfds.len()` entries.
    let n = unsafe {
        libc::ppoll(
            pfds.as_mut_ptr(),
            pfds.len() as libc::nfds_t,
            &ts,
            std::ptr::null(),
        )
    };
    ready.clear();
    if n < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::Interrupted {
            Ok(())
        } else {
            Err(e)
        };
    }
    ready.extend(
        pfds.iter()
            .enumerate()
            .filter(|(_, p)| p.revents & libc::POLLIN != 0)
            .map(|(i, _)| i),
    );
    Ok(())
}

/// Reads one packet from a non-blocking descriptor; `None` when none is waiting.
pub fn read_packet(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    // SAFETY: `buf` is valid for `buf.len()` bytes.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
            _ => Err(e),
        };
    }
    Ok(Some(n as usize))
}

/// Writes one packet into a TUN device (the kernel receives it as if from a wire).
pub fn write_packet(fd: RawFd, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: `bytes` is valid for its length.
    let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    check(n as libc::c_int, "write to TUN")?;
    Ok(())
}

/// Sets an integer socket option.
pub fn set_int_opt(fd: RawFd, level: i32, opt: i32, v: i32, what: &str) -> io::Result<()> {
    // SAFETY: the option value is one c_int.
    check(
        unsafe {
            libc::setsockopt(
                fd,
                level,
                opt,
                (&v as *const i32).cast(),
                std::mem::size_of::<i32>() as libc::socklen_t,
            )
        },
        what,
    )?;
    Ok(())
}

/// Reads an integer socket option.
pub fn get_int_opt(fd: RawFd, level: i32, opt: i32, what: &str) -> io::Result<i32> {
    let mut v: i32 = 0;
    let mut len = std::mem::size_of::<i32>() as libc::socklen_t;
    // SAFETY: the option value is one c_int and `len` says so.
    check(
        unsafe { libc::getsockopt(fd, level, opt, (&mut v as *mut i32).cast(), &mut len) },
        what,
    )?;
    Ok(v)
}

/// Selects the congestion-control module of a socket (`TCP_CONGESTION`).
pub fn set_congestion(fd: RawFd, name: &str) -> io::Result<()> {
    let c = CString::new(name).map_err(io::Error::other)?;
    let bytes = c.as_bytes();
    // SAFETY: TCP_CONGESTION reads a name of the given length.
    check(
        unsafe {
            libc::setsockopt(
                fd,
                libc::IPPROTO_TCP,
                libc::TCP_CONGESTION,
                bytes.as_ptr().cast(),
                bytes.len() as libc::socklen_t,
            )
        },
        "TCP_CONGESTION",
    )?;
    Ok(())
}

/// `getsockopt(IPPROTO_TCP, opt)` into `buf`: the bytes the kernel wrote.
fn tcp_opt<'a>(fd: RawFd, opt: libc::c_int, name: &str, buf: &'a mut [u8]) -> io::Result<&'a [u8]> {
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: the kernel writes at most `len` bytes into `buf` and sets `len`.
    check(
        unsafe {
            libc::getsockopt(
                fd,
                libc::IPPROTO_TCP,
                opt,
                buf.as_mut_ptr().cast(),
                &mut len,
            )
        },
        name,
    )?;
    Ok(&buf[..len as usize])
}

/// The congestion-control module a socket runs (`TCP_CONGESTION` read back).
pub fn congestion(fd: RawFd) -> io::Result<String> {
    let mut buf = [0u8; 16];
    let name = tcp_opt(fd, libc::TCP_CONGESTION, "TCP_CONGESTION", &mut buf)?;
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    Ok(String::from_utf8_lossy(&name[..end]).into_owned())
}

/// The raw `struct tcp_info` (include/uapi/linux/tcp.h); fields are read by offset in
/// [`crate::kernel::TcpInfo`].
pub fn tcp_info(fd: RawFd) -> io::Result<[u8; 256]> {
    let mut buf = [0u8; 256];
    tcp_opt(fd, libc::TCP_INFO, "TCP_INFO", &mut buf)?;
    Ok(buf)
}

/// `getsockopt(TCP_CC_INFO)`: the congestion controller's `get_info` bytes (empty
/// for a controller without one).
pub fn tcp_cc_info(fd: RawFd) -> io::Result<Vec<u8>> {
    let mut buf = [0u8; 64];
    Ok(tcp_opt(fd, libc::TCP_CC_INFO, "TCP_CC_INFO", &mut buf)?.to_vec())
}

/// Shuts a socket down both ways (unblocks a thread reading or writing it).
pub fn shutdown(fd: RawFd) {
    // SAFETY: shutdown on a possibly closed descriptor only returns an error.
    unsafe { libc::shutdown(fd, libc::SHUT_RDWR) };
}

/// Makes the calling thread's timers exact (1 ns slack instead of 50 us) and, when
/// allowed, puts it in the SCHED_FIFO class so that other work on a busy machine does
/// not delay packet releases. Returns whether SCHED_FIFO was granted.
pub fn make_timely() -> bool {
    // SAFETY: prctl and sched_setscheduler on the calling thread only.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
        let p = libc::sched_param { sched_priority: 10 };
        libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) == 0
    }
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    STOP.store(true, Ordering::SeqCst);
}

/// Routes SIGINT and SIGTERM to a flag that the emulator's loops poll, so that every
/// exit goes through the clean-up of what the run created. (libc's sigaction rather
/// than a signal crate: the handler is one atomic store.)
pub fn install_stop_handler() {
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_signal as *const () as libc::sighandler_t;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut());
        libc::sigaction(libc::SIGTERM, &sa, std::ptr::null_mut());
    }
}

/// Has SIGINT or SIGTERM arrived?
pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// Is the process root (effective uid 0)?
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}
