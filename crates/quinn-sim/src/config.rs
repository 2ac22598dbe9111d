//! How the simulated quinn pair is set up: the transport settings a study varies, each
//! defaulting to quinn-proto 0.11's own default except where noted.

use quinn_proto::congestion::{CubicConfig, NewRenoConfig};
use quinn_proto::{IdleTimeout, TransportConfig};
use spikelab_core::Dur;
use std::sync::Arc;
use std::time::Duration;

/// quinn's congestion controllers (quinn-proto/src/congestion/). Not its BBR: that seeds
/// its ProbeBW cycle from the thread RNG (`congestion/bbr/mod.rs`, `Pcg32::from_rng(&mut
/// rand::rng())`), which no seed reaches, so its timing would differ run to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Controller {
    /// RFC 9438 CUBIC, quinn's default.
    Cubic,
    /// RFC 9002 7.3 NewReno.
    NewReno,
}

/// The settings of both endpoints' `TransportConfig`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuinnConfig {
    /// RFC 9002 6.2.2 initial RTT; quinn's default is 333 ms.
    pub initial_rtt: Dur,
    /// RFC 9000 10.1 idle timeout each endpoint offers; quinn's default 30 s.
    pub idle_timeout: Dur,
    /// UDP payload bytes of every datagram: quinn's `initial_mtu` (default 1200).
    pub mtu: u16,
    /// RFC 8899 path MTU discovery. Off here (quinn's default is on): spikelab's links
    /// have no MTU to discover, and probes would be extra packets a model lacks.
    pub mtu_discovery: bool,
    /// RFC 9002 6.1.1 kPacketThreshold (quinn's default 3).
    pub packet_threshold: u32,
    /// RFC 9002 6.1.2 kTimeThreshold (quinn's default 9/8).
    pub time_threshold: f32,
    /// RFC 9002 7.6.1 kPersistentCongestionThreshold (quinn's default 3).
    pub persistent_congestion_threshold: u32,
    pub controller: Controller,
    /// The controller's initial window in bytes (RFC 9002 7.2); quinn's default,
    /// 14720 clamped to 2..10 datagrams of 1200 bytes, is 12000.
    pub initial_window: u64,
}

impl Default for QuinnConfig {
    fn default() -> Self {
        QuinnConfig {
            initial_rtt: Dur::from_millis(333),
            idle_timeout: Dur::from_millis(30_000),
            mtu: 1200,
            mtu_discovery: false,
            packet_threshold: 3,
            time_threshold: 9.0 / 8.0,
            persistent_congestion_threshold: 3,
            controller: Controller::Cubic,
            initial_window: 12_000,
        }
    }
}

impl QuinnConfig {
    /// quinn's `TransportConfig` with these settings.
    pub fn transport(&self) -> TransportConfig {
        let mut t = TransportConfig::default();
        let idle = IdleTimeout::try_from(Duration::from_nanos(self.idle_timeout.0))
            .expect("an idle timeout below 2^62 ms");
        t.initial_rtt(Duration::from_nanos(self.initial_rtt.0))
            .max_idle_timeout(Some(idle))
            .initial_mtu(self.mtu)
            .min_mtu(self.mtu)
            .packet_threshold(self.packet_threshold)
            .time_threshold(self.time_threshold)
            .persistent_congestion_threshold(self.persistent_congestion_threshold)
            // One datagram per transmit: each is its own packet on the simulated path.
            .enable_segmentation_offload(false);
        if !self.mtu_discovery {
            t.mtu_discovery_config(None);
        }
        let iw = self.initial_window;
        match self.controller {
            Controller::Cubic => {
                let mut c = CubicConfig::default();
                c.initial_window(iw);
                t.congestion_controller_factory(Arc::new(c))
            }
            Controller::NewReno => {
                let mut c = NewRenoConfig::default();
                c.initial_window(iw);
                t.congestion_controller_factory(Arc::new(c))
            }
        };
        t
    }
}
