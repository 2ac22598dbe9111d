//! The Linux receiver's advertised window: its initial value, `rcv_ssthresh`
//! growth and receive-buffer autotuning (Dynamic Right-Sizing), as Linux 6.x runs
//! them (net/ipv4/tcp_input.c, tcp_output.c, include/net/tcp.h).
//!
//! * Start (`tcp_select_initial_window`, `tcp_init_buffer_space`): the window the
//!   receiver may offer is `tcp_full_space` = the buffer (`tcp_rmem[1]`, or a locked
//!   `SO_RCVBUF`) times the scaling ratio, at most the window clamp
//!   (`TCP_WINDOW_CLAMP`, the scenario's `receiver_window`), rounded down to whole
//!   segments: 131072 B x 1/2 = 65536 B, 64240 B at MSS 1460. `rcv_ssthresh` starts
//!   there.
//! * Growth (`tcp_grow_window`, called by `tcp_event_data_recv` for each in-order
//!   segment of 128 B or more): `rcv_ssthresh` rises by max(2 x advmss, 2 x len), up
//!   to min(window clamp, `tcp_space`), and every growth step asks for an immediate
//!   ACK (`icsk_ack.quick |= 1`).
//! * Autotuning (`tcp_rcv_space_adjust` with `tcp_rcvbuf_grow`, run when the
//!   application reads, here at every in-order arrival): once per receiver RTT, if
//!   more was read than in the previous RTT, the buffer grows to hold
//!   2 x copied + 16 x advmss plus twice the growth, at most `tcp_rmem[2]`, and the
//!   window clamp follows. A locked buffer (`SO_RCVBUF`) is never autotuned.
//! * The offered window (`__tcp_select_window`, `tcp_select_window`): min(free
//!   space, `rcv_ssthresh`), never shrinking the right edge already offered, and at
//!   most 65535 << `rcv_wscale` ("Make sure we do not exceed the maximum possible
//!   scaled window"), the scale chosen at the handshake by
//!   `tcp_select_initial_window` from the window clamp (with a locked buffer, at
//!   most the full space: `tcp_openreq_init_rwin`).
//! * The scaling ratio (`tcp_measure_rcv_mss`): payload bytes per byte of buffer
//!   start at 1/2 (`TCP_DEFAULT_SCALING_RATIO`); the first in-order segment longer
//!   than `icsk_ack.rcv_mss` (536 B at first, `tcp_initialize_rcv_mss`) sets it to
//!   skb->len / skb->truesize, and when it changed, `tcp_set_window_clamp` sets the
//!   window clamp to the buffer's payload at the new ratio (raising `rcv_ssthresh` to
//!   min(rcv_wnd, clamp) if the clamp grew). That replaces `TCP_WINDOW_CLAMP`, which
//!   the application holding it sets again (`spikelab emulate`'s forwarder does so
//!   for its receiver, `ReceivingApp`): the clamp stays `receiver_window`, but the free space (`tcp_space`) is
//!   now the buffer at the measured ratio.
//! * When the application's clamp is back (Linux 6.7+, tcp_input.c
//!   `tcp_event_data_recv` -> `tcp_measure_rcv_mss`, then `tcp_grow_window`, then
//!   `__tcp_ack_snd_check`; tcp.c `tcp_set_window_clamp`): the replaced clamp is in
//!   force for the rest of the segment's softirq, so that segment grows
//!   `rcv_ssthresh` by 2 x advmss under it and its immediate ACK offers the grown
//!   window; the application can only set its clamp once the softirq is over
//!   ([`LinuxRcvBuf::on_segment_processed`]), lowering `rcv_ssthresh` to it. With
//!   the real paths' receiver (clamp 262144 B, `SO_RCVBUF` 1048576 B, MSS 1448) the
//!   kernel offers 262088 B (181 segments) at first, 264984 B on the first data ACK,
//!   263536 B on the second (the right edge already offered kept), then 262144 B
//!   (`spikelab emulate --pcap` on Linux 6.18, the emulator re-setting the clamp
//!   after each segment the kernel processed). A Linux 6.18 receiver with `SO_RCVBUF` =
//!   209716 B and `TCP_WINDOW_CLAMP` = 262144 B offers 208512 B in its SYN-ACK (at
//!   1/2), 211408 B on its first ACK and 262140 B (65535 << 2) from then on
//!   (`spikelab emulate --pcap`): 181 segments, where a ratio of 1/2 would hold it at
//!   209716 B, 144 segments. The truesize is the emulator's receive path's: a TUN
//!   device copying each packet into one linear kmalloc'ed buffer
//!   ([`tun_truesize`]): 2304 B for a 1500-byte packet, ratio 160/256 for 1448
//!   payload bytes, 111/256 for 1000.
//!
//! Differences from the kernel: the ratio is measured once per length change as the
//! kernel does, but for the TUN path only (a NIC driver with page fragments gives
//! other truesizes; 229/256 over veth); check #2 of `tcp_grow_window` always passes
//! (the ratio is len/truesize of the very segments that grow the window); the
//! receiver RTT is the receiver's smoothed RTT from its SYN-ACK and data arrivals'
//! timing is not re-measured (`tcp_rcv_rtt_measure`); the window is capped by the
//! window scale and rounded up to its unit; `net.core.rmem_max` is taken to
//! be below `tcp_rmem[2]` in the window-scale choice; memory pressure
//! (`tcp_under_memory_pressure`, `tcp_clamp_window`) never happens; the application
//! sets its clamp again right after the segment whose processing replaced it (as
//! `spikelab emulate`'s receiver once it re-sets the clamp after each segment the
//! kernel processed; a reader that wakes later leaves the kernel's clamp, and its
//! growth steps, for more segments), and only then: when autotuning moves the
//! clamp of an unlocked buffer (`tcp_rcvbuf_grow`), the model keeps the kernel's.

