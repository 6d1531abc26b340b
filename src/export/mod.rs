//! Decision tables rendered for people and programs: one module per format.

mod csv;
mod json;
mod table;

use crate::decision::DecisionTable;
use crate::error::Result;
use clap::ValueEnum;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned text, consecutive sizes with the same choice merged.
    Table,
    /// One row per message size.
    Csv,
    /// The whole table with its ranges.
    Json,
}

pub fn render(table: &DecisionTable, format: Format) -> Result<String> {
    match format {
        Format::Table => Ok(table::render(table)),
        Format::Csv => Ok(csv::render(table)),
        Format::Json => json::render(table),
    }
}
