//! Loading benchmark CSV files (docs/formats.md) into a [`Dataset`].
//!
//! One quote-aware pass over the text records where each CSV record starts
//! (its line) and how many fields it has, so that every error can name
//! `file:line:column`. polars reads the records with a typed schema (numbers
//! as `Float64`) and checks every numeric column's range in one lazy pass;
//! the record positions only serve to say where a cell that polars flagged
//! stands and what it holds.

mod cells;
mod frame;
mod grid;
mod rows;
mod rules;
mod scan;
mod table;

use super::{Collective, Dataset, Measurement, Provenance, System};
use crate::error::{Error, InputError, Result};
pub use grid::{load_grid, Grid, GridPoint};
use rules::Times;
use scan::{decode, read_bytes, scan};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use table::read_table;

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
pub struct FilePart {
    pub system: System,
    /// The `source` value; `None` where the file has none.
    pub source: Option<String>,
    pub rows: Vec<Measurement>,
}

/// One file's rows, by system and campaign, before any are combined.
#[derive(Debug)]
pub struct Parsed {
    pub parts: Vec<FilePart>,
    pub warnings: Vec<String>,
}

/// Which system to keep when the data holds several (`--machine`, `--mpi`,
/// `--collective`).
#[derive(Clone, Debug, Default)]
pub struct SystemFilter {
    pub machine: Option<String>,
    pub mpi: Option<String>,
    pub collective: Option<Collective>,
}

impl SystemFilter {
    fn accepts(&self, s: &System) -> bool {
        self.machine.as_ref().is_none_or(|m| *m == s.machine)
            && self.mpi.as_ref().is_none_or(|m| *m == s.mpi)
            && self.collective.is_none_or(|c| c == s.collective)
    }
}

/// The parts of every file that `choice` accepts (campaigns without a
/// `source` are named after their file), and the warnings.
fn read_chosen(
    paths: &[PathBuf],
    choice: &SystemFilter,
) -> Result<Warned<Vec<(String, FilePart)>>> {
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
pub fn load_systems(
    paths: &[PathBuf],
    choice: &SystemFilter,
) -> Result<Warned<Vec<(System, Dataset)>>> {
    let (parts, warnings) = read_chosen(paths, choice)?;
    let mut systems: BTreeMap<System, Vec<FilePart>> = BTreeMap::new();
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
pub fn load_files(paths: &[PathBuf], choice: &SystemFilter) -> Result<Loaded> {
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
    load_files(&[path.to_path_buf()], &SystemFilter::default())
}

/// The campaigns of one machine, each a dataset of its own, sorted by name:
/// each `source` value is one (rows without one belong to their file's
/// campaign, named after the file); campaigns of the same name in several
/// files are merged. Campaigns may differ in MPI library (a rerun after an
/// upgrade is one of the things this protocol is for), never in machine.
pub fn load_campaigns(paths: &[PathBuf], choice: &SystemFilter) -> Result<Campaigns> {
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
    let mut campaigns: BTreeMap<(String, System), Vec<FilePart>> = BTreeMap::new();
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
fn dataset(parts: Vec<FilePart>) -> Dataset {
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
        .map(|((system, source), rows)| FilePart {
            system,
            source: source.map(str::to_string),
            rows,
        })
        .collect();
    Ok(Parsed { parts, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Algorithm, Impl, Mapping};

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
        let err = load_files(&paths, &SystemFilter::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("3 machine/MPI combinations"), "{err}");
        assert!(err.contains("machine A with ompi-4.1.1 (1 rows)"), "{err}");
        assert!(err.contains("--machine"), "{err}");

        let only_b = SystemFilter {
            machine: Some("B".into()),
            ..SystemFilter::default()
        };
        let b = load_files(&paths, &only_b).unwrap().dataset;
        assert_eq!(b.measurements().len(), 1);
        assert_eq!(b.measurements()[0].time_us, 6.0);
        assert_eq!(b.provenance.machines, BTreeSet::from(["B".to_string()]));

        let (systems, _) = load_systems(&paths, &SystemFilter::default()).unwrap();
        let times: Vec<f64> = systems
            .iter()
            .map(|(_, d)| d.measurements()[0].time_us)
            .collect();
        assert_eq!(times, [1.0, 3.0, 6.0]);

        let nothing = SystemFilter {
            machine: Some("C".into()),
            ..SystemFilter::default()
        };
        let err = load_files(&paths, &nothing).unwrap_err().to_string();
        assert!(err.contains("no rows of the chosen machine/MPI"), "{err}");
    }
}
