//! The time of one collective call under a cost model: its schedule simulated on
//! the job's placement, the time of the last rank to finish (or the mean
//! over ranks, see [`Statistic`]). Run symbolically
//! ([`price_terms`]) the same simulation records how many of each cost
//! parameter the critical path sums, which makes the time linear
//! in the parameters for the fit.
//!
//! A long pipeline is not simulated segment by segment: once the pipeline
//! is full every further segment adds the same cost, so the time of n
//! segments is that of a short run plus n − n₀ times the cost of a segment,
//! measured between runs of n₀ and n₀ + 2 segments (two, in case the
//! steady state alternates between two patterns). Tests check this against
//! full simulations.
//!
//! Nor is a job of thousands of ranks simulated rank by rank: its time is
//! extrapolated along the node count from two jobs of the same ranks per
//! node and mapping on ½ᵏ and ½ᵏ⁺¹ of its nodes, linearly in what the
//! time grows with (`extent`: the depth of the schedule's tree, or the
//! rank count of a flat tree). Pricing then costs at most about
//! 1.5 × `MOST_RANKS` ranks whatever the job's size. The test
//! `large_jobs_extrapolate_along_nodes` measures how far this is from
//! simulating every rank: a few percent at most, k-nomial trees the
//! farthest.

use super::platform::{Platform, Priced, Symbolic, Trace};
use crate::data::{Algorithm, Candidate, Collective, Config};
use crate::schedule::{Schedule, Spec};
use crate::sim::{simulate_timing, Cost, Time};
use smallvec::{smallvec, SmallVec};

/// Which time of a call a benchmark reports: our harness times the
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
const MOST_SEGMENTS: u64 = 16;
/// Segments of the short runs the extrapolation measures between.
const SHORT_RUN: u64 = 8;

/// Ranks simulated at most in one run; larger jobs are extrapolated along
/// their node count.
const MOST_RANKS: u32 = 512;
/// Nodes of the largest job an extrapolation simulates, at least.
const FEWEST_NODES: u32 = 8;

/// One simulated call a price is made of: `config`'s job and message
/// (a smaller job, or a shorter message, than the one priced where that is
/// extrapolated), `candidate`'s schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Run {
    pub collective: Collective,
    pub config: Config,
    pub candidate: Candidate,
}

/// A price as a weighted sum of simulated [`Run`]s (none: the call takes
/// no time). Prices of many configurations share runs — every job of
/// a given ranks per node beyond `MOST_RANKS` (512) is extrapolated from the
/// same few smaller ones, every long pipeline of a segment size from the
/// same short ones — so callers that price many rows simulate each run
/// once ([`super::memo::Memo`]).
#[derive(Debug, Default)]
pub struct Recipe(SmallVec<[(Run, f64); 4]>);

impl Recipe {
    pub fn runs(&self) -> impl Iterator<Item = &(Run, f64)> {
        self.0.iter()
    }

    /// The weighted sum of the runs' times, `None` if a run has none.
    pub fn combine<T: Time>(&self, mut time: impl FnMut(&Run) -> Option<T>) -> Option<T> {
        self.0.iter().try_fold(T::zero(), |sum, (run, w)| {
            Some(sum.plus(time(run)?.scale(*w)))
        })
    }
}

/// The time of `candidate`'s schedule on `config` under `cost`; `None` for
/// an algorithm without a schedule or an invalid job.
pub fn price<C: Cost>(
    collective: Collective,
    config: &Config,
    candidate: &Candidate,
    cost: &C,
    statistic: Statistic,
) -> Option<C::Time> {
    recipe(collective, config, candidate)?.combine(|run| simulate_run(run, cost, statistic))
}

/// [`price`] on `platform`, with the count of each platform parameter the
/// time sums (see [`Priced`]).
pub fn price_terms(
    collective: Collective,
    config: &Config,
    candidate: &Candidate,
    platform: &Platform,
    statistic: Statistic,
) -> Option<Priced> {
    recipe(collective, config, candidate)?.combine(|run| run_terms(run, platform, statistic))
}