use spikelab_core::{Dur, Time};

/// `TCP_RMEM_TO_WIN_SCALE`: the scaling ratio is in 1/256 units.
const RMEM_TO_WIN_SCALE: u32 = 8;
/// `TCP_DEFAULT_SCALING_RATIO` (1 << (TCP_RMEM_TO_WIN_SCALE - 1)): half the buffer
/// holds payload until the first segment is measured.
const SCALING_RATIO: u64 = 1 << (RMEM_TO_WIN_SCALE - 1);
/// `SOCK_MIN_RCVBUF / 2` (2 x `TCP_SKB_MIN_TRUESIZE` / 2, x86-64): the smallest
/// window clamp `tcp_set_window_clamp` sets.
const MIN_WINDOW_CLAMP: u64 = 2048 + SKB_STRUCT;
/// `TCP_MSS_DEFAULT`: `tcp_initialize_rcv_mss`'s bound on the first `rcv_mss`.
const MSS_DEFAULT: u64 = 536;
/// `TCP_MIN_MSS`.
const MIN_MSS: u64 = 88;
/// `TCP_MAX_WSCALE`.
const MAX_WSCALE: u32 = 14;
/// `SMP_CACHE_BYTES` on x86-64: `SKB_DATA_ALIGN`'s alignment.
const CACHE_BYTES: u64 = 64;
/// `SKB_DATA_ALIGN(sizeof(struct skb_shared_info))` on x86-64.
const SKB_SHINFO: u64 = 320;
/// `SKB_DATA_ALIGN(sizeof(struct sk_buff))` on x86-64.
const SKB_STRUCT: u64 = 256;
/// `TCP_INIT_CWND`, used by `tcp_init_buffer_space` for the first measurement.
const INIT_CWND: u64 = 10;
/// `tcp_event_data_recv` grows the window only for segments of at least 128 B.
const GROW_MIN_LEN: u64 = 128;

/// `tcp_measure_rcv_mss`'s verdict on an in-order segment shorter than `rcv_mss`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShortSegment {
    /// The second such segment of one length in a row: the peer's MSS is that small
    /// (`rcv_mss = len`), no push.
    SmallMss,
    /// Long enough to be a small MSS (`last_seg_size` noted), and pushed.
    Measured,
    /// Too short to say (a PSH segment under 536 B, or anything under 88 B): pushed.
    Pushed,
}

/// `tcp_measure_rcv_mss`'s branch for a segment of `len` payload bytes shorter than
/// `rcv_mss` (net/ipv4/tcp_input.c): with its TCP header (`tcp_header` bytes) it is
/// at least `TCP_MSS_DEFAULT` + 20, or at least `TCP_MIN_MSS` + 20 without PSH ("If
/// PSH is not set, packet should be full sized"), then its payload is compared with
/// the last such segment's (`len == lss`: a small MSS); otherwise, and when it differs,
/// `ICSK_ACK_PUSHED` is set.
pub fn short_segment(len: u64, tcp_header: u64, remnant: bool, lss: u64) -> ShortSegment {
    const TCPHDR: u64 = spikelab_core::packet::TCP_HEADER as u64;
    let with_header = len + tcp_header;
    let looks_like_mss =
        with_header >= MSS_DEFAULT + TCPHDR || (with_header >= MIN_MSS + TCPHDR && !remnant);
    match (looks_like_mss, len == lss) {
        (true, true) => ShortSegment::SmallMss,
        (true, false) => ShortSegment::Measured,
        (false, _) => ShortSegment::Pushed,
    }
}

/// `__tcp_win_from_space`: payload bytes a buffer of `space` bytes holds at
/// `ratio` / 256.
fn win_from_space(ratio: u64, space: u64) -> u64 {
    (space * ratio) >> RMEM_TO_WIN_SCALE
}

/// `__tcp_space_from_win`: the buffer needed for `win` payload bytes.
fn space_from_win(ratio: u64, win: u64) -> u64 {
    (win << RMEM_TO_WIN_SCALE) / ratio
}

/// The skb truesize of an `ip_len`-byte packet written into a TUN device
/// (drivers/net/tun.c `tun_get_user` -> `tun_alloc_skb`: the whole packet linear,
/// as it is shorter than a page; net/core/skbuff.c `__alloc_skb` ->
/// `kmalloc_reserve`: SKB_DATA_ALIGN(size) plus the shared info, rounded up to the
/// kmalloc bucket, and `SKB_TRUESIZE` adds the `sk_buff` itself).
pub fn tun_truesize(ip_len: u64) -> u64 {
    let head = ip_len.div_ceil(CACHE_BYTES) * CACHE_BYTES + SKB_SHINFO;
    kmalloc_bucket(head) + SKB_STRUCT
}

/// The size of the kmalloc cache an allocation of `size` bytes comes from
/// (`kmalloc_size_roundup`: powers of two, and the 96 and 192 B caches).
fn kmalloc_bucket(size: u64) -> u64 {
    match size {
        65..=96 => 96,
        129..=192 => 192,
        _ => size.next_power_of_two().max(8),
    }
}

