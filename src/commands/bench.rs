//! `collsel bench`: its options and the MPI library's detection, then the
//! harness.

use super::warn_all;
use crate::bench::{self, points, BenchOptions};
use crate::bench::{points::Sweep, CommPart};
use crate::cli::{BenchArgs, TimingArgs};
use crate::data::load::load_grid;
use crate::data::Impl;
use crate::error::Result;
use crate::units::format_bytes;
use std::path::PathBuf;

pub fn bench(args: &BenchArgs) -> Result<()> {
    // What needs no MPI is checked before starting it.
    let mut collective = args.collective.unwrap_or_default();
    let parts = match &args.points {
        Some(file) => {
            let grid = load_grid(file)?;
            warn_all(&grid.warnings);
            collective = match (grid.collectives.as_slice(), args.collective) {
                ([one], None) => *one,
                ([one], Some(asked)) if *one == asked => asked,
                ([one], Some(asked)) => {
                    return Err(crate::Error::Usage(format!(
                        "{}: its points are {}'s, not {}'s (--collective)",
                        file.display(),
                        one.name(),
                        asked.name()
                    )))
                }
                (found, _) => {
                    let names: Vec<&str> = found.iter().map(|c| c.name()).collect();
                    return Err(crate::Error::Usage(format!(
                        "{}: its points are of {}; one campaign measures one collective: \
                         split the file by its collective column",
                        file.display(),
                        names.join(", ")
                    )));
                }
            };
            points::listed(&grid.pairs())
        }
        None => args.parts()?,
    };
    let opts = BenchOptions {
        collective,
        parts,
        out: args.out.clone(),
        roots: args.roots.clone(),
        seed: args.seed,
        time_budget: args.time_budget,
        ..args.timing.campaign(&args.machine)?
    };
    let (_, outcomes) = bench::run(&opts);
    for o in outcomes?.iter().filter(|o| o.rank == 0) {
        report(o, args, collective);
    }
    Ok(())
}

/// Rank 0's summary of one communicator size.
fn report(o: &bench::CampaignOutcome, args: &BenchArgs, collective: crate::data::Collective) {
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
            "bench: warning: a 1-rank job measures no communication ({} \
             returns at once); run it under `mpirun -n P` with P of 2 or more",
            collective.function()
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

impl TimingArgs {
    /// A campaign timed as these arguments say (root 0, delay seed 1, no
    /// points yet, no file, no budget); a usage error for settings that
    /// cannot stop a point.
    pub fn campaign(&self, machine: &Option<String>) -> crate::Result<bench::BenchOptions> {
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if !positive(self.target_ci) || !positive(self.max_seconds) {
            return Err(crate::Error::Usage(
                "--target-ci and --max-seconds must be positive".into(),
            ));
        }
        Ok(bench::BenchOptions {
            collective: crate::data::Collective::Bcast,
            parts: Vec::new(),
            out: PathBuf::new(),
            roots: vec![bench::Root::Rank(0)],
            warmup: self.warmup,
            min_reps: self.min_reps,
            max_reps: self.max_reps.max(self.min_reps),
            max_seconds: self.max_seconds,
            target_ci: self.target_ci,
            time_budget: None,
            machine: machine.clone(),
            seed: 1,
        })
    }
}

impl BenchArgs {
    /// The parts of the sweep asked for: the whole job, or one per size
    /// of `--procs`.
    pub fn parts(&self) -> crate::Result<Vec<CommPart>> {
        let collective = self.collective.unwrap_or_default();
        let impls = self.impls.clone().unwrap_or_else(default_impls);
        let sweep = Sweep {
            collective,
            sizes: Sweep::sizes(collective, self.sizes.as_ref().map(|s| &s.0[..]))
                .map_err(crate::Error::Usage)?,
            algorithms: Sweep::algorithms(collective, self.algorithms.as_deref(), &impls)
                .map_err(crate::Error::Usage)?,
            segsizes: self.segsizes.0.clone(),
            fanouts: self.fanouts.iter().map(|f| f.0).collect(),
            impls,
            arrival: super::arrival(self.imbalance.is_some(), self.late_fraction),
            imbalances: self.imbalance.clone().unwrap_or_else(|| vec![0.0]),
        };
        let procs = self.procs.as_ref().map(|p| &p.0[..]);
        sweep
            .parts(procs, self.mapping)
            .map_err(crate::Error::Usage)
    }
}

/// `bench --impl`'s default: our schedules and the algorithms of the
/// library bench is built against (MPI_Get_library_version may be called
/// before MPI is started).
fn default_impls() -> Vec<Impl> {
    #[cfg(feature = "mpi")]
    let library = crate::library::Library::detect(&[crate::bench::library_version()].into());
    #[cfg(not(feature = "mpi"))]
    let library = crate::library::Library::Unknown;
    match library {
        crate::library::Library::Mpich => vec![Impl::Own, Impl::Mpich],
        _ => vec![Impl::Own, Impl::Ompi],
    }
}
