//! `spikelab reproduce` runs its papers, their grids and their runs as tasks of one
//! thread pool; what it writes does not depend on how many threads ran them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn spikelab(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spikelab"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the spikelab binary runs")
}

/// Every file under `dir`, relative to it, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            match p.is_dir() {
                true => todo.push(p),
                false => out.push(p.strip_prefix(dir).unwrap().to_path_buf()),
            }
        }
    }
    out.sort();
    out
}

#[test]
fn two_papers_at_once_write_the_bytes_one_thread_writes() {
    let tmp = tempfile::tempdir().unwrap();
    for (jobs, out) in [("1", "one"), ("2", "two")] {
        let args = [
            "reproduce",
            "gprs-eifel",
            "eifel-response",
            "--reps",
            "2",
            "--jobs",
            jobs,
            "--out",
            out,
        ];
        let o = spikelab(tmp.path(), &args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let (a, b) = (tmp.path().join("one"), tmp.path().join("two"));
    let names = files(&a);
    assert_eq!(names, files(&b));
    assert!(names.contains(&PathBuf::from("report.md")), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("eifel-response")));
    for n in &names {
        let (x, y) = (
            std::fs::read(a.join(n)).unwrap(),
            std::fs::read(b.join(n)).unwrap(),
        );
        assert!(
            x == y,
            "{} differs between --jobs 1 and --jobs 2",
            n.display()
        );
    }
}