/// The runs `config`'s price is made of (see [`Recipe`]); `None` for an
/// algorithm without a schedule or an invalid job.
pub fn recipe(collective: Collective, config: &Config, candidate: &Candidate) -> Option<Recipe> {
    recipe_up_to(collective, config, candidate, MOST_RANKS)
}

/// One run simulated under `cost`.
pub fn simulate_run<C: Cost>(run: &Run, cost: &C, statistic: Statistic) -> Option<C::Time> {
    let schedule = Schedule::new(spec(
        run.collective,
        &run.config,
        &run.candidate,
        run.config.msg_bytes,
    ))
    .ok()?;
    let outcome = simulate_timing(&schedule, &run.config.placement(), cost).ok()?;
    Some(match statistic {
        Statistic::Slowest => outcome.makespan(),
        Statistic::MeanOverRanks => outcome.mean_completion(),
    })
}

/// One run simulated symbolically on `platform`: its time and the count of
/// each parameter that time sums.
pub fn run_terms(run: &Run, platform: &Platform, statistic: Statistic) -> Option<Priced> {
    let trace = Trace::default();
    let symbolic = Symbolic {
        platform,
        trace: &trace,
    };
    let time = simulate_run(run, &symbolic, statistic)?;
    Some(trace.priced(time))
}

/// [`recipe`], simulating jobs of at most `most_ranks` ranks (or
/// [`FEWEST_NODES`] nodes).
fn recipe_up_to(
    collective: Collective,
    config: &Config,
    candidate: &Candidate,
    most_ranks: u32,
) -> Option<Recipe> {
    if config.procs <= 1 || collective.returns_at_once(config.msg_bytes) {
        return Some(Recipe::default()); // the collective returns at once
    }
    let Some([a, b]) = fewer_nodes(config, most_ranks) else {
        return job_recipe(collective, config, candidate);
    };
    // The smaller jobs run what the priced job runs: an allreduce's
    // fallback depends on the ranks (a ring of 256 floats is a ring at 256
    // ranks, recursive doubling at 512), and extrapolating from two
    // different algorithms goes astray.
    let runs = Schedule::new(spec(collective, config, candidate, config.msg_bytes))
        .map_or(candidate.algorithm, |s| s.runs_as());
    let fallback = Candidate {
        algorithm: runs,
        segsize: None,
        ..*candidate
    };
    let candidate = if runs == candidate.algorithm {
        candidate
    } else {
        &fallback
    };
    // t = t_b + (x − x_b)·(t_b − t_a)/(x_b − x_a) along the extent x, or
    // along log₂ nodes where the two jobs' extents are equal.
    let extent = |c: &Config| extent(collective, c, candidate);
    let (xa, xb, x) = match (extent(&a), extent(&b)) {
        (xa, xb) if xa < xb => (xa, xb, extent(config)),
        _ => {
            let log = |c: &Config| f64::from(c.nodes).log2();
            (log(&a), log(&b), log(config))
        }
    };
    let w = (x - xb) / (xb - xa);
    let (ra, rb) = (
        job_recipe(collective, &a, candidate)?,
        job_recipe(collective, &b, candidate)?,
    );
    let mut runs = SmallVec::new();
    runs.extend(rb.0.into_iter().map(|(r, k)| (r, k * (1.0 + w))));
    runs.extend(ra.0.into_iter().map(|(r, k)| (r, k * -w)));
    Some(Recipe(runs))
}

