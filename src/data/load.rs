//! Loading benchmark CSV files (docs/formats.md) into a [`Dataset`].
//!
//! One quote-aware pass over the text records where each CSV record starts
//! (its line) and how many fields it has, so that every error can name
//! `file:line:column`. polars reads the records with a typed schema (numbers
//! as `Float64`) and checks every numeric column's range in one lazy pass;
//! the record positions only serve to say where a cell that polars flagged
//! stands and what it holds.

use super::{
    Algorithm, Arrival, Candidate, Collective, Config, Dataset, Impl, Mapping, Measurement,
    Provenance, System,
};
use crate::error::{Error, InputError, Result};
use polars::prelude::*;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Columns every file must have.
pub const REQUIRED: [&str; 4] = ["algorithm", "procs", "msg_bytes", "time_us"];
/// Columns the schema knows; anything else is ignored with a warning.
pub const KNOWN: [&str; 21] = [
    "algorithm",
    "procs",
    "msg_bytes",
    "time_us",
    "nodes",
    "ppn",
    "mapping",
    "segsize_bytes",
    "fanout",
    "impl",
    "imbalance",
    "arrival_pattern",
    "time_min_us",
    "time_max_us",
    "ci95_us",
    "reps",
    "machine",
    "mpi",
    "source",
    // Which Open MPI component served the call (provenance only).
    "component",
    "collective",
];

/// A loaded dataset (one machine and MPI library) plus the warnings the
/// user should see.
#[derive(Debug)]
pub struct Loaded {
    pub dataset: Dataset,
    pub warnings: Vec<String>,
}

/// The rows of one file measured on one system in one campaign.
#[derive(Debug)]
pub struct Part {
    pub system: System,
    /// The `source` value; `None` where the file has none.
    pub source: Option<String>,
    pub rows: Vec<Measurement>,
}

/// One file's rows, by system and campaign, before any are combined.
#[derive(Debug)]
pub struct Parsed {
    pub parts: Vec<Part>,
    pub warnings: Vec<String>,
}

/// Which system to keep when the data holds several (`--machine`, `--mpi`,
/// `--collective`).
#[derive(Clone, Debug, Default)]
pub struct Choice {
    pub machine: Option<String>,
    pub mpi: Option<String>,
    pub collective: Option<Collective>,
}

impl Choice {
    fn accepts(&self, s: &System) -> bool {
        self.machine.as_ref().is_none_or(|m| *m == s.machine)
            && self.mpi.as_ref().is_none_or(|m| *m == s.mpi)
            && self.collective.is_none_or(|c| c == s.collective)
    }
}

/// The parts of every file that `choice` accepts (campaigns without a
/// `source` are named after their file), and the warnings.
fn read_chosen(paths: &[PathBuf], choice: &Choice) -> Result<Warned<Vec<(String, Part)>>> {
    let mut kept = Vec::new();
    let mut seen: BTreeMap<System, usize> = BTreeMap::new();
    let mut warnings = Vec::new();
    for path in paths {
        let parsed = load_parsed(path)?;
        warnings.extend(parsed.warnings);
        for part in parsed.parts {
            *seen.entry(part.system.clone()).or_default() += part.rows.len();
            if choice.accepts(&part.system) {
                let campaign = part
                    .source
                    .clone()
                    .unwrap_or_else(|| path.display().to_string());
                kept.push((campaign, part));
            }
        }
    }
    if kept.is_empty() {
        return Err(Error::Usage(format!(
            "no rows of the chosen machine/MPI; the data holds {}",
            list(&seen)
        )));
    }
    Ok((kept, warnings))
}

fn list(systems: &BTreeMap<System, usize>) -> String {
    let items: Vec<String> = systems
        .iter()
        .map(|(s, n)| format!("{s} ({n} rows)"))
        .collect();
    items.join(", ")
}

/// One dataset per system (machine and MPI library) in the files, each
/// with its duplicates combined; never a blend of systems.
pub fn load_systems(paths: &[PathBuf], choice: &Choice) -> Result<Warned<Vec<(System, Dataset)>>> {
    let (parts, warnings) = read_chosen(paths, choice)?;
    let mut systems: BTreeMap<System, Vec<Part>> = BTreeMap::new();
    for (_, part) in parts {
        systems.entry(part.system.clone()).or_default().push(part);
    }
    let datasets = systems
        .into_iter()
        .map(|(system, parts)| (system, dataset(parts)))
        .collect();
    Ok((datasets, warnings))
}

