//! The records read into a polars frame with a typed schema, and the
//! columns taken from it.

use super::rules::{required, Rule, Times};
use super::scan::Record;
use super::KNOWN;
use crate::error::{InputError, Result};
use polars::prelude::*;
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::io::Cursor;
use std::path::Path;
use std::sync::Arc;

/// The data records as a frame: numeric columns `Float64`, the others text.
/// polars parses the numbers; if it cannot (text in a number column, or
/// spaces around a number), the columns are read as text and the numbers
/// parsed here, a cell that is no number becoming NaN for the checks to
/// report where it stands.
pub(super) fn read_frame(
    text: &str,
    records: &[Record],
    names: &[String],
) -> PolarsResult<DataFrame> {
    let typed = |numbers: bool| {
        let fields = names.iter().map(|name| {
            let dtype = if numbers && Rule::of(name).is_some() {
                DataType::Float64
            } else {
                DataType::String
            };
            Field::new(name.as_str().into(), dtype)
        });
        Arc::new(Schema::from_iter(fields))
    };
    // Polars and the scan above must agree on records; hand it only records.
    let contiguous = records.windows(2).all(|w| {
        let gap = &text[w[0].end..w[1].start];
        gap == "\n" || gap == "\r\n"
    });
    let body: Cow<[u8]> = if contiguous {
        Cow::Borrowed(&text.as_bytes()[records[0].start..])
    } else {
        let mut joined = String::with_capacity(text.len());
        for r in records {
            joined.push_str(&text[r.start..r.end]);
            joined.push('\n');
        }
        Cow::Owned(joined.into_bytes())
    };
    let read = |schema: SchemaRef| {
        CsvReadOptions::default()
            .with_has_header(false)
            .with_schema(Some(schema))
            .into_reader_with_file_handle(Cursor::new(&body[..]))
            .finish()
    };
    if let Ok(frame) = read(typed(true)) {
        return Ok(frame);
    }
    let mut frame = read(typed(false))?;
    for name in names.iter().filter(|n| Rule::of(n).is_some()) {
        let numbers: Float64Chunked = frame
            .column(name)?
            .str()?
            .iter()
            .map(|cell| {
                let cell = cell.map(str::trim).filter(|s| !s.is_empty())?;
                Some(cell.parse::<f64>().unwrap_or(f64::NAN))
            })
            .collect();
        frame.replace(name, numbers.with_name(name.as_str().into()).into_column())?;
    }
    Ok(frame)
}

/// Which known columns a header has, by position.
pub(super) struct Columns {
    pub(super) present: BTreeSet<&'static str>,
    pub(super) unknown: Vec<String>,
}

impl Columns {
    pub(super) fn from_header(
        path: &Path,
        names: &[String],
        times: Times,
    ) -> Result<Columns, InputError> {
        let mut seen = BTreeSet::new();
        for (i, name) in names.iter().enumerate() {
            if name.is_empty() {
                return Err(InputError::new(
                    path,
                    "empty column name in the header; expected a name for every column",
                )
                .at(1, i + 1));
            }
            if !seen.insert(name.as_str()) {
                return Err(InputError::new(
                    path,
                    format!("column {name:?} appears twice in the header; expected each once"),
                )
                .at(1, i + 1));
            }
        }
        let present: BTreeSet<&'static str> =
            KNOWN.iter().copied().filter(|k| seen.contains(k)).collect();
        let required = required(times);
        if let Some(missing) = required.iter().find(|r| !present.contains(*r)) {
            return Err(InputError::new(
                path,
                format!(
                    "missing required column '{missing}'; expected a header with {} (found: {})",
                    required.join(", "),
                    names.join(", ")
                ),
            )
            .at(1, 1));
        }
        let unknown = names
            .iter()
            .filter(|n| !KNOWN.contains(&n.as_str()))
            .cloned()
            .collect();
        Ok(Columns { present, unknown })
    }

    pub(super) fn has(&self, name: &str) -> bool {
        self.present.contains(name)
    }

    pub(super) fn warnings(&self, path: &Path) -> Vec<String> {
        let mut w = Vec::new();
        if !self.unknown.is_empty() {
            w.push(format!(
                "{}: ignoring unknown columns: {}",
                path.display(),
                self.unknown.join(", ")
            ));
        }
        if !self.has("nodes") {
            w.push(format!(
                "{}: no 'nodes' column; assuming every job ran on 1 node",
                path.display()
            ));
        }
        w
    }
}
