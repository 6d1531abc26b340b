//! The machine's state, read before timing.
//!
//! A machine's small-message latency has states that last seconds and
//! turn winners: on 2 bound ranks of the 2-core VM a 1-byte ping-pong
//! takes 0.14 µs in its usual state and 0.39 µs in the other, split-binary
//! MPI_Bcast of 4 KiB 0.9 µs against 3.3-3.8, and MPI_Allreduce of 256 KiB
//! by nonoverlapping beats `default` 1.13-1.26x in the second and loses
//! 0.85-0.94x in the first (`experiments/validation.md`). The probe is the
//! median of a few barriers: every library and communicator has one, and
//! the median of 50 reads the state, not a single late rank.

use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Duration;

/// A probe more than this many times the quietest one of its communicator
/// was taken while the machine was disturbed (the VM's two states are 2x
/// apart with nothing between: barrier medians of 0.18-0.24 µs against
/// 0.40-0.50).
pub const DISTURBED: f64 = 1.5;

/// Barriers a probe times.
const PROBE_BARRIERS: usize = 50;

/// The machine's state now: the median time of a few barriers on `comm`
/// (µs; the slowest rank's, so every rank has the same). Collective.
pub fn probe(comm: &SimpleCommunicator) -> f64 {
    comm.barrier();
    let mut times: Vec<f64> = (0..PROBE_BARRIERS)
        .map(|_| {
            let t0 = mpi::time();
            comm.barrier();
            mpi::time() - t0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let mut slowest = 0.0;
    comm.all_reduce_into(
        &(times[PROBE_BARRIERS / 2] * 1e6),
        &mut slowest,
        SystemOperation::max(),
    );
    slowest
}

/// Waiting out the disturbed state before a measurement, within a share
/// of the time: a point measured while disturbed is a point the models
/// rank by the wrong state (the 4 KiB broadcast's 3x winner explored at
/// 3.5 µs, slower than `default`, was never validated).
pub struct Quiet {
    /// The quietest probe so far (µs).
    lowest: f64,
    /// Probes taken waiting so far.
    waits: u32,
}

/// Between two probes while waiting.
const WAIT: Duration = Duration::from_millis(20);

/// Waiting at most this share of the time measured so far (and one
/// second besides), and one second for any one point: the disturbed state
/// lasts seconds, and a machine that stays disturbed is measured as it is.
const WAIT_SHARE: f64 = 0.1;

impl Default for Quiet {
    fn default() -> Self {
        Quiet {
            lowest: f64::INFINITY,
            waits: 0,
        }
    }
}

impl Quiet {
    /// The quietest probe so far (µs; infinite before the first).
    pub fn lowest(&self) -> f64 {
        self.lowest
    }

    /// Whether a probe of `probe` µs was taken while disturbed.
    pub fn disturbed(&self, probe: f64) -> bool {
        probe > DISTURBED * self.lowest
    }

    /// Probes `comm`, and while the machine is disturbed waits and probes
    /// again, as long as the waiting stays within [`WAIT_SHARE`] of
    /// `elapsed` seconds. Every rank decides the same (the probe is the
    /// slowest rank's, the waits are counted). Collective.
    pub fn settle(&mut self, comm: &SimpleCommunicator, elapsed: f64) {
        let mut here = 0;
        while self.wait_after(probe(comm), here, elapsed) {
            std::thread::sleep(WAIT);
            here += 1;
        }
    }

    /// Whether to wait once more after a probe of `probe` µs, `here` waits
    /// into this point, `elapsed` seconds into the measuring (and counts
    /// the wait).
    fn wait_after(&mut self, probe: f64, here: u32, elapsed: f64) -> bool {
        let per_wait = WAIT.as_secs_f64();
        let allowed = ((WAIT_SHARE * elapsed + 1.0) / per_wait) as u32;
        let per_point = (1.0 / per_wait) as u32;
        let disturbed = self.disturbed(probe);
        self.lowest = self.lowest.min(probe);
        let wait = disturbed && self.waits < allowed && here < per_point;
        self.waits += u32::from(wait);
        wait
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disturbed_is_relative_to_the_quietest_probe() {
        let q = Quiet {
            lowest: 0.2,
            waits: 0,
        };
        assert!(!q.disturbed(0.25));
        assert!(q.disturbed(0.45));
        // Before any probe nothing is disturbed.
        assert!(!Quiet::default().disturbed(1e9));
    }

    #[test]
    fn waits_out_the_disturbed_state_within_its_share() {
        let mut q = Quiet::default();
        assert!(!q.wait_after(0.2, 0, 0.0), "the first probe sets the level");
        assert!(!q.wait_after(0.25, 0, 0.0), "quiet");
        assert!(q.wait_after(0.45, 0, 0.0), "disturbed: wait");
        // At most a second for one point.
        assert!(!q.wait_after(0.45, 50, 100.0));
        // At most a tenth of the time measured, and a second besides:
        // 50 waits of 20 ms fit in the first second.
        let mut q = Quiet::default();
        q.wait_after(0.2, 0, 0.0);
        let waited = (0..200)
            .filter(|&i| q.wait_after(0.45, i % 10, 0.0))
            .count();
        assert_eq!(waited, 50);
        assert!(
            q.wait_after(0.45, 0, 10.0),
            "more time measured, more waiting"
        );
        assert!(!q.wait_after(0.19, 0, 10.0), "a quieter probe ends it");
    }
}