/// Loads and merges several files of one system; duplicates across files
/// are combined too. Data of several systems is refused unless `choice`
/// picks one: a model describes one machine and one MPI library.
pub fn load_files(paths: &[PathBuf], choice: &Choice) -> Result<Loaded> {
    let (mut systems, warnings) = load_systems(paths, choice)?;
    if systems.len() > 1 {
        let counts = systems.iter().map(|(s, d)| (s.clone(), d.rows)).collect();
        return Err(Error::Usage(format!(
            "the data holds {} machine/MPI combinations, whose rows are never combined: {}; \
             choose one with --machine NAME, --mpi VERSION and/or --collective NAME",
            systems.len(),
            list(&counts)
        )));
    }
    let (_, dataset) = systems.remove(0);
    Ok(Loaded { dataset, warnings })
}

/// One file of one system (what `bench` writes).
pub fn load_file(path: &Path) -> Result<Loaded> {
    load_files(&[path.to_path_buf()], &Choice::default())
}

/// The campaigns of one machine, each a dataset of its own, sorted by name:
/// each `source` value is one (rows without one belong to their file's
/// campaign, named after the file); campaigns of the same name in several
/// files are merged. Campaigns may differ in MPI library (a rerun after an
/// upgrade is one of the things this protocol is for), never in machine.
pub fn load_campaigns(paths: &[PathBuf], choice: &Choice) -> Result<Campaigns> {
    let (parts, warnings) = read_chosen(paths, choice)?;
    let machines: BTreeSet<&str> = parts
        .iter()
        .map(|(_, p)| p.system.machine.as_str())
        .collect();
    if machines.len() > 1 {
        let names: Vec<&str> = machines.into_iter().collect();
        return Err(Error::Usage(format!(
            "campaigns of {} machines ({}); another campaign of the same machine is the \
             protocol: choose one with --machine NAME",
            names.len(),
            names.join(", ")
        )));
    }
    let mut campaigns: BTreeMap<(String, System), Vec<Part>> = BTreeMap::new();
    for (name, part) in parts {
        campaigns
            .entry((name, part.system.clone()))
            .or_default()
            .push(part);
    }
    let mut names: BTreeMap<&str, usize> = BTreeMap::new();
    for (name, _) in campaigns.keys() {
        *names.entry(name.as_str()).or_default() += 1;
    }
    if let Some((name, _)) = names.iter().find(|(_, n)| **n > 1) {
        return Err(Error::Usage(format!(
            "campaign {name:?} holds rows of several MPI libraries; a campaign is one run"
        )));
    }
    let campaigns = campaigns
        .into_iter()
        .map(|((name, _), parts)| (name, dataset(parts)))
        .collect();
    Ok((campaigns, warnings))
}

/// Something loaded, and the warnings the user should see.
pub type Warned<T> = (T, Vec<String>);

/// Campaigns by name, and the warnings.
pub type Campaigns = Warned<Vec<(String, Dataset)>>;

/// The rows of parts of one system as a dataset, duplicates combined.
fn dataset(parts: Vec<Part>) -> Dataset {
    let mut provenance = Provenance::default();
    let mut rows = Vec::new();
    for part in parts {
        let nonempty = |s: &str| (!s.is_empty()).then(|| s.to_string());
        provenance.machines.extend(nonempty(&part.system.machine));
        provenance.mpis.extend(nonempty(&part.system.mpi));
        provenance.collectives.insert(part.system.collective);
        provenance.sources.extend(part.source);
        if rows.is_empty() {
            rows = part.rows;
        } else {
            rows.extend(part.rows);
        }
    }
    Dataset::from_rows(rows, provenance)
}

fn load_parsed(path: &Path) -> Result<Parsed, InputError> {
    parse_csv(path, &read_bytes(path)?)
}

/// Parses the bytes of one CSV file; `path` only names it in messages.
pub fn parse_csv(path: &Path, bytes: &[u8]) -> Result<Parsed, InputError> {
    let text = decode(path, bytes)?;
    let records = scan(path, text)?;
    let table = read_table(path, text, &records, Times::Required)?;
    let (cells, rows, warnings) = (&table.cells, table.rows, table.warnings);
    let collective = &table.collectives;
    let machine = cells.strings("machine")?;
    let mpi = cells.strings("mpi")?;
    let source = cells.strings("source")?;
    let mut parts: BTreeMap<(System, Option<&str>), Vec<Measurement>> = BTreeMap::new();
    let key = |row: usize| {
        let system = System {
            machine: machine[row].unwrap_or_default().to_string(),
            mpi: mpi[row].unwrap_or_default().to_string(),
            collective: collective[row],
        };
        (system, source[row])
    };
    let same = |row: usize| (machine[row], mpi[row], source[row], collective[row]);
    if (1..rows.len()).all(|row| same(row) == same(0)) {
        // The usual file: one system, one campaign; no per-row moves.
        parts.insert(key(0), rows);
    } else {
        for (row, m) in rows.into_iter().enumerate() {
            parts.entry(key(row)).or_default().push(m);
        }
    }
    let parts = parts
        .into_iter()
        .map(|((system, source), rows)| Part {
            system,
            source: source.map(str::to_string),
            rows,
        })
        .collect();
    Ok(Parsed { parts, warnings })
}

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

