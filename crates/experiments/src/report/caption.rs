//! Figure captions checked against the run they show: what the plotted run's timer
//! did (read from its trace, the simulator's ground truth), and whether it shows the
//! event the paper's figure is about.

use serde::Deserialize;
use spikelab_core::trace::{TraceEvent, TraceRecord};
use spikelab_core::FlowId;

/// An event a paper's figure is drawn to show, which the plotted run must show too.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Shows {
    /// At least one spurious timeout.
    SpuriousTimeout,
    /// A genuine timeout after a spurious one (e.g. [Gurtov & Ludwig 2002] Fig. 7).
    GenuineAfterSpurious,
    /// At least one genuine timeout.
    GenuineTimeout,
    /// No genuine timeout (e.g. [Gurtov & Ludwig 2003] Fig. 9b).
    NoGenuineTimeout,
}

impl Shows {
    /// The event in words, for a caption.
    pub fn words(self) -> &'static str {
        match self {
            Shows::SpuriousTimeout => "a spurious timeout",
            Shows::GenuineAfterSpurious => "a genuine timeout after a spurious one",
            Shows::GenuineTimeout => "a genuine timeout",
            Shows::NoGenuineTimeout => "a download without a genuine timeout",
        }
    }
}

/// The expiries of one flow's retransmission timer in a run, in seconds, by kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeouts {
    pub spurious: Vec<f64>,
    pub genuine: Vec<f64>,
}

impl Timeouts {
    /// The timer expiries of `flow` in `records`.
    pub fn of(records: &[TraceRecord], flow: FlowId) -> Timeouts {
        let mut t = Timeouts::default();
        for r in records.iter().filter(|r| r.flow == flow) {
            if let TraceEvent::Timeout { spurious, .. } = r.event {
                let at = r.time.as_secs_f64();
                if spurious {
                    t.spurious.push(at);
                } else {
                    t.genuine.push(at);
                }
            }
        }
        t
    }

    /// Whether the run shows `what`.
    pub fn shows(&self, what: Shows) -> bool {
        match what {
            Shows::SpuriousTimeout => !self.spurious.is_empty(),
            Shows::GenuineAfterSpurious => match self.spurious.first() {
                Some(first) => self.genuine.iter().any(|g| g > first),
                None => false,
            },
            Shows::GenuineTimeout => !self.genuine.is_empty(),
            Shows::NoGenuineTimeout => self.genuine.is_empty(),
        }
    }

    /// One sentence: the expiries of each kind and when the first few happened.
    pub fn sentence(&self, seed: u64) -> String {
        format!(
            "The plotted run (seed {seed}) has {} and {} (simulator's ground truth).",
            kind(&self.spurious, "spurious"),
            kind(&self.genuine, "genuine")
        )
    }
}

fn kind(at: &[f64], what: &str) -> String {
    const SHOWN: usize = 5;
    match at.len() {
        0 => format!("no {what} timer expiry"),
        n => {
            let times: Vec<String> = at.iter().take(SHOWN).map(|t| super::number(*t)).collect();
            let more = if n > SHOWN { ", ..." } else { "" };
            let s = if n == 1 { "y" } else { "ies" };
            format!("{n} {what} expir{s} (at {}{more} s)", times.join(", "))
        }
    }
}

/// The sentence a caption gains when the plotted seed was chosen by its rule
/// (`seed_rule = "first-showing"`): which rule, so the choice is not hidden.
pub fn chosen_sentence(seed: u64, tried: u64, what: Shows) -> String {
    format!(
        " Seed {seed} is plotted by the figure's stated rule: the first of seeds 1 to {tried} whose run shows {}.",
        what.words()
    )
}

/// The caption of a figure of one run: the title, what the run shows, and, when the
/// figure is meant to show `expect` and this run does not, that it does not and which
/// seed's run does (`first_showing`: that seed and how many seeds were tried).
pub fn caption(
    title: &str,
    seed: u64,
    run: &Timeouts,
    expect: Option<Shows>,
    first_showing: Option<(u64, u64)>,
) -> String {
    let mut out = format!("{title}. {}", run.sentence(seed));
    if let Some(e) = expect.filter(|e| !run.shows(*e)) {
        out.push_str(&format!(
            " **This run does not show {} as the paper's figure does**",
            e.words()
        ));
        match first_showing {
            Some((s, tried)) => out.push_str(&format!(
                "; the first of seeds 1 to {tried} whose run shows it is seed {s}."
            )),
            None => out.push('.'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::Time;

    fn rec(secs: u64, spurious: bool) -> TraceRecord {
        TraceRecord {
            time: Time::from_secs_f64(secs as f64),
            flow: FlowId(0),
            event: TraceEvent::Timeout { seq: 0, spurious },
        }
    }

    #[test]
    fn a_genuine_expiry_before_the_first_spurious_one_does_not_count() {
        let t = Timeouts::of(&[rec(5, false), rec(9, true)], FlowId(0));
        assert!(t.shows(Shows::SpuriousTimeout));
        assert!(!t.shows(Shows::GenuineAfterSpurious));
        let t = Timeouts::of(&[rec(5, true), rec(9, false)], FlowId(0));
        assert!(t.shows(Shows::GenuineAfterSpurious));
    }

    #[test]
    fn the_caption_says_when_the_run_misses_the_figures_event() {
        let t = Timeouts::of(&[rec(12, true), rec(13, true)], FlowId(0));
        let c = caption(
            "Fig. 7",
            4,
            &t,
            Some(Shows::GenuineAfterSpurious),
            Some((9, 100)),
        );
        assert!(c.starts_with("Fig. 7. The plotted run (seed 4) has 2 spurious expiries (at 12.00, 13.00 s) and no genuine timer expiry"), "{c}");
        assert!(c.contains("does not show a genuine timeout after a spurious one"));
        assert!(c.contains("the first of seeds 1 to 100 whose run shows it is seed 9"));
        let ok = caption("Fig. 3", 1, &t, Some(Shows::SpuriousTimeout), None);
        assert!(!ok.contains("does not show"), "{ok}");
    }
}
