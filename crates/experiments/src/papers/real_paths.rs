//! Not a paper: the study of issue 41, the five papers' fixes (Eifel and F-RTO with the
//! RFC 4015 response, Peak-Hopper, the STD proxy, delay injection) and Linux hosts on
//! every path of the real-path library (`scenarios/paths/`), paired by seed and
//! Holm-corrected per path. All of it `experiments/real-paths.toml`;
//! docs/src/study-real-paths.md. It is in the default set of `spikelab reproduce`: its
//! 70 cells of one download each cost a few percent of the papers' time.

use crate::reproduction::from_file::FromFile;

/// The study.
pub static REAL_PATHS: FromFile = FromFile::new(
    "real-paths",
    "The five papers' fixes on the real-path library (issue 41)",
    "real-paths.toml",
);
