//! bcast-select: choose the fastest MPI_Bcast algorithm, segment size and
//! fan-out per message size for a job, from benchmark measurements.
//!
//! Pipeline: [`data`] (benchmark CSV → `Dataset`) → schedules → models →
//! learners → selection → reports. Each stage only depends on earlier ones.

pub mod analytical;
pub mod bench;
pub mod cli;
pub mod commands;
pub mod cv;
pub mod data;
pub mod error;
pub mod units;

pub use error::{Error, InputError, Result};
pub mod decision;
pub mod evaluate;
pub mod export;
pub mod features;
pub mod hybrid;
pub mod learn;
pub mod library;
pub mod metrics;
pub mod model_dir;
pub mod ompi_fixed;
pub mod report;
pub mod schedule;
pub mod select;
pub mod sim;
pub mod train;
