//! Tuning an allocation in one MPI job: a seed grid per collective, then
//! plan -> bench rounds (the points of every collective compete for each
//! round by their expected regret) until the exploring share of the budget
//! is spent or no measurement is expected to change a decision; then
//! (rank 0) a model per collective and its decisions; then every switch
//! away from `default` timed against `default` on fresh samples, and only
//! those proved faster kept ([`crate::select::validation`]); then one rules
//! file with each collective's validated rules, and the report.

mod coverage;

use crate::bench::compare::{Arm, Compared, Request, Rounds};
use crate::bench::points::{self, Sweep};
use crate::bench::{self, Part, Session};
use crate::data::load::{load_files, Choice as DataChoice};
use crate::data::{Algorithm, Arrival, Candidate, Collective, Config, Dataset, Impl, Mapping};
use crate::error::{warn_all, Error, Result};
use crate::evaluate::{evaluate, split, Split};
use crate::export::{self, Format};
use crate::library::Library;
use crate::plan::{choose, score, Settings};
use crate::report;
use crate::select::decision::{DecisionTable, Job};
use crate::select::validation::{self, Validation};
use crate::train::{self, store, Choice, Trained};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Below this expected regret (ln time: about 1% slower than the best) one
/// more measurement cannot change a decision by more than a benchmark's
/// own noise; the rounds stop.
const CONVERGED: f64 = 0.01;

/// Share of the budget kept for validating the decisions: the rounds of
/// exploring stop when the rest is spent. A validation times a switch and
/// `default` in at least four replicas of three rounds of two blocks
/// ([`Rounds::replicated`]; about 0.8 s on 2 cores): a quarter of a
/// 3-minute budget validates some fifty switches (and what exploring
/// leaves unused goes to validation too), while exploring keeps the
/// larger share.
const VALIDATION_SHARE: f64 = 0.25;

/// Rounds measure this share of the grid each (at least one
/// configuration): small enough to re-plan often, large enough that a
/// round is not all start-up.
const ROUND_SHARE: usize = 10;

/// What to tune and how.
#[derive(Clone, Debug)]
pub struct Options {
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
    pub collectives: Vec<Tuned>,
    /// The user's MPICH selection file, which a tune under MPICH writes its
    /// decisions into (`mpich.json`).
    pub mpich_base: Option<crate::export::mpich_json::Base>,
    pub segsizes: Vec<u64>,
    /// How each point is timed: `bench`'s options, their points, file and
    /// budget set per round.
    pub timing: bench::Options,
    pub learning: train::Options,
}

/// A collective to tune and the algorithms to force: Open MPI's, and
/// MPICH's for a job under MPICH (the library decides which at start).
#[derive(Clone, Debug, PartialEq)]
pub struct Tuned {
    pub collective: Collective,
    pub ompi: Vec<Algorithm>,
    pub mpich: Vec<Algorithm>,
}

