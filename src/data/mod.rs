//! The benchmark dataset (docs/formats.md): configurations × candidates → measured
//! time, loaded from CSV, imported from OSU output, summarized.

pub mod implementation;
pub mod arrival;
pub mod load;
pub mod metrics;
pub mod osu;
pub mod placement;
pub mod summary;
pub mod write;

pub use crate::collective::{Algorithm, Collective};
pub use arrival::Arrival;
pub use implementation::Impl;
pub use placement::{Mapping, NodeOrder, Placement};

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// The job and message a broadcast ran under.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Config {
    pub procs: u32,
    pub nodes: u32,
    pub ppn: u32,
    pub mapping: Mapping,
    pub msg_bytes: u64,
    /// Arrival imbalance factor X (0 = balanced); always finite and ≥ 0.
    pub imbalance: f64,
    /// How the ranks arrived, and so which time was recorded.
    pub arrival: Arrival,
}

/// The datatype the harness reduces: `MPI_FLOAT`, as the OSU benchmarks do.
pub const ELEMENT_BYTES: u64 = 4;

/// The size of one element of a `msg`-byte reduction: a float where the
/// bytes are whole floats (what the harness and OSU reduce), else the
/// largest of 2 and 1 bytes that divides them (other campaigns name only
/// byte counts, e.g. 2-byte reductions). Open MPI splits segments and
/// Rabenseifner's halves in elements.
pub fn element_bytes(msg: u64) -> u64 {
    [ELEMENT_BYTES, 2, 1]
        .into_iter()
        .find(|e| msg.is_multiple_of(*e))
        .unwrap_or(1)
}

impl Config {
    fn key(&self) -> (u32, u32, u32, Mapping, u64, u64, Arrival) {
        (
            self.procs,
            self.nodes,
            self.ppn,
            self.mapping,
            self.msg_bytes,
            // -0 and 0 are the same balanced arrival (adding 0 turns -0 into 0).
            (self.imbalance + 0.0).to_bits(),
            self.arrival,
        )
    }

    /// Rank → node for this configuration's job.
    pub fn placement(&self) -> Placement {
        Placement {
            procs: self.procs,
            nodes: self.nodes,
            ppn: self.ppn,
            order: self.mapping.node_order(),
        }
    }
}

// Equality and order by value; `imbalance` is finite and non-negative, so its
// bit pattern orders like the number.
impl PartialEq for Config {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl Eq for Config {}
impl PartialOrd for Config {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Config {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}
impl std::hash::Hash for Config {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state)
    }
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "P={} ({}x{} {}) m={}",
            self.procs, self.nodes, self.ppn, self.mapping, self.msg_bytes
        )?;
        if self.arrival != Arrival::Barrier {
            write!(f, " arrival={} imbalance={}", self.arrival, self.imbalance)?;
        }
        Ok(())
    }
}

/// One thing a selector can choose: an algorithm with its parameters, run by
/// the library or by our re-implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Candidate {
    pub algorithm: Algorithm,
    /// Segment size in bytes; 0 = unsegmented, `None` = not applicable/unknown.
    pub segsize: Option<u64>,
    /// Chains for `chain`, radix for `knomial`; `None` = library default.
    pub fanout: Option<u32>,
    #[serde(rename = "impl")]
    pub implementation: Impl,
}

impl Candidate {
    /// The library's own choice, as measured by plain `MPI_Bcast`.
    pub const DEFAULT: Candidate = Candidate {
        algorithm: Algorithm::Default,
        segsize: None,
        fanout: None,
        implementation: Impl::Ompi,
    };

    pub fn is_default(&self) -> bool {
        self.algorithm == Algorithm::Default
    }
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.algorithm.name())?;
        if let Some(s) = self.segsize {
            write!(f, " seg={s}")?;
        }
        if let Some(k) = self.fanout {
            write!(f, " fanout={k}")?;
        }
        match self.implementation {
            Impl::Own => f.write_str(" (own)"),
            Impl::Mpich => f.write_str(" (MPICH)"),
            Impl::Ompi => Ok(()),
        }
    }
}

/// A measured (configuration, candidate): the median over duplicate rows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measurement {
    pub config: Config,
    pub candidate: Candidate,
    pub time_us: f64,
    pub time_min_us: Option<f64>,
    pub time_max_us: Option<f64>,
    pub ci95_us: Option<f64>,
    pub reps: Option<u64>,
    /// How many CSV rows were combined into this measurement.
    pub rows: u32,
}

