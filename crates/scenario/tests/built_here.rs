//! The kernel suites compare the model's numbers with recordings; they are only the
//! model's if every workspace library linked into them was compiled from this
//! checkout. A target directory shared between work trees breaks that silently
//! (cargo judges freshness by file times and names a crate's build independently of
//! the tree's path): an integration test once linked another tree's `spikelab-tcp` and
//! measured that tree's model.

/// Every workspace library the scenario suites link was compiled from this checkout.
#[test]
fn linked_libraries_were_compiled_from_this_checkout() {
    // Read at run time: the test binary itself may be another tree's stale build.
    let here = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let crates = here.parent().unwrap();
    for (name, dir) in [
        ("spikelab-core", spikelab_core::BUILT_FROM),
        ("spikelab-tcp", spikelab_tcp::BUILT_FROM),
        ("spikelab-net", spikelab_net::BUILT_FROM),
        ("spikelab-quic", spikelab_quic::BUILT_FROM),
        ("spikelab-engine", spikelab_engine::BUILT_FROM),
        ("spikelab-scenario", spikelab_scenario::BUILT_FROM),
    ] {
        assert_eq!(
            std::path::Path::new(dir).parent().unwrap(),
            crates,
            "{name} was compiled from {dir}, not this checkout: a stale build of another \
             work tree in a shared target directory (use a target directory per work tree, \
             or `cargo clean -p {name}`)"
        );
    }
}
