//! One module per verb; each turns parsed arguments into library calls and
//! prints the result.

mod data;
mod evaluate;
mod import;
mod predict;
mod schedule;
mod train;

use crate::cli::{Cli, Command, DataCommand, ImportCommand, ScheduleCommand};
use crate::error::Result;

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Data(DataCommand::Summary { files, format }) => data::summary(&files, format),
        Command::Import(ImportCommand::Osu(args)) => import::osu(&args),
        Command::Schedule(ScheduleCommand::Show(args)) => schedule::show(&args),
        Command::Train(args) => train::train(&args),
        Command::Predict(args) => predict::predict(&args),
        Command::Evaluate(args) => evaluate::evaluate(&args),
    }
}

/// Warnings go to stderr, prefixed so they stand out from results.
fn warn_all(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
}
