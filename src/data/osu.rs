//! Reading the text output of OSU micro-benchmarks' `osu_bcast`.
//!
//! The format: `#` comment lines, the last of which names the columns
//! (`Size`, `Avg Latency(us)` and, with `-f`, `Min Latency(us)`,
//! `Max Latency(us)`, `Iterations`), separated by runs of spaces; then one
//! line per message size. A job killed mid-run leaves a partial last line,
//! which is dropped with a warning; a bad line anywhere else is an error.

use crate::error::InputError;
use std::path::Path;

/// One message size of an `osu_bcast` run.
#[derive(Clone, Debug, PartialEq)]
pub struct OsuPoint {
    pub msg_bytes: u64,
    pub avg_us: f64,
    pub min_us: Option<f64>,
    pub max_us: Option<f64>,
    pub iterations: Option<u64>,
}

#[derive(Debug)]
pub struct OsuRun {
    pub points: Vec<OsuPoint>,
    pub warnings: Vec<String>,
}

/// Positions of the columns we use, by name (OSU versions differ in extras).
#[derive(Debug, Clone, PartialEq)]
struct Layout {
    fields: usize,
    size: usize,
    avg: usize,
    min: Option<usize>,
    max: Option<usize>,
    iterations: Option<usize>,
}

impl Layout {
    /// `Size  Avg Latency(us)` when the run printed no column header.
    const PLAIN: Layout = Layout {
        fields: 2,
        size: 0,
        avg: 1,
        min: None,
        max: None,
        iterations: None,
    };

    /// From a `# Size   Avg Latency(us) ...` line; `None` if it is not one.
    fn from_header(line: &str) -> Option<Layout> {
        let names: Vec<String> = line
            .trim_start_matches('#')
            .split("  ")
            .map(|s| s.trim().to_ascii_lowercase())
            .filter(|s| !s.is_empty())
            .collect();
        let find = |prefix: &str| names.iter().position(|n| n.starts_with(prefix));
        Some(Layout {
            fields: names.len(),
            size: find("size")?,
            avg: find("avg latency")?,
            min: find("min latency"),
            max: find("max latency"),
            iterations: find("iterations"),
        })
    }
}

pub fn parse_osu(path: &Path, bytes: &[u8]) -> Result<OsuRun, InputError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = 1 + bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        InputError::new(path, "invalid UTF-8; expected osu_bcast text output").at(line, 1)
    })?;
    let mut layout = Layout::PLAIN;
    let mut points = Vec::new();
    let mut warnings = Vec::new();
    let mut ignored = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let last_data = lines
        .iter()
        .rposition(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()));
    for (i, raw) in lines.iter().enumerate() {
        let line = raw.trim();
        let number = i + 1;
        if line.is_empty() {
            continue;
        }
        if line.starts_with('#') {
            if let Some(l) = Layout::from_header(line) {
                layout = l;
            }
            continue;
        }
        if !line.starts_with(|c: char| c.is_ascii_digit()) {
            ignored.push(number);
            continue;
        }
        match parse_point(line, &layout) {
            Ok(point) => points.push(point),
            // A killed job leaves its last measurement line partial.
            Err((_, expected)) if Some(i) == last_data => warnings.push(format!(
                "{}:{number}: last measurement line is incomplete ({expected}, found {line:?}); \
                 the run was probably cut short, line skipped",
                path.display(),
            )),
            Err((column, expected)) => {
                return Err(
                    InputError::new(path, format!("expected {expected}, found {line:?}"))
                        .at(number, column),
                )
            }
        }
    }
    if let Some(first) = ignored.first() {
        warnings.push(format!(
            "{}: ignored {} line(s) that are neither comments nor measurements (first: line {first})",
            path.display(),
            ignored.len()
        ));
    }
    if points.is_empty() {
        return Err(InputError::new(
            path,
            "no measurements; expected osu_bcast output lines such as '1024   3.51'",
        )
        .at(lines.len().max(1), 1));
    }
    Ok(OsuRun { points, warnings })
}

/// Parses one data line; the error is (field number, what was expected).
fn parse_point(line: &str, layout: &Layout) -> Result<OsuPoint, (usize, String)> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < layout.fields {
        return Err((
            fields.len() + 1,
            format!("{} columns as in the header", layout.fields),
        ));
    }
    let float = |i: usize, what: &str| {
        fields[i]
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v > 0.0)
            .ok_or((i + 1, format!("{what} as a number > 0")))
    };
    let whole = |i: usize, what: &str| {
        fields[i]
            .parse::<u64>()
            .map_err(|_| (i + 1, format!("{what} as a whole number")))
    };
    Ok(OsuPoint {
        msg_bytes: whole(layout.size, "the message size")?,
        avg_us: float(layout.avg, "the average latency in us")?,
        min_us: layout
            .min
            .map(|i| float(i, "the minimum latency"))
            .transpose()?,
        max_us: layout
            .max
            .map(|i| float(i, "the maximum latency"))
            .transpose()?,
        iterations: layout
            .iterations
            .map(|i| whole(i, "the iteration count"))
            .transpose()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = "\
# OSU MPI Broadcast Latency Test v7.3
# Datatype: MPI_CHAR.
# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations
1                       1.62              0.96              2.41        1000
2                       1.58              0.93              2.33        1000
4                       1.60              0.95              2.38        1000
";

    #[test]
    fn full_format_reads_all_columns() {
        let run = parse_osu(Path::new("o.txt"), FULL.as_bytes()).unwrap();
        assert_eq!(run.points.len(), 3);
        assert_eq!(
            run.points[1],
            OsuPoint {
                msg_bytes: 2,
                avg_us: 1.58,
                min_us: Some(0.93),
                max_us: Some(2.33),
                iterations: Some(1000)
            }
        );
        assert!(run.warnings.is_empty());
    }

    #[test]
    fn plain_format_and_mpirun_noise() {
        let text = "# OSU MPI Broadcast Latency Test v5.6.3\n# Size       Avg Latency(us)\n\
                    [node01:1234] mca_base_component_repository_open: unable\n\
                    1                       2.10\n1048576               812.40\n";
        let run = parse_osu(Path::new("o.txt"), text.as_bytes()).unwrap();
        assert_eq!(run.points.len(), 2);
        assert_eq!(run.points[1].min_us, None);
        assert!(run.warnings[0].contains("ignored 1 line"));
    }

    #[test]
    fn truncated_last_line_is_dropped_with_a_warning() {
        let text = format!("{FULL}8                       1.71              0.9");
        let run = parse_osu(Path::new("o.txt"), text.as_bytes()).unwrap();
        assert_eq!(run.points.len(), 3);
        assert!(run.warnings[0].contains("o.txt:7: last measurement line is incomplete"));
    }

    #[test]
    fn a_bad_line_in_the_middle_is_an_error() {
        let text = FULL.replace("1.58", "n/a");
        let e = parse_osu(Path::new("o.txt"), text.as_bytes()).unwrap_err();
        assert_eq!((e.line, e.column), (Some(5), Some(2)));
    }

    #[test]
    fn no_data_is_an_error() {
        let e = parse_osu(Path::new("o.txt"), b"# OSU MPI Broadcast Latency Test\n").unwrap_err();
        assert!(e.message.contains("no measurements"));
    }
}