/// Two jobs like `config` on fewer nodes (the same ranks per node, mapping
/// and ranks short of full nodes); `None` when `config` is small enough to
/// simulate, or has too few nodes to drop any.
fn fewer_nodes(config: &Config, most_ranks: u32) -> Option<[Config; 2]> {
    let (nodes, ppn) = (config.nodes, config.ppn);
    let missing = nodes.checked_mul(ppn)?.checked_sub(config.procs)?;
    if config.procs <= most_ranks || missing >= ppn {
        return None;
    }
    let largest = (most_ranks / ppn).max(FEWEST_NODES);
    // The job's node count halved, so that the smaller jobs' ratios to it
    // are powers of two, as often as `largest` asks; the smaller of the
    // two keeps two nodes (one alone has no network).
    let halved = |k: u32| ((f64::from(nodes) / f64::from(1u32 << k)).round() as u32).max(1);
    let small_enough = (1..31).find(|&k| halved(k) <= largest)?;
    let most_halvings = (1..31).take_while(|&k| halved(k + 1) >= 2).last()?;
    let k = small_enough.min(most_halvings);
    let (a, b) = (halved(k + 1), halved(k));
    let job = |n: u32| Config {
        procs: n * ppn - missing,
        nodes: n,
        ..*config
    };
    (a < b).then(|| [job(a), job(b)])
}

/// What a call's time grows with, along the node count: the depth of
/// its tree (a chain's grows linearly with the ranks, a binary or binomial
/// tree's by one level per doubling, and segments follow the same path);
/// the rank count for a flat tree (the root sends to each in turn); log₂
/// of the ranks for a k-nomial tree, whose depth steps only every k-fold
/// while its levels' sends grow with how full they are (and Rabenseifner's
/// reduce and allreduce, and recursive doubling, whose steps are halvings
/// or doublings). A ring's steps grow with the ranks; allreduce's reduce +
/// broadcast adds its two trees' depths.
fn extent(collective: Collective, config: &Config, candidate: &Candidate) -> f64 {
    let spec = spec(collective, config, candidate, config.msg_bytes);
    // What runs, fallbacks included (a ring of fewer elements than ranks
    // is recursive doubling): steps that double, or grow with the ranks.
    let doubles = Schedule::doubles_of(&spec);
    if let Some(log) = doubles {
        return if log {
            f64::from(config.procs).log2()
        } else {
            f64::from(config.procs)
        };
    }
    if matches!(
        candidate.algorithm,
        Algorithm::Knomial | Algorithm::Rabenseifner | Algorithm::RecursiveDoubling
    ) {
        return f64::from(config.procs).log2();
    }
    f64::from(Schedule::tree_depth(&spec).unwrap_or(config.procs))
}

fn spec(collective: Collective, config: &Config, candidate: &Candidate, msg_bytes: u64) -> Spec {
    Spec {
        collective,
        algorithm: candidate.algorithm,
        procs: config.procs,
        root: 0,
        msg_bytes,
        segsize: candidate.segsize.unwrap_or(0),
        fanout: candidate.fanout,
    }
}

/// The runs of one simulated job: itself, or a long pipeline's two short
/// runs.
fn job_recipe(collective: Collective, config: &Config, candidate: &Candidate) -> Option<Recipe> {
    let spec = spec(collective, config, candidate, config.msg_bytes);
    let run = |msg_bytes: u64| Run {
        collective,
        config: Config {
            msg_bytes,
            ..*config
        },
        candidate: *candidate,
    };
    let runs = match long_pipeline(&spec) {
        None => smallvec![(run(spec.msg_bytes), 1.0)],
        Some((segments, unit)) => {
            // Runs of SHORT_RUN and SHORT_RUN + 2 segments with the same
            // last segment, then the steady state's cost per segment:
            // a + k·(b − a).
            let short = spec.msg_bytes - (segments - SHORT_RUN) * unit;
            let k = (segments - SHORT_RUN) as f64 / 2.0;
            smallvec![(run(short), 1.0 - k), (run(short + 2 * unit), k)]
        }
    };
    Some(Recipe(runs))
}

