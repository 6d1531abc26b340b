//! Tuning an allocation in one MPI job: a seed grid per collective, then
//! plan -> bench rounds (the points of every collective compete for each
//! round by their expected regret) until the exploring share of the budget
//! is spent or no measurement is expected to change a decision; then
//! (rank 0) a model per collective and its decisions; then every switch
//! away from `default` timed against `default` on fresh samples, and only
//! those proved faster kept ([`crate::select::validation`]); then one rules
//! file with each collective's validated rules, and the report.
//!
//! This module runs those stages in order and holds what they share (the
//! options, the grids, the budget); each stage is a module of its own:
//! [`grid`], [`explore`] (with [`coverage`]), [`decide`], [`validate`] and
//! [`output`].

mod coverage;
mod decide;
mod explore;
mod grid;
mod output;
mod validate;

use crate::bench::{self, Session};
use crate::data::load::{load_files, SystemFilter};
use crate::data::{Algorithm, Candidate, Collective, Config, Dataset, Impl, Mapping};
use crate::error::{Error, Result};
use crate::library::Library;
use crate::train;
use decide::{decide, second_chances, switches};
use explore::{covered, explore, first_pass, second_look, seed, Passes};
use grid::grid;
use output::{finish, report_budget, Coverage};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use validate::{validate, validations, Validations};

/// Share of the budget kept for validating the decisions: the rounds of
/// exploring stop when the rest is spent. A validation times a switch and
/// `default` in at least four replicas of three rounds of two blocks
/// ([`crate::bench::compare::RoundLimits::replicated`]; about 0.8 s on 2
/// cores): a quarter of a 3-minute budget validates some fifty switches
/// (and what exploring leaves unused goes to validation too), while
/// exploring keeps the larger share.
const VALIDATION_SHARE: f64 = 0.25;

/// What to tune and how.
#[derive(Clone, Debug)]
pub struct TuneOptions {
    /// Where data.csv, model/, rules, report.md and plots/ go.
    pub out_dir: PathBuf,
    /// Time for measuring; training and the report come after it.
    pub time_budget: Duration,
    /// Communicator sizes [default: 2, 4, 8, ... and the job's size].
    pub procs: Option<Vec<u32>>,
    /// How a size's ranks are taken from the job's nodes.
    pub mapping: Mapping,
    pub sizes: Vec<u64>,
    /// The collectives tuned, each with the algorithms to force
    /// (`default` is always measured).
    pub collectives: Vec<TuneTarget>,
    /// The user's MPICH selection file, which a tune under MPICH writes its
    /// decisions into (`mpich.json`).
    pub mpich_base: Option<crate::export::mpich_json::Base>,
    pub segsizes: Vec<u64>,
    /// How each point is timed: `bench`'s options, their points, file and
    /// budget set per round.
    pub timing: bench::BenchOptions,
    pub learning: train::TrainOptions,
}

/// A collective to tune and the algorithms to force: Open MPI's, and
/// MPICH's for a job under MPICH (the library decides which at start).
#[derive(Clone, Debug, PartialEq)]
pub struct TuneTarget {
    pub collective: Collective,
    pub ompi: Vec<Algorithm>,
    pub mpich: Vec<Algorithm>,
}

