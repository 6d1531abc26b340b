//! Executes a [`Schedule`] under a per-channel cost model: proves delivery
//! (data that only moves — a broadcast, gather, scatter, allgather,
//! alltoall: every rank ends with every byte it needs exactly once, nobody
//! forwards bytes it does not hold; a barrier: no rank leaves before every
//! rank entered; a reduction: the root (allreduce: every rank) ends with
//! every rank's contribution combined once in every byte, see
//! [`partials`]; for all, no unmatched message, no deadlock), returns per-rank completion
//! times, and exposes the stage structure the analytical models use.
//!
//! Timing model (LogGP-like, per channel: shared memory within a node,
//! network across nodes): a message of b bytes keeps its sender busy for
//! `send_us + send_us_per_byte·b` — a rank's messages leave one after
//! another — and then needs `wire_us + (wire_us_per_byte + far_us_per_byte·d)·b`
//! more to arrive, overlapping with whatever else is in flight; d is how
//! many doublings apart the two ranks sit ([`Placement::doublings_apart`]),
//! as copies between distant cores cost more. Posting costs nothing. A
//! send completes when its message arrives, whether or not the receive was
//! posted; a receive completes at max(arrival, posting). Ranks interact only
//! through messages, so each rank runs until it waits for a message that has
//! not been sent yet; no global event queue is needed.
//!
//! Times are generic ([`Time`]): plain `f64` microseconds, or a symbolic time
//! that also carries how many of each cost parameter it sums (the analytical
//! models fit those parameters along the critical path).

pub mod campaign;
mod cost;
mod engine;
mod error;
pub mod partials;
mod programs;
mod stages;

use crate::data::Placement;
pub use stages::{stage_structure, Nbft, Stage, StageStructure};

pub use cost::{Cost, CostModel, Link, Time};
use engine::Simulator;
pub use error::SimError;
pub use programs::{Programs, Reduction};

/// Sends posted together by one rank before it waits: a flat-tree fan-out.
#[derive(Clone, Debug, PartialEq)]
pub struct SendGroup {
    pub sender: u32,
    pub posted_us: f64,
    pub receivers: Vec<u32>,
    pub bytes: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Outcome<T = f64> {
    /// Time each rank finished its last operation.
    pub completion_us: Vec<T>,
    /// Filled only when asked for (it can be large).
    pub groups: Vec<SendGroup>,
}

impl<T: Time> Outcome<T> {
    /// The collective's time: the last rank to finish.
    pub fn makespan(&self) -> T {
        self.completion_us
            .iter()
            .fold(T::zero(), |a, &b| a.later(b))
    }

    pub fn makespan_us(&self) -> f64 {
        self.makespan().value()
    }

    /// The mean over ranks of each one's completion time (what OSU's
    /// "average latency" reports).
    pub fn mean_completion(&self) -> T {
        let sum = self.completion_us.iter().fold(T::zero(), |a, &b| a.plus(b));
        sum.scale(1.0 / self.completion_us.len().max(1) as f64)
    }
}

/// Simulates and verifies; see the module docs for the timing model.
pub fn simulate<C: Cost>(
    schedule: &dyn Programs,
    placement: &Placement,
    cost: &C,
) -> Result<Outcome<C::Time>, SimError> {
    Simulator::new(schedule, placement, cost, false, true).run()
}

/// Like [`simulate`] for pricing: the same times, but a reduction's
/// contents are not followed (the proofs are the tests' and `schedule
/// show`'s). Following them costs most of a ring allreduce's simulation,
/// whose p blocks each hold a different set of ranks; a broadcast's byte
/// bookkeeping is cheap and stays.
pub fn simulate_timing<C: Cost>(
    schedule: &dyn Programs,
    placement: &Placement,
    cost: &C,
) -> Result<Outcome<C::Time>, SimError> {
    Simulator::new(schedule, placement, cost, false, false).run()
}

/// Like [`simulate`], also recording every send group.
pub fn simulate_recording<C: Cost>(
    schedule: &dyn Programs,
    placement: &Placement,
    cost: &C,
) -> Result<Outcome<C::Time>, SimError> {
    Simulator::new(schedule, placement, cost, true, true).run()
}

#[cfg(test)]
mod tests;
