//! How the harness fills, runs through the library and checks each
//! collective's buffers: one implementation per collective in its own
//! file, one dispatch ([`of`]).
//!
//! A rank's memory is the buffer of the schedule's messages (the message,
//! or p blocks, an alltoall's blocks to send then the blocks received; a
//! gather's and scatter's own block apart after them:
//! `Collective::local_bytes`) and [`Buffers`]'s result apart.

mod allgather;
mod alltoall;
mod barrier;
mod bcast;
mod gather;
mod reduce;
mod reduce_scatter;
mod scatter;

use super::payload;
use super::runner::Buffers;
use crate::data::Collective;
use mpi::topology::SimpleCommunicator;
use std::ops::Range;

/// One iteration of the timing loop as every rank knows it: what its
/// payloads are derived from.
#[derive(Clone, Copy, Debug)]
pub(super) struct Iteration {
    pub seed: u64,
    pub rank: u32,
    pub procs: u32,
    pub root: u32,
    pub iteration: u64,
}

/// Where a reduce-scatter's block `b` of `m` bytes lies in the rank's
/// memory (the schedule's place for it, or block order).
pub(super) type Place<'a> = &'a dyn Fn(u32, usize) -> Range<usize>;

/// The library's collective to it: on `comm` from `root`, in `buf` (and
/// `buffers`).
pub(super) struct LibraryCall<'a> {
    pub comm: &'a SimpleCommunicator,
    pub root: u32,
    pub buf: &'a mut [u8],
    pub buffers: &'a mut Buffers,
}

/// What the harness does differently for each collective.
pub(super) trait Harness: Sync {
    /// Whether the library it writes its result apart (a reduction's)
    /// or sends from memory apart (an allgather's block): `Buffers::out`.
    fn result_apart(&self) -> bool {
        false
    }

