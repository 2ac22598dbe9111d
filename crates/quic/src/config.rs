//! A QUIC connection's settings: `[flow.quic]` in a scenario file.
//!
//! Defaults are RFC 9002's constants and recommended values (Appendix A.2, B.1) and
//! RFC 9000's transport-parameter defaults; where a value is an implementation's choice,
//! the default follows quinn-proto (`TransportConfig::default()`), the implementation
//! the model is held against.

use serde::{Deserialize, Serialize};
use spikelab_core::bounds::{
    dur_in, fail, int, Bounded, Check, FieldPath, MAX_DUR, MAX_INITIAL_WINDOW, MAX_THRESHOLD,
};
use spikelab_core::Dur;

/// Which QUIC implementation runs the flow. Each registered transport takes the flows
/// of its own implementation (crates/engine/src/transport/).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Implementation {
    /// This crate's model of RFC 9002. The default.
    #[default]
    Model,
    /// Real quinn: quinn-proto 0.11.19 in simulated time (crates/quinn-sim). quinn
    /// fixes what [`QuicConfig::quinn_fixes`] lists; the other keys set it.
    Quinn,
}

/// The congestion controller (RFC 9002 7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QuicCc {
    /// RFC 9002 7.3 and Appendix B: NewReno in bytes. The default.
    #[default]
    NewReno,
    /// CUBIC (RFC 9438) with Linux's arithmetic (`spikelab_tcp::cc::cubic`), in whole
    /// datagrams, entered through RFC 9002's congestion events.
    Cubic,
}

/// How a 1-RTT packet carrying stream data is laid out (RFC 9000 12.3, 17.1, 19.8;
/// RFC 9001 5.3), which sets the stream bytes a full datagram holds
/// (`wire.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Framing {
    /// Every header field at its largest: a 4-byte packet number, a STREAM frame with
    /// an 8-byte offset and a 2-byte length (1159 stream bytes in 1200). The default:
    /// valid for every packet RFC 9000 allows, and what the model always did.
    #[default]
    Largest,
    /// As quinn-proto 0.11.19 packs them: the packet number in the fewest bytes that
    /// cover twice the distance to the largest acknowledged (RFC 9000 17.1, A.2;
    /// packet.rs `PacketNumber::new`), the offset as a varint left out at 0, no length
    /// on the packet's last frame (frame.rs `Stream::encoder`), and the client's first
    /// 1-RTT packet sharing its datagram with the handshake's last flight (1170 stream
    /// bytes below offset 16384, 1168 above, 910 in the first).
    Quinn,
}

/// Whether and how the sender paces (RFC 9002 7.7: "This document does not specify
/// a pacer").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pacing {
    /// No pacer: the window goes out at once (RFC 9002 specifies none). The default.
    #[default]
    None,
    /// quinn-proto 0.11.19's send gate (connection/mod.rs `poll_transmit`: blocked
    /// when bytes in flight plus a full datagram reach the window) and its token
    /// bucket (connection/pacing.rs `Pacer::delay`, `optimal_capacity`).
    Quinn,
}

/// In which order an ACK's effects reach the congestion controller.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AckOrder {
    /// RFC 9002 A.7 `OnAckReceived`: losses the ACK reveals are declared (a
    /// congestion event) before the newly acknowledged packets grow the window, so
    /// those sent before the event do not. The default.
    #[default]
    LossFirst,
    /// quinn-proto 0.11.19 (connection/mod.rs `on_ack_received`): `on_packet_acked`
    /// grows the window for every newly acknowledged packet, then
    /// `detect_lost_packets` declares the losses: the reduction starts from the grown
    /// window.
    AckedFirst,
}

