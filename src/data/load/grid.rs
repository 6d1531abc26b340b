//! Grids of points to measure (`plan --grid`): the benchmark CSV's
//! columns without times, read with the same checks.

use super::rules::Times;
use super::scan::{decode, read_bytes, scan};
use super::table::read_table;
use crate::data::{Candidate, Collective, Config};
use crate::error::{InputError, Result};
use std::path::Path;

/// Points that could be measured (`plan --grid`): the benchmark CSV's
/// columns, the time columns absent or ignored, rows in file order.
#[derive(Debug)]
pub struct Grid {
    /// The header line as the file has it.
    pub header: String,
    pub points: Vec<GridPoint>,
    /// The collectives the rows name (broadcast where the file has no
    /// `collective` column), each once.
    pub collectives: Vec<Collective>,
    pub warnings: Vec<String>,
}

impl Grid {
    /// Each row's configuration and candidate, in file order.
    pub fn pairs(&self) -> Vec<(Config, Candidate)> {
        self.points
            .iter()
            .map(|p| (p.config, p.candidate))
            .collect()
    }
}

/// One row of a grid.
#[derive(Clone, Debug)]
pub struct GridPoint {
    pub config: Config,
    pub candidate: Candidate,
    /// The record as the file has it.
    pub record: String,
}

/// Reads a grid of points; bad cells are errors as in a benchmark file.
pub fn load_grid(path: &Path) -> Result<Grid, InputError> {
    let bytes = read_bytes(path)?;
    let text = decode(path, &bytes)?;
    let records = scan(path, text)?;
    let table = read_table(path, text, &records, Times::Ignored)?;
    let mut collectives = table.collectives.clone();
    collectives.sort_unstable();
    collectives.dedup();
    let points = table
        .rows
        .into_iter()
        .zip(table.cells.records)
        .map(|(m, r)| GridPoint {
            config: m.config,
            candidate: m.candidate,
            record: text[r.start..r.end].to_string(),
        })
        .collect();
    Ok(Grid {
        header: table.header.to_string(),
        points,
        collectives,
        warnings: table.warnings,
    })
}
