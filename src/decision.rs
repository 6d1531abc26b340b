//! A decision table: for one job and each message size, the candidate with
//! the smallest predicted time, the runner-up and the margin between them.

use crate::data::{Arrival, Candidate, Config, Mapping};
use crate::select::{Rank, Ranked};
use serde::Serialize;

/// The job a table is for.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Job {
    pub nodes: u32,
    pub ppn: u32,
    pub procs: u32,
    pub mapping: Mapping,
    /// The arrival the decisions are for: imbalance factor X and pattern.
    pub imbalance: f64,
    pub arrival: Arrival,
}

impl Job {
    pub fn config(&self, msg_bytes: u64) -> Config {
        Config {
            procs: self.procs,
            nodes: self.nodes,
            ppn: self.ppn,
            mapping: self.mapping,
            msg_bytes,
            imbalance: self.imbalance,
            arrival: self.arrival,
        }
    }
}

#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Choice {
    pub candidate: Candidate,
    pub predicted_us: f64,
}

impl From<Ranked> for Choice {
    fn from(r: Ranked) -> Choice {
        Choice {
            candidate: r.candidate,
            predicted_us: r.predicted_us,
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Decision {
    pub msg_bytes: u64,
    pub choice: Choice,
    pub runner_up: Option<Choice>,
    /// How much slower the runner-up is predicted to be (0.05 = 5%).
    pub margin: Option<f64>,
}

/// Consecutive sizes with the same choice.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Range {
    pub from_bytes: u64,
    pub to_bytes: u64,
    pub candidate: Candidate,
    /// Indices into the table's decisions.
    pub first: usize,
    pub last: usize,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DecisionTable {
    pub job: Job,
    pub learner: String,
    pub decisions: Vec<Decision>,
}

impl DecisionTable {
    /// Decides every size in `sizes` (ascending) for `job`. Fails when the
    /// selector can predict no candidate for a size.
    pub fn new(
        selector: &dyn Rank,
        job: Job,
        learner: String,
        sizes: &[u64],
    ) -> Result<DecisionTable, String> {
        let decisions = sizes
            .iter()
            .map(|&m| {
                let config = job.config(m);
                let ranked = selector.rank(&config, None);
                let choice =
                    Choice::from(*ranked.first().ok_or_else(|| {
                        format!("{learner} can predict no candidate for {config}")
                    })?);
                let runner_up = ranked.get(1).copied().map(Choice::from);
                Ok(Decision {
                    msg_bytes: m,
                    choice,
                    runner_up,
                    margin: runner_up.map(|r| r.predicted_us / choice.predicted_us - 1.0),
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(DecisionTable {
            job,
            learner,
            decisions,
        })
    }

    /// The choice as rules: (first message size it applies to, candidate),
    /// the first from 0 B, each later one from the first size predicted
    /// for it. Sizes between two predicted sizes keep the lower one's choice.
    pub fn rules(&self) -> Vec<(u64, Candidate)> {
        self.ranges()
            .iter()
            .enumerate()
            .map(|(i, r)| (if i == 0 { 0 } else { r.from_bytes }, r.candidate))
            .collect()
    }

    pub fn ranges(&self) -> Vec<Range> {
        let mut out: Vec<Range> = Vec::new();
        for (i, d) in self.decisions.iter().enumerate() {
            match out.last_mut() {
                Some(r) if r.candidate == d.choice.candidate => {
                    r.to_bytes = d.msg_bytes;
                    r.last = i;
                }
                _ => out.push(Range {
                    from_bytes: d.msg_bytes,
                    to_bytes: d.msg_bytes,
                    candidate: d.choice.candidate,
                    first: i,
                    last: i,
                }),
            }
        }
        out
    }
}