/// For a schedule of more than [`MOST_SEGMENTS`] segments: the segment
/// count and the bytes one segment fewer takes off the message (split-binary
/// cuts both halves, so two segments' worth).
fn long_pipeline(spec: &Spec) -> Option<(u64, u64)> {
    let pipelined = matches!(
        spec.algorithm,
        Algorithm::Chain
            | Algorithm::Pipeline
            | Algorithm::Binary
            | Algorithm::Binomial
            | Algorithm::Knomial
            | Algorithm::SplitBinary
            | Algorithm::InOrderBinary
    );
    if !pipelined || spec.segsize == 0 {
        return None;
    }
    // A reduction's segments are whole elements, as its schedule rounds
    // them (without building the schedule: this runs for every row priced).
    // Allgathers, alltoalls, gathers, scatters and reduce-scatters are
    // not pipelined (linear_sync's first segment is one message).
    let seg = Schedule::segment_of(spec)?;
    if seg == 0 {
        return None; // an empty message: nothing to extrapolate
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
    use crate::analytical::platform::Platform;
    use crate::data::{Impl, Mapping};
    use crate::sim::simulate;
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
        combine_us_per_byte: 0.0,
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

    /// Our own implementation of `algorithm` in segments of `seg` bytes.
    fn own(algorithm: Algorithm, seg: u64) -> Candidate {
        Candidate {
            algorithm,
            segsize: Some(seg),
            fanout: None,
            implementation: Impl::Own,
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
        for algorithm in crate::schedule::bcast::SCHEDULED {
            for (procs, nodes, msg, seg) in [(7, 1, 1000, 0), (12, 3, 5000, 700), (9, 2, 3, 1)] {
                let c = config(procs, nodes, Mapping::Node, msg);
                let candidate = own(algorithm, seg);
                for statistic in [Statistic::Slowest, Statistic::MeanOverRanks] {
                    let plain =
                        price(Collective::Bcast, &c, &candidate, &platform, statistic).unwrap();
                    let priced =
                        price_terms(Collective::Bcast, &c, &candidate, &platform, statistic)
                            .unwrap();
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
    /// time, on random jobs of every pipelined algorithm, for both
    /// statistics: exactly as a rule, never more than 2% off.
    #[test]
    fn long_pipelines_extrapolate_closely() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let mut exact = 0;
        for trial in 0..120 {
            let algorithm = [
                Algorithm::Chain,
                Algorithm::Pipeline,
                Algorithm::Binary,
                Algorithm::Binomial,
                Algorithm::Knomial,
                Algorithm::SplitBinary,
            ][trial % 6];
            let procs = rng.random_range(2..=96);
            let nodes = rng.random_range(1..=procs.min(6));
            let mapping = [Mapping::Core, Mapping::Node][trial % 2];
            let seg = rng.random_range(64..=1024);
            let segments = rng.random_range(MOST_SEGMENTS + 1..=200);
            let msg = (segments - 1) * seg + rng.random_range(1..=seg);
            let c = config(procs, nodes, mapping, msg);
            let candidate = own(algorithm, seg);
            let spec = Spec {
                collective: crate::data::Collective::Bcast,
                algorithm,
                procs,
                root: 0,
                msg_bytes: msg,
                segsize: seg,
                fanout: None,
            };
            let outcome = simulate(&Schedule::new(spec).unwrap(), &c.placement(), &COST).unwrap();
            let platform = Platform::uniform(COST.shm, COST.net);
            for (statistic, full) in [
                (Statistic::Slowest, outcome.makespan()),
                (Statistic::MeanOverRanks, outcome.mean_completion()),
            ] {
                let fast = price(Collective::Bcast, &c, &candidate, &platform, statistic).unwrap();
                let off = (fast / full - 1.0).abs();
                assert!(
                    off <= 0.02,
                    "{algorithm} on {c} seg {seg} {statistic:?}: {fast} vs simulated {full}"
                );
                exact += usize::from(off <= 1e-6);
            }
        }
        assert!(exact >= 216, "{exact} of 240 exact");
    }

    /// Jobs on many nodes priced from two on fewer nodes against their full
    /// simulation (figures printed with --nocapture): within a few percent
    /// on average, k-nomial trees the farthest.
    /// Allreduce extrapolates as broadcast does, through its fallbacks: a
    /// ring whose elements are fewer than the priced job's ranks (but not
    /// the smaller jobs') is priced as the recursive doubling that runs.
    #[test]
    fn large_allreduce_jobs_extrapolate_along_nodes() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let algorithms = crate::schedule::scheduled(Collective::Allreduce);
        let mut worst: std::collections::BTreeMap<Algorithm, f64> = Default::default();
        for trial in 0..36 {
            let algorithm = algorithms[trial % algorithms.len()];
            let nodes = [96, 128, 192][rng.random_range(0..3)];
            let ppn = rng.random_range(2..=3);
            let procs = nodes * ppn;
            // Around the ring's switch (p floats) and above it.
            let msg = [4 * 200, 4 * 300, 4 * 1000, 1 << 20][trial % 4];
            let c = config(procs, nodes, Mapping::Core, msg);
            let candidate = own(algorithm, if trial % 3 == 0 { 1024 } else { 0 });
            let priced = |most_ranks| {
                recipe_up_to(Collective::Allreduce, &c, &candidate, most_ranks)?
                    .combine(|run| simulate_run(run, &COST, Statistic::Slowest))
            };
            let Some(full) = priced(u32::MAX) else {
                continue; // nonoverlapping's fixed broadcast without a schedule
            };
            let fast = priced(128).unwrap();
            assert!(fast > 0.0, "{algorithm} {c}: {fast}");
            let e = worst.entry(algorithm).or_default();
            *e = e.max((fast / full - 1.0).abs());
        }
        for (algorithm, e) in &worst {
            println!("{algorithm:20} worst {:.2}%", 100.0 * e);
            assert!(*e <= 0.25, "{algorithm}: {e}");
        }
    }

    #[test]
    fn large_jobs_extrapolate_along_nodes() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let mut errors: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
        for trial in 0..96 {
            let algorithm = crate::schedule::bcast::SCHEDULED[trial % 8];
            let nodes = [96, 128, 192][rng.random_range(0..3)];
            let ppn = rng.random_range(2..=3);
            let procs = nodes * ppn - rng.random_range(0..ppn);
            let mapping = [Mapping::Core, Mapping::Node][(trial / 8) % 2];
            let msg = 1u64 << rng.random_range(0..=20);
            let seg = [0, 1024, 8192][(trial / 16) % 3];
            let c = config(procs, nodes, mapping, msg);
            assert_eq!(c.ppn, ppn);
            let candidate = own(algorithm, seg);
            for statistic in [Statistic::Slowest, Statistic::MeanOverRanks] {
                let priced = |most_ranks| {
                    recipe_up_to(Collective::Bcast, &c, &candidate, most_ranks)?
                        .combine(|run| simulate_run(run, &COST, statistic))
                };
                let (full, fast) = (priced(u32::MAX).unwrap(), priced(128).unwrap());
                assert!(fewer_nodes(&c, 128).is_some(), "{c} is extrapolated");
                let key = format!("{algorithm} {mapping} {statistic:?}");
                errors
                    .entry(key)
                    .or_default()
                    .push((fast / full - 1.0).abs());
            }
        }
        for (key, e) in &errors {
            let worst = e.iter().copied().fold(0.0, f64::max);
            let mean = e.iter().sum::<f64>() / e.len() as f64;
            println!(
                "{key:40} mean {:.2}% worst {:.2}%",
                100.0 * mean,
                100.0 * worst
            );
            // k-nomial trees follow log₂ of the ranks only roughly.
            let most_mean = if key.starts_with("knomial") {
                0.10
            } else {
                0.03
            };
            assert!(
                mean <= most_mean && worst <= 0.16,
                "{key}: mean {mean}, worst {worst}"
            );
        }
    }
}