impl Measurement {
    /// How far `time_us` may be off, as a standard deviation of ln(time),
    /// from what the row says of its runs: a 95% confidence interval gives
    /// the error of the mean (half-width / 1.96); a min–max range over the
    /// runs spans about four standard deviations of one run (the number of
    /// runs is rarely given, so no √n credit). `None` where the row says
    /// neither.
    pub fn noise_ln(&self) -> Option<f64> {
        let t = self.time_us;
        if let Some(ci) = self.ci95_us.filter(|ci| *ci >= 0.0 && t > 0.0) {
            return Some(ci / (1.96 * t));
        }
        match (self.time_min_us, self.time_max_us) {
            (Some(lo), Some(hi)) if lo > 0.0 && hi >= lo => Some((hi / lo).ln() / 4.0),
            _ => None,
        }
    }
}

/// The machine and MPI library a row was measured with (the `machine` and
/// `mpi` columns; empty when a file has none). It is part of what a
/// measurement is: rows of two systems are never combined, because a
/// decision learned from a blend of machines is right for none of them.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct System {
    pub machine: String,
    pub mpi: String,
    /// The collective measured: a model is one collective's, and rows of
    /// two collectives are never combined either.
    #[serde(default)]
    pub collective: Collective,
}

/// One line whatever the columns held (a quoted CSV field may hold a line
/// break, which would end a rules-file comment).
impl fmt::Display for System {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |s: &str, none: &str| -> String {
            if s.trim().is_empty() {
                return none.to_string();
            }
            s.chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect()
        };
        write!(
            f,
            "machine {} with {}",
            show(&self.machine, "(unnamed)"),
            show(&self.mpi, "(unnamed MPI)")
        )?;
        // Broadcast systems were named before there were others.
        if self.collective == Collective::LEGACY {
            return Ok(());
        }
        write!(f, ", {}", self.collective.function())
    }
}

/// Where the numbers came from, carried into reports.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Provenance {
    pub machines: BTreeSet<String>,
    pub mpis: BTreeSet<String>,
    pub sources: BTreeSet<String>,
    /// Empty means broadcast (files without a `collective` column).
    pub collectives: BTreeSet<Collective>,
}

impl Provenance {
    pub fn extend(&mut self, other: Provenance) {
        self.machines.extend(other.machines);
        self.mpis.extend(other.mpis);
        self.sources.extend(other.sources);
        self.collectives.extend(other.collectives);
    }

    /// The collective measured (datasets never mix collectives).
    pub fn collective(&self) -> Collective {
        self.collectives.first().copied().unwrap_or_default()
    }
}

/// Measurements sorted by (configuration, candidate), one per pair.
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    measurements: Vec<Measurement>,
    /// CSV rows read (before duplicates were combined).
    pub rows: usize,
    pub provenance: Provenance,
}

impl Dataset {
    /// Builds a dataset from raw rows, combining duplicates by their median.
    pub fn from_rows(rows: Vec<Measurement>, provenance: Provenance) -> Dataset {
        let order = sorted_order(&rows);
        let same = |a: &usize, b: &usize| {
            let (a, b) = (&rows[*a], &rows[*b]);
            a.config == b.config && a.candidate == b.candidate
        };
        let measurements = order
            .chunk_by(same)
            .map(|group| match group {
                [one] => rows[*one].clone(),
                _ => {
                    combine_duplicates(&group.iter().map(|&i| rows[i].clone()).collect::<Vec<_>>())
                }
            })
            .collect();
        let n_rows = rows.len();
        Dataset {
            measurements,
            rows: n_rows,
            provenance,
        }
    }

    /// Concatenates datasets (e.g. several files) and re-combines duplicates.
    pub fn merge(parts: Vec<Dataset>) -> Dataset {
        let mut provenance = Provenance::default();
        let mut rows = Vec::new();
        let mut n_rows = 0;
        for part in parts {
            provenance.extend(part.provenance);
            n_rows += part.rows;
            rows.extend(part.measurements);
        }
        let mut merged = Dataset::from_rows(rows, provenance);
        merged.rows = n_rows;
        merged
    }

    pub fn measurements(&self) -> &[Measurement] {
        &self.measurements
    }

    /// The measurements `keep` accepts, as a dataset of their own.
    pub fn subset(&self, keep: impl Fn(&Measurement) -> bool) -> Dataset {
        let rows = self
            .measurements
            .iter()
            .filter(|m| keep(m))
            .cloned()
            .collect();
        Dataset::from_rows(rows, self.provenance.clone())
    }

