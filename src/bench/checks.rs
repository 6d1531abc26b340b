//! What each rank sends (filled from the point's seed) and what it must
//! have received, per collective: a wrong block is found and named.

use super::payload;
use super::runner::Buffers;
use crate::data::Collective;

/// What `rank` holds before a call: the root's payload (broadcast), its
/// contribution (reductions; a reduce-scatter's blocks where `place` puts
/// them), its block, in place and to send (allgather, gather: apart), the
/// root's blocks (scatter).
pub(super) fn fill(
    (collective, place): (Collective, &dyn Fn(u32, usize) -> std::ops::Range<usize>),
    (buf, buffers): (&mut [u8], &mut Buffers),
    seed: u64,
    (rank, procs): (u32, u32),
    root: u32,
    iteration: u64,
) {
    match collective {
        Collective::Bcast if rank == root => payload::fill(buf, seed),
        Collective::Bcast | Collective::Barrier => {}
        Collective::Reduce | Collective::Allreduce => {
            payload::fill_contribution(buf, seed, rank, 0)
        }
        Collective::ReduceScatter | Collective::ReduceScatterBlock => {
            let m = buf.len() / procs as usize;
            for block in 0..procs {
                let at = place(block, m);
                payload::fill_contribution(&mut buf[at], seed, rank, block as usize * m / 4);
            }
        }
        Collective::Allgather | Collective::Gather => {
            let m = buf.len() / collective.local_bytes(procs, 1) as usize;
            let (blocks, apart) = buf.split_at_mut(procs as usize * m);
            let own = &mut blocks[rank as usize * m..(rank as usize + 1) * m];
            payload::fill(own, payload::seed(rank, iteration, m as u64));
            // A gather's send buffer is block p; an allgather's apart.
            let send: &mut [u8] = match collective {
                Collective::Gather => apart,
                _ => bytemuck::cast_slice_mut(&mut buffers.out),
            };
            send[..m].copy_from_slice(own);
        }
        Collective::Scatter if rank == root => {
            let m = buf.len() / collective.local_bytes(procs, 1) as usize;
            for to in 0..procs {
                let block = &mut buf[to as usize * m..(to as usize + 1) * m];
                payload::fill(block, payload::seed(to, iteration, m as u64));
            }
        }
        Collective::Scatter => {}
        Collective::Alltoall => {
            let m = buf.len() / collective.local_bytes(procs, 1) as usize;
            for to in 0..procs {
                let block = &mut buf[to as usize * m..(to as usize + 1) * m];
                payload::fill(block, alltoall_seed(rank, to, procs, iteration, m));
            }
        }
    }
}

/// What is wrong with what `rank` holds after a call (`result`: where the
/// library or the schedule left it, the call's seed, root and iteration),
/// if anything: the root's payload on every other rank; the sum of every
/// contribution at the root (every rank for allreduce); every rank's block
/// in its place (allgather, a gather's root); its own block (scatter).
pub(super) fn check(
    collective: Collective,
    (result, seed, root, iteration): (&[u8], u64, u32, u64),
    rank: u32,
    procs: u32,
) -> Option<String> {
    let wrong_byte = |(offset, expected, found): (usize, u8, u8)| {
        format!("byte offset {offset} is 0x{found:02x}, expected 0x{expected:02x}")
    };
    let wrong_sum = |(index, expected, found): (usize, f32, f32)| {
        format!(
            "wrong reduction (root {root}): float {index} is {found}, expected {expected} \
             (the sum of {procs} contributions)"
        )
    };
    match collective {
        Collective::Bcast if rank == root => None,
        // Checked apart, with a rank entering late (`barrier_holds`).
        Collective::Barrier => None,
        Collective::Bcast => payload::first_mismatch(result, seed)
            .map(|w| format!("payload mismatch from root {root}: {}", wrong_byte(w))),
        Collective::Reduce if rank != root => None,
        Collective::Reduce | Collective::Allreduce => {
            payload::first_sum_mismatch(result, seed, procs, 0).map(wrong_sum)
        }
        // `result` is the rank's block.
        Collective::ReduceScatter | Collective::ReduceScatterBlock => {
            let first = rank as usize * result.len() / 4;
            payload::first_sum_mismatch(result, seed, procs, first).map(wrong_sum)
        }
        Collective::Scatter => {
            // The root's own block in its receive buffer (block p), each
            // other rank's where the schedule leaves it (its place, where
            // the library call receives it too).
            let m = result.len() / collective.local_bytes(procs, 1) as usize;
            let at = if rank == root { procs } else { rank } as usize * m;
            payload::first_mismatch(
                &result[at..at + m],
                payload::seed(rank, iteration, m as u64),
            )
            .map(|w| format!("its block from root {root}: {}", wrong_byte(w)))
        }
        Collective::Gather if rank != root => None,
        Collective::Allgather | Collective::Gather => {
            let m = result.len() / collective.local_bytes(procs, 1) as usize;
            (0..procs).find_map(|j| {
                let block = &result[j as usize * m..(j as usize + 1) * m];
                payload::first_mismatch(block, payload::seed(j, iteration, m as u64))
                    .map(|w| format!("the block of rank {j}: {}", wrong_byte(w)))
            })
        }
        Collective::Alltoall => {
            let m = result.len() / collective.local_bytes(procs, 1) as usize;
            let received = &result[procs as usize * m..2 * procs as usize * m];
            (0..procs).find_map(|from| {
                let block = &received[from as usize * m..(from as usize + 1) * m];
                payload::first_mismatch(block, alltoall_seed(from, rank, procs, iteration, m))
                    .map(|w| format!("the block from rank {from}: {}", wrong_byte(w)))
            })
        }
    }
}

/// The payload seed of the block `from` sends `to` in an alltoall.
fn alltoall_seed(from: u32, to: u32, procs: u32, iteration: u64, m: usize) -> u64 {
    payload::seed(from * procs + to, iteration, m as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allgather_check_names_the_block_in_the_wrong_place() {
        let (procs, m, iteration) = (3u32, 5usize, 7u64);
        let mut result = vec![0u8; procs as usize * m];
        for j in 0..procs as usize {
            let seed = payload::seed(j as u32, iteration, m as u64);
            payload::fill(&mut result[j * m..(j + 1) * m], seed);
        }
        let held = |r: &[u8]| check(Collective::Allgather, (r, 0, 0, iteration), 1, procs);
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
            let bufs = (&mut *buf, &mut buffers);
            let natural = |b: u32, m: usize| b as usize * m..(b as usize + 1) * m;
            fill(
                (Collective::Alltoall, &natural),
                bufs,
                0,
                (from, procs),
                0,
                iteration,
            );
            let slot = (procs + from) as usize * m;
            result[slot..slot + m].copy_from_slice(&buf[m..2 * m]);
        }
        let held = |r: &[u8]| check(Collective::Alltoall, (r, 0, 0, iteration), 1, procs);
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
