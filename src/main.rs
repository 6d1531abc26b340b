//! The `collsel` command: parses the command line and runs the command.

use clap::Parser;
use collsel::{cli::Cli, commands};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if !matches!(e, collsel::Error::Reported(_)) {
                eprintln!("error: {e}");
            }
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