/// What a sender does when an ACK shows that packets it declared lost had arrived
/// (a spurious loss declaration). RFC 9002 itself undoes nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UndoRule {
    /// RFC 9002: no undo. The default.
    #[default]
    None,
    /// quinn-proto (quinn-proto/src/connection/mod.rs `detect_spurious_loss`,
    /// `drain_lost_packets`; congestion/cubic.rs `on_spurious_congestion_event`).
    Quinn,
    /// msquic (src/core/loss_detection.c `QuicLossDetectionProcessAckBlocks`,
    /// `QuicLossDetectionDetectAndHandleLostPackets`).
    Msquic,
    /// quiche (quiche/src/recovery/congestion/recovery.rs
    /// `detect_and_remove_acked_packets`, `drain_acked_and_lost_packets`;
    /// congestion/cubic.rs `rollback`).
    Quiche,
    /// picoquic (picoquic/frames.c `picoquic_dequeue_old_retransmitted_packets`,
    /// `PICOQUIC_SPURIOUS_RETRANSMIT_DELAY_MAX`; picoquic/cubic.c
    /// `cubic_enter_recovery`, `cubic_correct_spurious`; picoquic/newreno.c).
    Picoquic,
}

/// `[flow.quic]`: one QUIC connection's settings. The sender plays the client: it
/// opens the connection and sends the workload's bytes on one stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QuicConfig {
    /// The implementation: `"model"` (this crate) or `"quinn"` (real quinn-proto).
    /// Default: `"model"`.
    pub implementation: Implementation,
    /// UDP payload bytes of a full-sized packet, RFC 9002's max_datagram_size (RFC
    /// 9000 14: at least 1200; quinn's `initial_mtu` default, without path MTU
    /// discovery). Default: 1200.
    pub max_datagram_size: u32,
    /// kInitialRtt (RFC 9002 6.2.2): the RTT assumed before the first sample. Default:
    /// 333 ms, giving a first PTO of 999 ms.
    pub initial_rtt: Dur,
    /// The initial congestion window in datagrams (RFC 9002 7.2: min(10 x
    /// max_datagram_size, max(14720, 2 x max_datagram_size)) bytes). Default: 10.
    pub initial_window: u64,
    /// kPacketThreshold (RFC 9002 6.1.1). Default: 3.
    pub packet_threshold: u64,
    /// kPersistentCongestionThreshold (RFC 9002 7.6.1). Default: 3.
    pub persistent_congestion_threshold: u32,
    /// The receiver's max_ack_delay transport parameter (RFC 9000 18.2). Default: 25 ms.
    pub max_ack_delay: Dur,
    /// The receiver acknowledges at least every this many ack-eliciting packets (RFC
    /// 9000 13.2.2: "SHOULD ... after receiving at least two"). Default: 2.
    pub ack_eliciting_threshold: u32,
    /// Probe packets sent when a PTO fires, 1 or 2 (RFC 9002 6.2.4). Default: 2, as
    /// quinn and msquic send.
    pub probe_packets: u32,
    /// A ceiling on the backed-off PTO (picoquic's `PICOQUIC_LARGE_RETRANSMIT_TIMER`,
    /// quiche pull request 1583); none in RFC 9002. Default: none.
    pub pto_max: Option<Dur>,
    /// The congestion controller. Default: `"new-reno"`.
    pub cc: QuicCc,
    /// The spurious-loss undo rule. Default: `"none"`.
    pub undo: UndoRule,
    /// How stream data is packed into datagrams. Default: `"largest"`.
    pub framing: Framing,
    /// The pacer. Default: `"none"`.
    pub pacing: Pacing,
    /// The idle timeout (RFC 9000 10.1: the max_idle_timeout transport parameter; the
    /// connection closes silently after this long, at least 3 x PTO, without a packet
    /// from the peer). Default: none (the parameter's default, 0: disabled). quinn's
    /// default is 30 s.
    pub idle_timeout: Option<Dur>,
    /// The order of an ACK's loss declarations and window growth. Default:
    /// `"loss-first"`.
    pub ack_order: AckOrder,
}

