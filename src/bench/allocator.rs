//! The state of glibc's malloc the collectives are timed in.
//!
//! Open MPI's algorithms allocate temporary buffers on every call, and
//! glibc serves an allocation from fresh pages (mapped, then unmapped at
//! the free: page faults every call) when it is at least the *mmap
//! threshold*, from the heap otherwise, and gives the top of the heap back
//! to the system (to be faulted in again) when more than the *trim
//! threshold* is free there. A process starts at 128 KiB for both, and
//! glibc raises them (the trim threshold to twice the other) each time it
//! frees a mapped block larger than the mmap threshold, so what a call
//! meets depends on everything the process allocated before: a harness
//! that let them float timed MPI_Reduce_scatter_block's butterfly at
//! 256 KiB on 2 ranks 1.31-1.66x faster than `default` after the other
//! collectives' large buffers had come and gone, and 0.68-0.78x alone or
//! in a plain loop (`experiments/validation.md`). So both are pinned: at a fresh
//! process's values for measuring, and replicas of a validation alternate
//! them with the highest glibc ever raises them to (a long-running
//! application's), so that a switch ships only where it is faster in both
//! (MPI_Allreduce's segmented ring at 256 KiB: 2.4x faster than `default`
//! in the first, 0.96x in the second). Thresholds the user set
//! (`MALLOC_MMAP_THRESHOLD_`, `MALLOC_TRIM_THRESHOLD_`) are left alone.

/// An allocator state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Regime {
    /// A fresh process's: every block of 128 KiB or more freshly mapped.
    Fresh,
    /// A process that has freed large blocks: glibc's ceiling for its
    /// dynamic mmap threshold on 64-bit systems (32 MiB), below which every
    /// block comes from the heap, and the trim threshold it pairs with it.
    Settled,
}

impl Regime {
    /// The regime replica `r` of a validation is timed in: fresh first,
    /// then in turn.
    pub(super) fn of_replica(r: usize) -> Regime {
        match r % 2 {
            0 => Regime::Fresh,
            _ => Regime::Settled,
        }
    }

    /// The mmap and the trim threshold (bytes).
    fn thresholds(self) -> (i32, i32) {
        match self {
            Regime::Fresh => (128 * 1024, 128 * 1024),
            Regime::Settled => (32 * 1024 * 1024, 64 * 1024 * 1024),
        }
    }
}

/// Pins glibc's thresholds to `regime` for this process (and stops glibc
/// from moving them), unless the user chose either.
pub(super) fn pin(regime: Regime) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if ["MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"]
        .iter()
        .all(|v| std::env::var_os(v).is_none())
    {
        let (mmap, trim) = regime.thresholds();
        // SAFETY: mallopt only sets one of malloc's parameters, which
        // glibc guards with its own lock.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, mmap);
            libc::mallopt(libc::M_TRIM_THRESHOLD, trim);
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = regime;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicas_alternate_from_a_fresh_process() {
        let regimes: Vec<Regime> = (0..4).map(Regime::of_replica).collect();
        assert_eq!(
            regimes,
            [
                Regime::Fresh,
                Regime::Settled,
                Regime::Fresh,
                Regime::Settled
            ]
        );
        let ((fresh, _), (settled, trim)) =
            (Regime::Fresh.thresholds(), Regime::Settled.thresholds());
        assert!(fresh < settled && settled < trim);
    }
}
