//! What every registered algorithm states about the other simulators: its ns-2.35
//! export (`spikelab export ns2`, crate `spikelab-ns2`) and its Linux settings
//! (`spikelab emulate`). Each algorithm implements [`Exports`] in its own file and its
//! family's registration macro forwards to it, so neither the exporter nor the emulator
//! keeps a list of algorithms (issue 38, "one source for each registry").

/// What a registered algorithm (a detector, a loss recovery, an RTO estimator, a
/// congestion controller) states
/// about the other simulators: its ns-2.35 export for `spikelab export ns2` and its
/// settings on a Linux host for `spikelab emulate`. Each algorithm implements it in its
/// own file; the families' enums forward to it, so the exporter and the emulator ask the
/// algorithm instead of keeping lists of their own.
pub trait Exports {
    /// The algorithm's part of an ns-2.35 script, or why ns-2.35 cannot express it.
    fn ns2(&self) -> Ns2Export;
    /// The sysctls a Linux host needs to run the algorithm, or why it has none.
    fn kernel(&self) -> Kernel;
    /// The sysctls under which a Linux host runs the algorithm of its own accord, as
    /// `spikelab emulate` names the kernel's decisions (its detectors); `None` when no
    /// setting does, or the kernel's version is not reported by this name (the default).
    fn kernel_runs_when(&self) -> Option<KernelRuns> {
        None
    }
}

/// net.ipv4 sysctls that must all hold for the kernel to run an algorithm: each
/// `(name, on)`, `on` meaning non-zero and `!on` zero.
pub type KernelRuns = &'static [(&'static str, bool)];

/// How an algorithm appears in an ns-2.35 script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ns2Export {
    /// The one-way agent class that runs it (`Agent/TCP/Reno`).
    Agent(&'static str),
    /// Settings of the flow's agent, `$tcp(f) set variable value`, in script order.
    Settings(Vec<(&'static str, String)>),
    /// ns-2.35's agents behave so without a setting of their own; the text says where
    /// (an option whose value is what ns-2's code always does).
    Native(&'static str),
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

impl Kernel {
    /// The value it gives the sysctl `name`, if it sets it.
    pub fn sysctl(&self, name: &str) -> Option<&'static str> {
        match self {
            Kernel::Sysctls(set) => set.iter().find(|(n, _)| *n == name).map(|(_, v)| *v),
            Kernel::Nothing(_) => None,
        }
    }
}