/// Whether a file must hold measured times (a benchmark file) or may lack
/// them (a grid of points to measure).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Times {
    Required,
    Ignored,
}

/// The columns that hold times, absent or ignored in a grid.
const TIME_COLUMNS: [&str; 4] = ["time_us", "time_min_us", "time_max_us", "ci95_us"];

fn read_bytes(path: &Path) -> Result<Vec<u8>, InputError> {
    std::fs::read(path).map_err(|e| {
        InputError::new(
            path,
            format!("cannot read file ({e}); expected a benchmark CSV file"),
        )
        .at(1, 1)
    })
}

/// The text of a file: UTF-8, a byte-order mark dropped.
fn decode<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a str, InputError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|e| {
        let (line, column) = locate(&bytes[..e.valid_up_to()]);
        InputError::new(
            path,
            format!(
                "invalid UTF-8 (byte 0x{:02x}); expected UTF-8 text",
                bytes[e.valid_up_to()]
            ),
        )
        .at(line, column)
    })
}

fn scan(path: &Path, text: &str) -> Result<Vec<Record>, InputError> {
    scan_records(text).map_err(|(line, msg)| InputError::new(path, msg).at(line, 1))
}

/// A file's checked rows, in record order, with its cells.
struct Table<'a> {
    header: &'a str,
    cells: Cells<'a>,
    rows: Vec<Measurement>,
    /// The collective of each row.
    collectives: Vec<Collective>,
    warnings: Vec<String>,
}

/// Checks the header and every cell of the records and builds the rows.
fn read_table<'a>(
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

/// The columns a file of this kind must have.
fn required(times: Times) -> &'static [&'static str] {
    match times {
        Times::Required => &REQUIRED,
        Times::Ignored => &REQUIRED[..3],
    }
}

/// Where one CSV record sits in the text.
#[derive(Debug)]
struct Record {
    /// 1-based line the record starts on.
    line: usize,
    start: usize,
    end: usize,
    fields: usize,
}

/// Splits the text into records (RFC 4180 quoting; blank lines skipped).
/// Errors carry the line of an unterminated quote.
fn scan_records(text: &str) -> Result<Vec<Record>, (usize, String)> {
    let bytes = text.as_bytes();
    let mut records = Vec::new();
    let (mut line, mut start, mut start_line) = (1, 0, 1);
    let (mut fields, mut in_quotes) = (1, false);
    let mut push = |start: usize, end: usize, line: usize, fields: usize| {
        let end = if end > start && bytes[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        if !text[start..end].trim().is_empty() {
            records.push(Record {
                line,
                start,
                end,
                fields,
            });
        }
    };
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'"' => in_quotes = !in_quotes,
            b',' if !in_quotes => fields += 1,
            b'\n' => {
                line += 1;
                if !in_quotes {
                    push(start, i, start_line, fields);
                    (start, start_line, fields) = (i + 1, line, 1);
                }
            }
            _ => {}
        }
    }
    if in_quotes {
        return Err((
            start_line,
            "unterminated quoted field; expected a closing '\"'".into(),
        ));
    }
    push(start, bytes.len(), start_line, fields);
    Ok(records)
}

/// The fields of one record, unquoted.
fn split_fields(record: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut in_quotes = false;
    let mut chars = record.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if in_quotes && chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            '"' => in_quotes = !in_quotes,
            ',' if !in_quotes => fields.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    fields.push(field);
    fields
}

/// Line and field number of the end of `prefix` (which is valid UTF-8).
fn locate(prefix: &[u8]) -> (usize, usize) {
    let line = 1 + prefix.iter().filter(|&&b| b == b'\n').count();
    let line_start = prefix
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let mut in_quotes = false;
    let mut column = 1;
    for &b in &prefix[line_start..] {
        match b {
            b'"' => in_quotes = !in_quotes,
            b',' if !in_quotes => column += 1,
            _ => {}
        }
    }
    (line, column)
}

/// How a numeric column's cells are checked (by polars) and worded (here).
#[derive(Clone, Copy, Debug)]
enum Rule {
    /// A whole number in `min..=max`; integral floats such as `4.0` count.
    Whole { min: u64, max: u64 },
    /// A finite number above (or at, if `inclusive`) `min`.
    Number { min: f64, inclusive: bool },
}

const U32: u64 = u32::MAX as u64;
const I64: u64 = i64::MAX as u64;

