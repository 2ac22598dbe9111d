//! The `spikelab` binary's code layout: in a release build for x86-64 Linux, the
//! linker (rust-lld, this target's default since Rust 1.90) lays out first, together,
//! the functions listed in `text-order.txt`: those a run executes, as recorded by
//! `scripts/text-order.sh`. The kernel maps the 64 KB around each page of code a
//! process faults in, so code spread over the binary's 7.5 MB of `.text` made a run
//! keep 4.5 MB of it resident for 1.4 MB of functions; laid out together they take
//! 1.5 MB (docs/src/performance.md, "Issue 44, memory round 3"). Only where the
//! code sits changes, never what it does: the outputs are the same bytes and the
//! instruction counts the same.
//!
//! With the same linker the binary is position-dependent (`-no-pie`): the pointers in
//! its static data are resolved at link time, so the loader writes none of its 218 KB
//! of `.data.rel.ro` (in a PIE every page of it became a private copy: "Issue 44,
//! memory round 4"). When this machine's glibc has DT_RELR (2.36), relative
//! relocations are packed, which mattered for the PIE (`.rela.dyn`, read whole at
//! every start, shrank from 320 KB to 4 KB) and is kept for a build that is one.
//!
//! A name in the list that the binary no longer has is skipped by the linker (the
//! layout degrades, the build does not fail); `scripts/text-order.sh` writes the list
//! again. Nothing is passed when another linker may be in use (a configured linker,
//! `-C linker`/`-fuse-ld` in the flags, an older Rust) or when
//! `SPIKELAB_NO_TEXT_ORDER` is set.

use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=text-order.txt");
    println!("cargo:rerun-if-env-changed=SPIKELAB_NO_TEXT_ORDER");
    if env::var("TARGET").as_deref() != Ok("x86_64-unknown-linux-gnu")
        || env::var("PROFILE").as_deref() != Ok("release")
        || env::var_os("SPIKELAB_NO_TEXT_ORDER").is_some()
        || env::var_os("RUSTC_LINKER").is_some()
    {
        return;
    }
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if flags.contains("linker") || flags.contains("fuse-ld") || !rustc_links_with_lld() {
        return;
    }
    let list =
        Path::new(&env::var("CARGO_MANIFEST_DIR").expect("set by cargo")).join("text-order.txt");
    if list.exists() && !list.display().to_string().contains(',') {
        println!(
            "cargo:rustc-link-arg-bin=spikelab=-Wl,--symbol-ordering-file={}",
            list.display()
        );
        println!("cargo:rustc-link-arg-bin=spikelab=-Wl,--no-warn-symbol-ordering");
    }
    // A position-dependent executable: the linker resolves every pointer in static data
    // (vtables, tables of strings, 218 KB of `.data.rel.ro`) at link time, so the loader
    // writes none of it at start. In a PIE it relocated the whole of `.data.rel.ro`,
    // turning each of its pages into a private dirty copy resident for the whole run;
    // unrelocated, its pages are the file's own and only those a run reads are
    // resident. The libraries, heap and stack are still placed at random.
    println!("cargo:rustc-link-arg-bin=spikelab=-no-pie");
    // Relative relocations packed (DT_RELR): the 320 KB of `.rela.dyn` the loader reads
    // at every start become 4 KB. The loader must know DT_RELR (glibc 2.36), so only when
    // the binary is built for this machine and its glibc has it (a binary built here
    // needs glibc 2.34 already).
    if env::var("HOST") == env::var("TARGET") && host_glibc_at_least(2, 36) {
        println!("cargo:rustc-link-arg-bin=spikelab=-Wl,-z,pack-relative-relocs");
    }
}

/// Is this machine's glibc (`getconf GNU_LIBC_VERSION`: "glibc 2.36") at least
/// `major.minor`?
fn host_glibc_at_least(major: u32, minor: u32) -> bool {
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(version) = text.trim().strip_prefix("glibc ") else {
        return false;
    };
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0)) >= (major, minor)
}

/// Is the compiler 1.90 or later, whose x86-64 Linux target links with rust-lld?
fn rustc_links_with_lld() -> bool {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let Ok(out) = Command::new(rustc).arg("--version").output() else {
        return false;
    };
    let version = String::from_utf8_lossy(&out.stdout);
    // "rustc 1.95.0 (59807616e 2026-04-14)"
    let mut parts = version
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .split('.')
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (1, 90)
}
