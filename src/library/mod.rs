//! What `default` runs: the MPI library's own choice of algorithm, as far
//! as it is one of the schedules we price. Open MPI's coll/tuned runs its fixed
//! decision table ([`crate::ompi_fixed`]) unless another component takes
//! the call; from 5.0 on coll/han does so on communicators that span nodes
//! (its priority outranks tuned's; experiments/han.md), where neither `default` nor a forced tuned
//! algorithm runs a flat schedule over all ranks. MPICH's choice is not
//! modelled.
//!
//! The library comes from the data's `mpi` column; the data then confirm
//! or refute it: wherever `default` and a forced run of the algorithm the
//! fixed table names were measured on the same configuration, the two must
//! agree within noise ([`check`]).

use crate::data::{Algorithm, Candidate, Collective, Config, Dataset, Impl};
use crate::ompi_fixed;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;

/// The MPI library that measured a dataset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Library {
    /// Open MPI of this major version.
    OpenMpi(u32),
    Mpich,
    /// Several libraries, or none named: `default` is taken to be Open MPI's
    /// fixed decision (the CSV's `impl` defaults to `ompi`) where the data
    /// do not refute it.
    Unknown,
}

impl Library {
    /// The library the `mpi` column names (e.g. `openmpi-4.1.6`, `Open MPI
    /// v4.1.4, package: ...`, `mpich-4.2`).
    pub fn detect(mpis: &BTreeSet<String>) -> Library {
        let named: BTreeSet<Library> = mpis.iter().filter_map(|s| Self::parse(s)).collect();
        match named.into_iter().collect::<Vec<_>>()[..] {
            [one] => one,
            _ => Library::Unknown,
        }
    }

    fn parse(text: &str) -> Option<Library> {
        let lower = text.to_ascii_lowercase();
        if lower.contains("mpich") {
            return Some(Library::Mpich);
        }
        let at = ["open mpi", "openmpi", "open-mpi", "ompi"]
            .iter()
            .find_map(|name| lower.find(name).map(|i| i + name.len()))?;
        let digits: String = lower[at..]
            .chars()
            .skip_while(|c| !c.is_ascii_digit())
            .take_while(|c| c.is_ascii_digit())
            .collect();
        digits.parse().ok().map(Library::OpenMpi)
    }

    /// Whether coll/han takes `collective` on `config` (Open MPI 5+, several
    /// nodes, a collective HAN serves).
    pub fn hierarchical(&self, collective: Collective, config: &Config) -> bool {
        matches!(self, Library::OpenMpi(major) if *major >= 5)
            && config.nodes > 1
            && collective.describe().ompi.han
    }

    /// The candidate plain `MPI_Bcast` (`MPI_Reduce`) runs on `config`,
    /// when it is a flat schedule of Open MPI's tuned component.
    pub fn default_runs(&self, collective: Collective, config: &Config) -> Option<Candidate> {
        match self {
            Library::Mpich => None,
            _ if self.hierarchical(collective, config) => None,
            _ => ompi_fixed::decision(collective, config.procs, config.msg_bytes),
        }
    }

    /// The schedule a measured candidate ran on `config`: `default` the
    /// library's choice; a forced Open MPI algorithm itself, unless coll/han
    /// wrapped it; MPICH's algorithm the schedule its description names;
    /// our own implementations always themselves. `None` where no schedule
    /// describes the run.
    pub fn runs(
        &self,
        collective: Collective,
        config: &Config,
        candidate: &Candidate,
    ) -> Option<Candidate> {
        let runs = match candidate.implementation {
            _ if candidate.is_default() => self.default_runs(collective, config)?,
            // Tuned's own decision, wherever HAN is left out.
            Impl::Ompi if candidate.algorithm == Algorithm::Tuned => {
                ompi_fixed::decision(collective, config.procs, config.msg_bytes)?
            }
            Impl::Ompi if self.hierarchical(collective, config) => return None,
            // MPICH's algorithm, where one of our schedules runs as it does.
            Impl::Mpich => {
                let m = collective.mpich_algorithm(candidate.algorithm)?;
                // Our schedules run MPICH's default radix only; a chunk is
                // the schedule's segment size.
                let value = |p| m.value(p, candidate.segsize, candidate.fanout);
                if m.radix().is_some_and(|r| value(r) != r.default) {
                    return None;
                }
                let (algorithm, default_segsize) = m.runs_as?;
                let segsize = match m.chunk() {
                    Some(chunk) => value(chunk).parse().ok()?,
                    None => default_segsize,
                };
                Candidate {
                    algorithm,
                    segsize: Some(segsize),
                    fanout: None,
                    implementation: Impl::Own,
                }
            }
            Impl::Ompi | Impl::Own => *candidate,
        };
        crate::schedule::scheduled(collective)
            .contains(&runs.algorithm)
            .then_some(runs)
    }
}

