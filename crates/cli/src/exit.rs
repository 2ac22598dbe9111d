//! Exit codes and the one-line error a failed command prints.
//!
//! | code | meaning |
//! |------|---------|
//! | 0 | success |
//! | 1 | an I/O or plotting failure |
//! | 2 | a bad scenario file or a bad flag: nothing was written |
//! | 3 | the engine found a broken invariant: the run is wrong, nothing was written |
//! | 130 | interrupted by SIGINT or SIGTERM: the staging folder was removed ([`crate::interrupt`]) |

use std::process::ExitCode;

/// A failed command: its exit code and its error.
#[derive(Debug)]
pub struct Failure {
    /// The process exit code.
    pub code: u8,
    /// What went wrong.
    pub error: anyhow::Error,
}

/// Exit code of a bad scenario or flag.
pub const USAGE: u8 = 2;
/// Exit code of a broken engine invariant.
pub const INVARIANT: u8 = 3;

impl Failure {
    /// A bad scenario or flag (exit 2).
    pub fn usage(error: impl Into<anyhow::Error>) -> Failure {
        Failure {
            code: USAGE,
            error: error.into(),
        }
    }

    /// A broken invariant (exit 3).
    pub fn invariant(error: impl Into<anyhow::Error>) -> Failure {
        Failure {
            code: INVARIANT,
            error: error.into(),
        }
    }

    /// Prints `error: <message>` on one line and returns the exit code.
    pub fn report(&self) -> ExitCode {
        let chain: Vec<String> = self.error.chain().map(|e| e.to_string()).collect();
        eprintln!("error: {}", chain.join(": ").replace('\n', " "));
        ExitCode::from(self.code)
    }
}

impl From<anyhow::Error> for Failure {
    /// Any other failure (exit 1).
    fn from(error: anyhow::Error) -> Failure {
        Failure { code: 1, error }
    }
}
