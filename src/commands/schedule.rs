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
