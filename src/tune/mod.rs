//! Tuning an allocation in one MPI job: a seed grid per collective, then
//! plan -> bench rounds (the points of every collective compete for each
//! round by their expected regret) until the budget is spent or no
//! measurement is expected to change a decision, then (rank 0) a model per
//! collective, one rules file with each collective's rules, and the
//! report.

use crate::bench::points::{self, Sweep};
use crate::bench::{self, Part, Session};
use crate::data::load::{load_files, Choice as DataChoice};
use crate::data::{Algorithm, Arrival, Candidate, Collective, Config, Dataset, Impl, Mapping};
use crate::error::{warn_all, Error, Result};
use crate::evaluate::{evaluate, split, Split};
use crate::export::{self, Format};
use crate::plan::{choose, score, Settings};
use crate::report;
use crate::select::decision::{DecisionTable, Job};
use crate::train::{self, store, Choice};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Below this expected regret (ln time: about 1% slower than the best) one
/// more measurement cannot change a decision by more than a benchmark's
/// own noise; the rounds stop.
const CONVERGED: f64 = 0.01;

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
    /// The collectives tuned, each with Open MPI's algorithms to force
    /// (`default` is always measured).
    pub collectives: Vec<(Collective, Vec<Algorithm>)>,
    pub segsizes: Vec<u64>,
    /// How each point is timed: `bench`'s options, their points, file and
    /// budget set per round.
    pub timing: bench::Options,
    pub learning: train::Options,
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

