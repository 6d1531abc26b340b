//! collsel: choose the fastest algorithm, segment size and fan-out of
//! each MPI collective it knows (`collective`) per message size for a job,
//! from measurements on the job's machine.
//!
//! The modules follow the pipeline, each a folder, in the order they build
//! on each other: each imports only modules listed above it (doc links
//! aside; `tests/layering.rs` checks it).

pub mod error;
pub mod units;
/// The collectives, one description each, and their algorithms.
pub mod collective;
/// The benchmark dataset: CSV in and out, summaries, scores.
pub mod data;
/// Open MPI's fixed decisions: what coll/tuned runs when nothing else
/// decides (`default`, and the phases of allreduce's nonoverlapping).
pub mod ompi_fixed;
/// Every algorithm as per-rank point-to-point operations.
pub mod schedule;
/// Executing schedules under a cost model.
pub mod sim;
/// What MPI libraries run: `default`'s schedule, checked against the data.
pub mod library;
/// The measurement harness (its MPI part with the `mpi` feature).
pub mod bench;
/// The analytical cost model of the platform and algorithms.
pub mod analytical;
/// Per-candidate regressors, their features and targets.
pub mod learn;
/// Ranking the candidates of a configuration, and decision tables.
pub mod select;
/// Training and cross-validation; the model directory.
pub mod train;
/// Every selector on held-out data.
pub mod evaluate;
/// What to measure next.
pub mod plan;
/// Decision tables as files for people and MPI libraries.
pub mod export;
/// Reports of evaluations, model fits and schedules.
pub mod report;
/// Whether the rules files of a job are in effect, and their effect there.
pub mod verify;
/// Tuning an allocation in one job: measure, plan, train, write rules.
#[cfg(feature = "mpi")]
pub mod tune;
/// The command line.
pub mod cli;
pub mod commands;

pub use error::{Error, InputError, Result};