impl fmt::Display for Library {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Library::OpenMpi(major) => write!(f, "Open MPI {major}"),
            Library::Mpich => f.write_str("MPICH"),
            Library::Unknown => f.write_str("unknown MPI (taken as Open MPI's tuned decision)"),
        }
    }
}

/// Where the check looked: jobs on one node, or across nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Regime {
    OneNode,
    AcrossNodes,
}

impl Regime {
    pub fn of(config: &Config) -> Regime {
        if config.nodes > 1 {
            Regime::AcrossNodes
        } else {
            Regime::OneNode
        }
    }
}

/// Whether measured `default` behaves like the algorithm the library is
/// believed to run, in one regime.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DefaultCheck {
    pub regime: Regime,
    /// Configurations where `default` and a forced run of the algorithm it
    /// is believed to run were both measured.
    pub pairs: usize,
    /// Median and median absolute deviation of ln(t_default / t_forced).
    pub median_log_ratio: f64,
    pub mad_log_ratio: f64,
    /// Share of pairs where `default` was slower.
    pub slower_share: f64,
    /// The data refute the belief (see [`check`]).
    pub refuted: bool,
}

/// Fewest pairs a check needs to refute anything.
const MIN_PAIRS: usize = 8;
/// Significance of the sign test.
const SIGN_TEST_LEVEL: f64 = 0.01;

/// Compares measured `default` with forced runs of the algorithm `library`
/// says it runs, per regime. The belief is refuted where the differences
/// lean to one side beyond chance (two-sided sign test at 1%) *and* their
/// median exceeds both their own spread (median absolute deviation) and
/// [`crate::data::metrics::NEAR`]: a systematic difference larger than the noise
/// and large enough to matter, not a small bias that many pairs make
/// significant.
pub fn check(d: &Dataset, library: Library) -> Vec<DefaultCheck> {
    let collective = d.provenance.collective();
    let mut by_regime: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for group in d.by_config() {
        let config = &group[0].config;
        let Some(default) = group.iter().find(|m| m.candidate.is_default()) else {
            continue;
        };
        let Some(runs) = library.default_runs(collective, config) else {
            continue;
        };
        let forced = group
            .iter()
            .find(|m| m.candidate.implementation == Impl::Ompi && same_run(&m.candidate, &runs));
        if let Some(forced) = forced {
            let regime = Regime::of(config) as usize;
            by_regime[regime].push((default.time_us / forced.time_us).ln());
        }
    }
    [Regime::OneNode, Regime::AcrossNodes]
        .into_iter()
        .zip(by_regime)
        .filter(|(_, ratios)| !ratios.is_empty())
        .map(|(regime, mut ratios)| {
            ratios.sort_by(f64::total_cmp);
            let median = crate::data::median_sorted(&ratios);
            let mut dev: Vec<f64> = ratios.iter().map(|r| (r - median).abs()).collect();
            dev.sort_by(f64::total_cmp);
            let mad = crate::data::median_sorted(&dev);
            let slower = ratios.iter().filter(|&&r| r > 0.0).count();
            let faster = ratios.iter().filter(|&&r| r < 0.0).count();
            let refuted = ratios.len() >= MIN_PAIRS
                && sign_test(slower, faster) < SIGN_TEST_LEVEL
                && median.abs() > mad.max(crate::data::metrics::NEAR.ln_1p());
            DefaultCheck {
                regime,
                pairs: ratios.len(),
                median_log_ratio: median,
                mad_log_ratio: mad,
                slower_share: slower as f64 / ratios.len() as f64,
                refuted,
            }
        })
        .collect()
}

