//! `collsel schedule`: one algorithm's schedule, for people.

use crate::cli::ShowArgs;
use crate::error::{Error, Result};
use crate::report;
use crate::schedule::{Schedule, Spec};
use crate::sim::stage_structure;

pub fn show(args: &ShowArgs) -> Result<()> {
    let placement = args.placement.placement(args.procs)?;
    let collective = args.collective;
    let algorithm = collective
        .algorithm(&args.algorithm)
        .ok()
        .filter(|a| collective.knows(*a))
        .ok_or_else(|| {
            Error::Usage(format!(
                "--algorithm: unknown {} algorithm {:?}; expected {}",
                collective.name(),
                args.algorithm,
                collective.accepted_names()
            ))
        })?;
    // MPICH's algorithms have no schedule of their own here; some run as
    // one of ours.
    let m = collective.mpich_algorithm(algorithm);
    if let Some(m) = m.filter(|_| !crate::schedule::scheduled(collective).contains(&algorithm)) {
        return Err(Error::Usage(match m.runs_as {
            Some((ours, segsize)) => format!(
                "{algorithm} is MPICH's {collective} algorithm; it runs as this tool's \
                 `{ours}` with segment size {segsize}: --algorithm {ours} --segsize {segsize}"
            ),
            None => format!(
                "{algorithm} is MPICH's {collective} algorithm, and no schedule here runs as it \
                 does"
            ),
        }));
    }
    let schedule = Schedule::new(Spec {
        collective,
        algorithm,
        procs: args.procs,
        root: args.root,
        msg_bytes: args.msg,
        segsize: args.segsize,
        fanout: args.fanout,
    })
    .map_err(Error::Usage)?;
    let stages = stage_structure(&schedule, &placement)
        .map_err(|e| Error::Other(format!("schedule failed verification: {e}")))?;
    print!(
        "{}",
        report::schedule::text(&schedule, &placement, &stages, args.max_stages)
    );
    Ok(())
}
