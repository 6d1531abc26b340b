//! The time of one broadcast under a cost model: its schedule simulated on
//! the job's placement, the time of the last rank to finish (or the mean
//! over ranks, see [`Statistic`]). Run symbolically
//! ([`super::platform::Symbolic`]) the same simulation records how many of
//! each cost parameter the critical path sums, which makes the time linear
//! in the parameters for the fit.
//!
//! A long pipeline is not simulated segment by segment: once the pipeline
//! is full every further segment adds the same cost, so the time of n
//! segments is that of a short run plus n − n₀ times the cost of a segment,
//! measured between runs of n₀ and n₀ + 2 segments (two, in case the
//! steady state alternates between two patterns). Tests check this against
//! full simulations.

use crate::data::{Algorithm, Candidate, Config};
use crate::schedule::{Schedule, Spec};
use crate::sim::{simulate, Cost, Time};

/// Which time of a broadcast a benchmark reports: our harness times the
/// slowest rank; OSU's `osu_bcast` reports each rank's own time averaged
/// over ranks. The two rank algorithms differently (a chain's last rank
/// finishes long after its first), so the fit finds out which one the data
/// hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Statistic {
    #[default]
    Slowest,
    MeanOverRanks,
}

/// Segments simulated at most; longer pipelines are extrapolated.
const MOST_SEGMENTS: u64 = 64;
/// Segments of the short runs the extrapolation measures between.
const SHORT_RUN: u64 = 32;

/// The time of `candidate`'s schedule on `config` under `cost`; `None` for
/// an algorithm without a schedule or an invalid job.
pub fn price<C: Cost>(
    config: &Config,
    candidate: &Candidate,
    cost: &C,
    statistic: Statistic,
) -> Option<C::Time> {
    if config.procs <= 1 || config.msg_bytes == 0 {
        return Some(C::Time::zero()); // MPI_Bcast returns at once
    }
    let spec = Spec {
        algorithm: candidate.algorithm,
        procs: config.procs,
        root: 0,
        msg_bytes: config.msg_bytes,
        segsize: candidate.segsize.unwrap_or(0),
        fanout: candidate.fanout,
    };
    let run = |msg_bytes: u64| {
        let schedule = Schedule::new(Spec { msg_bytes, ..spec }).ok()?;
        let outcome = simulate(&schedule, &config.placement(), cost).ok()?;
        Some(match statistic {
            Statistic::Slowest => outcome.makespan(),
            Statistic::MeanOverRanks => outcome.mean_completion(),
        })
    };
    match long_pipeline(&spec) {
        None => run(spec.msg_bytes),
        Some((segments, unit)) => {
            // Runs of SHORT_RUN and SHORT_RUN + 2 segments with the same
            // last segment, then the steady state's cost per segment.
            let short = spec.msg_bytes - (segments - SHORT_RUN) * unit;
            let (a, b) = (run(short)?, run(short + 2 * unit)?);
            Some(a.lerp(b, (segments - SHORT_RUN) as f64 / 2.0))
        }
    }
}

