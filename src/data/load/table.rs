//! One file's table: its records scanned, its cells read and checked,
//! its rows built, with every error placed at `file:line:column`.

use super::cells::Cells;
use super::frame::{read_frame, Columns};
use super::rows::build_rows;
use super::rules::{required, Times, TIME_COLUMNS};
use super::scan::{split_fields, Record};
use crate::data::{Collective, Measurement};
use crate::error::{InputError, Result};
use std::path::Path;

/// A file's checked rows, in record order, with its cells.
pub(super) struct Table<'a> {
    pub(super) header: &'a str,
    pub(super) cells: Cells<'a>,
    pub(super) rows: Vec<Measurement>,
    /// The collective of each row.
    pub(super) collectives: Vec<Collective>,
    pub(super) warnings: Vec<String>,
}

/// Checks the header and every cell of the records and builds the rows.
pub(super) fn read_table<'a>(
    path: &'a Path,
    text: &'a str,
    records: &'a [Record],
    times: Times,
) -> Result<Table<'a>, InputError> {
    let Some(header) = records.first() else {
        return Err(InputError::new(
            path,
            format!(
                "empty file; expected a header line naming the columns {}",
                required(times).join(", ")
            ),
        )
        .at(1, 1));
    };
    let names: Vec<String> = split_fields(&text[header.start..header.end])
        .into_iter()
        .map(|f| f.trim().to_ascii_lowercase())
        .collect();
    let columns = Columns::from_header(path, &names, times)?;
    if records.len() == 1 {
        return Err(InputError::new(
            path,
            "header only, no data rows; expected at least one row after the header",
        )
        .at(header.line + 1, 1));
    }
    for r in &records[1..] {
        if r.fields != names.len() {
            return Err(InputError::new(
                path,
                format!(
                    "ragged row: expected {} fields as in the header, found {}",
                    names.len(),
                    r.fields
                ),
            )
            .at(r.line, r.fields.min(names.len()) + 1));
        }
    }

    let data = &records[1..];
    let mut frame = read_frame(text, data, &names).map_err(|e| {
        InputError::new(path, format!("CSV could not be parsed: {e}")).at(header.line, 1)
    })?;
    if frame.height() != data.len() {
        return Err(InputError::new(
            path,
            format!(
                "found {} data records but the CSV reader saw {}; expected plain RFC 4180 CSV",
                data.len(),
                frame.height()
            ),
        ));
    }
    if times == Times::Ignored {
        for name in TIME_COLUMNS {
            // Absent columns are fine: nothing to drop.
            let _ = frame.drop_in_place(name);
        }
    }
    let cells = Cells {
        path,
        text,
        records: data,
        names,
        frame,
    };
    let mut warnings = columns.warnings(path);
    let (rows, collectives) = build_rows(&cells, &columns, &mut warnings, times)?;
    Ok(Table {
        header: &text[header.start..header.end],
        cells,
        rows,
        collectives,
        warnings,
    })
}