impl Default for QuicConfig {
    fn default() -> Self {
        QuicConfig {
            implementation: Implementation::Model,
            max_datagram_size: 1200,
            initial_rtt: Dur::from_millis(333),
            initial_window: 10,
            packet_threshold: 3,
            persistent_congestion_threshold: 3,
            max_ack_delay: Dur::from_millis(25),
            ack_eliciting_threshold: 2,
            probe_packets: 2,
            pto_max: None,
            cc: QuicCc::NewReno,
            undo: UndoRule::None,
            framing: Framing::Largest,
            pacing: Pacing::None,
            idle_timeout: None,
            ack_order: AckOrder::LossFirst,
        }
    }
}

impl QuicConfig {
    /// Every key of `[flow.quic]`, as written in a scenario file.
    pub const KEYS: [&'static str; 16] = [
        "implementation",
        "max_datagram_size",
        "initial_rtt",
        "initial_window",
        "packet_threshold",
        "persistent_congestion_threshold",
        "max_ack_delay",
        "ack_eliciting_threshold",
        "probe_packets",
        "pto_max",
        "cc",
        "undo",
        "framing",
        "pacing",
        "idle_timeout",
        "ack_order",
    ];
}

/// Every number within the range where the model means something
/// (`spikelab_scenario::bounds` states the general rules).
impl Bounded for QuicConfig {
    fn bounds(&self, p: &FieldPath) -> Check {
        // RFC 9000 14: a QUIC datagram is at least 1200 bytes, and fits UDP's 65527.
        let size = u64::from(self.max_datagram_size);
        int(&p.key("max_datagram_size"), size, 1200, 65_527, " bytes")?;
        dur_in(&p.key("initial_rtt"), self.initial_rtt, Dur(1), MAX_DUR)?;
        let iw = self.initial_window;
        int(
            &p.key("initial_window"),
            iw,
            2,
            MAX_INITIAL_WINDOW,
            " datagrams",
        )?;
        let pt = self.packet_threshold;
        int(&p.key("packet_threshold"), pt, 1, MAX_THRESHOLD, " packets")?;
        let pc = u64::from(self.persistent_congestion_threshold);
        int(
            &p.key("persistent_congestion_threshold"),
            pc,
            1,
            MAX_THRESHOLD,
            "",
        )?;
        // RFC 9000 18.2: "Values of 2^14 or greater are invalid."
        let mad = Dur::from_millis(1 << 14) - Dur(1);
        dur_in(&p.key("max_ack_delay"), self.max_ack_delay, Dur::ZERO, mad)?;
        let ae = u64::from(self.ack_eliciting_threshold);
        int(
            &p.key("ack_eliciting_threshold"),
            ae,
            1,
            MAX_THRESHOLD,
            " packets",
        )?;
        // RFC 9002 6.2.4: "one or two" probe datagrams.
        let probes = u64::from(self.probe_packets);
        int(&p.key("probe_packets"), probes, 1, 2, " packets")?;
        if let Some(d) = self.pto_max {
            dur_in(&p.key("pto_max"), d, Dur(1), MAX_DUR)?;
        }
        if let Some(d) = self.idle_timeout {
            // RFC 9000 18.2: max_idle_timeout is in milliseconds, 0 meaning none.
            dur_in(&p.key("idle_timeout"), d, Dur::from_millis(1), MAX_DUR)?;
        }
        if self.implementation == Implementation::Quinn {
            self.quinn_fixes(p)?;
        }
        Ok(())
    }
}

