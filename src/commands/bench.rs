use super::warn_all;
use crate::bench::{self, points, points::Sweep, Options, Part};
use crate::cli::{BenchArgs, TimingArgs};
use crate::data::load::load_grid;
use crate::error::{Error, Result};
use crate::units::format_bytes;

pub fn bench(args: &BenchArgs) -> Result<()> {
    // What needs no MPI is checked before starting it.
    let parts = match &args.points {
        Some(file) => {
            let grid = load_grid(file)?;
            warn_all(&grid.warnings);
            points::listed(&grid.pairs())
        }
        None => swept(args)?,
    };
    let opts = Options {
        roots: args.roots.clone(),
        seed: args.seed,
        ..options(
            parts,
            &args.out,
            &args.timing,
            args.time_budget,
            &args.machine,
        )?
    };
    let (_, outcomes) = bench::run(&opts);
    for o in outcomes?.iter().filter(|o| o.rank == 0) {
        report(o, args);
    }
    Ok(())
}

/// A campaign of `parts` into `out` timed as `timing` says (root 0, delay
/// seed 1); a usage error for settings that cannot stop a point.
pub(super) fn options(
    parts: Vec<Part>,
    out: &std::path::Path,
    timing: &TimingArgs,
    time_budget: Option<std::time::Duration>,
    machine: &Option<String>,
) -> Result<Options> {
    let positive = |x: f64| x.is_finite() && x > 0.0;
    if !positive(timing.target_ci) || !positive(timing.max_seconds) {
        return Err(Error::Usage(
            "--target-ci and --max-seconds must be positive".into(),
        ));
    }
    Ok(Options {
        parts,
        out: out.to_path_buf(),
        roots: vec![bench::Root::Rank(0)],
        warmup: timing.warmup,
        min_reps: timing.min_reps,
        max_reps: timing.max_reps.max(timing.min_reps),
        max_seconds: timing.max_seconds,
        target_ci: timing.target_ci,
        time_budget,
        machine: machine.clone(),
        seed: 1,
    })
}

/// Rank 0's summary of one communicator size.
fn report(o: &bench::Outcome, args: &BenchArgs) {
    eprintln!(
        "bench: {} ranks ({} node(s) x {} ppn, {}): measured {} of {} points \
         ({} already in {}) in {:.1} s",
        o.job.procs,
        o.job.nodes,
        o.job.ppn,
        o.job.mapping,
        o.measured,
        o.planned,
        o.already,
        args.out.display(),
        o.seconds
    );
    if o.job.procs == 1 {
        eprintln!(
            "bench: warning: a 1-rank job measures no communication (MPI_Bcast \
             returns at once); run it under `mpirun -n P` with P of 2 or more"
        );
    }
    if let (Some(first), Some(last)) = (o.missing.first(), o.missing.last()) {
        eprintln!(
            "bench: time budget reached; {} points not measured (message sizes {} to {}); \
             rerun the same command to measure them",
            o.missing.len(),
            format_bytes(first.msg_bytes),
            format_bytes(last.msg_bytes)
        );
    }
}

/// The parts of a sweep: the whole job, or one per size of `--procs`.
fn swept(args: &BenchArgs) -> Result<Vec<Part>> {
    let sweep = Sweep {
        sizes: args.sizes.0.clone(),
        algorithms: args.algorithms.clone(),
        segsizes: args.segsizes.0.clone(),
        fanouts: args.fanouts.iter().map(|f| f.0).collect(),
        impls: args.impls.clone(),
        arrival: crate::cli::arrival(args.imbalance.is_some(), args.late_fraction),
        imbalances: args.imbalance.clone().unwrap_or_else(|| vec![0.0]),
    };
    let points = sweep.points().map_err(Error::Usage)?;
    let part = |procs| Part {
        procs,
        mapping: args.mapping,
        arrival: sweep.arrival,
        points: points.clone(),
    };
    let procs = procs(args)?;
    Ok(if procs.is_empty() {
        vec![part(None)]
    } else {
        procs.into_iter().map(|p| part(Some(p))).collect()
    })
}

/// `--procs` as ascending communicator sizes without repeats.
fn procs(args: &BenchArgs) -> Result<Vec<u32>> {
    let Some(list) = &args.procs else {
        return Ok(Vec::new());
    };
    let mut procs = list
        .0
        .iter()
        .map(|&p| match u32::try_from(p) {
            Ok(p) if p >= 1 => Ok(p),
            _ => Err(Error::Usage(format!(
                "--procs {p}: expected a size of 1 or more ranks"
            ))),
        })
        .collect::<Result<Vec<u32>>>()?;
    procs.sort_unstable();
    procs.dedup();
    Ok(procs)
}
