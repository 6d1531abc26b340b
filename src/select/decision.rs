//! A decision table: for one job and each message size, the candidate with
//! the smallest predicted time, the runner-up and the margin between them.

use crate::data::metrics::NEAR;
use crate::data::{Arrival, Candidate, Collective, Config, Mapping};
use crate::error::{Error, Result};
use crate::select::{Decider, Ranked};
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

/// How the jobs to decide for are given: a list of communicator sizes
/// spread over `nodes` nodes, or `nodes` × `ppn`.
pub struct Shapes<'a> {
    pub nodes: u32,
    pub ppn: Option<u32>,
    pub procs: Option<&'a [u64]>,
    pub mapping: Mapping,
    /// The arrival decided for: imbalance factor X (none: balanced) and
    /// pattern.
    pub imbalance: Option<f64>,
    pub arrival: Arrival,
}

impl Shapes<'_> {
    /// The jobs: one per communicator size, or the one job; 1-rank jobs
    /// (whose collectives send nothing) left out of a list, refused alone.
    pub fn jobs(&self) -> Result<Vec<Job>> {
        let mut shapes: Vec<(u32, u32, u32)> = match (self.procs, self.ppn) {
            (Some(list), _) => list
                .iter()
                .map(|&p| {
                    let procs = u32::try_from(p)
                        .map_err(|_| Error::Usage(format!("--procs {p} is too large")))?;
                    let nodes = self.nodes.min(procs);
                    Ok((procs, nodes, procs.div_ceil(nodes.max(1))))
                })
                .collect::<Result<_>>()?,
            (None, Some(ppn)) => {
                let procs = self
                    .nodes
                    .checked_mul(ppn)
                    .ok_or_else(|| Error::Usage("--nodes x --ppn is too large".into()))?;
                vec![(procs, self.nodes, ppn)]
            }
            (None, None) => return Err(Error::Usage("give --ppn or --procs".into())),
        };
        if shapes.iter().all(|&(procs, ..)| procs == 1) {
            return Err(Error::Usage(
                "a job of 1 rank: its collectives send nothing, so there is nothing to decide; \
                 give 2 ranks or more"
                    .into(),
            ));
        }
        if shapes.iter().any(|&(procs, ..)| procs == 1) {
            eprintln!("note: --procs 1 left out: a 1-rank collective sends nothing");
            shapes.retain(|&(procs, ..)| procs > 1);
        }
        shapes
            .into_iter()
            .map(|(procs, nodes, ppn)| {
                crate::data::Placement::new(procs, nodes, ppn, self.mapping.node_order())
                    .map_err(|why| Error::Usage(format!("job of {procs} ranks: {why}")))?;
                Ok(Job {
                    nodes,
                    ppn,
                    procs,
                    mapping: self.mapping,
                    imbalance: self.imbalance.unwrap_or(0.0),
                    arrival: self.arrival,
                })
            })
            .collect()
    }
}

/// The message sizes to decide `collective` for: those `asked`, or those
/// `trained` on; a collective of no data returns at once in Open MPI and
/// MPICH, so there is nothing to decide at 0 B, except a barrier's, whose
/// only size is 0.
pub fn sizes(collective: Collective, asked: Option<&[u64]>, trained: &[u64]) -> Result<Vec<u64>> {
    if !collective.describe().semantics.sized {
        return Ok(vec![0]);
    }
    match asked {
        Some(list) if list.contains(&0) => Err(Error::Usage(
            "--sizes has 0 B: a collective of no data returns without communicating, so there \
             is nothing to decide; give sizes of 1 byte or more"
                .into(),
        )),
        Some(list) => Ok(list.to_vec()),
        None => Ok(trained.iter().copied().filter(|&m| m > 0).collect()),
    }
}

