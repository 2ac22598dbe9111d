//! The `spikelab` binary: see [`spikelab_cli`].

fn main() -> std::process::ExitCode {
    spikelab_cli::main_with(std::env::args_os())
}
