//! Ground truth: what each retransmission timeout really was, and which verdicts judged
//! it.
//!
//! The world hands over, at every expiry of a sender's timer, what the network held at
//! that instant ([`Facts`]) and what the sender says the expiry was
//! ([`TimerDecision`](crate::transport::TimerDecision)); [`classify`] turns the facts into a
//! [`Truth`], and the [`Ledger`] keeps one [`TimeoutRecord`] per data timeout, indexed by
//! the sender's own timeout number. Verdicts attach by identity:
//!
//! * a sender detector's verdict names the timeouts it judged by number
//!   ([`EpisodeVerdict`]'s `from_timeout..=to_timeout`), and so does a fast-timeout
//!   report;
//! * a middlebox that runs a detector (see
//!   [`Middlebox::detector`](spikelab_net::Middlebox::detector)) cannot know the sender's
//!   numbers: its verdict covers the flow's timeouts up to its time that this detector
//!   has not judged yet.
//!
//! A sender's verdict or fast-timeout report that names no timeout is a broken
//! invariant (the sender and the world disagree), never silently dropped. A box's
//! verdict that covers no timeout is not: the box infers a timeout from a retransmission
//! it sees, and a fast retransmission or a SYN retransmission can look like one, so
//! such a verdict is the box's false alarm. [`Ledger::finish`] hands those back and the
//! world counts them per flow ([`FlowResult::unmatched_box_verdicts`]).

pub use crate::facts::{classify, Facts, Truth};
use crate::results::{DetectorVerdict, FlowResult, TimeoutRecord};
use crate::transport::Judgements;
use spikelab_core::Time;
use spikelab_tcp::spurious::{DetectorKind, Verdict};

/// A middlebox's verdict: the detector it runs, the flow, when, and the conclusion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoxVerdict {
    pub detector: DetectorKind,
    pub flow: usize,
    pub at: Time,
    pub verdict: Verdict,
}

/// The ledger's result at the end of a run.
#[derive(Clone, Debug)]
pub struct Finished {
    /// Every data timeout, in order, with its verdicts.
    pub records: Vec<TimeoutRecord>,
    /// Box verdicts that covered none of the flow's timeouts (false alarms).
    pub unmatched_box_verdicts: Vec<BoxVerdict>,
}

/// Every data timeout of a run, in order, with a per-flow index by timeout number.
#[derive(Clone, Debug)]
pub struct Ledger {
    records: Vec<TimeoutRecord>,
    /// Per flow, the index in `records` of its timeout number k.
    by_number: Vec<Vec<usize>>,
    box_verdicts: Vec<BoxVerdict>,
}

impl Ledger {
    /// An empty ledger for `flows` flows.
    pub fn new(flows: usize) -> Ledger {
        Ledger {
            records: Vec::new(),
            by_number: vec![Vec::new(); flows],
            box_verdicts: Vec::new(),
        }
    }

    /// Records data timeout `number` of its flow and counts it in the flow's result.
    /// The sender numbers its timeouts 0, 1, ... as they happen; any other number means
    /// the world and the sender disagree about what expired.
    pub fn on_timeout(
        &mut self,
        number: u64,
        rec: TimeoutRecord,
        r: &mut FlowResult,
    ) -> Result<(), String> {
        let f = rec.flow as usize;
        let expected = self.by_number[f].len() as u64;
        if number != expected {
            return Err(format!(
                "flow {f}: the sender numbered its timeout {number}, the world expected {expected}"
            ));
        }
        count(r, &rec);
        self.by_number[f].push(self.records.len());
        self.records.push(rec);
        Ok(())
    }

    /// Notes a middlebox's verdict; it is attached when the run ends.
    pub fn on_box_verdict(&mut self, v: BoxVerdict) {
        self.box_verdicts.push(v);
    }

    /// The records with every verdict attached (each sender's, by timeout number, first,
    /// then the boxes'), and the box verdicts that covered no timeout.
    pub fn finish(mut self, senders: &[Option<Judgements>]) -> Result<Finished, String> {
        for (f, s) in senders.iter().enumerate() {
            if let Some(s) = s {
                self.attach_sender(f, s)?;
            }
        }
        let mut unmatched = Vec::new();
        for v in std::mem::take(&mut self.box_verdicts) {
            if !self.attach_box(&v) {
                unmatched.push(v);
            }
        }
        Ok(Finished {
            records: self.records,
            unmatched_box_verdicts: unmatched,
        })
    }

    fn record(&mut self, f: usize, number: u64) -> Result<&mut TimeoutRecord, String> {
        let i = self.by_number[f]
            .get(number as usize)
            .copied()
            .ok_or_else(|| {
                format!("flow {f}: a verdict names timeout {number}, which has no record")
            })?;
        Ok(&mut self.records[i])
    }

    fn attach_sender(&mut self, f: usize, s: &Judgements) -> Result<(), String> {
        for &k in s.fast_timeouts {
            self.record(f, k)?.fast = true;
        }
        for v in s.verdicts {
            for k in v.from_timeout..=v.to_timeout {
                self.record(f, k)?.verdicts.push(DetectorVerdict {
                    detector: v.detector,
                    verdict: v.verdict,
                    at: v.at,
                    drove: v.drove,
                });
            }
        }
        Ok(())
    }

