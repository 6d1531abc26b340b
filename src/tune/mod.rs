//! Tuning an allocation in one MPI job: a seed grid, then plan -> bench
//! rounds until the budget is spent or no measurement is expected to
//! change a decision, then (rank 0) train, rules and report.

use crate::bench::points::{self, Sweep};
use crate::bench::{self, Part, Session};
use crate::data::load::load_file;
use crate::data::{Algorithm, Arrival, Candidate, Config, Impl, Mapping};
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
    /// Open MPI's algorithms to force (`default` is always measured).
    pub algorithms: Vec<Algorithm>,
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

fn rounds(session: &Session, args: &Options) -> Result<()> {
    let start = Instant::now();
    let rank0 = session.rank() == 0;
    let grid = grid(session, args)?;
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
    // size, shifted per size), measured within half the budget.
    let seed: Vec<usize> = (0..grid.len())
        .filter(|&i| {
            let (c, k) = &grid[i];
            k.is_default() || k.algorithm == Algorithm::Tuned || lattice(args, c)
        })
        .collect();
    if rank0 {
        eprintln!(
            "tune: {} communicator sizes x {} message sizes, {} points; seed {} points",
            sizes_of(&grid),
            args.sizes.len(),
            grid.len(),
            seed.len()
        );
    }
    measure(session, args, &grid, &seed, left(0.5), &data)?;
    for round in 1.. {
        let budget = left(1.0);
        if budget.is_zero() {
            break;
        }
        // Rank 0 plans; everyone measures what it chose.
        let mut chosen = Vec::new();
        if rank0 {
            let measured = load_file(&data)?.dataset;
            let scored = score(&measured, &grid, &Settings::default())?;
            if scored.is_empty() {
                eprintln!("tune: every point of the grid is measured");
            }
            let top = scored.iter().map(|s| s.regret).fold(0.0, f64::max);
            let per_round = (grid.len() / ROUND_SHARE)
                .max(scored.iter().map(|s| s.points.len()).max().unwrap_or(0));
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
        measure(session, args, &grid, &chosen, budget, &data)?;
    }
    if rank0 {
        finish(args, &grid)?;
    }
    Ok(())
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

/// Every (configuration, candidate) this job can measure: Open MPI's
/// forced algorithms (what a rules file selects) and `default`.
fn grid(session: &Session, args: &Options) -> Result<Vec<(Config, Candidate)>> {
    let mut algorithms = vec![Algorithm::Default];
    algorithms.extend(args.algorithms.iter().filter(|a| **a != Algorithm::Default));
    let sweep = Sweep {
        collective: crate::data::Collective::Bcast,
        sizes: args.sizes.clone(),
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
                "communicator size {p}: a broadcast needs 2 or more ranks"
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

/// Measures the grid points `chosen` (collective), appending to `data`.
fn measure(
    session: &Session,
    args: &Options,
    grid: &[(Config, Candidate)],
    chosen: &[usize],
    budget: Duration,
    data: &Path,
) -> Result<()> {
    let selected: Vec<(Config, Candidate)> = chosen.iter().map(|&i| grid[i]).collect();
    let parts: Vec<Part> = points::listed(&selected)
        .into_iter()
        .map(|p| Part {
            mapping: args.mapping,
            ..p
        })
        .collect();
    let budget = Some(budget.max(Duration::from_millis(1)));
    let opts = bench::Options {
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

/// Trains on what was measured, writes the rules for the job sizes tuned
/// and the report (rank 0, no MPI needed).
fn finish(args: &Options, grid: &[(Config, Candidate)]) -> Result<()> {
    let dir = &args.out_dir;
    let data_path = dir.join("data.csv");
    eprintln!("tune: training on {}", data_path.display());
    let loaded = load_file(&data_path)?;
    warn_all(&loaded.warnings);
    let data = loaded.dataset;
    let options = &args.learning;
    let (mut trained, notes) = train::fit(&data, options, || {})?;
    warn_all(&notes);
    trained.manifest.training_files = vec![data_path.display().to_string()];
    store::save(&dir.join("model"), &trained)?;
    // One rules file for every tuned size, each decided for the placement
    // it was measured on (the rules format keys on size alone).
    let mut jobs: Vec<Job> = grid.iter().map(|(c, _)| Job::of(c)).collect();
    jobs.dedup_by_key(|j| j.procs);
    let sizes: Vec<u64> = args.sizes.iter().copied().filter(|&m| m > 0).collect();
    let decider = trained.decider(Choice::Auto)?;
    let label = trained.label(Choice::Auto);
    let tables = jobs
        .into_iter()
        .map(|job| DecisionTable::new(&decider, job, label.clone(), &sizes, None))
        .collect::<Result<Vec<_>>>()?;
    let sections = [export::Section {
        collective: crate::data::Collective::Bcast,
        tables,
    }];
    let tables = &sections[0].tables;
    let rules = dir.join("rules");
    let export_options = export::Options {
        rules_version: 1,
        origin: format!("tune into {}, learner {label}", dir.display()),
        system: trained.manifest.training.system(),
        mpich_base: None,
    };
    write(
        &rules,
        &export::render(&sections, Format::OmpiRules, &export_options)?,
    )?;
    // Open MPI 5 gives broadcasts across nodes to coll/han: its file hands
    // them to tuned where a tuned algorithm was chosen.
    write(
        &dir.join("han.rules"),
        &export::render(&sections, Format::OmpiHan, &export_options)?,
    )?;
    let held_out = if sizes_of(grid) >= 3 {
        let (train, test) = split(
            &data,
            Split::Procs {
                fraction: 0.3,
                seed: 1,
            },
        )?;
        let evaluated = evaluate(&train, &test, options, || {})?;
        let plots = report::plots::write(&evaluated, &dir.join("plots"))?;
        eprintln!(
            "tune: wrote {} plots into {}",
            plots.len(),
            dir.join("plots").display()
        );
        Some(report::render(&evaluated, report::Format::Markdown)?)
    } else {
        None
    };
    let decisions = export::render(&sections, Format::Table, &export_options)?;
    let text = report::tune::markdown(&rules, tables, &decisions, &data, held_out.as_deref());
    write(&dir.join("report.md"), &text)?;
    eprintln!("tune: wrote {}", dir.display());
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}
