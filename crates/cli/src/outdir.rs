//! Output folders spikelab may write into, and how it replaces its own earlier files.
//!
//! A command stages its outputs in a sibling folder `<DIR>.partial-<pid>` and then
//! publishes them into DIR. DIR may be written into only when
//!
//! * it does not exist (spikelab creates it),
//! * it is an empty folder, or
//! * it holds spikelab's marker [`MARKER`] (`.spikelab-output`), a JSON file with the
//!   marker format, the spikelab version and the list of files spikelab wrote there.
//!
//! Anything else — a folder with files but no marker, even one holding a `meta.json` —
//! is refused before anything runs, with exit code 2. Publishing into a marked folder
//! removes only the files its marker lists (within the command's [`Scope`]) and moves
//! the new ones in; every other file (plots from `spikelab plot`, the user's notes)
//! stays. A new file that would overwrite a file the marker does not list is refused.

use anyhow::{anyhow, bail, Context};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// Name of the marker file in an output folder spikelab owns.
pub const MARKER: &str = ".spikelab-output";

/// Version of the marker's format.
const FORMAT: u32 = 1;

/// The marker's content.
#[derive(Debug, Serialize, Deserialize)]
struct Marker {
    /// Always [`FORMAT`].
    spikelab_output: u32,
    /// The spikelab version that wrote the files.
    spikelab_version: String,
    /// Every file spikelab wrote, relative to the folder, `/`-separated, sorted.
    files: Vec<String>,
}

/// What an output folder holds before a command writes into it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// Nothing there yet: the staging folder becomes DIR.
    New,
    /// A folder of spikelab's (empty, or marked): the files it wrote before.
    Owned(BTreeSet<String>),
}

/// Which of the files a marker lists a command replaces.
#[derive(Clone, Debug)]
pub enum Scope {
    /// All of them (`spikelab run`).
    All,
    /// Those equal to or under one of these relative paths (`spikelab reproduce NAME`
    /// replaces `NAME/…` and the report, and keeps the other reproductions' files).
    Under(Vec<String>),
}

impl Scope {
    fn contains(&self, file: &str) -> bool {
        match self {
            Scope::All => true,
            Scope::Under(roots) => roots.iter().any(|r| {
                file == r
                    || file
                        .strip_prefix(r.as_str())
                        .is_some_and(|t| t.starts_with('/'))
            }),
        }
    }
}

/// Decides whether `out` may receive spikelab's outputs; an error means it must not be
/// touched (the caller exits with code 2).
pub fn check_target(out: &Path) -> anyhow::Result<Target> {
    let meta = match std::fs::symlink_metadata(out) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Target::New),
        Err(e) => return Err(anyhow!("--out {}: {e}", out.display())),
    };
    if !meta.is_dir() {
        bail!(
            "--out {}: exists and is not a folder; refusing to touch it",
            out.display()
        );
    }
    let marker = out.join(MARKER);
    if marker.exists() {
        let files = read_marker(&marker)?;
        return Ok(Target::Owned(files));
    }
    let empty = std::fs::read_dir(out)
        .with_context(|| format!("--out {}", out.display()))?
        .next()
        .is_none();
    if empty {
        return Ok(Target::Owned(BTreeSet::new()));
    }
    Err(anyhow!(
        "--out {}: holds files spikelab did not write (no {MARKER} marker); refusing to write into it \
         (choose a new or empty folder)",
        out.display()
    ))
}

fn read_marker(path: &Path) -> anyhow::Result<BTreeSet<String>> {
    let damaged = |why: String| {
        anyhow!(
            "{}: not a valid spikelab marker ({why}); refusing to write beside it",
            path.display()
        )
    };
    let text = std::fs::read_to_string(path).map_err(|e| damaged(e.to_string()))?;
    let m: Marker = serde_json::from_str(&text).map_err(|e| damaged(e.to_string()))?;
    if m.spikelab_output != FORMAT {
        return Err(damaged(format!(
            "format {}, this spikelab reads {FORMAT}",
            m.spikelab_output
        )));
    }
    for f in &m.files {
        if !is_plain_relative(f) {
            return Err(damaged(format!("`{f}` is not a plain relative path")));
        }
    }
    Ok(m.files.into_iter().collect())
}

/// A path that stays inside the folder: relative, only normal components, not the marker.
fn is_plain_relative(f: &str) -> bool {
    let p = Path::new(f);
    !f.is_empty() && f != MARKER && p.components().all(|c| matches!(c, Component::Normal(_)))
}

