//! Writing measurements in the benchmark CSV schema, one flushed row at a time
//! (so an interrupted campaign loses at most the row in progress).

use super::{Collective, Measurement};
use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::Path;

/// Column order of every CSV this tool writes. Columns are only ever added
/// at the end: a file with a shorter header of this order (written by an
/// earlier version) is appended to in its own columns.
pub const HEADER: [&str; 21] = [
    "algorithm",
    "procs",
    "nodes",
    "ppn",
    "mapping",
    "msg_bytes",
    "time_us",
    "time_min_us",
    "time_max_us",
    "ci95_us",
    "reps",
    "segsize_bytes",
    "fanout",
    "impl",
    "imbalance",
    "arrival_pattern",
    "machine",
    "mpi",
    "source",
    "component",
    "collective",
];

/// The columns every header this tool wrote has had: the first 19.
const OLDEST: usize = 19;

/// Provenance written next to every row: the system measured on and the
/// campaign (free text).
#[derive(Clone, Debug, Default)]
pub struct RowMeta {
    pub system: super::System,
    pub source: String,
}

pub struct CsvWriter<W: Write> {
    out: W,
    /// How many of [`HEADER`]'s columns the file has.
    columns: usize,
}

impl CsvWriter<BufWriter<File>> {
    /// Opens `path` for appending, writing the header if the file is new or
    /// empty. An existing non-empty file must already carry our header, or
    /// an earlier version's (then its columns are kept).
    pub fn append(path: &Path) -> Result<Self> {
        let existing = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let mut columns = HEADER.len();
        if existing > 0 {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
            let first = text.lines().next().unwrap_or_default().trim_end();
            columns = (OLDEST..=HEADER.len())
                .find(|&n| first == HEADER[..n].join(","))
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "{} exists but was not written by collsel (its header \
                         differs); choose a new --out file",
                        path.display()
                    ))
                })?;
            if !text.ends_with('\n') {
                // A row cut short by a kill: drop it, it is measured again.
                let keep = text.rfind('\n').map_or(0, |i| i + 1);
                OpenOptions::new()
                    .write(true)
                    .open(path)
                    .and_then(|f| f.set_len(keep as u64))
                    .map_err(|e| Error::io(format!("cannot repair {}", path.display()), e))?;
                eprintln!(
                    "warning: {}: dropped an incomplete last row (interrupted run)",
                    path.display()
                );
            }
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Error::io(format!("cannot open {} for writing", path.display()), e))?;
        let mut writer = CsvWriter {
            out: BufWriter::new(file),
            columns,
        };
        if existing == 0 {
            writer.write_header()?;
        }
        Ok(writer)
    }
}

impl<W: Write> CsvWriter<W> {
    pub fn new(out: W) -> Result<Self> {
        let mut writer = CsvWriter {
            out,
            columns: HEADER.len(),
        };
        writer.write_header()?;
        Ok(writer)
    }

    fn write_header(&mut self) -> Result<()> {
        writeln!(self.out, "{}", HEADER.join(",")).map_err(|e| Error::io("cannot write CSV", e))?;
        self.out
            .flush()
            .map_err(|e| Error::io("cannot write CSV", e))
    }

    /// Writes and flushes one row.
    pub fn write(&mut self, m: &Measurement, meta: &RowMeta) -> Result<()> {
        self.write_served(m, meta, "")
    }