/// `tcp_select_initial_window`'s `rcv_wscale`: ilog2 of the largest window the
/// buffer may reach (max(`tcp_rmem[2]`, full space), at most `clamp`) less 15.
fn initial_wscale(rmem_max: u64, full_space: u64, clamp: u64) -> u32 {
    let space = rmem_max.max(full_space).min(clamp).max(1);
    space.ilog2().saturating_sub(15).min(MAX_WSCALE)
}

/// The receive buffer's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RcvBufConfig {
    /// `net.ipv4.tcp_rmem` [min, default, max].
    pub tcp_rmem: [u64; 3],
    /// `sk_rcvbuf` after `setsockopt(SO_RCVBUF)` (the kernel's doubled value), which
    /// locks the buffer (`SOCK_RCVBUF_LOCK`): no autotuning. `None`: `tcp_rmem[1]`.
    pub locked_rcvbuf: Option<u64>,
    /// `TCP_WINDOW_CLAMP` (the scenario's `receiver_window`).
    pub window_clamp: u64,
    /// `tp->advmss`.
    pub advmss: u64,
    /// Bytes of IP and TCP header (with options) in front of a data segment's
    /// payload: with it, a packet's length, hence its skb's truesize.
    pub header_bytes: u64,
}

/// What `tcp_grow_window` did with a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// `rcv_ssthresh` rose: the ACK should go out at once (`icsk_ack.quick |= 1`).
    Grew,
    /// No room left below the clamp and the free space, or a tiny segment.
    Held,
}

/// Whose window clamp is in force: the application's `TCP_WINDOW_CLAMP`, or the one
/// `tcp_measure_rcv_mss` put in its place while the segment that changed the
/// scaling ratio is processed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ClampOwner {
    /// `TCP_WINDOW_CLAMP` as the application set it (or no change since).
    Application,
    /// Replaced by the buffer's payload at the new ratio; the application sets its
    /// own again after the segment's processing.
    Replaced,
}

/// The receiver's window state (`sk_rcvbuf`, `window_clamp`, `rcv_ssthresh`,
/// `rcvq_space`, `rcv_wnd` / `rcv_wup`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinuxRcvBuf {
    rmem_max: u64,
    locked: bool,
    advmss: u64,
    rcvbuf: u64,
    window_clamp: u64,
    rcv_ssthresh: u64,
    /// `rcvq_space.space`, `.seq`, `.time` (`None` before the first data).
    space: u64,
    space_seq: u64,
    space_time: Option<Time>,
    /// The right edge last offered (`rcv_wup + rcv_wnd`).
    right_edge: u64,
    /// The window last offered (`rcv_wnd`).
    rcv_wnd: u64,
    /// `scaling_ratio`, in 1/256.
    ratio: u64,
    /// `icsk_ack.rcv_mss`: a longer in-order segment re-measures the ratio.
    rcv_mss: u64,
    /// See [`RcvBufConfig::header_bytes`].
    header_bytes: u64,
    /// `rcv_wscale`, chosen at the handshake.
    wscale: u32,
    /// `icsk_ack.last_seg_size`: the payload of the last in-order segment shorter
    /// than `rcv_mss` that looked like a small MSS (0 after any other).
    last_seg_size: u64,
    /// `ICSK_ACK_PUSHED` from the segment being processed ([`Self::pushed`]).
    pushed: bool,
    /// `TCP_WINDOW_CLAMP` as the application holds it (`receiver_window`).
    held_clamp: u64,
    /// Whether `window_clamp` is the application's or the replaced one.
    clamp_owner: ClampOwner,
}

impl LinuxRcvBuf {
    /// `tcp_select_initial_window` with `tcp_full_space`, then `tcp_init_buffer_space`.
    pub fn new(c: &RcvBufConfig) -> LinuxRcvBuf {
        let rcvbuf = c.locked_rcvbuf.unwrap_or(c.tcp_rmem[1]);
        let mss = c.advmss.max(1);
        // tcp_select_initial_window: space = min(window_clamp, full space), rounded
        // down to whole segments ("Quantize space offering to a multiple of mss").
        let full_space = win_from_space(SCALING_RATIO, rcvbuf);
        let mut space = full_space.min(c.window_clamp);
        if space > mss {
            space -= space % mss;
        }
        let rcv_wnd = space;
        // tcp_init_buffer_space: window_clamp <= tcp_full_space; rcv_ssthresh <=
        // window_clamp; rcvq_space.space = min3(rcv_ssthresh, rcv_wnd, 10 x advmss).
        let window_clamp = c.window_clamp.min(full_space);
        let rcv_ssthresh = rcv_wnd.min(window_clamp);
        // tcp_openreq_init_rwin: with a locked buffer the clamp the scale is chosen
        // from is at most the full space.
        let syn_clamp = match c.locked_rcvbuf {
            Some(_) => c.window_clamp.min(full_space),
            None => c.window_clamp,
        };
        let wscale = initial_wscale(c.tcp_rmem[2], full_space, syn_clamp);
        // tcp_initialize_rcv_mss: min(advmss, rcv_wnd / 2, TCP_MSS_DEFAULT).
        let rcv_mss = mss.min(rcv_wnd / 2).clamp(MIN_MSS, MSS_DEFAULT);
        LinuxRcvBuf {
            rmem_max: c.tcp_rmem[2],
            locked: c.locked_rcvbuf.is_some(),
            advmss: mss,
            rcvbuf,
            window_clamp,
            rcv_ssthresh,
            space: rcv_ssthresh.min(rcv_wnd).min(INIT_CWND * mss),
            space_seq: 0,
            space_time: None,
            right_edge: rcv_wnd,
            rcv_wnd,
            ratio: SCALING_RATIO,
            rcv_mss,
            header_bytes: c.header_bytes,
            wscale,
            last_seg_size: 0,
            pushed: false,
            held_clamp: c.window_clamp,
            clamp_owner: ClampOwner::Application,
        }
    }