    /// About `max_rows` measurements (all of them when there are fewer),
    /// each configuration with all its candidates. Every job (the
    /// configuration less its message size) keeps the same share of its
    /// configurations, at least one: spread evenly, its smallest and largest
    /// size included; a job that keeps one takes a size that moves along the
    /// size range from job to job (golden-ratio steps), so the jobs together
    /// still cover every size. Training prices every row it fits on with
    /// the analytical model, a simulation of the broadcast each, whose cost
    /// grows with the rows; the models' capacity does not.
    pub fn thinned(&self, max_rows: usize) -> Dataset {
        if self.measurements.len() <= max_rows {
            return self.clone();
        }
        let share = max_rows as f64 / self.measurements.len() as f64;
        let mut jobs: BTreeMap<Config, Vec<&[Measurement]>> = BTreeMap::new();
        for group in self.by_config() {
            let job = Config {
                msg_bytes: 0,
                ..group[0].config
            };
            jobs.entry(job).or_default().push(group);
        }
        let mut rows = Vec::with_capacity(max_rows + jobs.len());
        for (i, configs) in jobs.values().enumerate() {
            let n = configs.len();
            let keep = ((share * n as f64).round() as usize).clamp(1, n);
            let pick = |j: usize| match keep {
                1 => {
                    let phase = (i as f64 * 0.618_033_988_749_895).fract();
                    ((phase * n as f64) as usize).min(n - 1)
                }
                _ => (j * (n - 1) + (keep - 1) / 2) / (keep - 1),
            };
            for j in 0..keep {
                rows.extend_from_slice(configs[pick(j)]);
            }
        }
        let mut thinned = Dataset::from_rows(rows, self.provenance.clone());
        thinned.rows = thinned.measurements.len();
        thinned
    }

    /// Number of rows that were folded into another row with the same
    /// configuration and candidate.
    pub fn duplicate_rows(&self) -> usize {
        self.rows - self.measurements.len()
    }

    /// The measurements of each configuration, in order.
    pub fn by_config(&self) -> impl Iterator<Item = &[Measurement]> {
        self.measurements.chunk_by(|a, b| a.config == b.config)
    }

    pub fn configs(&self) -> impl Iterator<Item = Config> + '_ {
        self.by_config().map(|group| group[0].config)
    }

    /// The distinct communicator sizes, ascending.
    pub fn procs_values(&self) -> Vec<u32> {
        let procs: BTreeSet<u32> = self.configs().map(|c| c.procs).collect();
        procs.into_iter().collect()
    }

    pub fn candidates(&self) -> BTreeSet<Candidate> {
        self.measurements.iter().map(|m| m.candidate).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.measurements.is_empty()
    }
}

/// The order duplicates are combined in: configuration, candidate, time.
fn row_order(a: &Measurement, b: &Measurement) -> Ordering {
    (a.config, a.candidate)
        .cmp(&(b.config, b.candidate))
        .then(a.time_us.total_cmp(&b.time_us))
}

/// The permutation that puts `rows` in [`row_order`]. Large inputs are
/// ordered by polars, which sorts narrow key columns (row-encoded, on all
/// cores); sorting the wide rows themselves moves each many times (1.5 s of
/// a 4 s load of 10^6 rows).
fn sorted_order(rows: &[Measurement]) -> Vec<usize> {
    if rows.is_sorted_by(|a, b| row_order(a, b).is_le()) {
        return (0..rows.len()).collect();
    }
    if rows.len() >= 10_000 {
        if let Ok(order) = polars_order(rows) {
            return order;
        }
    }
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| row_order(&rows[a], &rows[b]));
    order
}

