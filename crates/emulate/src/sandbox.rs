//! What a run creates on the machine, and its removal on every exit path.
//!
//! Every name carries the run's prefix (`spikelab-<prefix>-...` namespaces,
//! `<prefix>s<i>` / `<prefix>r<i>` devices). A [`Sandbox`] records a namespace only
//! after `ip netns add` succeeded, and its `Drop` deletes exactly those, so a normal end,
//! an error, a signal (the loops poll [`crate::sys::stop_requested`] and return through
//! here) and a panic (unwinding runs `Drop`) all leave nothing behind, and nothing the
//! run did not create is touched. The TUN devices live inside the namespaces and vanish
//! with them and with their descriptors; the sockets are shut down and their threads
//! joined before the namespaces go.

use anyhow::{anyhow, Context};
use std::process::Command;

/// A run's namespaces.
#[derive(Debug)]
pub struct Sandbox {
    prefix: String,
    namespaces: Vec<String>,
}

/// A short prefix unique to this process and moment, for names of at most 15 bytes.
pub fn fresh_prefix() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let mix = (std::process::id() as u64) << 20 ^ nanos as u64;
    format!("sl{:05x}", mix & 0xf_ffff)
}

/// The namespace name of `role` (e.g. `s3`) under `prefix`.
pub fn netns_name(prefix: &str, role: &str) -> String {
    format!("spikelab-{prefix}-{role}")
}

/// Namespaces that exist now and carry `prefix` (for tests of the clean-up).
pub fn existing_with_prefix(prefix: &str) -> Vec<String> {
    let Ok(out) = Command::new("ip").args(["netns", "list"]).output() else {
        return Vec::new();
    };
    let want = netns_name(prefix, "");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| n.starts_with(&want))
        .map(str::to_owned)
        .collect()
}

/// Runs `ip ARGS`, failing with its stderr.
pub fn ip(args: &[&str]) -> anyhow::Result<()> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .context("cannot run `ip` (iproute2)")?;
    if !out.status.success() {
        return Err(anyhow!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

impl Sandbox {
    /// An empty sandbox for names under `prefix`.
    pub fn new(prefix: &str) -> Sandbox {
        Sandbox {
            prefix: prefix.to_owned(),
            namespaces: Vec::new(),
        }
    }

    /// The run's prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Creates namespace `spikelab-<prefix>-<role>` and records it for removal. It is
    /// recorded before `ip netns add` runs (a SIGINT from the terminal reaches `ip`
    /// too and may stop it half-way) and forgotten only if it already existed.
    pub fn add_netns(&mut self, role: &str) -> anyhow::Result<String> {
        let name = netns_name(&self.prefix, role);
        self.namespaces.push(name.clone());
        if let Err(e) = ip(&["netns", "add", &name]) {
            if e.to_string().contains("File exists") {
                self.namespaces.pop();
            }
            return Err(e);
        }
        Ok(name)
    }

    /// Deletes every namespace this sandbox created (idempotent).
    pub fn cleanup(&mut self) {
        while let Some(ns) = self.namespaces.pop() {
            match ip(&["netns", "del", &ns]) {
                Err(e) if !e.to_string().contains("No such file") => {
                    eprintln!("warning: could not remove namespace {ns}: {e}")
                }
                _ => {}
            }
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        self.cleanup();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_names_fit_ifnamsiz() {
        let p = fresh_prefix();
        assert_eq!(p.len(), 7);
        assert!(format!("{p}r255").len() < 16);
    }

    #[test]
    fn namespace_names_carry_the_prefix() {
        assert_eq!(netns_name("sl12345", "s0"), "spikelab-sl12345-s0");
    }
}