/// The numeric columns. polars reads them as `Float64` (exact for whole
/// numbers up to 2^53, far beyond any message size or count here).
const NUMERIC: [(&str, Rule); 12] = [
    ("procs", Rule::Whole { min: 1, max: U32 }),
    ("msg_bytes", Rule::Whole { min: 0, max: I64 }),
    (
        "time_us",
        Rule::Number {
            min: 0.0,
            inclusive: false,
        },
    ),
    ("nodes", Rule::Whole { min: 1, max: U32 }),
    ("ppn", Rule::Whole { min: 1, max: U32 }),
    ("segsize_bytes", Rule::Whole { min: 0, max: I64 }),
    ("fanout", Rule::Whole { min: 1, max: U32 }),
    (
        "imbalance",
        Rule::Number {
            min: 0.0,
            inclusive: true,
        },
    ),
    (
        "time_min_us",
        Rule::Number {
            min: 0.0,
            inclusive: true,
        },
    ),
    (
        "time_max_us",
        Rule::Number {
            min: 0.0,
            inclusive: true,
        },
    ),
    (
        "ci95_us",
        Rule::Number {
            min: 0.0,
            inclusive: true,
        },
    ),
    ("reps", Rule::Whole { min: 0, max: I64 }),
];

impl Rule {
    fn of(name: &str) -> Option<Rule> {
        NUMERIC.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
    }

    /// A polars expression: true where a cell of `x` breaks the rule (NaN
    /// stands for text that is no number).
    fn broken(self, x: Expr) -> Expr {
        let finite = x.clone().is_finite();
        let ok = match self {
            Rule::Whole { min, max } => finite
                .and(x.clone().gt_eq(lit(min as f64)))
                .and(x.clone().lt_eq(lit(max as f64)))
                // Whole: truncating to an integer and back changes nothing
                // (and values past i64 do not convert at all).
                .and(
                    x.clone()
                        .cast(DataType::Int64)
                        .cast(DataType::Float64)
                        .eq(x.clone()),
                ),
            Rule::Number { min, inclusive } => {
                let above = if inclusive {
                    x.clone().gt_eq(lit(min))
                } else {
                    x.clone().gt(lit(min))
                };
                finite.and(above)
            }
        };
        x.is_not_null().and(ok.fill_null(lit(false)).not())
    }

    /// What was expected, for a cell that broke the rule with value `found`
    /// (a whole number past a 32-bit column's end is told its bounds).
    fn expected_for(self, found: f64) -> String {
        match self {
            Rule::Whole { min, max }
                if max == U32 && found.fract() == 0.0 && found > max as f64 =>
            {
                format!("a whole number between {min} and {max}")
            }
            _ => self.expected(),
        }
    }

    /// What a cell of the column must hold.
    fn expected(self) -> String {
        match self {
            Rule::Whole { min, .. } => format!("a whole number >= {min}"),
            Rule::Number { min, inclusive } => {
                let op = if inclusive { ">=" } else { ">" };
                format!("a finite number {op} {min}")
            }
        }
    }
}