/// A forced measurement of the algorithm `default` runs: same algorithm and
/// fan-out, unsegmented (a forced run with no segment size given, as in OSU
/// campaigns, is unsegmented too).
fn same_run(measured: &Candidate, runs: &Candidate) -> bool {
    let unsegmented = |c: &Candidate| c.segsize.unwrap_or(0) == 0;
    let fanout = |c: &Candidate| match c.algorithm {
        Algorithm::Knomial | Algorithm::Chain => c.fanout.or(Some(4)),
        _ => None,
    };
    measured.algorithm == runs.algorithm
        && unsegmented(measured)
        && unsegmented(runs)
        && fanout(measured) == fanout(runs)
}

/// Two-sided sign test: the probability of a split at least this uneven
/// between `a` and `b` when each side has probability ½ (ties left out).
fn sign_test(a: usize, b: usize) -> f64 {
    let n = a + b;
    let k = a.min(b);
    // P(X ≤ k) for X ~ Binomial(n, ½), summed in logs to stay finite.
    let ln_half_n = -(n as f64) * std::f64::consts::LN_2;
    let mut ln_choose = 0.0; // ln C(n, 0)
    let mut tail = 0.0;
    for i in 0..=k {
        if i > 0 {
            ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_choose + ln_half_n).exp();
    }
    (2.0 * tail).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::tests::row;
    use crate::data::Provenance;

    #[test]
    fn libraries_named_in_the_mpi_column() {
        let detect =
            |names: &[&str]| Library::detect(&names.iter().map(|s| s.to_string()).collect());
        assert_eq!(detect(&["openmpi-4.1.6"]), Library::OpenMpi(4));
        assert_eq!(detect(&["openmpi-4.1.5-gnu12.2.1"]), Library::OpenMpi(4));
        assert_eq!(
            detect(&["Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4"]),
            Library::OpenMpi(4)
        );
        assert_eq!(detect(&["openmpi-5.0.5"]), Library::OpenMpi(5));
        assert_eq!(
            detect(&["openmpi-4.1.1-gcc11.2.0", "openmpi-4.1.4"]),
            Library::OpenMpi(4),
            "two releases of one major version decide alike"
        );
        assert_eq!(detect(&["mpich-4.2.0"]), Library::Mpich);
        assert_eq!(detect(&[]), Library::Unknown);
        assert_eq!(
            detect(&["openmpi-4.1.6", "openmpi-5.0.5"]),
            Library::Unknown
        );
        assert_eq!(detect(&["intel-mpi"]), Library::Unknown);
    }

    #[test]
    fn han_takes_multi_node_broadcasts_from_open_mpi_5() {
        let mut one = row(128, 1024, Algorithm::Binary, 1.0);
        let forced = one.candidate;
        assert!(Library::OpenMpi(5)
            .runs(Collective::Bcast, &one.config, &forced)
            .is_some());
        assert_eq!(
            Library::OpenMpi(5).runs(Collective::Bcast, &one.config, &Candidate::DEFAULT),
            Some(ompi_fixed::bcast_candidate(128, 1024))
        );
        one.config.nodes = 2;
        one.config.ppn = 64;
        assert_eq!(
            Library::OpenMpi(5).runs(Collective::Bcast, &one.config, &forced),
            None
        );
        assert_eq!(
            Library::OpenMpi(5).runs(Collective::Bcast, &one.config, &Candidate::DEFAULT),
            None
        );
        assert!(Library::OpenMpi(4)
            .runs(Collective::Bcast, &one.config, &Candidate::DEFAULT)
            .is_some());
        let own = Candidate {
            implementation: Impl::Own,
            ..forced
        };
        assert_eq!(
            Library::OpenMpi(5).runs(Collective::Bcast, &one.config, &own),
            Some(own)
        );
        assert_eq!(
            Library::Mpich.runs(Collective::Bcast, &one.config, &Candidate::DEFAULT),
            None
        );
        // HAN's broadcast is never priced as a tuned schedule; tuned's own
        // decision, measured with HAN left out, is its fixed decision.
        let tuned = Candidate {
            algorithm: Algorithm::Tuned,
            ..Candidate::DEFAULT
        };
        assert_eq!(
            Library::OpenMpi(5).runs(Collective::Bcast, &one.config, &tuned),
            Some(ompi_fixed::bcast_candidate(128, 1024))
        );
    }

    #[test]
    fn sign_test_tails() {
        assert!((sign_test(0, 1) - 1.0).abs() < 1e-12);
        assert!((sign_test(0, 14) - 2.0 * 0.5f64.powi(14)).abs() < 1e-15);
        assert!((sign_test(5, 5) - 1.0).abs() < 1e-12);
        // P(X ≤ 2 | n = 10) = (1 + 10 + 45) / 1024.
        assert!((sign_test(2, 8) - 2.0 * 56.0 / 1024.0).abs() < 1e-12);
    }

    /// `default` measured as what the fixed table names passes; a `default`
    /// consistently 30% faster than that (another component) is refuted.
    #[test]
    fn data_confirm_or_refute_the_fixed_decision() {
        let dataset = |factor: f64| {
            let mut rows = Vec::new();
            for procs in [4u32, 5, 6, 7] {
                for e in 0..6 {
                    let m = 1u64 << (2 * e + 3);
                    let runs = ompi_fixed::bcast_candidate(procs, m);
                    let t = 10.0 + f64::from(procs) + e as f64;
                    let wobble = 1.0 + 0.01 * (f64::from((procs + e) % 3) - 1.0);
                    let mut forced = row(procs, m, runs.algorithm, t * wobble);
                    forced.candidate = runs;
                    rows.push(forced);
                    rows.push(row(procs, m, Algorithm::Default, t * factor));
                }
            }
            Dataset::from_rows(rows, Provenance::default())
        };
        let same = check(&dataset(1.0), Library::OpenMpi(4));
        assert_eq!(same.len(), 1);
        assert_eq!(same[0].pairs, 24);
        assert!(!same[0].refuted, "{same:?}");
        let other = check(&dataset(0.7), Library::OpenMpi(4));
        assert!(other[0].refuted, "{other:?}");
        assert!(other[0].median_log_ratio < -0.3);
    }

    /// MPICH's algorithms are priced as the schedule that runs as they do,
    /// at MPICH's default radix only.
    #[test]
    fn mpichs_algorithms_run_as_their_schedules() {
        let one = row(4, 65536, Algorithm::Default, 1.0);
        let tree = |fanout| Candidate {
            algorithm: Algorithm::Tree,
            segsize: None,
            fanout,
            implementation: Impl::Mpich,
        };
        let runs = |c: Candidate| Library::Mpich.runs(Collective::Bcast, &one.config, &c);
        let binary = runs(tree(None)).unwrap();
        assert_eq!(
            (binary.algorithm, binary.segsize),
            (Algorithm::Binary, Some(0))
        );
        assert_eq!(runs(tree(Some(2))), Some(binary));
        assert_eq!(runs(tree(Some(4))), None, "no schedule of radix 4");
        // The pipelined tree's chunk is the binary tree's segment.
        let pipelined = |segsize| Candidate {
            algorithm: Algorithm::PipelinedTree,
            segsize,
            ..tree(None)
        };
        assert_eq!(runs(pipelined(None)).unwrap().segsize, Some(8192));
        assert_eq!(runs(pipelined(Some(65536))).unwrap().segsize, Some(65536));
        let nb = Candidate {
            algorithm: Algorithm::Nb,
            ..tree(None)
        };
        assert_eq!(runs(nb), None);
    }
}
