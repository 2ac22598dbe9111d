//! The answer in words: the first paragraph of advise's output. What to change (or
//! that nothing needs changing), how many rows are better, equivalent, worse or unclear
//! against the margin, which kinds of fix matter on this path and which do not, and
//! where the rows differ when the objective does not tell them apart.

use super::decide::Decision;
use super::fixes::Group;
use super::format::{number, signed};
use super::{metric_index, Advice, Row};

/// `x` with the objective's unit.
fn amount(a: &Advice, x: f64) -> String {
    format!("{}{}", number(x), a.objective.unit())
}

/// A row's difference to the baseline in units and in % of the baseline's mean.
pub fn effect(a: &Advice, r: &Row) -> String {
    let d = r.vs_baseline.mean;
    let sign = if d >= 0.0 { "+" } else { "" };
    match percent(a, d) {
        Some(p) => format!("{sign}{} ({} %)", amount(a, d), signed(p)),
        None => format!("{sign}{}", amount(a, d)),
    }
}

/// `d` in % of the baseline's mean objective (None when that mean is 0: no percentage
/// of nothing).
pub fn percent(a: &Advice, d: f64) -> Option<f64> {
    let m = metric_index(a.objective.metric());
    let base = a.baseline().summary[m].mean;
    (base != 0.0 && base.is_finite() && d.is_finite()).then(|| 100.0 * d / base)
}

/// Rows decided `d`, ranked (repeats included).
fn with(a: &Advice, d: Decision) -> Vec<&Row> {
    a.rows.iter().filter(|r| r.decision() == Some(d)).collect()
}

/// The first paragraph: the answer a user acts on.
pub fn answer(a: &Advice) -> String {
    let mut out = vec![headline(a)];
    out.push(counts(a));
    out.extend(matters(a));
    out.extend(differences(a));
    out.extend(avoid(a));
    out.join(" ")
}

/// The gain of a row over the baseline (positive: better).
fn gain(a: &Advice, r: &Row) -> f64 {
    let sign = if a.objective.lower_is_better() {
        -1.0
    } else {
        1.0
    };
    sign * r.vs_baseline.mean
}

/// The change to recommend: the better row of largest gain, unless a single fix comes
/// within the margin of it (then the single fix: one change, not several).
fn recommended(a: &Advice) -> Option<&Row> {
    let better = with(a, Decision::Better);
    let best = better
        .iter()
        .copied()
        .max_by(|x, y| gain(a, x).total_cmp(&gain(a, y)))?;
    let single = better
        .iter()
        .copied()
        .filter(|r| r.candidate.group() != Some(Group::Combination))
        .max_by(|x, y| gain(a, x).total_cmp(&gain(a, y)));
    Some(match single {
        Some(s) if gain(a, s) >= gain(a, best) - a.margin.value => s,
        _ => best,
    })
}

fn headline(a: &Advice) -> String {
    let what = a.objective.noun();
    let m = metric_index(a.objective.metric());
    let margin = amount(a, a.margin.value);
    if let Some(best) = recommended(a) {
        let mut s = format!(
            "**Make one change: {}** ({}): {what} {} against {} as given, {}, beyond the \
             ±{margin} that matters.",
            best.candidate.label,
            best.candidate.side().map_or("", |s| s.label()),
            amount(a, best.summary[m].mean),
            amount(a, a.baseline().summary[m].mean),
            effect(a, best)
        );
        let combined = with(a, Decision::Better)
            .iter()
            .any(|r| r.candidate.group() == Some(Group::Combination));
        if combined && best.candidate.group() != Some(Group::Combination) {
            s += " No better combination gains more than the margin beyond it.";
        }
        return s;
    }
    let unclear = with(a, Decision::Unclear);
    if unclear.is_empty() {
        return format!(
            "**None: no fix changes the {what} by more than ±{margin}; the path itself \
             (its capacity and delays) decides.**"
        );
    }
    let most = unclear
        .iter()
        .filter_map(|r| r.verdict.map(|v| gain(a, r) + v.half_width))
        .fold(f64::NEG_INFINITY, f64::max);
    format!(
        "**No fix is shown to help: none is better than the path as given by more than \
         ±{margin}.** {} row(s) stay unclear after {} repetitions; none of them can gain \
         more than {} (the best end of their corrected intervals).",
        unclear.len(),
        a.reps,
        amount(a, most.max(0.0))
    )
}

fn counts(a: &Advice) -> String {
    let n = |d| with(a, d).len();
    format!(
        "Of {} rows ({} distinct comparisons, Holm-corrected), {} are better, {} \
         equivalent, {} worse and {} unclear.",
        a.rows.len() - 1,
        a.comparisons,
        n(Decision::Better),
        n(Decision::Equivalent),
        n(Decision::Worse),
        n(Decision::Unclear)
    )
}

/// Which kinds of fix move the objective beyond the margin, and which do not.
fn matters(a: &Advice) -> Vec<String> {
    let groups = [
        Group::Detection,
        Group::Estimator,
        Group::Stack,
        Group::Transport,
        Group::Network,
        Group::Combination,
    ];
    let (mut yes, mut no) = (Vec::new(), Vec::new());
    for g in groups {
        let rows: Vec<&Row> = a
            .rows
            .iter()
            .filter(|r| r.candidate.group() == Some(g))
            .collect();
        let moved = rows
            .iter()
            .filter(|r| matches!(r.decision(), Some(Decision::Better | Decision::Worse)))
            .count();
        let equal = rows
            .iter()
            .filter(|r| r.decision() == Some(Decision::Equivalent))
            .count();
        if moved > 0 {
            let better = rows
                .iter()
                .filter(|r| r.decision() == Some(Decision::Better))
                .count();
            yes.push(format!(
                "{} ({better} better, {} worse of {})",
                g.label(),
                moved - better,
                rows.len()
            ));
        } else if !rows.is_empty() && equal == rows.len() {
            no.push(format!(
                "{} (all {} within the margin)",
                g.label(),
                rows.len()
            ));
        }
    }
    let mut out = Vec::new();
    if !yes.is_empty() {
        out.push(format!(
            "What moves it beyond the margin on this path: {}.",
            yes.join(", ")
        ));
    }
    if !no.is_empty() {
        out.push(format!("What does not: {}.", no.join(", ")));
    }
    out
}

/// Where the rows the objective does not tell apart (the equivalent ones and the
/// baseline) differ: the spread of the secondary counts.
fn differences(a: &Advice) -> Option<String> {
    let spread = |k: &str| {
        let v: Vec<f64> = a
            .rows
            .iter()
            .filter(|r| matches!(r.decision(), None | Some(Decision::Equivalent)))
            .map(|r| r.summary[metric_index(k)].mean)
            .filter(|x| x.is_finite())
            .collect();
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (hi - lo >= 1.0).then_some((lo, hi))
    };
    let parts: Vec<String> = [
        ("unnecessary_retransmissions", "unnecessary retransmissions"),
        ("spurious_timeouts", "spurious timeouts"),
    ]
    .into_iter()
    .filter(|(k, _)| *k != a.objective.metric())
    .filter_map(|(k, what)| {
        spread(k).map(|(lo, hi)| format!("{what} from {} to {}", number(lo), number(hi)))
    })
    .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "Where the equivalent rows differ instead: {} per download.",
            parts.join(", ")
        )
    })
}

fn avoid(a: &Advice) -> Option<String> {
    let worse = with(a, Decision::Worse);
    let worst = worse.last()?;
    Some(format!(
        "Avoid the {} worse row(s); the worst, {}, changes it by {}.",
        worse.len(),
        worst.candidate.label,
        effect(a, worst)
    ))
}