    /// `tcp_measure_rcv_mss` for an in-order segment of `len` payload bytes
    /// (`tcp_event_data_recv`, before `tcp_grow_window`): a segment at least as long
    /// as `rcv_mss` and of another length re-measures the scaling ratio; a changed
    /// ratio resets the window clamp to the buffer's payload (`tcp_set_window_clamp`)
    /// and bounds the autotuning measure by it. That clamp stays for the rest of the
    /// segment's processing (the growth, the ACK sent at once); the application's
    /// comes back at [`Self::on_segment_processed`].
    ///
    /// It also decides `ICSK_ACK_PUSHED` ([`Self::pushed`]), which has the read that
    /// empties the receive queue send the ACK at once (`__tcp_cleanup_rbuf`): for a
    /// segment of at least `rcv_mss` when it carries PSH (4720852ed9af, "tcp: fix
    /// delayed ACKs for MSS boundary condition", Linux 6.6); for a shorter one unless
    /// it looks like a peer's smaller MSS ([`short_segment_sets_pushed`]).
    /// `remnant`: the segment carries PSH (`TCP_REMNANT`; the model's data segments
    /// carry no FIN, SYN or URG).
    pub fn on_in_order_segment(&mut self, len: u64, remnant: bool) {
        let lss = std::mem::take(&mut self.last_seg_size);
        if len < self.rcv_mss {
            let tcp_header = self.header_bytes - u64::from(spikelab_core::packet::IP_HEADER);
            match short_segment(len, tcp_header, remnant, lss) {
                ShortSegment::SmallMss => {
                    self.last_seg_size = len;
                    self.rcv_mss = len;
                }
                ShortSegment::Measured => {
                    self.last_seg_size = len;
                    self.pushed = true;
                }
                ShortSegment::Pushed => self.pushed = true,
            }
            return;
        }
        self.pushed = remnant;
        if len != self.rcv_mss {
            let truesize = tun_truesize(len + self.header_bytes);
            let ratio = ((len << RMEM_TO_WIN_SCALE) / truesize).max(1);
            if ratio != self.ratio {
                self.ratio = ratio;
                self.set_window_clamp(win_from_space(ratio, self.rcvbuf));
                self.space = self.space.min(self.window_clamp);
                self.clamp_owner = ClampOwner::Replaced;
            }
        }
        self.rcv_mss = len.min(self.advmss);
    }

    /// The receiver is done with a segment (tcp_input.c `tcp_rcv_established`: after
    /// `tcp_data_queue` and `__tcp_ack_snd_check`, the softirq ends): a receiving
    /// application that holds its `TCP_WINDOW_CLAMP` (for `spikelab emulate`'s
    /// receiver the forwarder, `ReceivingApp`, right after the delivery's softirq)
    /// finds it replaced and sets it again
    /// (`do_tcp_setsockopt` -> tcp.c `tcp_set_window_clamp`). An ACK sent later (the
    /// delayed-ACK timer's) sees the application's clamp.
    pub fn on_segment_processed(&mut self) {
        // The ACK the segment asked for has gone out or is delayed: the read that
        // follows each segment has acted on ICSK_ACK_PUSHED.
        self.pushed = false;
        if self.clamp_owner == ClampOwner::Replaced {
            self.set_window_clamp(self.held_clamp);
            self.clamp_owner = ClampOwner::Application;
        }
    }

    /// `ICSK_ACK_PUSHED` for the in-order segment being processed: the receiving
    /// application's read, which empties the queue unless data waits out of order,
    /// acknowledges it at once.
    pub fn pushed(&self) -> bool {
        self.pushed
    }

    /// `tcp_set_window_clamp` (tcp.c): the same clamp changes nothing; a smaller
    /// one lowers `rcv_ssthresh` to it (`__tcp_adjust_rcv_ssthresh`); a larger one
    /// raises `rcv_ssthresh` to min(rcv_wnd, clamp) if that is more.
    fn set_window_clamp(&mut self, val: u64) {
        let new = val.max(MIN_WINDOW_CLAMP);
        if new == self.window_clamp {
            return;
        }
        if new < self.window_clamp {
            self.rcv_ssthresh = self.rcv_ssthresh.min(new);
        } else {
            self.rcv_ssthresh = self.rcv_ssthresh.max(self.rcv_wnd.min(new));
        }
        self.window_clamp = new;
    }

    /// `tcp_space`: free payload room, the buffer less `held` bytes queued out of
    /// order (in-order data is read at once).
    fn tcp_space(&self, held: u64) -> u64 {
        win_from_space(self.ratio, self.rcvbuf).saturating_sub(held)
    }

