//! One module per verb; each turns parsed arguments into library calls and
//! prints the result.

mod bench;
mod data;
mod evaluate;
mod import;
mod model;
mod plan;
mod predict;
mod schedule;
mod train;
#[cfg(feature = "mpi")]
mod tune;
#[cfg(feature = "mpi")]
mod verify;

use crate::cli::{
    Cli, Command, DataCommand, ImportCommand, LearningArgs, ModelCommand, PlacementArgs,
    ScheduleCommand, SystemArgs,
};
use crate::error::Result;
use crate::learn::LearnerKind;

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Data(DataCommand::Summary { files, format }) => data::summary(&files, format),
        Command::Data(DataCommand::Arrival { files, plots }) => {
            data::arrival(&files, plots.as_deref())
        }
        Command::Import(ImportCommand::Osu(args)) => import::osu(&args),
        Command::Schedule(ScheduleCommand::Show(args)) => schedule::show(&args),
        Command::Train(args) => train::train(&args),
        Command::Predict(args) => predict::predict(&args),
        Command::Evaluate(args) => evaluate::evaluate(&args),
        Command::Plan(args) => plan::plan(&args),
        Command::Bench(args) => bench::bench(&args),
        #[cfg(feature = "mpi")]
        Command::Tune(args) => tune::tune(&args),
        #[cfg(not(feature = "mpi"))]
        Command::Tune(_) => Err(crate::error::Error::Usage(
            "this collsel was built without MPI (cargo feature `mpi`); \
             rebuild with default features to run `tune`"
                .into(),
        )),
        Command::Model(ModelCommand::Fit { files, format }) => model::fit(&files, format),
        #[cfg(feature = "mpi")]
        Command::Verify(args) => verify::verify(&args),
        #[cfg(not(feature = "mpi"))]
        Command::Verify(_) => Err(crate::error::Error::Usage(
            "this collsel was built without MPI (cargo feature `mpi`); \
             rebuild with default features to run `verify`"
                .into(),
        )),
    }
}

/// Writes a command's result to `--out`, or to standard output.
fn write_output(out: Option<&std::path::Path>, text: &str) -> Result<()> {
    match out {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| crate::error::Error::io(format!("cannot write {}", path.display()), e)),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

use crate::error::warn_all;

/// Says, before training starts, that a very large campaign takes a while
/// and how to make it quicker.
fn note_size(data: &crate::data::Dataset, max_rows: usize) {
    /// Above this many rows training takes minutes on a laptop.
    const MANY_ROWS: usize = 500_000;
    if max_rows == 0 && data.measurements().len() > MANY_ROWS {
        eprintln!(
            "note: {} measurements; training prices every one and may take minutes. \
             --max-rows 20000 fits on an even share of them, faster, with somewhat \
             worse decisions",
            data.measurements().len()
        );
    }
}

/// A progress bar of `len` steps, on standard error.
fn progress(len: u64) -> Result<indicatif::ProgressBar> {
    let style = indicatif::ProgressStyle::with_template(
        "{msg:>14} [{bar:30}] {pos}/{len} {elapsed} (eta {eta})",
    )
    .map_err(|e| crate::error::Error::Other(e.to_string()))?
    .progress_chars("=> ");
    Ok(indicatif::ProgressBar::new(len).with_style(style))
}

impl SystemArgs {
    pub fn choice(&self) -> crate::data::load::SystemFilter {
        crate::data::load::SystemFilter {
            collective: self.collective,
            machine: self.machine.clone(),
            mpi: self.mpi.clone(),
        }
    }
}

impl LearningArgs {
    /// How to train: the learners asked for, each once, in the order first
    /// named.
    pub fn options(&self) -> crate::train::TrainOptions {
        let mut learners: Vec<LearnerKind> = Vec::new();
        for &k in &self.learners {
            if !learners.contains(&k) {
                learners.push(k);
            }
        }
        crate::train::TrainOptions {
            learners,
            folds: self.folds as usize,
            max_rows: self.max_rows,
        }
    }
}

impl PlacementArgs {
    /// The placement of `procs` ranks; a usage error if impossible.
    pub fn placement(&self, procs: u32) -> crate::Result<crate::data::Placement> {
        let ppn = self.ppn.unwrap_or(procs.max(1).div_ceil(self.nodes.max(1)));
        crate::data::Placement::new(procs, self.nodes, ppn, self.mapping.node_order())
            .map_err(|why| crate::Error::Usage(format!("--procs/--nodes/--ppn: {why}")))
    }
}

/// The arrival pattern of `--imbalance` (given or not) and `--late-fraction`.
pub(crate) fn arrival(
    imbalanced: bool,
    late: Option<crate::data::Arrival>,
) -> crate::data::Arrival {
    match (imbalanced, late) {
        (false, _) => crate::data::Arrival::Barrier,
        (true, None) => crate::data::Arrival::Uniform,
        (true, Some(late)) => late,
    }
}