/// Each of `collectives` (once each, in their order) with the algorithms
/// `names` names for it, or its measured ones (under MPICH, every one of
/// MPICH's); a usage error for a name that is no algorithm of any of them.
pub fn algorithms(collectives: &[Collective], names: Option<&[String]>) -> Result<Vec<TuneTarget>> {
    let mut collectives = collectives.to_vec();
    collectives.sort_unstable();
    collectives.dedup();
    let mut known_somewhere = vec![false; names.map_or(0, <[String]>::len)];
    let mut out = Vec::new();
    for c in collectives {
        let mpich_table = || c.describe().mpich.algorithms.iter().map(|m| m.algorithm);
        let (ompi, mpich) = match names {
            None => (
                c.describe().measured_by_default.to_vec(),
                mpich_table().collect(),
            ),
            Some(names) => {
                let (mut ompi, mut mpich) = (Vec::new(), Vec::new());
                for (i, n) in names.iter().enumerate() {
                    let Ok(a) = c.algorithm(n) else { continue };
                    if c.ompi_id(a).is_some() {
                        ompi.push(a);
                        known_somewhere[i] = true;
                    }
                    if c.mpich_algorithm(a).is_some() {
                        mpich.push(a);
                        known_somewhere[i] = true;
                    }
                }
                (ompi, mpich)
            }
        };
        out.push(TuneTarget {
            collective: c,
            ompi,
            mpich,
        });
    }
    if let Some(i) = known_somewhere.iter().position(|k| !k) {
        return Err(Error::Usage(format!(
            "--algorithms: {:?} is no algorithm of the collectives tuned",
            names.map(|n| n[i].as_str()).unwrap_or_default()
        )));
    }
    Ok(out)
}

/// Tunes the job this process belongs to (collective: every rank calls it).
pub fn tune(args: &TuneOptions) -> Result<()> {
    let session = Session::start(true)?;
    let result = rounds(&session, args);
    match result {
        Err(e) if session.rank() != 0 => Err(Error::Reported(e.exit_code())),
        other => other,
    }
}

/// One collective's grid: every (configuration, candidate) it measures.
struct Grid {
    collective: Collective,
    points: Vec<(Config, Candidate)>,
}

impl Grid {
    /// Whether the grid forces MPICH's algorithms (a tune under MPICH).
    fn under_mpich(&self) -> bool {
        self.points
            .iter()
            .any(|(_, c)| c.implementation == Impl::Mpich)
    }
}