/// Each of `collectives` (once each, in their order) with the algorithms
/// `names` names for it, or its measured ones (under MPICH, every one of
/// MPICH's); a usage error for a name that is no algorithm of any of them.
pub fn algorithms(collectives: &[Collective], names: Option<&[String]>) -> Result<Vec<Tuned>> {
    let mut collectives = collectives.to_vec();
    collectives.sort_unstable();
    collectives.dedup();
    let mut known_somewhere = vec![false; names.map_or(0, <[String]>::len)];
    let mut out = Vec::new();
    for c in collectives {
        let mpich_table = || c.describe().mpich.algorithms.iter().map(|m| m.algorithm);
        let (ompi, mpich) = match names {
            None => (c.describe().measured.to_vec(), mpich_table().collect()),
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
        out.push(Tuned {
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
pub fn tune(args: &Options) -> Result<()> {
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

fn rounds(session: &Session, args: &Options) -> Result<()> {
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
    first_pass(
        session, args, &grids, &offsets, &bases, &data, &budget, &mut costs,
    )?;
    seed(session, args, &grids, &bases, &data, &budget, &mut costs)?;
    let ended = explore(session, args, &grids, &offsets, &data, &budget, &mut costs)?;
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
    if let Some(decided) = decided {
        let rows = validations(&grids, &offsets, &switches, &compared);
        let unused = budget.left(1.0).saturating_sub(for_report);
        let budget_note = report_budget(&rows, unused, ended, budget.total);
        let covered = covered(&grids, &bases, &data)?;
        let coverage = Coverage {
            covered: &covered,
            costs: &costs,
            bases: &bases,
            explore_seconds: args.time_budget.as_secs_f64() * EXPLORE,
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

/// The first pass's part of exploring, spread evenly over its points as a
/// cap on each: points that converge sooner leave their time to the rounds
/// (other segment sizes and fan-outs, the models' doubts); where every
/// point needs its cap, the rounds still get the other half. A pass too
/// large for its part goes on into the rounds' (it comes first), with each
/// point cut to its cap.
const FIRST_PASS: f64 = 0.5;

/// The first pass (see [`coverage`]): every grid's base points not yet
/// measured, communicator size by communicator size, largest first, each
/// size collective by collective, within the exploring share of the
/// budget, spread evenly over the points (each call gets its points' share
/// of what is left). Rank 0 plans and says each call; everyone measures.
#[allow(clippy::too_many_arguments)]
fn first_pass(
    session: &Session,
    args: &Options,
    grids: &[Grid],
    offsets: &[usize],
    bases: &[Vec<bool>],
    data: &Path,
    budget: &Budget,
    costs: &mut coverage::Costs,
) -> Result<()> {
    let rank0 = session.rank() == 0;
    // What the file holds already (a resumed run), read by rank 0; a file
    // it cannot read stops every rank.
    let done: Result<Vec<Dataset>> = match rank0 {
        true => grids.iter().map(|g| measured(data, g.collective)).collect(),
        false => Ok(Vec::new()),
    };
    let done = match (session.first_failing(done.is_err()), done) {
        (None, Ok(done)) => done,
        (_, Err(e)) => return Err(e),
        (Some(_), Ok(_)) => return Err(Error::Reported(1)),
    };
    // Rank 0's calls: (communicator size, global point indices).
    let mut calls: Vec<(u32, Vec<usize>)> = Vec::new();
    let mut already = 0;
    // Communicator sizes, the job's own (the largest) first.
    let sizes: Vec<u32> = grids_procs(grids).into_iter().rev().collect();
    if rank0 {
        let measured: Vec<_> = done.iter().map(coverage::measured_points).collect();
        // On each size, the smaller messages of every collective before the
        // larger ones of any: where large messages are slow (a slow network,
        // a slow component) the budget that runs out leaves every
        // collective explored up to some size, not some collectives
        // everywhere and the others nowhere.
        for &p in &sizes {
            let mut bands: Vec<Vec<(u32, Vec<usize>)>> = vec![Vec::new(); SIZE_BANDS];
            for (g, grid) in grids.iter().enumerate() {
                let msg_sizes: std::collections::BTreeSet<u64> = grid
                    .points
                    .iter()
                    .filter(|(c, _)| c.procs == p)
                    .map(|(c, _)| c.msg_bytes)
                    .collect();
                let band_of =
                    |m: u64| msg_sizes.range(..m).count() * SIZE_BANDS / msg_sizes.len().max(1);
                let mut mine = vec![Vec::new(); SIZE_BANDS];
                for (i, point) in grid.points.iter().enumerate() {
                    if !bases[g][i] || point.0.procs != p {
                        continue;
                    }
                    match measured[g].contains(point) {
                        true => already += 1,
                        false => mine[band_of(point.0.msg_bytes)].push(offsets[g] + i),
                    }
                }
                for (band, call) in bands.iter_mut().zip(mine) {
                    if !call.is_empty() {
                        band.push((p, call));
                    }
                }
            }
            calls.extend(bands.into_iter().flatten());
        }
    }
    let points: usize = calls.iter().map(|(_, c)| c.len()).sum();
    if rank0 {
        let order: Vec<String> = sizes.iter().map(u32::to_string).collect();
        eprintln!(
            "tune: first pass: every algorithm of every collective once (unsegmented, default \
             fan-out) at every message size, on {} ranks in turn: {points} points{}; \
             exploring has {:.0} s of the {:.0} s budget",
            order.join(", then "),
            match already {
                0 => String::new(),
                n => format!(" ({n} more already measured)"),
            },
            args.time_budget.as_secs_f64() * EXPLORE,
            args.time_budget.as_secs_f64()
        );
    }
    // Each point gets at most its even share of the first pass's part of
    // exploring (rank 0's figure, for everyone: ranks that stop a point at
    // different iterations never meet again); points cheaper than that
    // leave the rest to the rounds, and the pass stops early only where
    // exploring's whole share is spent.
    let cap = FIRST_PASS * budget.left(EXPLORE).as_secs_f64() / points.max(1) as f64;
    let cap = f64::from_le_bytes(
        session.share(cap.to_le_bytes().to_vec())[..8]
            .try_into()
            .expect("8 bytes"),
    );
    let mut remaining = points;
    // The calls of the largest size (the job's own).
    let first_size = calls.iter().take_while(|(p, _)| *p == calls[0].0).count();
    let started = Instant::now();
    let mut at = 0;
    loop {
        let left = budget.left(EXPLORE);
        let chosen = match calls.get(at) {
            Some((_, call)) if rank0 && !left.is_zero() => call.clone(),
            _ => Vec::new(),
        };
        let chosen = decode(&session.share(encode(&chosen)));
        if chosen.is_empty() {
            break;
        }
        let g = offsets.iter().rposition(|&o| o <= chosen[0]).unwrap_or(0);
        let mine = local(&chosen, offsets[g], grids[g].points.len());
        remaining = remaining.saturating_sub(mine.len());
        let timing = bench::Options {
            max_seconds: args.timing.max_seconds.min(cap),
            ..args.timing.clone()
        };
        let args = Options {
            timing,
            ..args.clone()
        };
        measure(session, &args, &grids[g], &mine, left, data, costs)?;
        at += 1;
        // After the job's own size: what the rest of the pass will take.
        let size_done = calls.get(at).is_none_or(|next| next.0 != calls[at - 1].0);
        if rank0 && size_done && at == first_size && remaining > 0 {
            let p = calls[at - 1].0;
            let rest: Vec<(Collective, u32)> = calls[at..]
                .iter()
                .flat_map(|(p, call)| {
                    call.iter().map(move |&i| {
                        let g = offsets.iter().rposition(|&o| o <= i).unwrap_or(0);
                        (grids[g].collective, *p)
                    })
                })
                .collect();
            let need: f64 = rest
                .iter()
                .filter_map(|&(c, p)| costs.per_point(c, p))
                .sum();
            eprintln!(
                "tune: first pass at {p} ranks done in {:.0} s; the rest of it ({} points) \
                 needs about {}, {:.0} s of exploring left",
                started.elapsed().as_secs_f64(),
                rest.len(),
                report::tune::about(need),
                budget.left(EXPLORE).as_secs_f64()
            );
        }
    }
    if rank0 && at < calls.len() {
        eprintln!(
            "tune: the budget ran out in the first pass: {} of its calls not made (the report \
             says which collectives were not explored, and what a first pass would take)",
            calls.len() - at
        );
    }
    Ok(())
}

/// The first pass measures each communicator size in this many bands of
/// message sizes (each collective's smallest third first).
const SIZE_BANDS: usize = 3;

/// Seed: every candidate that is not a base point on a lattice of
/// configurations (every third along message size and communicator size,
/// shifted per size), within half the exploring share, collective after
/// collective: segment sizes and fan-outs get a few measurements each
/// before the models' doubts choose (a candidate measured too rarely
/// cannot be priced). Nothing where the first pass took that half.
fn seed(
    session: &Session,
    args: &Options,
    grids: &[Grid],
    bases: &[Vec<bool>],
    data: &Path,
    budget: &Budget,
    costs: &mut coverage::Costs,
) -> Result<()> {
    let lattices: Vec<Vec<usize>> = grids
        .iter()
        .zip(bases)
        .map(|(grid, base)| {
            (0..grid.points.len())
                .filter(|&i| !base[i] && lattice(args, &grid.points[i].0))
                .collect()
        })
        .collect();
    let seed_share = 0.5 * EXPLORE;
    let used = budget.spent();
    if used >= seed_share {
        return Ok(());
    }
    if session.rank() == 0 {
        for (grid, seed) in grids.iter().zip(&lattices) {
            eprintln!(
                "tune: {}: {} communicator sizes x {} message sizes, {} points; seed {} points",
                grid.collective.function(),
                sizes_of(&grid.points),
                grid.collective.message_sizes(&args.sizes).len(),
                grid.points.len(),
                seed.len()
            );
        }
    }
    let part = |g: usize| (g + 1) as f64 / grids.len() as f64;
    for (g, (grid, seed)) in grids.iter().zip(&lattices).enumerate() {
        if !seed.is_empty() {
            let left = budget.left(used + (seed_share - used) * part(g));
            measure(session, args, grid, seed, left, data, costs)?;
        }
    }
    Ok(())
}

/// Rounds of plan -> bench over every grid (`offsets`: where each grid's
/// points start in one index space) until the exploring share is spent,
/// every point is measured, or no measurement is expected to change a
/// decision. Rank 0 plans (while its budget lasts: every rank's clock
/// differs, so only its own decides); everyone measures what it chose.
fn explore(
    session: &Session,
    args: &Options,
    grids: &[Grid],
    offsets: &[usize],
    data: &Path,
    budget: &Budget,
    costs: &mut coverage::Costs,
) -> Result<Explored> {
    let total: usize = grids.iter().map(|g| g.points.len()).sum();
    // Why exploring stopped (rank 0 knows).
    let mut ended = Explored::Budget;
    // How often each point (global index) was planned: one planned twice
    // and still unmeasured is one bench leaves out (it said why) and is
    // not planned again, or its configuration, unpriced, would head every
    // round. (Once may be a round the budget cut short.)
    let mut planned: BTreeMap<usize, u32> = BTreeMap::new();
    for round in 1.. {
        let left = budget.left(EXPLORE);
        let mut chosen = Vec::new();
        if session.rank() == 0 && !left.is_zero() {
            let mut scored = Vec::new();
            for (grid, offset) in grids.iter().zip(offsets) {
                let measured = measured(data, grid.collective)?;
                let open: Vec<usize> = (0..grid.points.len())
                    .filter(|i| planned.get(&(i + offset)).is_none_or(|&n| n < 2))
                    .collect();
                let points: Vec<_> = open.iter().map(|&i| grid.points[i]).collect();
                for mut s in score(&measured, &points, &Settings::default())? {
                    s.points.iter_mut().for_each(|i| *i = open[*i] + offset);
                    scored.push(s);
                }
            }
            // The most valuable configurations of any collective first.
            scored.sort_by(|a, b| b.regret.total_cmp(&a.regret));
            if scored.is_empty() {
                match planned.values().any(|&n| n >= 2) {
                    true => eprintln!("tune: every point of the grid that bench runs is measured"),
                    false => eprintln!("tune: every point of the grid is measured"),
                }
                ended = Explored::Everything;
            }
            let top = scored.iter().map(|s| s.regret).fold(0.0, f64::max);
            let per_round =
                (total / ROUND_SHARE).max(scored.iter().map(|s| s.points.len()).max().unwrap_or(0));
            if top >= CONVERGED {
                chosen = choose(&scored, per_round);
                chosen
                    .iter()
                    .for_each(|&i| *planned.entry(i).or_default() += 1);
            } else if !scored.is_empty() {
                eprintln!("tune: converged: no measurement is expected to change a decision by 1%");
                ended = Explored::Converged;
            }
            if !chosen.is_empty() {
                eprintln!(
                    "tune: round {round}: {} points planned (largest expected regret {top:.4}), \
                     {:.0} s left to explore",
                    chosen.len(),
                    left.as_secs_f64()
                );
            }
        }
        let chosen = decode(&session.share(encode(&chosen)));
        if chosen.is_empty() {
            return Ok(ended);
        }
        for (grid, &offset) in grids.iter().zip(offsets) {
            let mine = local(&chosen, offset, grid.points.len());
            if !mine.is_empty() {
                measure(
                    session,
                    args,
                    grid,
                    &mine,
                    budget.left(EXPLORE),
                    data,
                    costs,
                )?;
            }
        }
    }
    Ok(ended)
}

/// Shared instead of the switches when rank 0 could not decide.
const FAILED: usize = usize::MAX;

/// Why the rounds of exploring stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Explored {
    /// The exploring share of the budget was spent.
    Budget,
    /// No measurement was expected to change a decision by 1%.
    Converged,
    /// Every point of the grid was measured.
    Everything,
}

/// Says what validation found; returns what the summary says of the
/// budget: what was left of it and why, or what it did not cover.
fn report_budget(
    rows: &[Validation],
    unused: Duration,
    ended: Explored,
    total: Duration,
) -> String {
    let unmeasured = rows.iter().filter(|v| v.speedup.is_none()).count();
    let kept = rows.iter().filter(|v| v.kept()).count();
    eprintln!(
        "tune: validated {} switches from default: {kept} kept, {} reverted",
        rows.len() - unmeasured,
        rows.len() - unmeasured - kept
    );
    if unmeasured > 0 {
        format!(
            "The budget ran out before {unmeasured} switch(es) were validated: they keep \
             `default` (a larger --time-budget validates them)."
        )
    } else if unused.as_secs_f64() >= 1.0 {
        let why = match ended {
            Explored::Converged => "the rounds had converged",
            Explored::Everything => "every point of the grid was measured",
            Explored::Budget => "exploring had its share",
        };
        format!(
            "{:.0} s of the {:.0} s budget left unused: every switch from `default` was \
             validated and {why}.",
            unused.as_secs_f64(),
            total.as_secs_f64()
        )
    } else {
        format!("The whole {:.0} s budget was used.", total.as_secs_f64())
    }
}

/// The rows of `collective` in the campaign's file (none yet: empty).
fn measured(data: &Path, collective: Collective) -> Result<Dataset> {
    if !data.exists() {
        return Ok(Dataset::default());
    }
    let choice = DataChoice {
        collective: Some(collective),
        ..DataChoice::default()
    };
    match load_files(&[data.to_path_buf()], &choice) {
        Ok(loaded) => Ok(loaded.dataset),
        Err(Error::Usage(e)) if e.contains("no rows") => Ok(Dataset::default()),
        Err(e) => Err(e),
    }
}

/// Whether a configuration is on the seed lattice.
fn lattice(args: &Options, c: &Config) -> bool {
    let size = args
        .sizes
        .iter()
        .position(|&m| m == c.msg_bytes)
        .unwrap_or(0);
    let procs = c.procs.ilog2() as usize;
    (size + procs).is_multiple_of(3)
}

fn sizes_of(grid: &[(Config, Candidate)]) -> usize {
    let procs: std::collections::BTreeSet<u32> = grid.iter().map(|(c, _)| c.procs).collect();
    procs.len()
}

/// Every (configuration, candidate) of `collective` this job can measure:
/// Open MPI's forced algorithms (what a rules file selects) and `default`.
/// A reduction sums floats: sizes that are not whole floats are left out.
fn grid(
    session: &Session,
    args: &Options,
    collective: Collective,
    forced: &[Algorithm],
    implementation: Impl,
) -> Result<Vec<(Config, Candidate)>> {
    let mut algorithms = vec![Algorithm::Default];
    algorithms.extend(forced.iter().filter(|a| **a != Algorithm::Default));
    let sizes = collective.message_sizes(&args.sizes);
    if sizes.is_empty() {
        return Err(Error::Usage(format!(
            "no message size for {}: its sizes are whole 4-byte floats",
            collective.function()
        )));
    }
    let sweep = Sweep {
        collective,
        sizes,
        algorithms,
        segsizes: args.segsizes.clone(),
        fanouts: vec![None],
        impls: vec![implementation],
        arrival: Arrival::Barrier,
        imbalances: vec![0.0],
    };
    let sweep_points = sweep.points().map_err(Error::Usage)?;
    let world = session.size();
    let procs: Vec<u32> = match &args.procs {
        Some(list) => list.clone(),
        // A barrier has one configuration per communicator size: every
        // size up to 8 ranks, so that a small job decides each (and its
        // models see more than one or two).
        None if !collective.describe().semantics.sized && world <= 8 => (2..=world).collect(),
        None => {
            let mut p: Vec<u32> = (1..)
                .map(|e| 1u32 << e)
                .take_while(|&p| p < world)
                .collect();
            p.push(world);
            p
        }
    };
    let library = session.library();
    // What Open MPI's tuned component has (allgather's sparbit is 5.0's).
    let tuned = match implementation {
        Impl::Ompi => Some(bench::control::TunedControl::open(collective).map_err(Error::Other)?),
        _ => None,
    };
    let controls = bench::Controls {
        tuned: tuned.as_ref(),
        mpich: None,
    };
    // (algorithm, why) of points bench would leave out of every round:
    // never planned, or their configurations, unpriced, would head every
    // round.
    let mut left = std::collections::BTreeSet::new();
    let mut grid = Vec::new();
    for p in procs {
        let placed = session.placement(p, args.mapping).ok_or_else(|| {
            Error::Usage(format!(
                "communicator size {p} exceeds the job's {world} ranks (--procs)"
            ))
        })?;
        if p < 2 {
            return Err(Error::Usage(format!(
                "communicator size {p}: a collective needs 2 or more ranks to tune"
            )));
        }
        for point in &sweep_points {
            let at = (p, placed.nodes);
            let c = &point.candidate;
            if let Some(why) = bench::cannot_run(collective, c, at, point.msg_bytes, controls) {
                left.insert((c.algorithm, why));
                continue;
            }
            let config = Config {
                procs: p,
                nodes: placed.nodes,
                ppn: placed.ppn,
                mapping: placed.mapping,
                msg_bytes: point.msg_bytes,
                imbalance: 0.0,
                arrival: Arrival::Barrier,
            };
            grid.push((config, point.candidate));
            // Where coll/han serves `default`, tuned's own decision is an
            // alternative a rules file can choose (HAN's file hands it to
            // tuned): measured beside it.
            if point.candidate.is_default() && library.hierarchical(collective, &config) {
                let tuned = Candidate {
                    algorithm: Algorithm::Tuned,
                    ..point.candidate
                };
                grid.push((config, tuned));
            }
        }
    }
    for (algorithm, why) in left.into_iter().filter(|_| session.rank() == 0) {
        eprintln!(
            "tune: {} {algorithm} not planned where it cannot run ({why})",
            collective.function()
        );
    }
    Ok(grid)
}

/// Measures the points `chosen` of `grid` (collective), appending to
/// `data`; what it cost goes into `costs` (rank 0's, which has every
/// communicator size's outcome).
fn measure(
    session: &Session,
    args: &Options,
    grid: &Grid,
    chosen: &[usize],
    budget: Duration,
    data: &Path,
    costs: &mut coverage::Costs,
) -> Result<()> {
    let selected: Vec<(Config, Candidate)> = chosen.iter().map(|&i| grid.points[i]).collect();
    let parts: Vec<Part> = points::listed(&selected)
        .into_iter()
        .map(|p| Part {
            mapping: args.mapping,
            ..p
        })
        .collect();
    let budget = Some(budget.max(Duration::from_millis(1)));
    let opts = bench::Options {
        collective: grid.collective,
        parts,
        out: data.to_path_buf(),
        time_budget: budget,
        ..args.timing.clone()
    };
    for outcome in session.measure(&opts)? {
        costs.add(
            grid.collective,
            outcome.job.procs,
            outcome.seconds,
            outcome.measured,
        );
    }
    Ok(())
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

/// One collective's model and its decision tables, one per job size.
struct Decided {
    trained: Trained,
    data: Dataset,
    label: String,
    tables: Vec<DecisionTable>,
    /// How long training took.
    training: Duration,
}

/// Trains a model per collective on what was measured (saving each) and
/// decides every tuned size, each for the placement it was measured on
/// (the rules format keys on size alone). Rank 0, no MPI needed.
fn decide(args: &Options, grids: &[Grid]) -> Result<Vec<Option<Decided>>> {
    let dir = &args.out_dir;
    let data_path = dir.join("data.csv");
    let mut out = Vec::new();
    for grid in grids {
        eprintln!(
            "tune: training {} on {}",
            grid.collective.function(),
            data_path.display()
        );
        let started = Instant::now();
        let data = measured(&data_path, grid.collective)?;
        if data.measurements().is_empty() {
            out.push(None);
            continue;
        }
        let (mut trained, notes) = train::fit(&data, &args.learning, || {})?;
        warn_all(&notes);
        trained.manifest.training_files = vec![data_path.display().to_string()];
        store::save(&model_dir(dir, grid.collective), &trained)?;
        let mut jobs: Vec<Job> = grid.points.iter().map(|(c, _)| Job::of(c)).collect();
        jobs.sort_by_key(|j| j.procs);
        jobs.dedup_by_key(|j| j.procs);
        let sizes: Vec<u64> = grid
            .points
            .iter()
            .map(|(c, _)| c.msg_bytes)
            // A barrier's decisions are at size 0, its only one.
            .filter(|&m| !grid.collective.returns_at_once(m))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let decider = trained.decider(Choice::Auto)?;
        let label = trained.label(Choice::Auto);
        // Under MPICH `default` is its device layer's choice, which its
        // selection file cannot name: the file decides among MPICH's
        // algorithms, each then validated against `default`.
        let allowed = grid
            .under_mpich()
            .then(|| trained.allowed(|c| c.implementation == Impl::Mpich).0);
        let tables = jobs
            .into_iter()
            .map(|job| DecisionTable::new(&decider, job, label.clone(), &sizes, allowed.as_deref()))
            .collect::<Result<Vec<_>>>()?;
        out.push(Some(Decided {
            trained,
            data,
            label,
            tables,
            training: started.elapsed(),
        }));
    }
    Ok(out)
}

/// Every switch from `default` in the decisions, as the index of its grid
/// point (in the index space of `offsets`), the largest expected gain over
/// the measured `default` first: if time runs short, what matters most is
/// validated. A switch off the grid (none should be) is left out, and so
/// reverts.
fn switches(grids: &[Grid], offsets: &[usize], decided: &[Option<Decided>]) -> Vec<usize> {
    let mut out: Vec<(f64, usize)> = Vec::new();
    for ((grid, offset), d) in grids.iter().zip(offsets).zip(decided) {
        let Some(d) = d else { continue };
        let default_us = |config: &Config| {
            d.data
                .measurements()
                .iter()
                .find(|m| m.config == *config && m.candidate.is_default())
                .map_or(f64::NAN, |m| m.time_us)
        };
        for table in &d.tables {
            for decision in &table.decisions {
                let candidate = decision.choice.candidate;
                if candidate.is_default() {
                    continue;
                }
                let config = table.job.config(decision.msg_bytes);
                if let Some(i) = grid.points.iter().position(|p| *p == (config, candidate)) {
                    let gain = default_us(&config) / decision.choice.predicted_us;
                    out.push((if gain.is_finite() { gain } else { 0.0 }, offset + i));
                }
            }
        }
    }
    out.sort_by(|a, b| b.0.total_cmp(&a.0));
    out.into_iter().map(|(_, i)| i).collect()
}

/// One grid's validations: each switch's point (an index into the grid) and
/// its comparison with `default` (`None`: the time ran out first).
type Measured = Vec<(usize, Option<Compared>)>;

/// Times each switch (a grid point) against `default` in paired rounds,
/// within `budget` shared out over them: per grid, per communicator size,
/// the switches in the order given. Collective; rank 0 has the results.
fn validate(
    session: &Session,
    args: &Options,
    grids: &[Grid],
    offsets: &[usize],
    switches: &[usize],
    budget: Duration,
) -> Result<Vec<Measured>> {
    let start = Instant::now();
    let mut left_to_do = switches.len();
    let mut out = Vec::new();
    for (grid, &offset) in grids.iter().zip(offsets) {
        let mine = local(switches, offset, grid.points.len());
        // Per communicator size (and mapping), in the order of `mine`.
        let mut sizes: Vec<(Option<u32>, crate::data::Mapping, Vec<Request>)> = Vec::new();
        let mut order: Vec<Vec<usize>> = Vec::new();
        for &i in &mine {
            let (config, candidate) = grid.points[i];
            let request = Request {
                msg_bytes: config.msg_bytes,
                arms: vec![Arm::Forced(Candidate::DEFAULT), Arm::Forced(candidate)],
            };
            match sizes.iter().position(|s| s.0 == Some(config.procs)) {
                Some(k) => {
                    sizes[k].2.push(request);
                    order[k].push(i);
                }
                None => {
                    sizes.push((Some(config.procs), args.mapping, vec![request]));
                    order.push(vec![i]);
                }
            }
        }
        if mine.is_empty() {
            out.push(Vec::new());
            continue;
        }
        let left = budget.saturating_sub(start.elapsed()).as_secs_f64();
        let seconds = left * mine.len() as f64 / left_to_do.max(1) as f64;
        left_to_do -= mine.len();
        if session.rank() == 0 {
            eprintln!(
                "tune: validating {} switches of {} from default on fresh samples (up to {seconds:.0} s)",
                mine.len(),
                grid.collective.function()
            );
        }
        let opts = bench::Options {
            collective: grid.collective,
            ..args.timing.clone()
        };
        let results = session.compare(
            grid.collective,
            &sizes,
            &opts,
            &Rounds::replicated(),
            seconds,
        )?;
        // Rank 0 takes part in every size; the others keep nothing.
        let compared = order
            .into_iter()
            .zip(results)
            .flat_map(|(points, results)| points.into_iter().zip(results))
            .collect();
        out.push(compared);
    }
    Ok(out)
}

/// The validation of each switch, from what [`validate`] measured (rank 0).
fn validations(
    grids: &[Grid],
    offsets: &[usize],
    switches: &[usize],
    compared: &[Measured],
) -> Vec<Validation> {
    let mut rows = Vec::new();
    for ((grid, offset), results) in grids.iter().zip(offsets).zip(compared) {
        for &global in switches {
            let Some(i) = global.checked_sub(*offset) else {
                continue;
            };
            let Some((config, candidate)) = grid.points.get(i) else {
                continue;
            };
            let measured = results
                .iter()
                .find(|(j, _)| *j == i)
                .and_then(|(_, c)| c.as_ref());
            rows.push(Validation {
                collective: grid.collective,
                procs: config.procs,
                msg_bytes: config.msg_bytes,
                decision: *candidate,
                speedup: measured.and_then(|c| c.speedup(1)),
                times_us: measured.map(|c| (c.mean_us(0), c.mean_us(1))),
                // Set over the whole run below.
                discovered: false,
            });
        }
    }
    rows.sort_by_key(|v| (v.collective, v.procs, v.msg_bytes));
    validation::discoveries(&mut rows);
    rows
}

/// Writes the validated rules of every collective into one rules file
/// (and HAN's), `validation.csv` and the report (rank 0, no MPI needed). A
/// collective nothing of was measured (`None`) has no part in the rules:
/// the library keeps its own choice, which the report says.
fn finish(
    args: &Options,
    grids: &[Grid],
    decided: Vec<Option<Decided>>,
    rows: &[Validation],
    coverage: &Coverage,
    budget: &Budget,
    budget_note: String,
) -> Result<()> {
    let dir = &args.out_dir;
    write(&dir.join("validation.csv"), &validation::csv(rows))?;
    let under_mpich = grids.iter().any(Grid::under_mpich);
    // The collectives measured: (grid index, decisions).
    let measured: Vec<(usize, &Decided)> = decided
        .iter()
        .enumerate()
        .filter_map(|(i, d)| d.as_ref().map(|d| (i, d)))
        .collect();
    let mut sections = Vec::new();
    let mut reverted = Vec::new();
    // Under MPICH: whether each collective's part of the selection file is
    // the tune's (see `report::tune::takes_selection`).
    let mut taken = Vec::new();
    // Each collective's validations.
    let validated: Vec<Vec<Validation>> = grids
        .iter()
        .map(|grid| {
            let mine = rows.iter().filter(|v| v.collective == grid.collective);
            mine.cloned().collect()
        })
        .collect();
    for &(i, d) in &measured {
        let grid = &grids[i];
        // `predict` from the model then ships what validation kept.
        store::save_validation(&model_dir(dir, grid.collective), &validated[i])?;
        let mut tables = d.tables.clone();
        let back = match under_mpich {
            // The file holds an MPICH algorithm at every size, or MPICH's
            // own part for the collective.
            true => Vec::new(),
            false => validation::apply(grid.collective, &mut tables, rows),
        };
        reverted.push(back);
        taken.push(report::tune::takes_selection(&validated[i]));
        sections.push(export::Section {
            collective: grid.collective,
            tables,
        });
    }
    let export_options = |d: &Decided| export::Options {
        rules_version: 1,
        origin: format!(
            "tune into {}, learner {}, switches validated",
            dir.display(),
            d.label
        ),
        system: d.trained.manifest.training.system(),
        mpich_base: args.mpich_base.clone(),
    };
    let rules = dir.join("rules");
    let selection = dir.join("mpich.json");
    match (under_mpich, measured.first()) {
        (true, _) => {
            let mine: Vec<export::Section> = sections
                .iter()
                .zip(&taken)
                .filter(|(_, t)| **t)
                .map(|(s, _)| s.clone())
                .collect();
            let base = args.mpich_base.as_ref();
            write(&selection, &export::mpich_json::render(&mine, base)?)?;
            for (&(i, _), t) in measured.iter().zip(&taken) {
                let what = match t {
                    true => "the tune's decisions",
                    false => "MPICH's own part (validation did not prove it)",
                };
                eprintln!(
                    "tune: {}: {} holds {what}",
                    grids[i].collective.function(),
                    selection.display()
                );
            }
        }
        (false, Some(&(_, first))) => {
            let options = export_options(first);
            write(
                &rules,
                &export::render(&sections, Format::OmpiRules, &options)?,
            )?;
            // Open MPI 5 gives these collectives across nodes to coll/han:
            // its file hands them to tuned where a tuned algorithm was
            // chosen.
            write(
                &dir.join("han.rules"),
                &export::render(&sections, Format::OmpiHan, &options)?,
            )?;
        }
        (false, None) => eprintln!(
            "tune: warning: nothing was measured, so no rules are written (a larger \
             --time-budget measures something)"
        ),
    }
    let held: Vec<Option<std::result::Result<String, String>>> = grids
        .iter()
        .enumerate()
        .map(|(i, grid)| {
            let k = measured.iter().position(|&(j, _)| j == i)?;
            Some(held_out(args, grid, measured[k].1, budget))
        })
        .collect();
    let mut decisions = Vec::new();
    let mut pictures = Vec::new();
    for (k, &(i, d)) in measured.iter().enumerate() {
        let one = std::slice::from_ref(&sections[k]);
        decisions.push(export::render(one, Format::Table, &export_options(d))?);
        pictures.push(draw(
            dir,
            grids[i].collective,
            &sections[k].tables,
            &validated[i],
            under_mpich && !taken[k],
        ));
    }
    let tuned: Vec<report::tune::Tuned> = grids
        .iter()
        .enumerate()
        .map(|(i, grid)| {
            let explored = report::tune::Explored {
                covered: &coverage.covered[i],
                first_pass_seconds: coverage.first_pass_seconds(grids, i),
                explore_seconds: coverage.explore_seconds,
            };
            let shipping =
                measured
                    .iter()
                    .position(|&(j, _)| j == i)
                    .map(|k| report::tune::Shipping {
                        shipped: match under_mpich {
                            true => report::tune::Shipped::Mpich {
                                selection: &selection,
                                taken: taken[k],
                            },
                            false => report::tune::Shipped::OpenMpi { rules: &rules },
                        },
                        tables: &sections[k].tables,
                        decisions: &decisions[k],
                        validations: &validated[i],
                        reverted: &reverted[k],
                        held_out: match &held[i] {
                            Some(Ok(text)) => Ok(text.as_str()),
                            Some(Err(why)) => Err(why.as_str()),
                            None => Err("nothing measured"),
                        },
                        pictures: pictures[k].clone(),
                    });
            report::tune::Tuned {
                collective: grid.collective,
                explored,
                shipping,
            }
        })
        .collect();
    let unexplored = coverage.covered.iter().flatten().any(|c| !c.explored());
    let whole: Option<f64> = (0..grids.len())
        .map(|g| coverage.first_pass_seconds(grids, g))
        .sum();
    let run = report::summary::Run {
        dir,
        tuned: &tuned,
        sizes: &args.sizes,
        procs: &grids_procs(grids),
        budget: budget_note,
        whole_first_pass: whole.filter(|_| unexplored).map(|s| s / EXPLORE),
    };
    // Everything the report tells is written already: a report that cannot
    // be written is a warning, not a failed job.
    if let Err(e) = write(&dir.join("report.md"), &report::summary::report(&run)) {
        eprintln!("tune: warning: {e}");
    }
    eprintln!("tune: wrote {}\n", dir.display());
    eprint!("{}", report::summary::summary(&run));
    Ok(())
}

/// The pictures of what a collective ships, relative to the tune's
/// directory: none where nothing switches (`stays`: MPICH keeps its own
/// choice for it). A picture that cannot be drawn costs itself, never the
/// report or the run.
fn draw(
    dir: &Path,
    collective: Collective,
    tables: &[DecisionTable],
    validations: &[Validation],
    stays: bool,
) -> report::shipped_plots::Pictures {
    let mut none = report::shipped_plots::Pictures::default();
    if stays || !validations.iter().any(Validation::kept) {
        return none;
    }
    let folder = format!("plots{}", collective.describe().file_suffix);
    let shipped = report::shipped_plots::Shipped {
        function: collective.function(),
        tables,
        validations,
    };
    match report::shipped_plots::write(&shipped, &dir.join(&folder)) {
        Ok(p) => {
            let relative = |f: Option<PathBuf>| {
                f.and_then(|f| f.file_name().map(|n| Path::new(&folder).join(n)))
            };
            none.speedup = relative(p.speedup);
            none.decisions = relative(p.decisions);
        }
        Err(e) => eprintln!(
            "tune: warning: no pictures of {}: {e}",
            collective.function()
        ),
    }
    none
}

/// The evaluation on communicator sizes held out of training, as markdown
/// (its plots written beside the report), or why there is none: fewer than
/// 3 sizes, a split evaluate refuses, or no time left to train again.
fn held_out(
    args: &Options,
    grid: &Grid,
    d: &Decided,
    budget: &Budget,
) -> std::result::Result<String, String> {
    if budget.left(1.0) < d.training {
        return Err("the budget ran out before it (it trains the models again)".to_string());
    }
    if sizes_of(&grid.points) < 3 {
        return Err("fewer than 3 communicator sizes".to_string());
    }
    let fraction = Split::Procs {
        fraction: 0.3,
        seed: 1,
    };
    let (train, test) = split(&d.data, fraction).map_err(|e| e.to_string())?;
    // A held-out split evaluate refuses (say, no `default` row on its side)
    // leaves the report without it, not the job without rules.
    let evaluated = evaluate(&train, &test, &args.learning, || {}).map_err(|e| {
        eprintln!(
            "tune: no held-out evaluation of {}: {e}",
            grid.collective.function()
        );
        e.to_string()
    })?;
    let suffix = grid.collective.describe().file_suffix;
    let plots_dir = args.out_dir.join(format!("plots{suffix}"));
    // A plot that cannot be drawn costs its picture, never the report or
    // the run.
    match report::plots::write(&evaluated, &plots_dir) {
        Ok(plots) => eprintln!(
            "tune: wrote {} plots into {}",
            plots.len(),
            plots_dir.display()
        ),
        Err(e) => eprintln!("tune: warning: no plots in {}: {e}", plots_dir.display()),
    }
    report::render(&evaluated, report::Format::Markdown).map_err(|e| e.to_string())
}

/// Per grid, what the run measured (rank 0, after exploring).
fn covered(
    grids: &[Grid],
    bases: &[Vec<bool>],
    data: &Path,
) -> Result<Vec<Vec<coverage::Covered>>> {
    grids
        .iter()
        .zip(bases)
        .map(|(g, base)| {
            let measured = measured(data, g.collective)?;
            Ok(coverage::covered(&g.points, base, &measured))
        })
        .collect()
}

/// What the report says of coverage.
struct Coverage<'a> {
    /// Per grid.
    covered: &'a [Vec<coverage::Covered>],
    costs: &'a coverage::Costs,
    bases: &'a [Vec<bool>],
    /// The exploring share of the budget.
    explore_seconds: f64,
}

impl Coverage<'_> {
    /// About how long grid `g`'s whole first pass takes on this job.
    fn first_pass_seconds(&self, grids: &[Grid], g: usize) -> Option<f64> {
        let procs: Vec<u32> = grids[g]
            .points
            .iter()
            .zip(&self.bases[g])
            .filter(|(_, &b)| b)
            .map(|((c, _), _)| c.procs)
            .collect();
        self.costs.estimate(grids[g].collective, &procs)
    }
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
        assert_eq!(all[0].ompi, Collective::Alltoall.describe().measured);
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