impl QuicConfig {
    /// The keys quinn-proto 0.11.19 has no setting for, which must keep the value quinn
    /// has: the receiver's `max_ack_delay` (its transport parameter's default, 25 ms),
    /// an ACK after every second ack-eliciting packet (`AckFrequencyConfig`'s
    /// threshold 1 means "more than one"), two probes per PTO
    /// (`on_loss_detection_timeout`), no PTO ceiling, and no undo (0.11.19 has no
    /// spurious-loss detection). quinn frames, paces and orders an ACK's effects as
    /// itself (`framing`, `pacing`, `ack_order` describe the model) and keeps its
    /// idle timeout, 30 s.
    pub fn quinn_fixes(&self, p: &FieldPath) -> Check {
        let fixed = |key: &str, ok: bool, quinns: &str| match ok {
            true => Ok(()),
            false => fail(&p.key(key), format!("quinn fixes it at {quinns}")),
        };
        fixed(
            "max_ack_delay",
            self.max_ack_delay == Dur::from_millis(25),
            "25 ms",
        )?;
        fixed(
            "ack_eliciting_threshold",
            self.ack_eliciting_threshold == 2,
            "2",
        )?;
        fixed("probe_packets", self.probe_packets == 2, "2")?;
        fixed("pto_max", self.pto_max.is_none(), "none")?;
        fixed("undo", self.undo == UndoRule::None, "\"none\"")?;
        let idle = self.idle_timeout;
        fixed(
            "idle_timeout",
            idle.is_none_or(|d| d == Dur::from_secs(30)),
            "30 s",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_rfc_9002s_and_quinns() {
        let c = QuicConfig::default();
        assert_eq!(c.initial_rtt, Dur::from_millis(333));
        assert_eq!(
            (c.packet_threshold, c.persistent_congestion_threshold),
            (3, 3)
        );
        assert_eq!(c.max_ack_delay, Dur::from_millis(25));
        assert!(c.bounds(&FieldPath::root("quic")).is_ok());
    }

    #[test]
    fn a_table_overrides_defaults_and_unknown_keys_are_refused() {
        let c: QuicConfig = toml::from_str(
            "cc = \"cubic\"\nundo = \"quinn\"\npto_max = \"2s\"\nframing = \"quinn\"\npacing = \"quinn\"",
        )
        .unwrap();
        assert_eq!((c.framing, c.pacing), (Framing::Quinn, Pacing::Quinn));
        assert_eq!((c.cc, c.undo), (QuicCc::Cubic, UndoRule::Quinn));
        assert_eq!(c.pto_max, Some(Dur::from_secs(2)));
        assert!(toml::from_str::<QuicConfig>("pto_cap = \"2s\"").is_err());
    }

    #[test]
    fn quinn_refuses_a_setting_it_does_not_have() {
        let p = FieldPath::root("quic");
        let quinn = |extra: &str| {
            let c: QuicConfig = toml::from_str(&format!("implementation = \"quinn\"\n{extra}"))
                .expect("a valid table");
            c.bounds(&p)
        };
        assert!(quinn("cc = \"cubic\"\ninitial_rtt = \"100ms\"").is_ok());
        for refused in [
            "max_ack_delay = \"40ms\"",
            "probe_packets = 1",
            "undo = \"quinn\"",
            "idle_timeout = \"10s\"",
        ] {
            assert!(quinn(refused).is_err(), "{refused}");
        }
        let model: QuicConfig = toml::from_str("probe_packets = 1").expect("a valid table");
        assert!(model.bounds(&p).is_ok());
    }

    #[test]
    fn keys_name_every_field() {
        let text = toml::to_string(&QuicConfig {
            pto_max: Some(Dur::from_secs(1)),
            idle_timeout: Some(Dur::from_secs(30)),
            ..QuicConfig::default()
        })
        .unwrap();
        for k in QuicConfig::KEYS {
            assert!(text.contains(&format!("{k} =")), "{k} not in {text}");
        }
    }

    #[test]
    fn out_of_range_settings_name_their_key() {
        let c = QuicConfig {
            probe_packets: 3,
            ..QuicConfig::default()
        };
        let e = c.bounds(&FieldPath::root("quic")).unwrap_err();
        assert_eq!(e.path, FieldPath::root("quic").key("probe_packets"));
    }
}
