//! What each numeric column may hold (whole or real, its range) and the
//! message that says so.

use super::REQUIRED;
use polars::prelude::*;

/// How a numeric column's cells are checked (by polars) and worded (here).
#[derive(Clone, Copy, Debug)]
pub(super) enum Rule {
    /// A whole number in `min..=max`; integral floats such as `4.0` count.
    Whole { min: u64, max: u64 },
    /// A finite number above (or at, if `inclusive`) `min`.
    Number { min: f64, inclusive: bool },
}

const U32: u64 = u32::MAX as u64;

const I64: u64 = i64::MAX as u64;

/// The numeric columns. polars reads them as `Float64` (exact for whole
/// numbers up to 2^53, far beyond any message size or count here).
pub(super) const NUMERIC: [(&str, Rule); 12] = [
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
    pub(super) fn of(name: &str) -> Option<Rule> {
        NUMERIC.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
    }

    /// A polars expression: true where a cell of `x` breaks the rule (NaN
    /// stands for text that is no number).
    pub(super) fn broken(self, x: Expr) -> Expr {
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
    pub(super) fn expected_for(self, found: f64) -> String {
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
    pub(super) fn expected(self) -> String {
        match self {
            Rule::Whole { min, .. } => format!("a whole number >= {min}"),
            Rule::Number { min, inclusive } => {
                let op = if inclusive { ">=" } else { ">" };
                format!("a finite number {op} {min}")
            }
        }
    }
}

/// Whether a file must hold measured times (a benchmark file) or may lack
/// them (a grid of points to measure).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Times {
    Required,
    Ignored,
}

/// The columns that hold times, absent or ignored in a grid.
pub(super) const TIME_COLUMNS: [&str; 4] = ["time_us", "time_min_us", "time_max_us", "ci95_us"];

/// The columns a file of this kind must have.
pub(super) fn required(times: Times) -> &'static [&'static str] {
    match times {
        Times::Required => &REQUIRED,
        Times::Ignored => &REQUIRED[..3],
    }
}
