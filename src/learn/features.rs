//! What the learners see of a configuration: a fixed, named feature vector.
//! The target is ln(time_us). Extra columns (the analytical models'
//! predictions, for the hybrid learners) are appended after these.

use crate::data::{Config, Mapping};

/// Names of the base features, in column order. Stored in model files: a
/// model trained on another feature set is refused.
pub const BASE: [&str; 10] = [
    "log2_msg_bytes",
    "procs",
    "log2_procs",
    "nodes",
    "ppn",
    "mapping_socket",
    "mapping_node",
    "imbalance",
    "late_fraction",
    "per_rank_time",
];

/// Column indices, for learners that treat some features specially.
pub const LOG2_MSG: usize = 0;
pub const PROCS: usize = 1;
pub const LOG2_PROCS: usize = 2;
pub const NODES: usize = 3;

/// The base feature vector of a configuration.
pub fn base(c: &Config) -> [f64; 10] {
    [
        (c.msg_bytes as f64 + 1.0).log2(),
        f64::from(c.procs),
        f64::from(c.procs).log2(),
        f64::from(c.nodes),
        f64::from(c.ppn),
        f64::from(u8::from(c.mapping == Mapping::Socket)),
        f64::from(u8::from(c.mapping == Mapping::Node)),
        c.imbalance,
        c.arrival.late_fraction(),
        // Which time was recorded (slowest rank, or mean per-rank time).
        f64::from(u8::from(c.arrival.per_rank_time())),
    ]
}

/// Rows of features (row-major) with their targets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Samples {
    pub width: usize,
    pub x: Vec<f64>,
    /// ln(time_us).
    pub y: Vec<f64>,
}

impl Samples {
    pub fn new(width: usize) -> Samples {
        Samples {
            width,
            x: Vec::new(),
            y: Vec::new(),
        }
    }

    pub fn push(&mut self, row: &[f64], y: f64) {
        debug_assert_eq!(row.len(), self.width);
        self.x.extend_from_slice(row);
        self.y.push(y);
    }

    pub fn len(&self) -> usize {
        self.y.len()
    }

    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }

    pub fn row(&self, i: usize) -> &[f64] {
        &self.x[i * self.width..(i + 1) * self.width]
    }

    /// The values of one column.
    pub fn column(&self, j: usize) -> impl Iterator<Item = f64> + '_ {
        (0..self.len()).map(move |i| self.x[i * self.width + j])
    }

    /// Column-major copy, as some libraries want it.
    pub fn column_major(&self) -> Vec<f64> {
        (0..self.width).flat_map(|j| self.column(j)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Arrival;

    #[test]
    fn features_of_a_config() {
        let c = Config {
            procs: 48,
            nodes: 2,
            ppn: 24,
            mapping: Mapping::Node,
            msg_bytes: 1023,
            imbalance: 4.0,
            arrival: Arrival::late(0.2).unwrap(),
        };
        let f = base(&c);
        assert_eq!(f[LOG2_MSG], 10.0);
        assert_eq!(f[PROCS], 48.0);
        assert!((f[LOG2_PROCS] - 48f64.log2()).abs() < 1e-12);
        assert_eq!(&f[3..], &[2.0, 24.0, 0.0, 1.0, 4.0, 0.2, 1.0]);
    }

    #[test]
    fn samples_store_rows_and_columns() {
        let mut s = Samples::new(2);
        s.push(&[1.0, 2.0], 0.5);
        s.push(&[3.0, 4.0], 0.7);
        assert_eq!(s.row(1), &[3.0, 4.0]);
        assert_eq!(s.column(1).collect::<Vec<_>>(), [2.0, 4.0]);
        assert_eq!(s.column_major(), [1.0, 3.0, 2.0, 4.0]);
    }
}
