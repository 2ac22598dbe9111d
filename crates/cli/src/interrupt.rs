//! SIGINT and SIGTERM during `run` and `reproduce`: remove the staging folder, exit 130.
//!
//! The handler (the `ctrlc` crate, "termination" feature for SIGTERM) runs on its own
//! thread. It takes [`WRITES`] for writing, so it waits until no thread is in the middle
//! of writing into the staging folder (every writer holds [`writing`] while it writes),
//! removes the folder registered with [`Staging`], and ends the process while still
//! holding the lock, so no writer can recreate a file afterwards. Exit code 130 (128 +
//! SIGINT) is used for both signals: the run was cut short by the user, not failed.

use std::path::PathBuf;
use std::sync::{Mutex, OnceLock, RwLock, RwLockReadGuard};

/// Exit code of an interrupted command.
pub const INTERRUPTED: i32 = 130;

static STAGE: Mutex<Option<PathBuf>> = Mutex::new(None);
static WRITES: RwLock<()> = RwLock::new(());
static INSTALLED: OnceLock<()> = OnceLock::new();

/// Held while writing into the staging folder: an interrupt waits for it.
pub fn writing() -> RwLockReadGuard<'static, ()> {
    WRITES.read().unwrap_or_else(|e| e.into_inner())
}

/// The staging folder of the running command, removed on an interrupt; dropping it
/// unregisters the folder.
pub struct Staging;

impl Staging {
    /// Registers `dir` (and installs the handler on first use).
    pub fn register(dir: PathBuf) -> Staging {
        install();
        *STAGE.lock().unwrap_or_else(|e| e.into_inner()) = Some(dir);
        Staging
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        *STAGE.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

fn install() {
    INSTALLED.get_or_init(|| {
        // Another handler (an embedding program's) wins; we then only lose the cleanup.
        let _ = ctrlc::set_handler(on_interrupt);
    });
}

fn on_interrupt() {
    let _no_writers = WRITES.write().unwrap_or_else(|e| e.into_inner());
    let stage = STAGE.lock().unwrap_or_else(|e| e.into_inner()).take();
    match stage {
        Some(dir) => match std::fs::remove_dir_all(&dir) {
            Ok(()) => eprintln!("interrupted: removed {}", dir.display()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => eprintln!("interrupted"),
            Err(e) => eprintln!("interrupted: could not remove {}: {e}", dir.display()),
        },
        None => eprintln!("interrupted"),
    }
    std::process::exit(INTERRUPTED);
}