fn write_marker(dir: &Path, files: &BTreeSet<String>) -> anyhow::Result<()> {
    let m = Marker {
        spikelab_output: FORMAT,
        spikelab_version: env!("CARGO_PKG_VERSION").to_owned(),
        files: files.iter().cloned().collect(),
    };
    let mut text = serde_json::to_string_pretty(&m)?;
    text.push('\n');
    let tmp = dir.join(format!("{MARKER}.tmp"));
    std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, dir.join(MARKER))
        .with_context(|| format!("writing {}", dir.join(MARKER).display()))
}

/// Every file under `dir`, relative and `/`-separated.
fn files_under(dir: &Path) -> anyhow::Result<BTreeSet<String>> {
    let mut found = BTreeSet::new();
    let mut todo = vec![PathBuf::new()];
    while let Some(rel) = todo.pop() {
        let here = dir.join(&rel);
        for e in std::fs::read_dir(&here).with_context(|| format!("reading {}", here.display()))? {
            let e = e?;
            let r = rel.join(e.file_name());
            if e.file_type()?.is_dir() {
                todo.push(r);
            } else {
                let parts: Vec<String> = r
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                found.insert(parts.join("/"));
            }
        }
    }
    Ok(found)
}

/// A file of the new output that would overwrite one spikelab did not write: the
/// folder and the file.
#[derive(Debug)]
pub struct Conflict(pub PathBuf, pub String);

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "--out {}: `{}` exists and spikelab did not write it; refusing to overwrite it",
            self.0.display(),
            self.1
        )
    }
}

impl std::error::Error for Conflict {}

/// Moves the finished `stage` into `out` and records the files in the marker.
///
/// * [`Target::New`]: `stage` is renamed to `out` (one step).
/// * [`Target::Owned`]: first every new file is checked against `out` — one that exists
///   there and is not listed in the marker stops the publication with [`Conflict`]
///   before anything is touched; then the marker lists old and new files (so an
///   interrupted publication leaves nothing unaccounted for), the old files in `scope`
///   that the new output lacks are removed, the new files are moved in, and the marker
///   is rewritten with the kept and the new files. Nothing else is deleted.
pub fn publish(stage: &Path, out: &Path, target: &Target, scope: &Scope) -> anyhow::Result<()> {
    let new = files_under(stage)?;
    let old = match target {
        Target::New => {
            write_marker(stage, &new)?;
            return std::fs::rename(stage, out)
                .with_context(|| format!("cannot move {} to {}", stage.display(), out.display()));
        }
        Target::Owned(old) => old,
    };
    if let Some(c) = new
        .iter()
        .find(|f| !old.contains(*f) && std::fs::symlink_metadata(out.join(f)).is_ok())
    {
        return Err(Conflict(out.to_path_buf(), c.clone()).into());
    }
    write_marker(out, &old.union(&new).cloned().collect())?;
    for f in old
        .iter()
        .filter(|f| scope.contains(f) && !new.contains(*f))
    {
        remove_own_file(out, f)?;
    }
    move_files(stage, out, &new)?;
    let kept = old.iter().filter(|f| !scope.contains(f)).chain(&new);
    write_marker(out, &kept.cloned().collect())?;
    std::fs::remove_dir_all(stage).with_context(|| format!("removing {}", stage.display()))
}

/// Moves each of `files` from `stage` to `out`, creating folders as needed and
/// replacing what is there.
fn move_files(stage: &Path, out: &Path, files: &BTreeSet<String>) -> anyhow::Result<()> {
    for f in files {
        let to = out.join(f);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::rename(stage.join(f), &to)
            .with_context(|| format!("cannot move {} into {}", f, out.display()))?;
    }
    Ok(())
}