/// The data records as a frame: numeric columns `Float64`, the others text.
/// polars parses the numbers; if it cannot (text in a number column, or
/// spaces around a number), the columns are read as text and the numbers
/// parsed here, a cell that is no number becoming NaN for the checks to
/// report where it stands.
fn read_frame(text: &str, records: &[Record], names: &[String]) -> PolarsResult<DataFrame> {
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
struct Columns {
    present: BTreeSet<&'static str>,
    unknown: Vec<String>,
}

impl Columns {
    fn from_header(path: &Path, names: &[String], times: Times) -> Result<Columns, InputError> {
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

    fn has(&self, name: &str) -> bool {
        self.present.contains(name)
    }

    fn warnings(&self, path: &Path) -> Vec<String> {
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

/// The checked columns of one file, with what is needed to say where a bad
/// cell stands.
struct Cells<'a> {
    path: &'a Path,
    text: &'a str,
    records: &'a [Record],
    names: Vec<String>,
    frame: DataFrame,
}

/// The first problem in a file, by line and then by column.
#[derive(Default)]
struct First(Option<(usize, usize, InputError)>);

impl First {
    fn offer(&mut self, row: usize, column: usize, error: impl FnOnce() -> InputError) {
        if self
            .0
            .as_ref()
            .is_none_or(|(r, c, _)| (row, column) < (*r, *c))
        {
            self.0 = Some((row, column, error()));
        }
    }
}

impl Cells<'_> {
    fn position(&self, name: &str) -> usize {
        self.names.iter().position(|n| n == name).map_or(0, |i| i)
    }

    fn error(&self, row: usize, name: &str, message: String) -> InputError {
        InputError::new(self.path, message)
            .at(self.records[row].line, self.position(name) + 1)
            .named(name)
    }

    /// The text of one cell as the file has it.
    fn raw(&self, row: usize, name: &str) -> String {
        let r = &self.records[row];
        let fields = split_fields(&self.text[r.start..r.end]);
        fields[self.position(name)].trim().to_string()
    }

    /// The column's cells (`None` where empty); an absent column is all empty.
    fn strings(&self, name: &str) -> Result<Vec<Option<&str>>, InputError> {
        let Ok(column) = self.frame.column(name) else {
            return Ok(vec![None; self.frame.height()]);
        };
        let strings = column
            .str()
            .map_err(|e| InputError::new(self.path, format!("column '{name}' unreadable: {e}")))?;
        Ok(strings
            .iter()
            .map(|cell| cell.map(str::trim).filter(|s| !s.is_empty()))
            .collect())
    }

    /// Offers the first cell of each numeric column that breaks its rule,
    /// found by one polars pass over all of them.
    fn check_numbers(&self, first: &mut First) -> Result<(), InputError> {
        let present: Vec<(&str, Rule)> = NUMERIC
            .iter()
            .copied()
            .filter(|(name, _)| self.frame.column(name).is_ok())
            .collect();
        let checks = present
            .iter()
            .map(|(name, rule)| rule.broken(col(*name)).alias(*name))
            .collect::<Vec<_>>();
        let broken = self
            .frame
            .clone()
            .lazy()
            .select(checks)
            .collect()
            .map_err(|e| InputError::new(self.path, format!("checking the numbers failed: {e}")))?;
        for (name, rule) in present {
            let mask = broken.column(name).and_then(|c| c.bool().cloned());
            let Some(row) = mask
                .ok()
                .and_then(|m| m.iter().position(|b| b == Some(true)))
            else {
                continue;
            };
            let found = self
                .float_column(name)?
                .and_then(|c| c.get(row))
                .unwrap_or(f64::NAN);
            first.offer(row, self.position(name), || {
                let raw = self.raw(row, name);
                let message = format!("expected {}, found {raw:?}", rule.expected_for(found));
                self.error(row, name, message)
            });
        }
        Ok(())
    }

    /// Offers the first empty cell of a required numeric column.
    fn check_present(&self, name: &str, first: &mut First) -> Result<(), InputError> {
        let Some(column) = self.float_column(name)? else {
            return Ok(());
        };
        if column.null_count() == 0 {
            return Ok(());
        }
        if let Some(row) = column.iter().position(|v| v.is_none()) {
            first.offer(row, self.position(name), || {
                let expected = Rule::of(name).map(Rule::expected).unwrap_or_default();
                self.error(row, name, format!("empty value; expected {expected}"))
            });
        }
        Ok(())
    }

    /// A numeric column as polars read it; `None` when the file lacks it.
    fn float_column(&self, name: &str) -> Result<Option<&Float64Chunked>, InputError> {
        let Ok(column) = self.frame.column(name) else {
            return Ok(None);
        };
        column
            .f64()
            .map(Some)
            .map_err(|e| InputError::new(self.path, format!("column '{name}' unreadable: {e}")))
    }

    /// A numeric column's cells; an absent column is all empty.
    fn numbers(&self, name: &str) -> Result<Vec<Option<f64>>, InputError> {
        Ok(match self.float_column(name)? {
            Some(column) => column.iter().collect(),
            None => vec![None; self.frame.height()],
        })
    }

    /// The algorithm column, each cell read as an algorithm of its row's
    /// collective (ids differ between collectives); each distinct (collective,
    /// text) parsed once; the first that names nothing is offered with what
    /// that collective accepts.
    fn algorithms(
        &self,
        collectives: &[Collective],
        first: &mut First,
    ) -> Result<Vec<Option<Algorithm>>, InputError> {
        let name = "algorithm";
        let mut known: HashMap<(Collective, &str), Option<Algorithm>> = HashMap::new();
        let cells = self.strings(name)?;
        let mut values = Vec::with_capacity(cells.len());
        for (row, cell) in cells.iter().enumerate() {
            let c = collectives[row];
            let value = match cell {
                Some(s) => *known
                    .entry((c, s))
                    .or_insert_with(|| c.algorithm(s).ok().filter(|a| c.knows(*a))),
                None => None,
            };
            let expected = || format!("a {c} algorithm: {}", c.accepted_names());
            match (cell, value) {
                (Some(s), None) => first.offer(row, self.position(name), || {
                    self.error(row, name, format!("expected {}, found {s:?}", expected()))
                }),
                (None, _) => first.offer(row, self.position(name), || {
                    self.error(row, name, format!("empty value; expected {}", expected()))
                }),
                _ => {}
            }
            values.push(value);
        }
        Ok(values)
    }

    /// A named column (algorithm, mapping, ...): each distinct text parsed
    /// once; the first that names nothing is offered with what is accepted.
    fn named<T: std::str::FromStr + Copy>(
        &self,
        name: &str,
        accepted: &str,
        required: bool,
        first: &mut First,
    ) -> Result<Vec<Option<T>>, InputError> {
        let mut known: HashMap<&str, Option<T>> = HashMap::new();
        let cells = self.strings(name)?;
        let mut values = Vec::with_capacity(cells.len());
        for (row, cell) in cells.iter().enumerate() {
            let value = match cell {
                Some(s) => *known.entry(s).or_insert_with(|| s.parse().ok()),
                None => None,
            };
            match (cell, value) {
                (Some(s), None) => first.offer(row, self.position(name), || {
                    self.error(row, name, format!("expected {accepted}, found {s:?}"))
                }),
                (None, _) if required => first.offer(row, self.position(name), || {
                    self.error(row, name, format!("empty value; expected {accepted}"))
                }),
                _ => {}
            }
            values.push(value);
        }
        Ok(values)
    }
}

/// The rows, and the collective of each.
fn build_rows(
    cells: &Cells,
    columns: &Columns,
    warnings: &mut Vec<String>,
    times: Times,
) -> Result<(Vec<Measurement>, Vec<Collective>), InputError> {
    let mut first = First::default();
    cells.check_numbers(&mut first)?;
    for name in &required(times)[1..] {
        cells.check_present(name, &mut first)?;
    }
    let names: Vec<&str> = Collective::ALL.iter().map(|c| c.name()).collect();
    let collective = cells.named::<Collective>(
        "collective",
        &format!("one of {}", names.join(", ")),
        false,
        &mut first,
    )?;
    let collective: Vec<Collective> = collective
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect();
    let algorithm = cells.algorithms(&collective, &mut first)?;
    let mapping = cells.named::<Mapping>(
        "mapping",
        "core, socket, block, node or cyclic",
        false,
        &mut first,
    )?;
    let implementation = cells.named::<Impl>("impl", "own, ompi or mpich", false, &mut first)?;
    let arrival = cells.named::<Arrival>(
        "arrival_pattern",
        "barrier, uniform or late:F with F between 0 and 1",
        false,
        &mut first,
    )?;
    if let Some((_, _, error)) = first.0 {
        return Err(error);
    }
    let whole = |name| -> Result<Vec<Option<u64>>, InputError> {
        Ok(cells
            .numbers(name)?
            .into_iter()
            .map(|v| v.map(|x| x as u64))
            .collect())
    };
    let small = |name| -> Result<Vec<Option<u32>>, InputError> {
        Ok(cells
            .numbers(name)?
            .into_iter()
            .map(|v| v.map(|x| x as u32))
            .collect())
    };
    let (procs, nodes, ppn, fanout) = (
        small("procs")?,
        small("nodes")?,
        small("ppn")?,
        small("fanout")?,
    );
    let (msg_bytes, segsize, reps) = (whole("msg_bytes")?, whole("segsize_bytes")?, whole("reps")?);
    let time_us = cells.numbers("time_us")?;
    let imbalance = cells.numbers("imbalance")?;
    let time_min = cells.numbers("time_min_us")?;
    let time_max = cells.numbers("time_max_us")?;
    let ci95 = cells.numbers("ci95_us")?;

    let mut empty_nodes = 0;
    let mut rows = Vec::with_capacity(procs.len());
    for row in 0..procs.len() {
        if columns.has("nodes") && nodes[row].is_none() {
            empty_nodes += 1;
        }
        let n = nodes[row].unwrap_or(1);
        // Present: checked above.
        let p = procs[row].unwrap_or(1);
        let k = ppn[row].unwrap_or(p.div_ceil(n));
        super::Placement::new(p, n, k, super::NodeOrder::Block).map_err(|why| {
            let name = if columns.has("ppn") { "ppn" } else { "nodes" };
            cells.error(
                row,
                name,
                format!("impossible job: {why}; expected nodes <= procs <= nodes x ppn"),
            )
        })?;
        if let (Some(lo), Some(hi)) = (time_min[row], time_max[row]) {
            if lo > hi {
                return Err(cells.error(
                    row,
                    "time_min_us",
                    format!("time_min_us {lo} exceeds time_max_us {hi}; expected min <= max"),
                ));
            }
        }
        // `-0` is written by some tools; it is the balanced 0.
        let x = imbalance[row].unwrap_or(0.0) + 0.0;
        // Files from before the pattern column: imbalance without a pattern
        // is the uniform one.
        let arrival = arrival[row].unwrap_or(if x > 0.0 {
            Arrival::Uniform
        } else {
            Arrival::Barrier
        });
        if arrival == Arrival::Barrier && x > 0.0 {
            return Err(cells.error(
                row,
                "imbalance",
                format!("imbalance {x} with arrival_pattern barrier; expected 0 (a barrier start has no imbalance)"),
            ));
        }
        let candidate = Candidate {
            algorithm: algorithm[row].unwrap_or(Algorithm::Default),
            segsize: segsize[row],
            fanout: fanout[row],
            implementation: implementation[row].unwrap_or_default(),
        };
        // A row of MPICH's names an algorithm of MPICH's.
        let c = collective[row];
        if candidate.implementation == Impl::Mpich
            && c.mpich_algorithm(candidate.algorithm).is_none()
        {
            let names: Vec<&str> = c
                .describe()
                .mpich
                .algorithms
                .iter()
                .map(|m| m.algorithm.name())
                .collect();
            return Err(cells.error(
                row,
                "algorithm",
                format!(
                    "impl mpich with {}, which is no MPICH {c} algorithm; expected one of {} \
                     (MPICH's own choice is `default` with impl ompi)",
                    candidate.algorithm,
                    names.join(", ")
                ),
            ));
        }
        rows.push(Measurement {
            config: Config {
                procs: p,
                nodes: n,
                ppn: k,
                mapping: mapping[row].unwrap_or_default(),
                msg_bytes: msg_bytes[row].unwrap_or_default(),
                imbalance: x,
                arrival,
            },
            candidate,
            // A grid's rows have no time.
            time_us: time_us[row].unwrap_or(f64::NAN),
            time_min_us: time_min[row],
            time_max_us: time_max[row],
            ci95_us: ci95[row],
            reps: reps[row],
            rows: 1,
        });
    }
    if empty_nodes > 0 {
        warnings.push(format!(
            "{}: {empty_nodes} rows with an empty 'nodes' value; assuming 1 node for them",
            cells.path.display()
        ));
    }
    Ok((rows, collective))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Loaded, InputError> {
        let parsed = parse_csv(Path::new("t.csv"), text.as_bytes())?;
        Ok(Loaded {
            dataset: dataset(parsed.parts),
            warnings: parsed.warnings,
        })
    }

    fn error(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    const HEADER: &str = "algorithm,procs,msg_bytes,time_us\n";

    #[test]
    fn minimal_file_gets_documented_defaults() {
        let loaded = parse(&format!("{HEADER}binomial,6,1024,3.5\n")).unwrap();
        let m = &loaded.dataset.measurements()[0];
        assert_eq!(m.config.nodes, 1);
        assert_eq!(m.config.ppn, 6);
        assert_eq!(m.config.mapping, Mapping::Core);
        assert_eq!(m.config.imbalance, 0.0);
        assert_eq!(m.candidate.implementation, Impl::Ompi);
        assert_eq!(m.candidate.segsize, None);
        assert_eq!(m.candidate.fanout, None);
        assert!(loaded.warnings.iter().any(|w| w.contains("'nodes'")));
    }

    #[test]
    fn ppn_defaults_to_ceiling_of_procs_over_nodes() {
        let loaded = parse("algorithm,procs,nodes,msg_bytes,time_us\n7,7,2,1,1\n").unwrap();
        let m = &loaded.dataset.measurements()[0];
        assert_eq!(
            (m.config.ppn, m.candidate.algorithm),
            (4, Algorithm::Knomial)
        );
        assert!(loaded.warnings.is_empty());
    }

    #[test]
    fn quoting_crlf_blank_lines_bom_and_unknown_columns() {
        let text = "\u{FEFF}algorithm,procs,msg_bytes,time_us,note\r\n\r\n\"pipeline\",4,8,\"2.5\",\"a, \"\"quoted\"\"\nnote\"\r\n\nlinear,4,8,1e1,x\r\n";
        let loaded = parse(text).unwrap();
        let d = &loaded.dataset;
        assert_eq!(d.rows, 2);
        assert_eq!(d.measurements()[0].time_us, 10.0);
        assert_eq!(d.measurements()[1].time_us, 2.5);
        assert!(loaded.warnings[0].contains("unknown columns: note"));
    }

    #[test]
    fn errors_point_at_the_cell() {
        let e = error(&format!("{HEADER}binomial,4,8,1\nbinomial,4,8,abc\n"));
        assert_eq!(
            e,
            "t.csv:3:4: column 'time_us': expected a finite number > 0, found \"abc\""
        );
        let e = error(&format!("{HEADER}binomial,0,8,1\n"));
        assert!(e.starts_with("t.csv:2:2: column 'procs'"), "{e}");
        let e = error(&format!("{HEADER}ring,4,8,1\n"));
        assert!(e.starts_with("t.csv:2:1: column 'algorithm'"), "{e}");
        assert!(
            e.contains("expected a bcast algorithm: default, linear"),
            "{e}"
        );
    }

    #[test]
    fn line_numbers_count_multiline_fields_and_blank_lines() {
        let text = "algorithm,procs,msg_bytes,time_us,note\nlinear,4,8,1,\"two\nlines\"\n\nlinear,4,8,-1,x\n";
        let e = error(text);
        assert!(e.starts_with("t.csv:5:4: column 'time_us'"), "{e}");
    }

    #[test]
    fn integral_floats_are_whole_numbers_but_fractions_are_not() {
        assert!(parse(&format!("{HEADER}binomial,4.0,8,1\n")).is_ok());
        let e = error(&format!("{HEADER}binomial,4.5,8,1\n"));
        assert!(e.contains("expected a whole number >= 1"), "{e}");
    }

    #[test]
    fn the_first_bad_cell_of_the_file_is_reported_with_its_text() {
        // Row order first, then column: the algorithm on line 3 before the
        // number on line 4, though numbers are checked in another pass.
        let e = error(&format!("{HEADER}linear,4,8,1\nring,4,8,1\nlinear,4,8,x\n"));
        assert!(e.starts_with("t.csv:3:1: column 'algorithm'"), "{e}");
        let e = error(&format!("{HEADER}linear,4,8,1e400\n"));
        assert!(
            e.ends_with("expected a finite number > 0, found \"1e400\""),
            "{e}"
        );
        let e = error(&format!("{HEADER}linear,4,8,NaN\n"));
        assert!(e.starts_with("t.csv:2:4:"), "{e}");
        let e = error(&format!("{HEADER}linear,5000000000,8,1\n"));
        assert!(e.contains("between 1 and 4294967295"), "{e}");
        let e = error(&format!("{HEADER}linear,4,,1\n"));
        assert!(
            e.ends_with("empty value; expected a whole number >= 0"),
            "{e}"
        );
    }

    #[test]
    fn numbers_with_spaces_or_quotes_are_numbers() {
        let loaded = parse(&format!("{HEADER}linear, 4 ,\"8\",2.5 \n")).unwrap();
        let m = &loaded.dataset.measurements()[0];
        assert_eq!((m.config.procs, m.config.msg_bytes, m.time_us), (4, 8, 2.5));
    }

    #[test]
    fn impossible_job_shapes_are_errors() {
        let e = error("algorithm,procs,nodes,ppn,msg_bytes,time_us\nlinear,8,2,3,1,1\n");
        assert!(e.starts_with("t.csv:2:4: column 'ppn'"), "{e}");
    }

    #[test]
    fn duplicate_header_names_and_unterminated_quotes() {
        let e = error("algorithm,procs,procs,msg_bytes,time_us\n");
        assert!(e.starts_with("t.csv:1:3:"), "{e}");
        let e = error(&format!("{HEADER}\"linear,4,8,1\n"));
        assert!(
            e.starts_with("t.csv:2:1:") && e.contains("unterminated"),
            "{e}"
        );
    }

    #[test]
    fn invalid_utf8_is_located() {
        let mut bytes = format!("{HEADER}linear,4,").into_bytes();
        bytes.extend_from_slice(b"\xff\xfe,1\n");
        let e = parse_csv(Path::new("t.csv"), &bytes).unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(3)));
    }

    #[test]
    fn rows_of_different_machines_or_mpis_are_never_combined() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("two.csv");
        std::fs::write(
            &path,
            "algorithm,procs,msg_bytes,time_us,machine,mpi\n\
             binomial,4,8,1.0,A,ompi-4.1.1\n\
             binomial,4,8,3.0,A,ompi-4.1.4\n\
             binomial,4,8,5.0,B,ompi-4.1.4\n\
             binomial,4,8,7.0,B,ompi-4.1.4\n",
        )
        .unwrap();
        let paths = [path.clone()];
        let err = load_files(&paths, &Choice::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("3 machine/MPI combinations"), "{err}");
        assert!(err.contains("machine A with ompi-4.1.1 (1 rows)"), "{err}");
        assert!(err.contains("--machine"), "{err}");

        let only_b = Choice {
            machine: Some("B".into()),
            ..Choice::default()
        };
        let b = load_files(&paths, &only_b).unwrap().dataset;
        assert_eq!(b.measurements().len(), 1);
        assert_eq!(b.measurements()[0].time_us, 6.0);
        assert_eq!(b.provenance.machines, BTreeSet::from(["B".to_string()]));

        let (systems, _) = load_systems(&paths, &Choice::default()).unwrap();
        let times: Vec<f64> = systems
            .iter()
            .map(|(_, d)| d.measurements()[0].time_us)
            .collect();
        assert_eq!(times, [1.0, 3.0, 6.0]);

        let nothing = Choice {
            machine: Some("C".into()),
            ..Choice::default()
        };
        let err = load_files(&paths, &nothing).unwrap_err().to_string();
        assert!(err.contains("no rows of the chosen machine/MPI"), "{err}");
    }
}
