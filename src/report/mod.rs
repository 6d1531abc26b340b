//! What the tool reports to people: evaluations (one module per format),
//! model fits, schedules, training and tuning summaries.

mod csv;
pub mod imbalance;
mod markdown;
pub mod model_fit;
mod json;
pub mod plots;
pub mod schedule;
pub mod shipped_plots;
pub mod summary;
pub mod training;
pub mod tune;

use crate::error::Result;
use crate::evaluate::Report;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    Markdown,
    Json,
    Csv,
}

impl ReportFormat {
    /// Each format with its name and what it holds (for the command line).
    pub const ALL: &[(ReportFormat, &str, &str)] = &[
        (
            ReportFormat::Markdown,
            "markdown",
            "Summary table, then every test configuration with each selector's pick",
        ),
        (
            ReportFormat::Json,
            "json",
            "the summary figures of every selector (docs/formats.md)",
        ),
        (
            ReportFormat::Csv,
            "csv",
            "One row per test configuration and selector",
        ),
    ];
}

pub fn render(report: &Report, format: ReportFormat) -> Result<String> {
    match format {
        ReportFormat::Markdown => Ok(markdown::render(report)),
        ReportFormat::Json => json::render(report),
        ReportFormat::Csv => Ok(csv::render(report)),
    }
}