/// Removes `out/f`, a file spikelab wrote, and then its folders up to `out` that are
/// left empty. A missing file is fine; a folder in its place is left alone.
fn remove_own_file(out: &Path, f: &str) -> anyhow::Result<()> {
    let path = out.join(f);
    match std::fs::symlink_metadata(&path) {
        Ok(m) if !m.is_dir() => {
            std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?
        }
        _ => return Ok(()),
    }
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d == out || std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, f: &str, text: &str) {
        let p = dir.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn set(fs: &[&str]) -> BTreeSet<String> {
        fs.iter().map(|f| f.to_string()).collect()
    }

    #[test]
    fn a_folder_with_a_meta_json_but_no_marker_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        write(tmp.path(), "meta.json", "{}");
        write(tmp.path(), "src/main.rs", "fn main() {}");
        let e = check_target(tmp.path()).unwrap_err().to_string();
        assert!(e.contains("no .spikelab-output marker"), "{e}");
    }

    #[test]
    fn missing_empty_and_marked_folders_are_accepted() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(check_target(&tmp.path().join("new")).unwrap(), Target::New);
        assert_eq!(
            check_target(tmp.path()).unwrap(),
            Target::Owned(BTreeSet::new())
        );
        write_marker(tmp.path(), &set(&["runs.csv"])).unwrap();
        assert_eq!(
            check_target(tmp.path()).unwrap(),
            Target::Owned(set(&["runs.csv"]))
        );
    }

    #[test]
    fn a_marker_naming_a_path_outside_the_folder_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let text = r#"{"spikelab_output": 1, "spikelab_version": "0", "files": ["../x"]}"#;
        write(tmp.path(), MARKER, text);
        let e = check_target(tmp.path()).unwrap_err().to_string();
        assert!(e.contains("not a plain relative path"), "{e}");
    }

    #[test]
    fn republishing_replaces_only_the_files_spikelab_wrote() {
        let tmp = tempfile::tempdir().unwrap();
        let (out, stage) = (tmp.path().join("out"), tmp.path().join("stage"));
        write(&stage, "runs.csv", "1");
        write(&stage, "trace/rep0.csv", "t");
        publish(&stage, &out, &Target::New, &Scope::All).unwrap();
        write(&out, "plots/rep0-tseq.png", "plot");
        write(&out, "notes.txt", "mine");
        let target = check_target(&out).unwrap();
        write(&stage, "runs.csv", "2");
        publish(&stage, &out, &target, &Scope::All).unwrap();
        assert_eq!(std::fs::read_to_string(out.join("runs.csv")).unwrap(), "2");
        assert!(
            !out.join("trace").exists(),
            "the stale trace and its folder go"
        );
        assert!(out.join("plots/rep0-tseq.png").is_file());
        assert!(out.join("notes.txt").is_file());
        assert!(!stage.exists());
        assert_eq!(
            check_target(&out).unwrap(),
            Target::Owned(set(&["runs.csv"]))
        );
    }

    #[test]
    fn a_new_file_over_a_user_file_stops_before_anything_is_touched() {
        let tmp = tempfile::tempdir().unwrap();
        let (out, stage) = (tmp.path().join("out"), tmp.path().join("stage"));
        write(&out, "runs.csv", "old");
        write(&out, "trace/rep0.csv", "user's");
        write_marker(&out, &set(&["runs.csv"])).unwrap();
        write(&stage, "runs.csv", "new");
        write(&stage, "trace/rep0.csv", "new");
        let target = check_target(&out).unwrap();
        let e = publish(&stage, &out, &target, &Scope::All).unwrap_err();
        assert!(e.downcast_ref::<Conflict>().is_some(), "{e:#}");
        assert_eq!(
            std::fs::read_to_string(out.join("runs.csv")).unwrap(),
            "old"
        );
        assert_eq!(
            std::fs::read_to_string(out.join("trace/rep0.csv")).unwrap(),
            "user's"
        );
    }

    #[test]
    fn a_scoped_publication_keeps_the_other_entries() {
        let tmp = tempfile::tempdir().unwrap();
        let (out, stage) = (tmp.path().join("out"), tmp.path().join("stage"));
        write(&out, "a/t.csv", "a");
        write(&out, "b/t.csv", "b");
        write(&out, "report.md", "ab");
        write_marker(&out, &set(&["a/t.csv", "b/t.csv", "report.md"])).unwrap();
        write(&stage, "a/u.csv", "a2");
        write(&stage, "report.md", "a2");
        let scope = Scope::Under(vec!["a".into(), "report.md".into()]);
        publish(&stage, &out, &check_target(&out).unwrap(), &scope).unwrap();
        assert!(!out.join("a/t.csv").exists());
        assert!(out.join("b/t.csv").is_file());
        assert_eq!(
            check_target(&out).unwrap(),
            Target::Owned(set(&["a/u.csv", "b/t.csv", "report.md"]))
        );
    }
}
