//! Loading benchmark CSV files (DESIGN §1) into a [`Dataset`].
//!
//! One quote-aware pass over the text records where each CSV record starts
//! (its line) and how many fields it has, so that every error can name
//! `file:line:column`; polars then splits the fields into string columns, and
//! each column is parsed and range-checked here, cell by cell, so that a bad
//! value is reported where it stands instead of as a generic parse failure.

use super::{
    Algorithm, Arrival, Candidate, Config, Dataset, Impl, Mapping, Measurement, Provenance, System,
};
use crate::error::{Error, InputError, Result};
use polars::prelude::*;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Cursor;
use std::path::{Path, PathBuf};

/// Columns every file must have.
pub const REQUIRED: [&str; 4] = ["algorithm", "procs", "msg_bytes", "time_us"];
/// Columns the schema knows; anything else is ignored with a warning.
pub const KNOWN: [&str; 19] = [
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

/// Which system to keep when the data holds several (`--machine`, `--mpi`).
#[derive(Clone, Debug, Default)]
pub struct Choice {
    pub machine: Option<String>,
    pub mpi: Option<String>,
}

impl Choice {
    fn accepts(&self, s: &System) -> bool {
        self.machine.as_ref().is_none_or(|m| *m == s.machine)
            && self.mpi.as_ref().is_none_or(|m| *m == s.mpi)
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
             choose one with --machine NAME and/or --mpi VERSION",
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
    let mut rows = Vec::with_capacity(parts.iter().map(|p| p.rows.len()).sum());
    for part in parts {
        let nonempty = |s: &str| (!s.is_empty()).then(|| s.to_string());
        provenance.machines.extend(nonempty(&part.system.machine));
        provenance.mpis.extend(nonempty(&part.system.mpi));
        provenance.sources.extend(part.source);
        rows.extend(part.rows);
    }
    Dataset::from_rows(rows, provenance)
}

fn load_parsed(path: &Path) -> Result<Parsed, InputError> {
    let bytes = std::fs::read(path).map_err(|e| {
        InputError::new(
            path,
            format!("cannot read file ({e}); expected a benchmark CSV file"),
        )
        .at(1, 1)
    })?;
    parse_csv(path, &bytes)
}

/// Parses the bytes of one CSV file; `path` only names it in messages.
pub fn parse_csv(path: &Path, bytes: &[u8]) -> Result<Parsed, InputError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let (line, column) = locate(&bytes[..e.valid_up_to()]);
        InputError::new(
            path,
            format!(
                "invalid UTF-8 (byte 0x{:02x}); expected UTF-8 text",
                bytes[e.valid_up_to()]
            ),
        )
        .at(line, column)
    })?;

    let records =
        scan_records(text).map_err(|(line, msg)| InputError::new(path, msg).at(line, 1))?;
    let Some(header) = records.first() else {
        return Err(InputError::new(
            path,
            format!(
                "empty file; expected a header line naming the columns {}",
                REQUIRED.join(", ")
            ),
        )
        .at(1, 1));
    };
    let names: Vec<String> = split_fields(&text[header.start..header.end])
        .into_iter()
        .map(|f| f.trim().to_ascii_lowercase())
        .collect();
    let columns = Columns::from_header(path, &names)?;
    if records.len() == 1 {
        return Err(InputError::new(
            path,
            "header only, no data rows; expected at least one measurement after the header",
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

    let frame = read_strings(text, &records).map_err(|e| {
        InputError::new(path, format!("CSV could not be parsed: {e}")).at(header.line, 1)
    })?;
    if frame.height() != records.len() - 1 {
        return Err(InputError::new(
            path,
            format!(
                "found {} data records but the CSV reader saw {}; expected plain RFC 4180 CSV",
                records.len() - 1,
                frame.height()
            ),
        ));
    }
    let lines: Vec<usize> = records[1..].iter().map(|r| r.line).collect();
    let cells = Cells {
        path,
        frame: &frame,
        lines: &lines,
        names: &names,
    };
    let mut warnings = columns.warnings(path);
    let rows = build_rows(&cells, &columns, &mut warnings)?;
    let machine = cells.strings("machine")?;
    let mpi = cells.strings("mpi")?;
    let source = cells.strings("source")?;
    let mut parts: BTreeMap<(System, Option<&str>), Vec<Measurement>> = BTreeMap::new();
    for (row, m) in rows.into_iter().enumerate() {
        let system = System {
            machine: machine[row].unwrap_or_default().to_string(),
            mpi: mpi[row].unwrap_or_default().to_string(),
        };
        parts.entry((system, source[row])).or_default().push(m);
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

/// All columns as strings; polars does the splitting and unquoting.
fn read_strings(text: &str, records: &[Record]) -> PolarsResult<DataFrame> {
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
    CsvReadOptions::default()
        .with_has_header(true)
        .with_infer_schema_length(Some(0))
        .into_reader_with_file_handle(Cursor::new(body))
        .finish()
}

/// Which known columns a header has, by position.
struct Columns {
    present: BTreeSet<&'static str>,
    unknown: Vec<String>,
}

impl Columns {
    fn from_header(path: &Path, names: &[String]) -> Result<Columns, InputError> {
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
        if let Some(missing) = REQUIRED.iter().find(|r| !present.contains(*r)) {
            return Err(InputError::new(
                path,
                format!(
                    "missing required column '{missing}'; expected a header with {} (found: {})",
                    REQUIRED.join(", "),
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

/// Typed access to one cell at a time, with its location for errors.
struct Cells<'a> {
    path: &'a Path,
    frame: &'a DataFrame,
    lines: &'a [usize],
    names: &'a [String],
}

impl Cells<'_> {
    fn error(&self, row: usize, name: &str, message: String) -> InputError {
        let column = self
            .names
            .iter()
            .position(|n| n == name)
            .map_or(1, |i| i + 1);
        InputError::new(self.path, message)
            .at(self.lines[row], column)
            .named(name)
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

    /// Parses every non-empty cell of a column; `parse` says what was expected.
    fn parse<T>(
        &self,
        name: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Vec<Option<T>>, InputError> {
        self.strings(name)?
            .into_iter()
            .enumerate()
            .map(|(row, cell)| {
                cell.map(|s| {
                    parse(s).map_err(|expected| {
                        self.error(row, name, format!("expected {expected}, found {s:?}"))
                    })
                })
                .transpose()
            })
            .collect()
    }

    fn required<T>(
        &self,
        name: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Vec<T>, InputError> {
        self.parse(name, &parse)?
            .into_iter()
            .enumerate()
            .map(|(row, v)| {
                v.ok_or_else(|| {
                    let expected = parse("").err().unwrap_or_default();
                    self.error(row, name, format!("empty value; expected {expected}"))
                })
            })
            .collect()
    }
}

/// A whole number at least `min`; accepts integral floats such as `4.0`.
fn whole(min: u64) -> impl Fn(&str) -> Result<u64, String> {
    move |s| {
        let expected = || format!("a whole number >= {min}");
        let value = s.parse::<u64>().ok().or_else(|| {
            s.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && v.fract() == 0.0 && *v >= 0.0 && *v < 2f64.powi(63))
                .map(|v| v as u64)
        });
        value.filter(|v| *v >= min).ok_or_else(expected)
    }
}

fn whole_u32(min: u64) -> impl Fn(&str) -> Result<u32, String> {
    move |s| {
        whole(min)(s).and_then(|v| {
            u32::try_from(v).map_err(|_| format!("a whole number between {min} and {}", u32::MAX))
        })
    }
}

/// A finite number above (or at, if `inclusive`) `min`.
fn number(min: f64, inclusive: bool) -> impl Fn(&str) -> Result<f64, String> {
    move |s| {
        let op = if inclusive { ">=" } else { ">" };
        s.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && (*v > min || (inclusive && *v == min)))
            .ok_or_else(|| format!("a finite number {op} {min}"))
    }
}

fn named<T: std::str::FromStr>(accepted: String) -> impl Fn(&str) -> Result<T, String> {
    move |s| s.parse::<T>().map_err(|_| accepted.clone())
}

fn build_rows(
    cells: &Cells,
    columns: &Columns,
    warnings: &mut Vec<String>,
) -> Result<Vec<Measurement>, InputError> {
    let algorithm = cells.required("algorithm", named::<Algorithm>(Algorithm::accepted_names()))?;
    let procs = cells.required("procs", whole_u32(1))?;
    let msg_bytes = cells.required("msg_bytes", whole(0))?;
    let time_us = cells.required("time_us", number(0.0, false))?;
    let nodes = cells.parse("nodes", whole_u32(1))?;
    let ppn = cells.parse("ppn", whole_u32(1))?;
    let mapping = cells.parse(
        "mapping",
        named::<Mapping>("core, socket, block, node or cyclic".into()),
    )?;
    let segsize = cells.parse("segsize_bytes", whole(0))?;
    let fanout = cells.parse("fanout", whole_u32(1))?;
    let implementation = cells.parse("impl", named::<Impl>("own or ompi".into()))?;
    let imbalance = cells.parse("imbalance", number(0.0, true))?;
    let arrival = cells.parse(
        "arrival_pattern",
        named::<Arrival>("barrier, uniform or late:F with F between 0 and 1".into()),
    )?;
    let time_min = cells.parse("time_min_us", number(0.0, true))?;
    let time_max = cells.parse("time_max_us", number(0.0, true))?;
    let ci95 = cells.parse("ci95_us", number(0.0, true))?;
    let reps = cells.parse("reps", whole(0))?;

    let mut empty_nodes = 0;
    let mut rows = Vec::with_capacity(procs.len());
    for row in 0..procs.len() {
        if columns.has("nodes") && nodes[row].is_none() {
            empty_nodes += 1;
        }
        let n = nodes[row].unwrap_or(1);
        let p = procs[row];
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
        rows.push(Measurement {
            config: Config {
                procs: p,
                nodes: n,
                ppn: k,
                mapping: mapping[row].unwrap_or_default(),
                msg_bytes: msg_bytes[row],
                imbalance: x,
                arrival,
            },
            candidate: Candidate {
                algorithm: algorithm[row],
                segsize: segsize[row],
                fanout: fanout[row],
                implementation: implementation[row].unwrap_or_default(),
            },
            time_us: time_us[row],
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
    Ok(rows)
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
        assert!(e.contains("expected default, linear"), "{e}");
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
            mpi: None,
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
            mpi: None,
        };
        let err = load_files(&paths, &nothing).unwrap_err().to_string();
        assert!(err.contains("no rows of the chosen machine/MPI"), "{err}");
    }
}