/// For a schedule of more than [`MOST_SEGMENTS`] segments: the segment
/// count and the bytes one segment fewer takes off the message (split-binary
/// cuts both halves, so two segments' worth).
fn long_pipeline(spec: &Spec) -> Option<(u64, u64)> {
    let seg = spec.segsize;
    let pipelined = matches!(
        spec.algorithm,
        Algorithm::Chain
            | Algorithm::Pipeline
            | Algorithm::Binary
            | Algorithm::Binomial
            | Algorithm::Knomial
            | Algorithm::SplitBinary
    );
    if !pipelined || seg == 0 {
        return None;
    }
    let (bytes, unit) = match spec.algorithm {
        Algorithm::SplitBinary => (spec.msg_bytes.div_ceil(2), 2 * seg),
        _ => (spec.msg_bytes, seg),
    };
    let segments = bytes.div_ceil(seg);
    (segments > MOST_SEGMENTS).then_some((segments, unit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytical::platform::{Platform, Symbolic};
    use crate::data::{Impl, Mapping};
    use crate::sim::{CostModel, Link};
    use rand::{Rng, SeedableRng};

    const COST: CostModel = CostModel {
        shm: Link {
            send_us: 0.3,
            send_us_per_byte: 2e-4,
            wire_us: 0.7,
            wire_us_per_byte: 1e-4,
            far_us_per_byte: 3e-5,
        },
        net: Link {
            send_us: 1.1,
            send_us_per_byte: 3e-4,
            wire_us: 2.0,
            wire_us_per_byte: 5e-4,
            far_us_per_byte: 1e-5,
        },
    };

    fn config(procs: u32, nodes: u32, mapping: Mapping, msg_bytes: u64) -> Config {
        Config {
            procs,
            nodes,
            ppn: procs.div_ceil(nodes),
            mapping,
            msg_bytes,
            imbalance: 0.0,
            arrival: crate::data::Arrival::Barrier,
        }
    }

    /// The symbolic run's terms, weighted by the parameters, are its time:
    /// the time is linear in the parameters along the critical path.
    #[test]
    fn terms_reproduce_the_time() {
        let mut platform = Platform::uniform(COST.shm, COST.net);
        platform.shm[1].wire_us_per_byte *= 3.0;
        platform.net[2].send_us *= 2.0;
        let params = platform.to_vec();
        for algorithm in crate::schedule::SCHEDULED {
            for (procs, nodes, msg, seg) in [(7, 1, 1000, 0), (12, 3, 5000, 700), (9, 2, 3, 1)] {
                let c = config(procs, nodes, Mapping::Node, msg);
                let candidate = Candidate {
                    algorithm,
                    segsize: Some(seg),
                    fanout: None,
                    implementation: Impl::Own,
                };
                for statistic in [Statistic::Slowest, Statistic::MeanOverRanks] {
                    let plain = price(&c, &candidate, &platform, statistic).unwrap();
                    let priced = price(&c, &candidate, &Symbolic(&platform), statistic).unwrap();
                    let from_terms: f64 =
                        priced.terms.iter().zip(&params).map(|(t, p)| t * p).sum();
                    assert!((plain - priced.value).abs() < 1e-9 * plain, "{algorithm}");
                    assert!(
                        (from_terms - plain).abs() < 1e-6 * plain,
                        "{algorithm} {statistic:?}: {from_terms} vs {plain}"
                    );
                }
            }
        }
    }

    /// Long pipelines extrapolated from two short runs give the simulated
    /// time, on random jobs of every pipelined algorithm.
    #[test]
    fn long_pipelines_extrapolate_exactly() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for trial in 0..60 {
            let algorithm = [
                Algorithm::Chain,
                Algorithm::Pipeline,
                Algorithm::Binary,
                Algorithm::Binomial,
                Algorithm::Knomial,
                Algorithm::SplitBinary,
            ][trial % 6];
            let procs = rng.random_range(2..=24);
            let nodes = rng.random_range(1..=procs.min(3));
            let mapping = [Mapping::Core, Mapping::Node][trial % 2];
            let seg = rng.random_range(64..=1024);
            let segments = rng.random_range(MOST_SEGMENTS + 1..=300);
            let msg = (segments - 1) * seg + rng.random_range(1..=seg);
            let c = config(procs, nodes, mapping, msg);
            let candidate = Candidate {
                algorithm,
                segsize: Some(seg),
                fanout: None,
                implementation: Impl::Own,
            };
            let spec = Spec {
                algorithm,
                procs,
                root: 0,
                msg_bytes: msg,
                segsize: seg,
                fanout: None,
            };
            let full = simulate(&Schedule::new(spec).unwrap(), &c.placement(), &COST)
                .unwrap()
                .makespan_us();
            let fast = price(
                &c,
                &candidate,
                &Platform::uniform(COST.shm, COST.net),
                Statistic::Slowest,
            )
            .unwrap();
            assert!(
                (fast - full).abs() <= 1e-6 * full,
                "{algorithm} on {c} seg {seg}: {fast} vs simulated {full}"
            );
        }
    }
}