fn rounds(session: &Session, args: &Options) -> Result<()> {
    let start = Instant::now();
    let rank0 = session.rank() == 0;
    let grids = args
        .collectives
        .iter()
        .map(|(collective, algorithms)| {
            Ok(Grid {
                collective: *collective,
                points: grid(session, args, *collective, algorithms)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let data = args.out_dir.join("data.csv");
    if rank0 {
        std::fs::create_dir_all(&args.out_dir)
            .map_err(|e| Error::io(format!("cannot create {}", args.out_dir.display()), e))?;
    }
    let left = |share: f64| {
        let total = args.time_budget.as_secs_f64() * share;
        Duration::from_secs_f64((total - start.elapsed().as_secs_f64()).max(0.0))
    };
    // Seed: every `default` point, and every candidate on a lattice of
    // configurations (every third along message size and communicator
    // size, shifted per size), measured within half the budget (shared
    // out over the collectives in turn).
    for (g, grid) in grids.iter().enumerate() {
        let seed: Vec<usize> = (0..grid.points.len())
            .filter(|&i| {
                let (c, k) = &grid.points[i];
                k.is_default() || k.algorithm == Algorithm::Tuned || lattice(args, c)
            })
            .collect();
        if rank0 {
            eprintln!(
                "tune: {}: {} communicator sizes x {} message sizes, {} points; seed {} points",
                grid.collective.function(),
                sizes_of(&grid.points),
                args.sizes.len(),
                grid.points.len(),
                seed.len()
            );
        }
        let share = 0.5 * (g + 1) as f64 / grids.len() as f64;
        measure(session, args, grid, &seed, left(share), &data)?;
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
    let total: usize = grids.iter().map(|g| g.points.len()).sum();
    for round in 1.. {
        // Rank 0 plans (while its budget lasts: every rank's clock differs,
        // so only its own decides); everyone measures what it chose.
        let budget = left(1.0);
        let mut chosen = Vec::new();
        if rank0 && !budget.is_zero() {
            let mut scored = Vec::new();
            for (grid, offset) in grids.iter().zip(&offsets) {
                let measured = measured(&data, grid.collective)?;
                for mut s in score(&measured, &grid.points, &Settings::default())? {
                    s.points.iter_mut().for_each(|i| *i += offset);
                    scored.push(s);
                }
            }
            // The most valuable configurations of any collective first.
            scored.sort_by(|a, b| b.regret.total_cmp(&a.regret));
            if scored.is_empty() {
                eprintln!("tune: every point of the grid is measured");
            }
            let top = scored.iter().map(|s| s.regret).fold(0.0, f64::max);
            let per_round =
                (total / ROUND_SHARE).max(scored.iter().map(|s| s.points.len()).max().unwrap_or(0));
            if top >= CONVERGED {
                chosen = choose(&scored, per_round);
            } else if !scored.is_empty() {
                eprintln!("tune: converged: no measurement is expected to change a decision by 1%");
            }
            eprintln!(
                "tune: round {round}: {} points planned (largest expected regret {top:.4}), {:.0} s left",
                chosen.len(),
                budget.as_secs_f64()
            );
        }
        let chosen = decode(&session.share(encode(&chosen)));
        if chosen.is_empty() {
            break;
        }
        for (g, grid) in grids.iter().enumerate() {
            let end = offsets[g] + grid.points.len();
            let mine: Vec<usize> = chosen
                .iter()
                .filter(|&&i| (offsets[g]..end).contains(&i))
                .map(|&i| i - offsets[g])
                .collect();
            if !mine.is_empty() {
                measure(session, args, grid, &mine, left(1.0), &data)?;
            }
        }
    }
    if rank0 {
        finish(args, &grids)?;
    }
    Ok(())
}

/// The rows of `collective` in the campaign's file (none yet: empty).
fn measured(data: &Path, collective: Collective) -> Result<Dataset> {
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
) -> Result<Vec<(Config, Candidate)>> {
    let mut algorithms = vec![Algorithm::Default];
    algorithms.extend(forced.iter().filter(|a| **a != Algorithm::Default));
    let sizes: Vec<u64> = match collective {
        Collective::Bcast => args.sizes.clone(),
        _ => args.sizes.iter().copied().filter(|m| m % 4 == 0).collect(),
    };
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
        impls: vec![Impl::Ompi],
        arrival: Arrival::Barrier,
        imbalances: vec![0.0],
    };
    let sweep_points = sweep.points().map_err(Error::Usage)?;
    let world = session.size();
    let procs: Vec<u32> = match &args.procs {
        Some(list) => list.clone(),
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
            if point.candidate.is_default() && library.hierarchical(&config) {
                let tuned = Candidate {
                    algorithm: Algorithm::Tuned,
                    ..point.candidate
                };
                grid.push((config, tuned));
            }
        }
    }
    Ok(grid)
}

/// Measures the points `chosen` of `grid` (collective), appending to
/// `data`.
fn measure(
    session: &Session,
    args: &Options,
    grid: &Grid,
    chosen: &[usize],
    budget: Duration,
    data: &Path,
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
    session.measure(&opts).map(|_| ())
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

/// Where a collective's model goes: `model/` for broadcast (as before
/// there were others), `model-<collective>/` for the others.
pub fn model_dir(dir: &Path, collective: Collective) -> PathBuf {
    match collective {
        Collective::Bcast => dir.join("model"),
        other => dir.join(format!("model-{}", other.name())),
    }
}

/// Trains a model per collective on what was measured, writes one rules
/// file with each collective's rules for the job sizes tuned, and the
/// report (rank 0, no MPI needed).
fn finish(args: &Options, grids: &[Grid]) -> Result<()> {
    let dir = &args.out_dir;
    let data_path = dir.join("data.csv");
    let options = &args.learning;
    let mut sections = Vec::new();
    let mut trained_all = Vec::new();
    for grid in grids {
        eprintln!(
            "tune: training {} on {}",
            grid.collective.function(),
            data_path.display()
        );
        let data = measured(&data_path, grid.collective)?;
        let (mut trained, notes) = train::fit(&data, options, || {})?;
        warn_all(&notes);
        trained.manifest.training_files = vec![data_path.display().to_string()];
        store::save(&model_dir(dir, grid.collective), &trained)?;
        // Every tuned size, each decided for the placement it was measured
        // on (the rules format keys on size alone).
        let mut jobs: Vec<Job> = grid.points.iter().map(|(c, _)| Job::of(c)).collect();
        jobs.dedup_by_key(|j| j.procs);
        let sizes: Vec<u64> = grid
            .points
            .iter()
            .map(|(c, _)| c.msg_bytes)
            .filter(|&m| m > 0)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let decider = trained.decider(Choice::Auto)?;
        let label = trained.label(Choice::Auto);
        let tables = jobs
            .into_iter()
            .map(|job| DecisionTable::new(&decider, job, label.clone(), &sizes, None))
            .collect::<Result<Vec<_>>>()?;
        sections.push(export::Section {
            collective: grid.collective,
            tables,
        });
        trained_all.push((trained, data, label));
    }
    let export_options = |i: usize| export::Options {
        rules_version: 1,
        origin: format!("tune into {}, learner {}", dir.display(), trained_all[i].2),
        system: trained_all[i].0.manifest.training.system(),
        mpich_base: None,
    };
    let rules = dir.join("rules");
    write(
        &rules,
        &export::render(&sections, Format::OmpiRules, &export_options(0))?,
    )?;
    // Open MPI 5 gives these collectives across nodes to coll/han: its
    // file hands them to tuned where a tuned algorithm was chosen.
    write(
        &dir.join("han.rules"),
        &export::render(&sections, Format::OmpiHan, &export_options(0))?,
    )?;
    let mut text = String::new();
    for (i, (grid, section)) in grids.iter().zip(&sections).enumerate() {
        let data = &trained_all[i].1;
        let held_out = if sizes_of(&grid.points) >= 3 {
            let (train, test) = split(
                data,
                Split::Procs {
                    fraction: 0.3,
                    seed: 1,
                },
            )?;
            let evaluated = evaluate(&train, &test, options, || {})?;
            let plots_dir = match grid.collective {
                Collective::Bcast => dir.join("plots"),
                other => dir.join(format!("plots-{}", other.name())),
            };
            let plots = report::plots::write(&evaluated, &plots_dir)?;
            eprintln!(
                "tune: wrote {} plots into {}",
                plots.len(),
                plots_dir.display()
            );
            Some(report::render(&evaluated, report::Format::Markdown)?)
        } else {
            None
        };
        let one = std::slice::from_ref(section);
        let decisions = export::render(one, Format::Table, &export_options(i))?;
        if i > 0 {
            text += "\n\n";
        }
        text += &report::tune::markdown(
            grid.collective,
            &rules,
            &section.tables,
            &decisions,
            data,
            held_out.as_deref(),
        );
    }
    write(&dir.join("report.md"), &text)?;
    eprintln!("tune: wrote {}", dir.display());
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}
