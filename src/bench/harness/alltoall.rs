//! MPI_Alltoall in the harness: p blocks to send, then p received, each
//! block's payload named by its sender and receiver.

use super::{
    block, block_bytes, payload, wrong_byte, Buffers, Harness, Iteration, LibraryCall, Place,
};
use crate::data::Collective;
use mpi::traits::*;

pub(super) struct AlltoallHarness;

impl Harness for AlltoallHarness {
    /// The blocks to send, the p blocks received cleared.
    fn fill(&self, it: Iteration, buf: &mut [u8], _buffers: &mut Buffers, _place: Place<'_>) {
        let m = block_bytes(Collective::Alltoall, buf, it.procs);
        for to in 0..it.procs {
            payload::fill(&mut buf[block(to, m)], seed(it.rank, to, it, m));
        }
        let p = it.procs as usize;
        buf[p * m..2 * p * m].fill(0);
    }

    fn check(&self, it: Iteration, result: &[u8]) -> Option<String> {
        let (procs, m) = (
            it.procs,
            block_bytes(Collective::Alltoall, result, it.procs),
        );
        let received = &result[procs as usize * m..2 * procs as usize * m];
        (0..procs).find_map(|from| {
            payload::first_mismatch(&received[block(from, m)], seed(from, it.rank, it, m))
                .map(|w| format!("the block from rank {from}: {}", wrong_byte(w)))
        })
    }

    fn library(&self, lib: LibraryCall<'_>) -> Result<(), String> {
        let LibraryCall { comm, buf, .. } = lib;
        let procs = comm.size() as u32;
        let region = procs as usize * block_bytes(Collective::Alltoall, buf, procs);
        let (send, recv) = buf.split_at_mut(region);
        comm.all_to_all_into(&*send, &mut recv[..region]);
        Ok(())
    }
}

/// The payload seed of the block `from` sends `to`.
fn seed(from: u32, to: u32, it: Iteration, m: usize) -> u64 {
    payload::seed(from * it.procs + to, it.iteration, m as u64)
}
