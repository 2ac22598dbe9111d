//! What every registered algorithm states about the other simulators: its ns-2.35
//! export (`spikelab export ns2`, crate `spikelab-ns2`) and its Linux settings
//! (`spikelab emulate`). Each algorithm implements [`Exports`] in its own file and its
//! family's registration macro forwards to it, so neither the exporter nor the emulator
//! keeps a list of algorithms (issue 38, "one source for each registry").

/// What a registered algorithm (a detector, a loss recovery, an RTO estimator) states
/// about the other simulators: its ns-2.35 export for `spikelab export ns2` and its
/// settings on a Linux host for `spikelab emulate`. Each algorithm implements it in its
/// own file; the families' enums forward to it, so the exporter and the emulator ask the
/// algorithm instead of keeping lists of their own.
pub trait Exports {
    /// The algorithm's part of an ns-2.35 script, or why ns-2.35 cannot express it.
    fn ns2(&self) -> Ns2Export;
    /// The sysctls a Linux host needs to run the algorithm, or why it has none.
    fn kernel(&self) -> Kernel;
}

/// How an algorithm appears in an ns-2.35 script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ns2Export {
    /// The one-way agent class that runs it (`Agent/TCP/Reno`).
    Agent(&'static str),
    /// Settings of the flow's agent, `$tcp(f) set variable value`, in script order.
    Settings(Vec<(&'static str, String)>),
    /// ns-2.35 cannot express it. `field`: the key of the algorithm's configuration it
    /// cannot express, or `None` for the algorithm itself; `why`: the reason.
    Refused {
        field: Option<&'static str>,
        why: &'static str,
    },
}

/// How an algorithm appears on a Linux host (`spikelab emulate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// net.ipv4 sysctls (name, value) that select it.
    Sysctls(&'static [(&'static str, &'static str)]),
    /// No sysctl selects it, and why (the kernel always runs its own, or has none).
    Nothing(&'static str),
}