/// [`sorted_order`] computed by polars.
fn polars_order(rows: &[Measurement]) -> polars::prelude::PolarsResult<Vec<usize>> {
    use polars::prelude::*;
    fn arrival(m: &Measurement) -> (u64, u64) {
        match m.config.arrival {
            Arrival::Barrier => (0, 0),
            Arrival::Uniform => (1, 0),
            Arrival::Late { permille } => (2, permille.into()),
        }
    }
    // Each key column orders like its field (`None` first, as in `Option`).
    type Key = fn(&Measurement) -> Option<u64>;
    let keys: [(&str, Key); 13] = [
        ("procs", |m| Some(m.config.procs.into())),
        ("nodes", |m| Some(m.config.nodes.into())),
        ("ppn", |m| Some(m.config.ppn.into())),
        ("mapping", |m| Some(m.config.mapping as u64)),
        ("msg", |m| Some(m.config.msg_bytes)),
        ("imbalance", |m| Some((m.config.imbalance + 0.0).to_bits())),
        ("arrival", |m| Some(arrival(m).0)),
        ("permille", |m| Some(arrival(m).1)),
        ("algorithm", |m| Some(m.candidate.algorithm as u64)),
        ("segsize", |m| m.candidate.segsize),
        ("fanout", |m| m.candidate.fanout.map(u64::from)),
        ("impl", |m| Some(m.candidate.implementation as u64)),
        ("time", |m| Some(m.time_us.to_bits())),
    ];
    let mut columns: Vec<Column> = keys
        .iter()
        .map(|(name, key)| {
            let values: Vec<Option<u64>> = rows.iter().map(key).collect();
            // Without nulls the values go in as one buffer, no validity mask.
            match values.iter().copied().collect::<Option<Vec<u64>>>() {
                Some(all) => Column::new((*name).into(), all),
                None => Column::new((*name).into(), values),
            }
        })
        .collect();
    columns.push(Column::new(
        "row".into(),
        (0..rows.len() as u64).collect::<Vec<_>>(),
    ));
    let sorted = DataFrame::new(rows.len(), columns)?
        .sort(keys.map(|(name, _)| name), SortMultipleOptions::default())?;
    let order = sorted.column("row")?.u64()?;
    Ok(order.into_no_null_iter().map(|i| i as usize).collect())
}

/// Median time of rows already sorted by time; spread fields merged so the
/// result never claims less spread than its parts.
fn combine_duplicates(group: &[Measurement]) -> Measurement {
    let mut out = group[0].clone();
    if group.len() == 1 {
        return out;
    }
    out.time_us = median_sorted(&group.iter().map(|m| m.time_us).collect::<Vec<_>>());
    out.time_min_us = fold_opt(group.iter().map(|m| m.time_min_us), f64::min);
    out.time_max_us = fold_opt(group.iter().map(|m| m.time_max_us), f64::max);
    out.ci95_us = fold_opt(group.iter().map(|m| m.ci95_us), f64::max);
    out.reps = group
        .iter()
        .map(|m| m.reps)
        .sum::<Option<u64>>()
        .filter(|_| group.iter().all(|m| m.reps.is_some()));
    out.rows = group.iter().map(|m| m.rows).sum();
    out
}

fn fold_opt(values: impl Iterator<Item = Option<f64>>, f: fn(f64, f64) -> f64) -> Option<f64> {
    values.flatten().reduce(f)
}

