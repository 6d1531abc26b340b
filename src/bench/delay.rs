//! Injected arrival delays (`bench --imbalance`), as in Patarasuk & Yuan's
//! benchmark: after the barrier each rank waits a delay drawn from the
//! arrival pattern, in units of X·T(m) where T(m) is the measured
//! point-to-point time of the message. Draws depend only on (seed, rank,
//! iteration, message size, X), so every candidate of a point meets the same
//! sequence of arrival patterns and a rerun reproduces them.

use super::exec::DATA_TAG;
use super::payload::splitmix64;
use crate::data::Arrival;
use mpi::collective::Root as _;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Duration;

/// The delays of one point.
#[derive(Clone, Copy, Debug)]
pub struct Delays {
    pub arrival: Arrival,
    /// X·T(m), µs.
    pub unit_us: f64,
    key: u64,
}

impl Delays {
    pub fn new(
        arrival: Arrival,
        unit_us: f64,
        seed: u64,
        msg_bytes: u64,
        imbalance: f64,
    ) -> Delays {
        Delays {
            arrival,
            unit_us,
            key: splitmix64(splitmix64(seed) ^ msg_bytes) ^ imbalance.to_bits(),
        }
    }

    /// `rank`'s delay in `iteration`, µs.
    pub fn of(&self, rank: u32, root: u32, iteration: u64) -> f64 {
        let bits = splitmix64(splitmix64(self.key ^ u64::from(rank)) ^ iteration);
        // 53 random bits → uniform [0, 1).
        let u = (bits >> 11) as f64 / (1u64 << 53) as f64;
        self.arrival.delay_units(rank, root, u) * self.unit_us
    }
}

/// Busy until MPI time `deadline` (seconds): sleeps most of the way, which
/// leaves the core to the other ranks when they outnumber the cores, and
/// spins the last stretch for precision.
pub fn wait_until(deadline: f64) {
    const SPIN: f64 = 200e-6;
    let left = deadline - mpi::time();
    if left > SPIN {
        std::thread::sleep(Duration::from_secs_f64(left - SPIN));
    }
    while mpi::time() < deadline {
        std::hint::spin_loop();
    }
}

/// T(m): the median one-way time of `buf.len()` bytes between ranks `a` and
/// `b` over a few ping-pongs, µs, known to every rank afterwards.
/// Collective.
pub fn p2p_time_us(comm: &SimpleCommunicator, a: u32, b: u32, buf: &mut [u8]) -> f64 {
    const REPS: usize = 11;
    if a == b {
        return 0.0;
    }
    let rank = comm.rank() as u32;
    let mut times = Vec::with_capacity(REPS);
    comm.barrier();
    for _ in 0..REPS {
        let t0 = mpi::time();
        if rank == a {
            comm.process_at_rank(b as i32)
                .send_with_tag(&buf[..], DATA_TAG);
            comm.process_at_rank(b as i32)
                .receive_into_with_tag(buf, DATA_TAG);
        } else if rank == b {
            comm.process_at_rank(a as i32)
                .receive_into_with_tag(buf, DATA_TAG);
            comm.process_at_rank(a as i32)
                .send_with_tag(&buf[..], DATA_TAG);
        }
        times.push((mpi::time() - t0) * 1e6 / 2.0);
    }
    times.sort_by(f64::total_cmp);
    let mut t = times[REPS / 2];
    comm.process_at_rank(a as i32).broadcast_into(&mut t);
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_reproducible_and_follow_the_pattern() {
        let uniform = Delays::new(Arrival::Uniform, 10.0, 1, 1 << 20, 4.0);
        let draws: Vec<f64> = (0..4000).map(|i| uniform.of(3, 0, i)).collect();
        assert!(draws.iter().all(|&d| (0.0..10.0).contains(&d)));
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        assert!((mean - 5.0).abs() < 0.3, "mean {mean}");
        assert_eq!(uniform.of(3, 0, 17), draws[17], "same key, same draw");
        assert_ne!(uniform.of(4, 0, 17), draws[17], "ranks draw apart");
        let other_seed = Delays::new(Arrival::Uniform, 10.0, 2, 1 << 20, 4.0);
        assert_ne!(other_seed.of(3, 0, 17), draws[17]);

        let late = Delays::new(Arrival::late(0.2).unwrap(), 10.0, 1, 1 << 20, 4.0);
        let n_late = (0..5000).filter(|&i| late.of(5, 0, i) > 0.0).count();
        assert!((900..1100).contains(&n_late), "{n_late} of 5000 late");
        assert!((0..100).all(|i| late.of(5, 0, i) == 0.0 || late.of(5, 0, i) == 10.0));
        assert!(
            (0..100).all(|i| late.of(0, 0, i) == 0.0),
            "the root is on time"
        );
    }
}