    /// `tcp_grow_window` for a new segment of `len` bytes; `held` as in `tcp_space`.
    pub fn on_segment(&mut self, len: u64, held: u64) -> Growth {
        if len < GROW_MIN_LEN {
            return Growth::Held;
        }
        // room = min(window_clamp, tcp_space) - rcv_ssthresh.
        let room = self
            .window_clamp
            .min(self.tcp_space(held))
            .saturating_sub(self.rcv_ssthresh);
        if room == 0 {
            return Growth::Held;
        }
        // Check #2 passes (the ratio is len/truesize): incr = 2 x advmss, at least
        // 2 x len; rcv_ssthresh += min(room, incr).
        let incr = (2 * self.advmss).max(2 * len);
        self.rcv_ssthresh += room.min(incr);
        Growth::Grew
    }

    /// `tcp_rcv_space_adjust`: the application has read everything up to `copied_seq`
    /// at `now`; `rtt` is the receiver's RTT estimate (`rcv_rtt_est`).
    pub fn on_read(&mut self, now: Time, copied_seq: u64, rtt: Option<Dur>) {
        let Some(since) = self.space_time else {
            // tcp_init_buffer_space: the first measurement starts here.
            self.space_time = Some(now);
            self.space_seq = copied_seq;
            return;
        };
        // "if (time < (tp->rcv_rtt_est.rtt_us >> 3) || tp->rcv_rtt_est.rtt_us == 0)"
        let Some(rtt) = rtt.filter(|r| r.0 > 0) else {
            return;
        };
        if now.saturating_since(since) < rtt {
            return;
        }
        let copied = copied_seq - self.space_seq;
        if copied > self.space {
            if !self.locked {
                self.rcvbuf_grow(copied);
            }
            self.space = copied;
        }
        // new_measure:
        self.space_seq = copied_seq;
        self.space_time = Some(now);
    }

    /// `tcp_rcvbuf_grow`: rcvwin = 2 x copied + 16 x advmss ("minimal window to cope
    /// with packet losses"), plus twice the growth over the last RTT ("Accommodate
    /// for sender rate increase"); sk_rcvbuf = min(space for rcvwin, tcp_rmem[2]) if
    /// larger, and the window clamp follows it.
    fn rcvbuf_grow(&mut self, copied: u64) {
        let mut rcvwin = 2 * copied + 16 * self.advmss;
        let grow = rcvwin * (copied - self.space) / self.space.max(1);
        rcvwin += 2 * grow;
        let rcvbuf = space_from_win(self.ratio, rcvwin).min(self.rmem_max);
        if rcvbuf > self.rcvbuf {
            self.rcvbuf = rcvbuf;
            self.window_clamp = win_from_space(self.ratio, rcvbuf);
        }
    }

    /// `tcp_select_window` for an ACK acknowledging up to `rcv_nxt`: the offer is
    /// min(free space, rcv_ssthresh) (`__tcp_select_window` with window scaling,
    /// which offers the free space as it is, not in whole segments), but the right edge
    /// already offered is never withdrawn ("Never shrink the offered window"). The
    /// header carries at most 65535 << `rcv_wscale` of it ("Make sure we do not
    /// exceed the maximum possible scaled window"), applied after `rcv_wnd` is set.
    ///
    /// With a window scale both the new offer and the kept one are rounded up to its
    /// unit (`ALIGN(window, 1 << rcv_wscale)`: "Advertise enough space so that it
    /// won't get scaled away"), so every offer is a whole number of units and the
    /// sender reads back exactly what was offered.
    pub fn window(&mut self, rcv_nxt: u64, held: u64) -> u64 {
        let unit = 1u64 << self.wscale;
        let mut win = self
            .tcp_space(held)
            .min(self.rcv_ssthresh)
            .next_multiple_of(unit);
        let current = self.right_edge.saturating_sub(rcv_nxt);
        if win < current {
            win = current.next_multiple_of(unit);
        }
        self.right_edge = rcv_nxt + win;
        self.rcv_wnd = win;
        win.min(65_535 << self.wscale)
    }

    /// The window a SYN-ACK offers: `tcp_openreq_init_rwin`'s `rcv_wnd` as chosen
    /// at the handshake, unscaled and not rounded (the first ACK after it goes
    /// through [`Self::window`]).
    pub fn syn_ack_window(&self) -> u64 {
        self.rcv_wnd
    }

    /// `rcv_ssthresh`.
    pub fn rcv_ssthresh(&self) -> u64 {
        self.rcv_ssthresh
    }

    /// `sk_rcvbuf`.
    pub fn rcvbuf(&self) -> u64 {
        self.rcvbuf
    }

    /// `window_clamp`.
    pub fn window_clamp(&self) -> u64 {
        self.window_clamp
    }

