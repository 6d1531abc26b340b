//! Evaluation reports: one module per format.

pub mod arrival;
mod csv;
mod json;
mod markdown;
pub mod plots;

use crate::error::Result;
use crate::evaluate::Report;
use clap::ValueEnum;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Summary table, then every test configuration with each selector's pick.
    Markdown,
    /// DESIGN §3: the summary figures of every selector.
    Json,
    /// One row per test configuration and selector.
    Csv,
}

pub fn render(report: &Report, format: Format) -> Result<String> {
    match format {
        Format::Markdown => Ok(markdown::render(report)),
        Format::Json => json::render(report),
        Format::Csv => Ok(csv::render(report)),
    }
}