impl Job {
    /// The job a configuration belongs to.
    pub fn of(c: &Config) -> Job {
        Job {
            nodes: c.nodes,
            ppn: c.ppn,
            procs: c.procs,
            mapping: c.mapping,
            imbalance: c.imbalance,
            arrival: c.arrival,
        }
    }

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
    /// Outside the job and message sizes the model was trained on.
    pub extrapolated: bool,
    /// The choice's predicted time is the floor (the fastest time measured
    /// at the size, see [`crate::select::measured::Floor`]): the model
    /// predicted less, so the time is a bound, not a prediction.
    pub at_floor: bool,
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

/// Which candidate to take at each size (an index into its ranking), so
/// that the table changes its choice as rarely as the predictions allow.
/// A size may take a neighbour's choice instead of its own when that is
/// predicted within [`NEAR`] of its own: a difference the measurements
/// cannot resolve, and a rules file with fewer, longer ranges. `default`
/// is never traded for a switch: where a size keeps the library's choice,
/// only `default` is acceptable; where it switches, `default` and the
/// other candidates within noise are. Greedy interval covering (extend a
/// range while its candidate stays acceptable, start the next with the
/// candidate acceptable farthest ahead, preferring the sizes' own choice
/// and then `default`) gives the fewest ranges.
pub fn settle(ranked: &[Vec<Ranked>]) -> Vec<usize> {
    let acceptable = |at: usize, c: &Candidate| -> Option<usize> {
        let r = &ranked[at];
        let own = &r[0];
        if own.candidate == *c {
            return Some(0);
        }
        if own.candidate.is_default() {
            return None;
        }
        let i = r.iter().position(|x| x.candidate == *c)?;
        (r[i].predicted_us <= (1.0 + NEAR) * own.predicted_us).then_some(i)
    };
    let reach = |from: usize, c: &Candidate| {
        (from..ranked.len())
            .take_while(|&at| acceptable(at, c).is_some())
            .count()
    };
    let mut picks = Vec::with_capacity(ranked.len());
    let mut at = 0;
    while at < ranked.len() {
        let own = ranked[at][0].candidate;
        let best = ranked[at]
            .iter()
            .map(|r| r.candidate)
            .filter(|c| acceptable(at, c).is_some())
            .max_by_key(|c| (reach(at, c), *c == own, c.is_default()))
            .unwrap_or(own);
        let n = reach(at, &best).max(1);
        for k in at..at + n {
            picks.push(acceptable(k, &best).unwrap_or(0));
        }
        at += n;
    }
    picks
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DecisionTable {
    pub job: Job,
    pub learner: String,
    pub decisions: Vec<Decision>,
}

impl DecisionTable {
    /// Decides every size in `sizes` (ascending) for `job`, then settles
    /// the table (see [`settle`]). Fails when the selector can predict no
    /// candidate for a size.
    pub fn new(
        decider: &Decider,
        job: Job,
        learner: String,
        sizes: &[u64],
        allowed: Option<&[bool]>,
    ) -> crate::Result<DecisionTable> {
        let ranked: Vec<Vec<Ranked>> = sizes
            .iter()
            .map(|&m| {
                let config = job.config(m);
                let ranked = decider.rank(&config, allowed);
                if ranked.is_empty() {
                    return Err(crate::Error::Other(format!(
                        "{learner} can predict no candidate for {config}"
                    )));
                }
                Ok(ranked)
            })
            .collect::<crate::Result<_>>()?;
        let picks = settle(&ranked);
        let decisions = sizes
            .iter()
            .zip(&ranked)
            .zip(picks)
            .map(|((&m, ranked), pick)| {
                let choice = Choice::from(ranked[pick]);
                let runner_up = ranked
                    .iter()
                    .enumerate()
                    .find(|(i, _)| *i != pick)
                    .map(|(_, r)| Choice::from(*r));
                let margin = runner_up
                    .map(|r| r.predicted_us / choice.predicted_us - 1.0)
                    .filter(|m| m.is_finite());
                Decision {
                    msg_bytes: m,
                    choice,
                    runner_up,
                    margin,
                    extrapolated: decider.distance(&job.config(m)) > 0.0,
                    at_floor: decider.at_floor(&job.config(m), &choice),
                }
            })
            .collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Algorithm;

    fn ranked(order: &[(Algorithm, f64)]) -> Vec<Ranked> {
        order
            .iter()
            .enumerate()
            .map(|(index, &(algorithm, predicted_us))| Ranked {
                index,
                candidate: Candidate {
                    algorithm,
                    ..Candidate::DEFAULT
                },
                predicted_us,
            })
            .collect()
    }

    /// A lone size whose own choice beats its neighbours' by less than the
    /// noise takes theirs; a size that keeps `default` is never switched;
    /// a clear winner stays.
    #[test]
    fn settling_merges_only_what_noise_cannot_tell_apart() {
        use Algorithm::*;
        let sizes = [
            ranked(&[(Chain, 10.0), (Binomial, 10.2), (Default, 12.0)]),
            ranked(&[(Binomial, 10.0), (Chain, 10.3), (Default, 12.0)]),
            ranked(&[(Chain, 10.0), (Binomial, 10.4), (Default, 12.0)]),
            ranked(&[(Default, 10.0), (Chain, 9.9)]),
            ranked(&[(Binomial, 5.0), (Chain, 10.0), (Default, 12.0)]),
        ];
        let picks = settle(&sizes);
        let chosen: Vec<Algorithm> = picks
            .iter()
            .zip(&sizes)
            .map(|(&i, r)| r[i].candidate.algorithm)
            .collect();
        assert_eq!(chosen, [Chain, Chain, Chain, Default, Binomial]);
    }
}