    /// A box's verdict covers the flow's timeouts up to its time that its detector has
    /// not judged yet (the episode since its previous verdict); false if there is none.
    fn attach_box(&mut self, v: &BoxVerdict) -> bool {
        let mut judged = 0;
        for &i in &self.by_number[v.flow] {
            let rec = &mut self.records[i];
            let already = rec.verdicts.iter().any(|x| x.detector == v.detector);
            if rec.time <= v.at && !already {
                rec.verdicts.push(DetectorVerdict {
                    detector: v.detector,
                    verdict: v.verdict,
                    at: v.at,
                    drove: false,
                });
                judged += 1;
            }
        }
        judged > 0
    }
}

/// Counts a timeout in its flow's totals, per expiry and per episode.
fn count(r: &mut FlowResult, rec: &TimeoutRecord) {
    let spurious = rec.truth.is_spurious();
    r.timeouts += 1;
    if spurious {
        r.spurious_timeouts += 1;
    } else {
        r.genuine_timeouts += 1;
    }
    if rec.starts_episode() {
        r.timeout_episodes += 1;
        if spurious {
            r.spurious_timeout_episodes += 1;
        } else {
            r.genuine_timeout_episodes += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::Dur;
    use spikelab_tcp::spurious::EpisodeVerdict;

    fn rec(flow: u32, secs: u64, backoff: u32) -> TimeoutRecord {
        TimeoutRecord {
            time: Time::ZERO + Dur::from_secs(secs),
            flow,
            seq: 0,
            rto: Dur::from_secs(1),
            last_rtt: None,
            backoff,
            truth: Truth::SpuriousDataDelayed,
            in_fast_recovery: false,
            fast: false,
            verdicts: Vec::new(),
        }
    }

    fn verdict(detector: DetectorKind, from: u64, to: u64) -> EpisodeVerdict {
        EpisodeVerdict {
            detector,
            verdict: Verdict::Spurious,
            at: Time::ZERO + Dur::from_secs(9),
            from_timeout: from,
            to_timeout: to,
            drove: true,
        }
    }

    #[test]
    fn sender_verdicts_attach_by_number_across_interleaved_flows() {
        let mut l = Ledger::new(2);
        let mut r = FlowResult::default();
        l.on_timeout(0, rec(0, 1, 0), &mut r).unwrap();
        l.on_timeout(0, rec(1, 2, 0), &mut r).unwrap();
        l.on_timeout(1, rec(0, 3, 1), &mut r).unwrap();
        let v = [verdict(DetectorKind::Eifel, 0, 1)];
        let s = Judgements {
            fast_timeouts: &[1],
            verdicts: &v,
        };
        let out = l.finish(&[Some(s), None]).unwrap().records;
        let judged: Vec<_> = out
            .iter()
            .map(|r| (r.flow, r.verdicts.len(), r.fast))
            .collect();
        assert_eq!(judged, [(0, 1, false), (1, 0, false), (0, 1, true)]);
        assert_eq!((r.timeouts, r.timeout_episodes), (3, 2));
    }

    #[test]
    fn a_verdict_naming_a_timeout_without_record_is_an_error() {
        let mut l = Ledger::new(1);
        l.on_timeout(0, rec(0, 1, 0), &mut FlowResult::default())
            .unwrap();
        let v = [verdict(DetectorKind::Eifel, 0, 1)];
        let s = Judgements {
            fast_timeouts: &[],
            verdicts: &v,
        };
        let e = l.finish(&[Some(s)]).unwrap_err();
        assert!(e.contains("timeout 1"), "{e}");
    }

    #[test]
    fn a_timeout_numbered_out_of_order_is_an_error() {
        let mut l = Ledger::new(1);
        let e = l
            .on_timeout(1, rec(0, 1, 0), &mut FlowResult::default())
            .unwrap_err();
        assert!(e.contains("expected 0"), "{e}");
    }

    #[test]
    fn a_box_verdict_covers_its_episode_once_and_an_empty_one_is_a_false_alarm() {
        let mut l = Ledger::new(1);
        let mut r = FlowResult::default();
        l.on_timeout(0, rec(0, 1, 0), &mut r).unwrap();
        l.on_timeout(1, rec(0, 2, 1), &mut r).unwrap();
        l.on_timeout(2, rec(0, 8, 0), &mut r).unwrap();
        let at = |s| Time::ZERO + Dur::from_secs(s);
        let v = |s| BoxVerdict {
            detector: DetectorKind::StdProxy,
            flow: 0,
            at: at(s),
            verdict: Verdict::Genuine,
        };
        l.on_box_verdict(v(3));
        l.on_box_verdict(v(9));
        l.on_box_verdict(v(10));
        let out = l.finish(&[None]).unwrap();
        let at_of = |i: usize| out.records[i].verdicts[0].at;
        assert_eq!((at_of(0), at_of(1), at_of(2)), (at(3), at(3), at(9)));
        assert!(out.records.iter().all(|r| r.verdicts.len() == 1));
        assert_eq!(out.unmatched_box_verdicts, [v(10)]);
    }
}