/// Median of an ascending slice (mean of the two middle values when even).
pub fn median_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn noise_comes_from_the_confidence_interval_then_the_range() {
        let mut m = row(8, 64, Algorithm::Linear, 10.0);
        assert_eq!(m.noise_ln(), None);
        m.time_min_us = Some(5.0);
        m.time_max_us = Some(20.0);
        assert!((m.noise_ln().unwrap() - 4f64.ln() / 4.0).abs() < 1e-12);
        m.ci95_us = Some(0.196);
        assert!(
            (m.noise_ln().unwrap() - 0.01).abs() < 1e-12,
            "the mean's error"
        );
        m.ci95_us = None;
        m.time_min_us = Some(0.0);
        assert_eq!(m.noise_ln(), None, "a zero minimum says nothing");
    }

    pub fn config(procs: u32, msg_bytes: u64) -> Config {
        Config {
            procs,
            nodes: 1,
            ppn: procs,
            mapping: Mapping::Core,
            msg_bytes,
            imbalance: 0.0,
            arrival: Arrival::Barrier,
        }
    }

    pub fn row(procs: u32, msg: u64, algorithm: Algorithm, time_us: f64) -> Measurement {
        Measurement {
            config: config(procs, msg),
            candidate: Candidate {
                algorithm,
                ..Candidate::DEFAULT
            },
            time_us,
            time_min_us: None,
            time_max_us: None,
            ci95_us: None,
            reps: Some(10),
            rows: 1,
        }
    }

    #[test]
    fn duplicates_combine_by_median_and_are_counted() {
        let rows = vec![
            row(4, 8, Algorithm::Linear, 5.0),
            row(4, 8, Algorithm::Linear, 1.0),
            row(4, 8, Algorithm::Linear, 3.0),
            row(4, 8, Algorithm::Linear, 100.0),
            row(4, 8, Algorithm::Default, 2.0),
            row(2, 8, Algorithm::Default, 7.0),
        ];
        let d = Dataset::from_rows(rows, Provenance::default());
        assert_eq!(d.rows, 6);
        assert_eq!(d.measurements().len(), 3);
        assert_eq!(d.duplicate_rows(), 3);
        let linear = d
            .measurements()
            .iter()
            .find(|m| m.candidate.algorithm == Algorithm::Linear)
            .unwrap();
        assert_eq!(linear.time_us, 4.0);
        assert_eq!(linear.rows, 4);
        assert_eq!(linear.reps, Some(40));
        let groups: Vec<usize> = d.by_config().map(|g| g.len()).collect();
        assert_eq!(groups, [1, 2]);
    }

    #[test]
    fn thinning_keeps_every_job_its_ends_and_whole_configurations() {
        let mut rows = Vec::new();
        for procs in [2, 4, 8, 16] {
            for e in 0..20 {
                for algorithm in [Algorithm::Default, Algorithm::Linear, Algorithm::Chain] {
                    rows.push(row(procs, 1 << e, algorithm, 1.0 + f64::from(e)));
                }
            }
        }
        let d = Dataset::from_rows(rows, Provenance::default());
        assert_eq!(
            d.thinned(1_000).measurements().len(),
            240,
            "small enough: all"
        );
        let t = d.thinned(60);
        assert_eq!(t.measurements().len(), 60);
        assert_eq!(t.procs_values(), [2, 4, 8, 16]);
        assert!(t.by_config().all(|g| g.len() == 3), "configurations whole");
        for procs in [2, 4, 8, 16] {
            let sizes: Vec<u64> = t
                .configs()
                .filter(|c| c.procs == procs)
                .map(|c| c.msg_bytes)
                .collect();
            // 5 of 20 sizes, evenly: the first, the last, about every 4.75th.
            assert_eq!(sizes, [1, 1 << 5, 1 << 10, 1 << 14, 1 << 19]);
        }
        // Fewer rows than jobs allow: one configuration per job, the sizes
        // differing from job to job.
        let t = d.thinned(6);
        assert_eq!(t.measurements().len(), 12);
        let sizes: BTreeSet<u64> = t.configs().map(|c| c.msg_bytes).collect();
        assert_eq!(sizes.len(), 4);
    }

    #[test]
    fn negative_zero_imbalance_is_zero() {
        let a = row(4, 8, Algorithm::Linear, 1.0);
        let mut b = a.clone();
        b.config.imbalance = -0.0;
        assert_eq!(a.config, b.config);
        let d = Dataset::from_rows(vec![a, b], Provenance::default());
        assert_eq!(d.duplicate_rows(), 1);
    }

    #[test]
    fn polars_orders_large_inputs_as_rows_compare() {
        // Every key field varies, `None`s included, with many duplicates.
        let mut state = 7u64;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let algorithms = [Algorithm::Linear, Algorithm::Chain, Algorithm::Binomial];
        let rows: Vec<Measurement> = (0..12_000)
            .map(|_| {
                let mut m = row(
                    2 + next(3) as u32,
                    1 << next(4),
                    algorithms[next(3) as usize],
                    1.0 + next(50) as f64,
                );
                m.config.mapping = [Mapping::Core, Mapping::Node][next(2) as usize];
                m.candidate.segsize = [None, Some(0), Some(1024)][next(3) as usize];
                m.candidate.fanout = [None, Some(2)][next(2) as usize];
                if next(2) == 1 {
                    m.config.imbalance = 0.5;
                    m.config.arrival =
                        [Arrival::Uniform, Arrival::late(0.25).unwrap()][next(2) as usize];
                }
                m
            })
            .collect();
        let mut expected = rows.clone();
        expected.sort_by(row_order);
        let sorted = polars_order(&rows).unwrap().into_iter().map(|i| &rows[i]);
        assert!(sorted.zip(&expected).all(|(a, b)| row_order(a, b).is_eq()));
        let d = Dataset::from_rows(rows, Provenance::default());
        let ms = d.measurements();
        assert!(ms
            .windows(2)
            .all(|w| (w[0].config, w[0].candidate) < (w[1].config, w[1].candidate)));
        assert_eq!(ms.iter().map(|m| m.rows).sum::<u32>(), 12_000);
        assert!(d.duplicate_rows() > 1000, "{}", d.duplicate_rows());
    }

    #[test]
    fn configs_differing_only_in_arrival_are_distinct() {
        let mut a = row(4, 8, Algorithm::Linear, 1.0);
        let b = a.clone();
        a.config.imbalance = 2.0;
        a.config.arrival = Arrival::Uniform;
        let mut c = a.clone();
        c.config.arrival = Arrival::late(0.2).unwrap();
        let mut e = b.clone();
        e.config.arrival = Arrival::Uniform;
        let d = Dataset::from_rows(vec![a, b, c, e], Provenance::default());
        assert_eq!(d.configs().count(), 4);
        assert_eq!(d.duplicate_rows(), 0);
    }
}
