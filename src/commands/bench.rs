use super::warn_all;
use crate::bench::{self, points, Options};
use crate::cli::BenchArgs;
use crate::data::load::load_grid;
use crate::error::Result;
use crate::units::format_bytes;

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
    let opts = Options {
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
fn report(o: &bench::Outcome, args: &BenchArgs, collective: crate::data::Collective) {
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