    /// [`CsvWriter::write`] of a row whose broadcast the MPI library's
    /// collective `component` served (`tuned`, `han`; empty: not known).
    pub fn write_served(&mut self, m: &Measurement, meta: &RowMeta, component: &str) -> Result<()> {
        let opt = |v: Option<String>| v.unwrap_or_default();
        let c = &m.config;
        let k = &m.candidate;
        let fields = [
            k.algorithm.name().to_string(),
            c.procs.to_string(),
            c.nodes.to_string(),
            c.ppn.to_string(),
            c.mapping.name().to_string(),
            c.msg_bytes.to_string(),
            m.time_us.to_string(),
            opt(m.time_min_us.map(|v| v.to_string())),
            opt(m.time_max_us.map(|v| v.to_string())),
            opt(m.ci95_us.map(|v| v.to_string())),
            opt(m.reps.map(|v| v.to_string())),
            opt(k.segsize.map(|v| v.to_string())),
            opt(k.fanout.map(|v| v.to_string())),
            k.implementation.name().to_string(),
            c.imbalance.to_string(),
            c.arrival.to_string(),
            quote(&meta.system.machine),
            quote(&meta.system.mpi),
            quote(&meta.source),
            component.to_string(),
            meta.system.collective.name().to_string(),
        ];
        // An older file has no collective column: its rows read as
        // broadcasts, so nothing else may go there.
        if self.columns < HEADER.len() && meta.system.collective != Collective::LEGACY {
            return Err(Error::Usage(format!(
                "this CSV predates the collective column, so its rows are broadcasts; \
                 write {} rows to a new --out file",
                meta.system.collective.name()
            )));
        }
        let fields = &fields[..self.columns];
        writeln!(self.out, "{}", fields.join(",")).map_err(|e| Error::io("cannot write CSV", e))?;
        self.out
            .flush()
            .map_err(|e| Error::io("cannot write CSV", e))
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

/// RFC 4180 quoting where needed.
pub fn quote(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::load::parse_csv;
    use crate::data::tests::row;
    use crate::data::Algorithm;

    /// A file of an earlier version (19 columns, no `component`) is
    /// appended to in its own columns; another header is refused.
    #[test]
    fn older_files_keep_their_columns() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("old.csv");
        std::fs::write(&old, format!("{}\n", HEADER[..OLDEST].join(","))).unwrap();
        let m = row(4, 64, Algorithm::Binomial, 2.5);
        let meta = RowMeta::default();
        CsvWriter::append(&old)
            .unwrap()
            .write_served(&m, &meta, "tuned")
            .unwrap();
        let text = std::fs::read_to_string(&old).unwrap();
        let last = text.lines().last().unwrap();
        assert_eq!(last.split(',').count(), OLDEST, "{last}");
        assert!(parse_csv(&old, text.as_bytes()).is_ok());
        let new = dir.path().join("new.csv");
        CsvWriter::append(&new)
            .unwrap()
            .write_served(&m, &meta, "han")
            .unwrap();
        let text = std::fs::read_to_string(&new).unwrap();
        assert!(
            text.lines().last().unwrap().ends_with(",han,bcast"),
            "{text}"
        );
        let loaded = parse_csv(&new, text.as_bytes()).unwrap();
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        let other = dir.path().join("other.csv");
        std::fs::write(&other, "algorithm,procs,msg_bytes,time_us\n").unwrap();
        assert!(CsvWriter::append(&other).is_err());
        // A reduce row needs the collective column.
        let reduce = RowMeta {
            system: crate::data::System {
                collective: crate::data::Collective::Reduce,
                ..Default::default()
            },
            ..RowMeta::default()
        };
        let m = row(4, 64, Algorithm::Binomial, 2.5);
        let err = CsvWriter::append(&old)
            .unwrap()
            .write(&m, &reduce)
            .unwrap_err();
        assert!(err.to_string().contains("new --out"), "{err}");
        let mut w = CsvWriter::append(&new).unwrap();
        w.write(&m, &reduce).unwrap();
        drop(w);
        let text = std::fs::read_to_string(&new).unwrap();
        let loaded = parse_csv(&new, text.as_bytes()).unwrap();
        let collectives: Vec<_> = loaded.parts.iter().map(|p| p.system.collective).collect();
        assert!(
            collectives.contains(&crate::data::Collective::Reduce),
            "{collectives:?}"
        );
    }

    #[test]
    fn written_rows_load_back_identically() {
        let mut m = row(5, 1 << 20, Algorithm::Chain, 123.25);
        m.candidate.segsize = Some(8192);
        m.candidate.fanout = Some(3);
        m.time_min_us = Some(120.0);
        m.ci95_us = Some(1.5);
        let meta = RowMeta {
            system: crate::data::System {
                machine: "box, rack \"7\"".into(),
                mpi: "openmpi-4.1.4".into(),
                ..Default::default()
            },
            source: "test".into(),
        };
        let mut w = CsvWriter::new(Vec::new()).unwrap();
        w.write(&m, &meta).unwrap();
        let bytes = w.into_inner();
        let parsed = parse_csv(Path::new("w.csv"), &bytes).unwrap();
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        assert_eq!(parsed.parts.len(), 1);
        assert_eq!(parsed.parts[0].rows, [m]);
        assert_eq!(parsed.parts[0].system.machine, "box, rack \"7\"");
        assert_eq!(parsed.parts[0].source.as_deref(), Some("test"));
    }

    #[test]
    fn append_drops_a_row_cut_short_and_keeps_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.csv");
        let meta = RowMeta::default();
        let mut w = CsvWriter::append(&path).unwrap();
        w.write(&row(2, 8, Algorithm::Linear, 1.0), &meta).unwrap();
        w.write(&row(2, 16, Algorithm::Linear, 2.0), &meta).unwrap();
        drop(w);
        // A kill in the middle of the third row.
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("linear,2,1,2,core,32,3.");
        std::fs::write(&path, &text).unwrap();
        let mut w = CsvWriter::append(&path).unwrap();
        w.write(&row(2, 32, Algorithm::Linear, 3.0), &meta).unwrap();
        drop(w);
        let loaded = crate::data::load::load_file(&path).unwrap();
        let sizes: Vec<u64> = loaded
            .dataset
            .measurements()
            .iter()
            .map(|m| m.config.msg_bytes)
            .collect();
        assert_eq!(sizes, [8, 16, 32]);
    }
}
