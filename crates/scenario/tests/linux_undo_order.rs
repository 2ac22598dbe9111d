//! The undo-order regression case: Linux commit 98e36d449cc681f1bb2ce2230243f7f977a7da1b
//! ("tcp: check undo conditions before detecting losses", Yuchung Cheng, 2017-01-12,
//! Fixes: 4f41b1c58a32 "tcp: use RACK to detect losses"). Its message:
//!
//! > Currently RACK would mark loss before the undo operations in TCP loss recovery.
//! > This could incorrectly identify real losses as spurious. For example a sender
//! > first experiences a delay spike and then eventually some packets were lost due to
//! > buffer overrun. In this case, the sender should perform fast recovery b/c not all
//! > the packets were lost. But the sender may first trigger a (spurious) RTO and reset
//! > cwnd to 1. The following ACKs may used to mark real losses by tcp_rack_mark_lost.
//! > Then in tcp_process_loss this ACK could trigger F-RTO undo condition and unmark
//! > real losses and revert the cwnd reduction. If there are no more ACKs coming back,
//! > eventually the sender would timeout again instead of performing fast recovery. The
//! > patch fixes this incorrect process by always performing the undo checks before
//! > detecting losses.
//!
//! The `linux` profile runs the fixed order (`tcp_process_loss`, then
//! `tcp_identify_packet_loss`: crates/tcp/src/stacks/linux/rack_detection.rs). The
//! scenario (data/undo-order/delay-spike-then-overflow.toml) builds the commit's
//! sequence; the expected outcome is the commit's: the spurious RTO is undone, the real
//! losses are repaired by fast recovery, and no second timeout comes.

use std::path::Path;

fn run() -> spikelab_engine::FlowResult {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/undo-order/delay-spike-then-overflow.toml");
    let s = spikelab_scenario::load(file).unwrap_or_else(|e| panic!("{e}"));
    let r = spikelab_engine::run(&s.to_sim(), s.run().seed).unwrap();
    r.flows.into_iter().next().unwrap()
}

#[test]
fn a_spurious_rto_then_real_losses_is_undone_and_the_losses_go_to_fast_recovery() {
    let f = run();
    println!(
        "timeouts {} in {} episodes ({} genuine), spurious responses {}, fast retransmits {}, retransmissions {} (unnecessary {}), undos {:?}, completed {:?}",
        f.timeouts,
        f.timeout_episodes,
        f.genuine_timeout_episodes,
        f.spurious_responses,
        f.fast_retransmits,
        f.retransmissions,
        f.unnecessary_retransmissions,
        f.undos,
        f.completed
    );
    // "the sender may first trigger a (spurious) RTO": one episode (the timer backs off
    // and expires again inside the freeze), spurious, and undone once.
    assert_eq!((f.timeout_episodes, f.spurious_timeout_episodes), (1, 1));
    assert_eq!((f.spurious_responses, f.undos.loss_undo), (1, 1));
    // "some packets were lost due to buffer overrun ... the sender should perform fast
    // recovery": real losses, repaired by fast retransmission.
    assert!(f.retransmissions > f.unnecessary_retransmissions);
    assert!(f.fast_retransmits >= 1);
    // Not "timeout again instead of performing fast recovery": no genuine timeout.
    assert_eq!((f.genuine_timeouts, f.genuine_timeout_episodes), (0, 0));
    assert!(f.completed.is_some());
}