    /// `scaling_ratio`, in 1/256.
    pub fn scaling_ratio(&self) -> u64 {
        self.ratio
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_segment_is_pushed_unless_it_repeats_a_small_mss() {
        use ShortSegment::*;
        // (payload, PSH, last short payload) -> verdict; TCP header 32 B (timestamps).
        let table = [
            (56, true, 0, Pushed),
            (56, false, 0, Pushed), // 88 B with its header: under TCP_MIN_MSS + 20
            (76, false, 0, Measured), // 108 B: TCP_MIN_MSS + 20, no PSH
            (76, false, 76, SmallMss), // the same length again
            (500, true, 0, Pushed), // 532 B with PSH: under TCP_MSS_DEFAULT + 20
            (500, true, 500, Pushed),
            (524, true, 0, Measured), // 556 B: TCP_MSS_DEFAULT + 20
            (524, true, 524, SmallMss),
            (600, false, 500, Measured),
        ];
        for (len, psh, lss, verdict) in table {
            assert_eq!(
                short_segment(len, 32, psh, lss),
                verdict,
                "{len} {psh} {lss}"
            );
        }
    }

    fn cfg(clamp: u64, locked: Option<u64>) -> RcvBufConfig {
        RcvBufConfig {
            tcp_rmem: [4096, 131_072, 6_291_456],
            locked_rcvbuf: locked,
            window_clamp: clamp,
            advmss: 1460,
            header_bytes: 40,
        }
    }

    fn ms(v: u64) -> Time {
        Time(v * 1_000_000)
    }

    #[test]
    fn the_default_buffer_offers_64240_bytes_at_first() {
        // 131072 x 128/256 = 65536, rounded down to 44 segments of 1460 B.
        let mut r = LinuxRcvBuf::new(&cfg(u32::MAX as u64, None));
        assert_eq!(r.rcv_ssthresh(), 64_240);
        assert_eq!(r.syn_ack_window(), 64_240);
        // The first ACK rounds it up to the window scale's unit (7: 128 B), as
        // Linux's "win 502" after the handshake shows.
        assert_eq!(r.window(0, 0), 64_256);
    }

    #[test]
    fn the_window_clamp_binds_below_the_buffer() {
        let mut r = LinuxRcvBuf::new(&cfg(20_000, None));
        assert_eq!(r.window(0, 0), 18_980, "13 whole segments of 20000 B");
        for _ in 0..10 {
            r.on_segment(1460, 0);
        }
        assert_eq!(r.rcv_ssthresh(), 20_000);
    }

    #[test]
    fn each_segment_grows_rcv_ssthresh_by_two_segments_up_to_the_free_space() {
        let mut d = LinuxRcvBuf::new(&cfg(u32::MAX as u64, None));
        // A locked 100000 B buffer (50000 B of payload): 34 segments offered.
        let mut l = LinuxRcvBuf::new(&cfg(1_000_000, Some(100_000)));
        assert_eq!(l.rcv_ssthresh(), 49_640);
        assert_eq!(l.on_segment(1460, 0), Growth::Grew);
        assert_eq!(l.rcv_ssthresh(), 50_000, "room 360 < 2 x 1460");
        // The default buffer: 65536 B of payload, 64240 B offered, 1296 B to grow.
        assert_eq!(d.on_segment(1460, 0), Growth::Grew);
        assert_eq!(d.rcv_ssthresh(), 65_536);
        assert_eq!(d.on_segment(1460, 0), Growth::Held);
        // Once autotuning has grown the buffer, each segment adds 2 x advmss.
        let rtt = Some(Dur::from_millis(100));
        d.on_read(ms(0), 0, rtt);
        d.on_read(ms(100), 100_000, rtt);
        assert_eq!(d.on_segment(1460, 0), Growth::Grew);
        assert_eq!(d.rcv_ssthresh(), 65_536 + 2920);
        assert_eq!(d.on_segment(1000, 0), Growth::Grew);
        assert_eq!(d.rcv_ssthresh(), 65_536 + 2 * 2920);
    }

    #[test]
    fn tiny_segments_do_not_grow_the_window() {
        let mut d = LinuxRcvBuf::new(&cfg(u32::MAX as u64, None));
        assert_eq!(d.on_segment(100, 0), Growth::Held);
        assert_eq!(d.rcv_ssthresh(), 64_240);
    }

    #[test]
    fn a_large_locked_buffer_offers_the_clamp_at_once() {
        // As the emulator sets up Table 1: clamp 150000 B, SO_RCVBUF 600000 B
        // (sk_rcvbuf 1200000 B): the first offer is the clamp; nothing to grow.
        let mut r = LinuxRcvBuf::new(&RcvBufConfig {
            advmss: 1000,
            ..cfg(150_000, Some(1_200_000))
        });
        assert_eq!(r.window(0, 0), 150_000);
        assert_eq!(r.on_segment(1000, 0), Growth::Held);
    }

    #[test]
    fn autotuning_grows_the_buffer_from_what_was_read_per_rtt() {
        let mut d = LinuxRcvBuf::new(&cfg(u32::MAX as u64, None));
        let rtt = Some(Dur::from_millis(100));
        d.on_read(ms(0), 0, rtt);
        d.on_read(ms(50), 20_000, rtt);
        assert_eq!(d.rcvbuf(), 131_072, "less than an RTT");
        // 100000 B read in an RTT against space 14600: rcvwin = 200000 + 23360 =
        // 223360, grow = 223360 x 85400 / 14600 = 1306503, rcvwin = 2836366;
        // the buffer is twice that (ratio 1/2), below tcp_rmem[2] = 6291456.
        d.on_read(ms(100), 100_000, rtt);
        assert_eq!(d.rcvbuf(), 5_672_732);
        assert_eq!(d.window_clamp(), 2_836_366);
        // Reading less than last time changes nothing.
        d.on_read(ms(200), 150_000, rtt);
        assert_eq!(d.rcvbuf(), 5_672_732);
    }

    #[test]
    fn autotuning_stops_at_tcp_rmem_max() {
        let mut d = LinuxRcvBuf::new(&cfg(u32::MAX as u64, None));
        let rtt = Some(Dur::from_millis(100));
        d.on_read(ms(0), 0, rtt);
        d.on_read(ms(100), 1_000_000, rtt);
        assert_eq!(d.rcvbuf(), 6_291_456);
        assert_eq!(d.window_clamp(), 3_145_728);
    }

    #[test]
    fn a_locked_buffer_is_never_autotuned() {
        let mut d = LinuxRcvBuf::new(&cfg(u32::MAX as u64, Some(262_144)));
        let rtt = Some(Dur::from_millis(100));
        d.on_read(ms(0), 0, rtt);
        d.on_read(ms(100), 1_000_000, rtt);
        assert_eq!(d.rcvbuf(), 262_144);
    }

    #[test]
    fn without_a_receiver_rtt_nothing_is_measured() {
        let mut d = LinuxRcvBuf::new(&cfg(u32::MAX as u64, None));
        d.on_read(ms(0), 0, None);
        d.on_read(ms(1000), 1_000_000, None);
        assert_eq!(d.rcvbuf(), 131_072);
    }

    /// The issue 41 flow as `spikelab emulate` runs it: SO_RCVBUF 209716 (sk_rcvbuf
    /// 419432, locked), TCP_WINDOW_CLAMP 262144, 1448-byte payloads with timestamps.
    fn issue_41_receiver(so_rcvbuf: u64) -> LinuxRcvBuf {
        LinuxRcvBuf::new(&RcvBufConfig {
            tcp_rmem: [4096, 131_072, 6_291_456],
            locked_rcvbuf: Some(2 * so_rcvbuf),
            window_clamp: 262_144,
            advmss: 1448,
            header_bytes: 52,
        })
    }

    /// One in-order segment of `len` bytes processed whole, without an ACK.
    fn in_order(r: &mut LinuxRcvBuf, len: u64) {
        r.on_in_order_segment(len, false);
        r.on_segment(len, 0);
        r.on_segment_processed();
    }

    /// The real paths' receiver (scenarios/paths/*.toml): TCP_WINDOW_CLAMP 262144,
    /// SO_RCVBUF 1048576 (sk_rcvbuf 2097152, locked), 1448-byte payloads with
    /// timestamps.
    fn real_paths_receiver() -> LinuxRcvBuf {
        LinuxRcvBuf::new(&RcvBufConfig {
            tcp_rmem: [4096, 131_072, 6_291_456],
            locked_rcvbuf: Some(2 * 1_048_576),
            window_clamp: 262_144,
            advmss: 1448,
            header_bytes: 52,
        })
    }

    #[test]
    fn the_replaced_clamp_grows_the_first_ack_then_the_held_clamp_comes_back() {
        // Linux 6.18 through spikelab emulate, the clamp re-set before the second
        // segment (the real-path recording of AT&T at 310 s, reno, tcp_frto 2, its
        // sender-side pcap: ack 1449 win 264984, ack 2897 win 263536, ack 4345 win
        // 262144, and 262144 on from there; every recording since 4678838 so).
        let mut r = real_paths_receiver();
        assert_eq!(r.window(0, 0), 262_088, "181 segments of 1448 B");
        r.on_in_order_segment(1448, false);
        assert_eq!(r.window_clamp(), 1_310_720, "2097152 x 160 / 256");
        assert_eq!(
            r.on_segment(1448, 0),
            Growth::Grew,
            "room under the new clamp"
        );
        assert_eq!(r.window(1448, 0), 264_984, "262088 + 2 x 1448");
        r.on_segment_processed();
        assert_eq!(r.rcv_ssthresh(), 262_144, "lowered to TCP_WINDOW_CLAMP");
        r.on_in_order_segment(1448, false);
        assert_eq!(r.on_segment(1448, 0), Growth::Held);
        assert_eq!(r.window(2896, 0), 263_536, "the right edge 266432 kept");
        r.on_segment_processed();
        let mut rcv_nxt = 2896;
        for _ in 0..20 {
            in_order(&mut r, 1448);
            rcv_nxt += 1448;
            assert_eq!(r.window(rcv_nxt, 0), 262_144);
        }
    }

    #[test]
    fn the_table1_receiver_offers_152000_then_151000_then_its_clamp() {
        // The emulator's Table 1 receiver (TCP_WINDOW_CLAMP 150000, SO_RCVBUF 600000,
        // MSS 1000 with timestamps): Linux 6.18 offered 152000 B and 151000 B on its
        // first two ACKs, 150000 B on every later one (crates/scenario/tests/data/
        // kernel-6.18.44-fc-v445/receiver-window.csv, kernel-6.18.44-fc-v1272/
        // table1-bbr-receiver-window.csv).
        let mut r = LinuxRcvBuf::new(&RcvBufConfig {
            locked_rcvbuf: Some(1_200_000),
            advmss: 1000,
            header_bytes: 52,
            ..cfg(150_000, None)
        });
        assert_eq!(r.window(0, 0), 150_000);
        let mut offered = Vec::new();
        for i in 1..=4 {
            r.on_in_order_segment(1000, false);
            r.on_segment(1000, 0);
            offered.push(r.window(i * 1000, 0));
            r.on_segment_processed();
        }
        assert_eq!(r.scaling_ratio(), 111, "1000 x 256 / 2304");
        assert_eq!(offered, [152_000, 151_000, 150_000, 150_000]);
    }

    #[test]
    fn an_ack_sent_after_the_segment_was_processed_offers_the_held_clamp() {
        // The growth under the replaced clamp is undone by the application's clamp
        // before a later ACK (the delayed-ACK timer's) is built.
        let mut r = real_paths_receiver();
        assert_eq!(r.window(0, 0), 262_088);
        in_order(&mut r, 1448);
        assert_eq!(r.window(1448, 0), 262_144);
    }

    #[test]
    fn setting_the_same_clamp_again_changes_nothing() {
        // tcp_set_window_clamp returns at once when the clamp does not change, even
        // where min(rcv_wnd, clamp) is above rcv_ssthresh.
        let mut r = real_paths_receiver();
        assert_eq!(r.window(0, 0), 262_088);
        r.rcv_ssthresh = 200_000;
        r.set_window_clamp(262_144);
        assert_eq!(r.rcv_ssthresh(), 200_000);
        r.set_window_clamp(262_145);
        assert_eq!(
            r.rcv_ssthresh(),
            262_088,
            "a larger clamp: min(rcv_wnd, clamp)"
        );
    }

    #[test]
    fn a_1500_byte_packet_through_tun_takes_2304_bytes_of_buffer() {
        assert_eq!(tun_truesize(1500), 2304);
        assert_eq!(tun_truesize(1052), 2304, "the same 2 KiB kmalloc bucket");
        assert_eq!(tun_truesize(100), 768);
    }

    #[test]
    fn the_first_full_segment_measures_the_ratio_and_the_window_grows_as_the_kernels() {
        // Linux 6.18 through spikelab emulate: SYN-ACK rcv_wnd 208512 (144 segments
        // at ratio 1/2), first ACK 211408, then 262140 = 65535 << 2.
        let mut r = issue_41_receiver(209_716);
        assert_eq!(r.window(0, 0), 208_512);
        r.on_in_order_segment(1448, false);
        assert_eq!(r.scaling_ratio(), 160, "1448 x 256 / 2304");
        assert_eq!(r.window_clamp(), 262_145, "replaced: 419432 x 160 / 256");
        assert_eq!(r.tcp_space(0), 262_145, "419432 x 160 / 256");
        assert_eq!(r.on_segment(1448, 0), Growth::Grew);
        assert_eq!(r.window(1448, 0), 211_408);
        r.on_segment_processed();
        assert_eq!(r.window_clamp(), 262_144, "TCP_WINDOW_CLAMP, set again");
        let mut rcv_nxt = 1448;
        for _ in 0..40 {
            in_order(&mut r, 1448);
            rcv_nxt += 1448;
        }
        assert_eq!(r.window(rcv_nxt, 0), 262_140, "the window scale's bound");
    }

    #[test]
    fn without_the_measured_ratio_the_locked_buffer_would_hold_the_window_at_144_segments() {
        // What the model offered before: 209716 B, below the path's 167 segments.
        let mut r = issue_41_receiver(209_716);
        for _ in 0..40 {
            r.on_segment(1448, 0);
        }
        assert_eq!(r.window(40 * 1448, 0), 209_716);
    }

    #[test]
    fn a_larger_locked_buffer_offers_the_held_window_clamp() {
        // SO_RCVBUF 1048576: 1310720 B of payload room at 160/256, window scale 3;
        // the held clamp binds, as before the ratio was measured.
        let mut r = issue_41_receiver(1_048_576);
        assert_eq!(r.window(0, 0), 262_144 - 262_144 % 1448);
        let mut rcv_nxt = 0;
        for _ in 0..200 {
            in_order(&mut r, 1448);
            rcv_nxt += 1448;
        }
        assert_eq!(r.tcp_space(0), 1_310_720);
        assert_eq!(r.window(rcv_nxt, 0), 262_144);
    }

    #[test]
    fn a_small_window_scale_bounds_the_offer() {
        // A locked 262142 B buffer: 131071 B at 1/2 (< 2^17), window scale 1, so at
        // most 131070 B can be carried; at 160/256 the buffer holds 163838 B.
        let mut r = LinuxRcvBuf::new(&RcvBufConfig {
            locked_rcvbuf: Some(262_142),
            advmss: 1448,
            header_bytes: 52,
            ..cfg(1_000_000, None)
        });
        let mut rcv_nxt = 0;
        for _ in 0..100 {
            in_order(&mut r, 1448);
            rcv_nxt += 1448;
        }
        assert_eq!(r.tcp_space(0), 163_838);
        assert_eq!(r.window(rcv_nxt, 0), 131_070);
    }

    #[test]
    fn a_short_segment_does_not_measure_the_ratio() {
        let mut r = issue_41_receiver(209_716);
        r.on_in_order_segment(500, false);
        assert_eq!(r.scaling_ratio(), 128, "shorter than rcv_mss 536");
    }

    #[test]
    fn the_offered_right_edge_never_moves_back() {
        let mut d = LinuxRcvBuf::new(&cfg(u32::MAX as u64, None));
        assert_eq!(d.window(0, 0), 64_256);
        // 30000 B held out of order: free space 35536, but the edge stays at 64256,
        // the 54256 B left rounded up to the unit (ALIGN(cur_win, 1 << rcv_wscale)).
        assert_eq!(d.window(10_000, 30_000), 54_272);
    }
}
