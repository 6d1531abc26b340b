//! `collsel bench`: the measurement harness, run under `mpirun`/`srun`.
//!
//! Methodology (docs/how-it-works.md, "The harness"): per point a few warm-up
//! calls, then timed iterations — barrier, time one call on every
//! rank, iteration time = maximum over ranks — until the 95% confidence
//! half-width of the mean is within `target_ci` of it, or a cap on
//! repetitions or seconds is reached. With an arrival pattern
//! (`--imbalance`) each rank first waits its injected delay and times from
//! its own arrival; the iteration time is then the mean over ranks, and the
//! slowest rank's time is kept too. Every call's result is verified on
//! every rank (`harness`). Rank 0 appends one flushed row per point, so an
//! interrupted campaign loses at most the point in progress and a rerun
//! skips what the file holds.

#[cfg(feature = "mpi")]
pub mod compare;
#[cfg(feature = "mpi")]
pub mod control;
#[cfg(feature = "mpi")]
pub mod delay;
#[cfg(feature = "mpi")]
pub mod exec;
#[cfg(feature = "mpi")]
pub mod exec_arrival;
#[cfg(feature = "mpi")]
pub mod mpich;
pub mod payload;
pub mod points;
#[cfg(feature = "mpi")]
mod allocator;
#[cfg(feature = "mpi")]
mod campaign;
#[cfg(feature = "mpi")]
mod harness;
#[cfg(feature = "mpi")]
pub mod machine_state;
#[cfg(feature = "mpi")]
mod progress;
#[cfg(feature = "mpi")]
mod runner;
#[cfg(feature = "mpi")]
mod session;
#[cfg(feature = "mpi")]
mod timing;
pub mod stats;
#[cfg(feature = "mpi")]
pub mod topology;

use crate::data::{Arrival, Config, Mapping};
#[cfg(feature = "mpi")]
pub(crate) use campaign::cannot_run;
#[cfg(feature = "mpi")]
pub use campaign::run;
use points::Point;
#[cfg(feature = "mpi")]
pub(crate) use runner::Controls;
#[cfg(feature = "mpi")]
pub use session::{library_version, Session};
use std::path::PathBuf;
use std::time::Duration;

/// Without MPI (built with `--no-default-features`) there is no harness.
#[cfg(not(feature = "mpi"))]
pub fn run(_: &BenchOptions) -> (i32, crate::error::Result<Vec<CampaignOutcome>>) {
    (
        0,
        Err(crate::error::Error::Usage(
            "this collsel was built without MPI (cargo feature `mpi`); \
             rebuild with default features to run `bench`"
                .into(),
        )),
    )
}

/// Largest broadcast the harness runs: MPI counts are C ints.
pub const MAX_MESSAGE: u64 = i32::MAX as u64;

/// A root given on the command line: a rank or the last rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    Rank(u32),
    Last,
}

impl std::str::FromStr for Root {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Root, String> {
        match s.trim() {
            "last" => Ok(Root::Last),
            t => t
                .parse()
                .map(Root::Rank)
                .map_err(|_| format!("root {s:?} is neither a rank nor `last`")),
        }
    }
}

/// The points measured on one communicator.
#[derive(Clone, Debug, PartialEq)]
pub struct CommPart {
    /// Communicator size, a sub-communicator of the job; `None`: the whole
    /// job.
    pub procs: Option<u32>,
    /// How a sub-communicator's ranks are taken from the job's nodes.
    pub mapping: Mapping,
    /// How ranks arrive at each broadcast.
    pub arrival: Arrival,
    /// In the order they are measured.
    pub points: Vec<Point>,
}

impl CommPart {
    /// Whether any point calls the library's collective.
    pub fn uses_library(&self) -> bool {
        self.points
            .iter()
            .any(|p| p.candidate.implementation != crate::data::Impl::Own)
    }

    /// Whether any point forces one of MPICH's algorithms.
    pub fn forces_mpich(&self) -> bool {
        self.points
            .iter()
            .any(|p| p.candidate.implementation == crate::data::Impl::Mpich)
    }

    /// Whether any point forces an Open MPI algorithm (a `default` needs
    /// no control of the library's algorithms).
    pub fn forces_ompi(&self) -> bool {
        self.points.iter().any(|p| {
            p.candidate.implementation == crate::data::Impl::Ompi && !p.candidate.is_default()
        })
    }
}

/// Everything a campaign needs.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// The collective measured.
    pub collective: crate::data::Collective,
    /// Measured in turn; each sub-communicator's size is checked before
    /// any is measured.
    pub parts: Vec<CommPart>,
    pub out: PathBuf,
    /// Roots used in turn, iteration by iteration.
    pub roots: Vec<Root>,
    pub warmup: u32,
    pub min_reps: u32,
    pub max_reps: u32,
    /// Per-point cap on seconds spent.
    pub max_seconds: f64,
    /// Stop once the CI half-width is within this fraction of the mean.
    pub target_ci: f64,
    pub time_budget: Option<Duration>,
    pub machine: Option<String>,
    /// Seed of the injected arrival delays.
    pub seed: u64,
}

/// What a campaign did, for rank 0 to report.
#[derive(Debug)]
pub struct CampaignOutcome {
    pub rank: i32,
    pub job: Config,
    pub planned: usize,
    pub already: usize,
    pub measured: usize,
    /// Points the time budget left out.
    pub missing: Vec<Point>,
    pub seconds: f64,
    /// The quietest probe of the machine's state before its points (µs;
    /// infinite where it measured none): a level the rest of the job can
    /// be held against.
    pub quietest_probe: f64,
}

/// Whether the `coll` MCA variable's value (`^a,b` leaves a and b out; `a,b`
/// keeps only a and b; empty keeps all) leaves `component` out.
pub fn left_out(component: &str, coll: &str) -> bool {
    let coll = coll.trim();
    match coll.strip_prefix('^') {
        _ if coll.is_empty() => false,
        Some(excluded) => excluded.split(',').any(|c| c.trim() == component),
        None => !coll.split(',').any(|c| c.trim() == component),
    }
}

#[cfg(test)]
mod tests {
    use super::left_out;

    #[test]
    fn the_coll_variable_leaves_components_out() {
        assert!(!left_out("han", ""));
        assert!(left_out("han", "^han"));
        assert!(left_out("han", "^tuned, han"));
        assert!(!left_out("han", "^hcoll"));
        assert!(
            left_out("han", "basic,tuned"),
            "an include list without han"
        );
        assert!(!left_out("han", "tuned,han"));
    }
}
