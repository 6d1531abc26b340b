//! bcast-select: choose the fastest MPI_Bcast algorithm, segment size and
//! fan-out per message size for a job, from benchmark measurements.
//!
//! Modules in the order they build on each other: each imports only modules
//! listed above it (doc links aside).

pub mod error;
pub mod units;
/// The benchmark dataset (CSV in, summaries out).
pub mod data;
/// What the learners see of a configuration.
pub mod features;
/// Scores of predictions and picks against measurements.
pub mod metrics;
/// Open MPI's fixed decision table.
pub mod ompi_fixed;
/// Every algorithm as per-rank point-to-point operations.
pub mod schedule;
/// The measurement harness (its MPI part with the `mpi` feature).
pub mod bench;
/// Per-candidate regressors.
pub mod learn;
/// What `default` runs, by MPI library and version.
pub mod library;
/// Executing schedules under a cost model.
pub mod sim;
/// What a dataset holds and how much a selector could gain on it.
pub mod summary;
/// The analytical cost model of the platform and algorithms.
pub mod analytical;
/// The learners' view with the analytical model's prediction added.
pub mod hybrid;
/// Ranking the candidates of a configuration, and when to keep `default`.
pub mod select;
/// What the training data measured: `auto`'s decision where it did.
pub mod measured;
/// Decision tables for jobs.
pub mod decision;
/// Training sets and fitting.
pub mod train;
/// Cross-validation: policies and `auto`.
pub mod cv;
/// Decision tables as files for people and MPI libraries.
pub mod export;
/// What to measure next.
pub mod plan;
/// Every selector on held-out data.
pub mod evaluate;
/// The model directory `train` writes and `predict` reads.
pub mod model_dir;
/// Evaluation reports.
pub mod report;
/// The command line.
pub mod cli;
pub mod commands;

pub use error::{Error, InputError, Result};
