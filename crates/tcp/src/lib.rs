//! spikelab-tcp: a sans-I/O TCP sender and receiver.
//!
//! Every call takes `now` and returns what to send; nothing here reads a clock or owns
//! an event loop, so the same code drives the simulator and could drive an emulator.
//!
//! * [`sender`]: the sender state machine (RFC 5681, 6298, 3042, go-back-N).
//! * [`receiver`]: cumulative, delayed, SACK and D-SACK acknowledgments, echo rules.
//! * [`recovery`]: loss recovery, one algorithm per file.
//! * [`rto`]: retransmission-timer estimators, one per file.
//! * [`spurious`]: spurious-timeout detectors, one per file, run side by side.
//! * [`cc`]: congestion controllers, one per file.
//! * [`linux_profile`]: the `linux` profile and its sysctl-named switches.
//! * [`stacks`]: the ns-2 2002 and Linux stacks at the sender's extension points.
//! * [`response`]: what a sender does about a spurious timeout.

pub mod cc;
pub mod cc_driver;
pub mod config;
pub mod dsack;
pub mod exports;
pub mod linux_cwnd_limited;
pub mod linux_disorder;
pub mod linux_dsack;
pub mod linux_paws;
pub mod linux_profile;
pub mod linux_rcvbuf;
pub mod linux_receiver;
pub mod linux_rtt;
pub mod linux_sack_array;
pub mod linux_sack_compress;
pub mod linux_synack_rtt;
pub mod linux_timer_wheel;
pub mod ns2_sack_sink;
pub mod pacing;
pub mod phase;
pub mod prr;
pub mod rack;
pub mod rate;
pub mod receiver;
pub mod recovery;
pub mod response;
pub mod rto;
pub mod segments;
pub mod sender;
pub mod spurious;
pub mod stacks;
pub mod tlp;
pub mod ts_clock;
pub mod unpaced_skb;
pub mod window;
pub mod wire_size;

spikelab_core::built_from!();

pub use cc::{CongestionControl, LinuxModule};
pub use config::{DelayedAck, EchoRule, Ns2Switches, RecoveryKind, TcpConfig, TimeoutRetransmit};
pub use linux_profile::LinuxSysctls;
pub use phase::Phase;
pub use receiver::TcpReceiver;
pub use sender::{AckInfo, SenderStats, TcpSender, TimerOutcome};
