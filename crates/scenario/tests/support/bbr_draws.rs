//! BBR's gain-cycle draws of a recorded kernel run (the recordings' `bbr_draws`
//! column, read from the run's pacing gain by scripts/bbr_draws.py), replayed by the
//! model's BBR (`linux.bbr_cycle_draws`).

/// A `bbr_draws` cell: empty when the run was recorded without BBR's series, `-` when
/// it was and BBR never entered PROBE_BW, else the draws separated by `;`.
pub fn draws(cell: &str) -> Option<Vec<u8>> {
    match cell {
        "" => None,
        "-" => Some(Vec::new()),
        _ => Some(cell.split(';').map(|d| d.parse().unwrap()).collect()),
    }
}

/// The scenario with BBR replaying `draws` where a run has them: its one `linux`
/// table gains `bbr_cycle_draws`.
pub fn replayed(text: String, draws: Option<&[u8]>) -> String {
    let Some(draws) = draws else {
        return text;
    };
    let listed: Vec<String> = draws.iter().map(u8::to_string).collect();
    let table = format!("linux = {{ bbr_cycle_draws = [{}], ", listed.join(", "));
    assert_eq!(text.matches("linux = { ").count(), 1, "one linux table");
    text.replacen("linux = { ", &table, 1)
}