fn rounds(session: &Session, args: &TuneOptions) -> Result<()> {
    let budget = Budget {
        start: Instant::now(),
        total: args.time_budget,
    };
    let rank0 = session.rank() == 0;
    let under_mpich = session.library() == Library::Mpich;
    if under_mpich && args.mpich_base.is_none() {
        return Err(Error::Usage(
            "under MPICH, tune writes MPICH's selection file, which must hold every \
             collective: give your MPICH's own with --mpich-base FILE \
             (maint/tuning/coll/mpir/generic.json in the sources of your MPICH version)"
                .into(),
        ));
    }
    let grids = args
        .collectives
        .iter()
        .map(|tuned| {
            let (implementation, forced) = match under_mpich {
                true => (Impl::Mpich, &tuned.mpich),
                false => (Impl::Ompi, &tuned.ompi),
            };
            Ok(Grid {
                collective: tuned.collective,
                points: grid(session, args, tuned.collective, forced, implementation)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let data = args.out_dir.join("data.csv");
    if rank0 {
        std::fs::create_dir_all(&args.out_dir)
            .map_err(|e| Error::io(format!("cannot create {}", args.out_dir.display()), e))?;
    }
    // Points of every grid in one index space, grid after grid.
    let offsets: Vec<usize> = grids
        .iter()
        .scan(0, |at, g| {
            let first = *at;
            *at += g.points.len();
            Some(first)
        })
        .collect();
    let bases: Vec<Vec<bool>> = grids.iter().map(|g| coverage::base(&g.points)).collect();
    let mut costs = coverage::Costs::default();
    let passes = Passes {
        session,
        args,
        grids: &grids,
        offsets: &offsets,
        bases: &bases,
        budget: &budget,
    };
    let first = Instant::now();
    first_pass(passes, &data, &mut costs)?;
    let took = first.elapsed().as_secs_f64();
    seed(session, args, &grids, &bases, &data, &budget, &mut costs)?;
    let ended = explore(session, args, &grids, &offsets, &data, &budget, &mut costs)?;
    second_look(passes, (&data, ended), (&mut costs, took))?;
    // Rank 0 trains and decides; everyone then validates the switches.
    let trained_at = Instant::now();
    let decided = if rank0 {
        Some(decide(args, &grids))
    } else {
        None
    };
    let switches = match &decided {
        Some(Ok(decided)) => switches(&grids, &offsets, decided),
        // Everyone learns of the failure and stops (rank 0 reports it).
        Some(Err(_)) => vec![FAILED],
        None => Vec::new(),
    };
    let switches = decode(&session.share(encode(&switches)));
    if switches.first() == Some(&FAILED) {
        return match decided {
            Some(Err(e)) => Err(e),
            _ => Err(Error::Reported(1)),
        };
    }
    // The report's held-out evaluations train the models again: about as
    // long as training took, kept out of validation's time (rank 0's
    // figure decides, as every budget does).
    let training = trained_at.elapsed();
    let for_report = training + Duration::from_secs(1);
    let left = budget.left(1.0).saturating_sub(for_report);
    let compared = validate(session, args, &grids, &offsets, &switches, left)?;
    let mut validated_quiet = BTreeMap::new();
    quietest(&grids, &compared, &mut validated_quiet);
    // The runner-ups of the switches that did not hold, validated in their
    // place in the time left (rank 0 decides which; everyone times them).
    let mut rows = Vec::new();
    let mut seconds = Vec::new();
    if let Some(Ok(d)) = &decided {
        rows = validations(&grids, &offsets, &switches, &compared);
        seconds = second_chances(&grids, &offsets, d, &rows);
    }
    let seconds = decode(&session.share(encode(&seconds)));
    if !seconds.is_empty() {
        if rank0 {
            eprintln!(
                "tune: {} switches did not hold; validating their runner-ups in their place",
                seconds.len()
            );
        }
        let left = budget.left(1.0).saturating_sub(for_report);
        let compared = validate(session, args, &grids, &offsets, &seconds, left)?;
        quietest(&grids, &compared, &mut validated_quiet);
        if rank0 {
            rows.extend(validations(&grids, &offsets, &seconds, &compared));
            rows.sort_by_key(|v| (v.collective, v.procs, v.msg_bytes));
            // The run's tests controlled together, the runner-ups' too.
            crate::select::validation::discoveries(&mut rows);
        }
    }
    if let Some(decided) = decided {
        let unused = budget.left(1.0).saturating_sub(for_report);
        let budget_note = report_budget(&rows, unused, ended, budget.total);
        let covered = covered(&grids, &bases, &data)?;
        let coverage = Coverage {
            covered: &covered,
            costs: &costs,
            bases: &bases,
            explore_seconds: args.time_budget.as_secs_f64() * EXPLORE,
            explored_disturbed: costs.explored_disturbed(&validated_quiet),
        };
        finish(
            args,
            &grids,
            decided?,
            &rows,
            &coverage,
            &budget,
            budget_note,
        )?;
    }
    Ok(())
}

/// Adds to `levels`, per communicator size, the quietest probe of the
/// machine's state that the validations in `compared` met (µs).
fn quietest(grids: &[Grid], compared: &[Validations], levels: &mut BTreeMap<u32, f64>) {
    for (grid, results) in grids.iter().zip(compared) {
        for (i, c) in results {
            if let Some(c) = c {
                let level = levels
                    .entry(grid.points[*i].0.procs)
                    .or_insert(f64::INFINITY);
                *level = level.min(c.quiet);
            }
        }
    }
}

/// The time budget: everything `tune` does, measuring, training,
/// validating and writing, ends within it (give or take a point's or a
/// round's measurement, and the report's last plot).
struct Budget {
    start: Instant,
    total: Duration,
}

impl Budget {
    /// What is left of the first `share` of the budget.
    fn left(&self, share: f64) -> Duration {
        let end = self.total.as_secs_f64() * share;
        Duration::from_secs_f64((end - self.start.elapsed().as_secs_f64()).max(0.0))
    }

    /// The share of the budget spent so far.
    fn spent(&self) -> f64 {
        self.start.elapsed().as_secs_f64() / self.total.as_secs_f64()
    }
}

/// The share of the budget the rounds of exploring may take; the rest is
/// validation's.
const EXPLORE: f64 = 1.0 - VALIDATION_SHARE;

/// Shared instead of the switches when rank 0 could not decide.
const FAILED: usize = usize::MAX;

/// The rows of `collective` in the campaign's file (none yet: empty).
fn measured(data: &Path, collective: Collective) -> Result<Dataset> {
    if !data.exists() {
        return Ok(Dataset::default());
    }
    let choice = SystemFilter {
        collective: Some(collective),
        ..SystemFilter::default()
    };
    match load_files(&[data.to_path_buf()], &choice) {
        Ok(loaded) => Ok(loaded.dataset),
        Err(Error::Usage(e)) if e.contains("no rows") => Ok(Dataset::default()),
        Err(e) => Err(e),
    }
}

fn sizes_of(grid: &[(Config, Candidate)]) -> usize {
    let procs: std::collections::BTreeSet<u32> = grid.iter().map(|(c, _)| c.procs).collect();
    procs.len()
}

/// The indices of `global` (one index space over every grid) that fall in
/// the grid of `len` points from `offset`, as indices into that grid.
fn local(global: &[usize], offset: usize, len: usize) -> Vec<usize> {
    global
        .iter()
        .filter(|&&i| (offset..offset + len).contains(&i))
        .map(|&i| i - offset)
        .collect()
}

fn encode(indices: &[usize]) -> Vec<u8> {
    indices
        .iter()
        .flat_map(|&i| (i as u64).to_le_bytes())
        .collect()
}

fn decode(bytes: &[u8]) -> Vec<usize> {
    bytes
        .chunks_exact(8)
        .map(|c| {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            u64::from_le_bytes(word) as usize
        })
        .collect()
}

/// Where a collective's model goes: `model<suffix>/` (see
/// [`crate::collective::Description::file_suffix`]).
pub fn model_dir(dir: &Path, collective: Collective) -> PathBuf {
    dir.join(format!("model{}", collective.describe().file_suffix))
}

/// The communicator sizes tuned, ascending.
fn grids_procs(grids: &[Grid]) -> Vec<u32> {
    let set: std::collections::BTreeSet<u32> = grids
        .iter()
        .flat_map(|g| g.points.iter().map(|(c, _)| c.procs))
        .collect();
    set.into_iter().collect()
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithms_are_shared_out_to_the_collectives_that_have_them() {
        let names: Vec<String> = ["ring", "modified_bruck", "bruck"]
            .map(String::from)
            .to_vec();
        let picked = algorithms(
            &[
                Collective::Alltoall,
                Collective::Allgather,
                Collective::Alltoall,
            ],
            Some(&names),
        )
        .unwrap();
        let ompi: Vec<(Collective, Vec<Algorithm>)> = picked
            .iter()
            .map(|t| (t.collective, t.ompi.clone()))
            .collect();
        assert_eq!(
            ompi,
            [
                (
                    Collective::Allgather,
                    vec![Algorithm::Ring, Algorithm::Bruck]
                ),
                (Collective::Alltoall, vec![Algorithm::ModifiedBruck]),
            ]
        );
        // MPICH's namespace: its allgather has a ring, its alltoall no
        // modified Bruck (its Bruck is `brucks`).
        assert_eq!(picked[0].mpich, [Algorithm::Ring]);
        assert!(picked[1].mpich.is_empty());
        // Without names, each collective's measured algorithms, and all of
        // MPICH's.
        let all = algorithms(&[Collective::Alltoall], None).unwrap();
        assert_eq!(
            all[0].ompi,
            Collective::Alltoall.describe().measured_by_default
        );
        assert_eq!(
            all[0].mpich.len(),
            Collective::Alltoall.describe().mpich.algorithms.len()
        );
        // MPICH's names are accepted for the collectives that have them.
        let names = ["brucks".to_string()];
        let picked = algorithms(&[Collective::Alltoall], Some(&names)).unwrap();
        assert_eq!(picked[0].mpich, [Algorithm::Brucks]);
        assert!(picked[0].ompi.is_empty());
        // A name no collective tuned has is an error, not ignored.
        let err = algorithms(&[Collective::Bcast], Some(&["ring".to_string()])).unwrap_err();
        assert!(err.to_string().contains("\"ring\""), "{err}");
    }
}