    /// Writes what `it.rank` holds before the call: what it sends, and
    /// zeros wherever the call leaves a result on it. An application writes
    /// both before each call, and the memory's state is part of the time:
    /// MPI_Allreduce's ring took 10-13% less at 16 KiB on 2 ranks when its
    /// receive buffer had just been written (experiments/validation.md,
    /// "the harness and the application").
    fn fill(&self, it: Iteration, buf: &mut [u8], buffers: &mut Buffers, place: Place<'_>);

    /// What is wrong with what `it.rank` holds after the it (`result`:
    /// where the library or the schedule left it), if anything.
    fn check(&self, it: Iteration, result: &[u8]) -> Option<String>;

    /// The library's collective on the it's memory.
    fn library(&self, lib: LibraryCall<'_>) -> Result<(), String>;

    /// Where the library's result is after [`Harness::library`].
    fn library_result<'a>(&self, buf: &'a [u8], _buffers: &'a Buffers, _procs: usize) -> &'a [u8] {
        buf
    }
}

/// The one place that maps a collective to its harness part.
pub(super) fn of(collective: Collective) -> &'static dyn Harness {
    match collective {
        Collective::Bcast => &bcast::BcastHarness,
        Collective::Reduce => &reduce::ReductionHarness { everywhere: false },
        Collective::Allreduce => &reduce::ReductionHarness { everywhere: true },
        Collective::Allgather => &allgather::AllgatherHarness,
        Collective::Alltoall => &alltoall::AlltoallHarness,
        Collective::Gather => &gather::GatherHarness,
        Collective::Scatter => &scatter::ScatterHarness,
        Collective::ReduceScatter => &reduce_scatter::ReduceScatterHarness { block: false },
        Collective::ReduceScatterBlock => &reduce_scatter::ReduceScatterHarness { block: true },
        Collective::Barrier => &barrier::BarrierHarness,
    }
}

/// A byte that differs from the payload's, for people.
fn wrong_byte((offset, expected, found): (usize, u8, u8)) -> String {
    format!("byte offset {offset} is 0x{found:02x}, expected 0x{expected:02x}")
}

/// A float that is not the sum of every contribution, for people.
fn wrong_sum(it: Iteration, (index, expected, found): (usize, f32, f32)) -> String {
    format!(
        "wrong reduction (root {}): float {index} is {found}, expected {expected} \
         (the sum of {} contributions)",
        it.root, it.procs
    )
}

/// The bytes of one block of `collective`'s memory `buf` on `procs` ranks.
fn block_bytes(collective: Collective, buf: &[u8], procs: u32) -> usize {
    buf.len() / collective.local_bytes(procs, 1) as usize
}

/// Block `i` of `m` bytes.
fn block(i: u32, m: usize) -> Range<usize> {
    i as usize * m..(i as usize + 1) * m
}

/// The payload seed of rank `rank`'s own block (allgather, gather,
/// scatter).
fn block_seed(rank: u32, it: Iteration, m: usize) -> u64 {
    payload::seed(rank, it.iteration, m as u64)
}

/// Checks every rank's block of `collective`'s memory in place: the first
/// wrong one, named.
fn check_blocks(collective: Collective, it: Iteration, result: &[u8]) -> Option<String> {
    let m = block_bytes(collective, result, it.procs);
    (0..it.procs).find_map(|j| {
        payload::first_mismatch(&result[block(j, m)], block_seed(j, it, m))
            .map(|w| format!("the block of rank {j}: {}", wrong_byte(w)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iteration_of(rank: u32, procs: u32, iteration: u64) -> Iteration {
        Iteration {
            seed: 0,
            rank,
            procs,
            root: 0,
            iteration,
        }
    }

    /// Before the call, wherever a rank checks a result (the library's
    /// place for it, or in place) there are zeros, not what a previous
    /// call or the payload left: a call that writes nothing is caught.
    #[test]
    fn fill_clears_every_result_the_call_must_write() {
        let (procs, m) = (3u32, 8u64);
        for collective in Collective::ALL {
            if collective == Collective::Barrier {
                continue;
            }
            let part = of(collective);
            let (mut store, mut buffers) = Buffers::new(collective, m, procs);
            let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut store);
            let local = collective.local_bytes(procs, m) as usize;
            let buf = &mut buf[..local];
            let natural = |b: u32, m: usize| block(b, m);
            for (root, rank) in [(0, 0), (0, 1), (1, 1), (1, 2)] {
                let it = Iteration {
                    seed: payload::seed(root, 5, m),
                    rank,
                    procs,
                    root,
                    iteration: 5,
                };
                // What the previous call left: every byte set.
                buf.fill(0xa5);
                buffers.out.fill(f32::from_bits(0xa5a5_a5a5));
                part.fill(it, buf, &mut buffers, &natural);
                // Where the library's call leaves its result.
                let result = part.library_result(buf, &buffers, procs as usize);
                // Ranks that check nothing: bcast's root, a reduce's or a
                // gather's other ranks.
                let checks = !matches!(
                    (collective, rank == root),
                    (Collective::Bcast, true)
                        | (Collective::Reduce, false)
                        | (Collective::Gather, false)
                );
                let wrong = part.check(it, result);
                let what = format!("{collective} rank {rank} root {root}: {wrong:?}");
                assert_eq!(wrong.is_some(), checks, "{what}");
                // The first wrong byte (float) is a cleared one, not the
                // previous call's.
                if let Some(wrong) = wrong {
                    assert!(
                        wrong.contains(" is 0x00, ") || wrong.contains(" is 0, "),
                        "{what}"
                    );
                }
            }
        }
    }

    #[test]
    fn allgather_check_names_the_block_in_the_wrong_place() {
        let (procs, m, iteration) = (3u32, 5usize, 7u64);
        let mut result = vec![0u8; procs as usize * m];
        for j in 0..procs as usize {
            let seed = payload::seed(j as u32, iteration, m as u64);
            payload::fill(&mut result[j * m..(j + 1) * m], seed);
        }
        let held = |r: &[u8]| of(Collective::Allgather).check(iteration_of(1, procs, iteration), r);
        assert_eq!(held(&result), None);
        // Blocks 1 and 2 swapped: each is right, but not where it belongs.
        let mut swapped = result.clone();
        swapped[m..].rotate_left(m);
        let wrong = held(&swapped).expect("a block out of place");
        assert!(
            wrong.starts_with("the block of rank 1: byte offset"),
            "{wrong}"
        );
        // One byte of the last block changed.
        result[3 * m - 1] ^= 1;
        let wrong = held(&result).expect("a changed byte");
        assert!(
            wrong.starts_with("the block of rank 2: byte offset 4"),
            "{wrong}"
        );
    }

    #[test]
    fn alltoall_fill_and_check_agree_and_catch_a_misplaced_block() {
        let (procs, m, iteration) = (3u32, 4usize, 2u64);
        let (mut store, mut buffers) = Buffers::new(Collective::Alltoall, m as u64, procs);
        let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut store);
        let local = Collective::Alltoall.local_bytes(procs, m as u64) as usize;
        let buf = &mut buf[..local];
        // Each rank's block to rank 1, delivered by hand into rank 1's
        // receive slots.
        let mut result = vec![0u8; local];
        for from in 0..procs {
            let natural = |b: u32, m: usize| block(b, m);
            of(Collective::Alltoall).fill(
                iteration_of(from, procs, iteration),
                buf,
                &mut buffers,
                &natural,
            );
            let slot = (procs + from) as usize * m;
            result[slot..slot + m].copy_from_slice(&buf[m..2 * m]);
        }
        let held = |r: &[u8]| of(Collective::Alltoall).check(iteration_of(1, procs, iteration), r);
        assert_eq!(held(&result), None);
        // The blocks from rank 0 and from rank 2 swapped.
        let (first, last) = (procs as usize * m, (procs as usize + 2) * m);
        let mut swapped = result.clone();
        swapped[first..first + m].copy_from_slice(&result[last..last + m]);
        swapped[last..last + m].copy_from_slice(&result[first..first + m]);
        let wrong = held(&swapped).expect("blocks out of place");
        assert!(wrong.starts_with("the block from rank 0"), "{wrong}");
    }
}
