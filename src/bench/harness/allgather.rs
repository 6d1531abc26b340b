//! MPI_Allgather in the harness: each rank's block in place and, to send,
//! apart (`Buffers::out`); every block in place on every rank.

use super::{
    block, block_bytes, block_seed, check_blocks, payload, Buffers, Harness, Iteration,
    LibraryCall, Place,
};
use crate::data::Collective;
use mpi::traits::*;

pub(super) struct AllgatherHarness;

impl Harness for AllgatherHarness {
    fn result_apart(&self) -> bool {
        true
    }

    /// The other ranks' blocks cleared.
    fn fill(&self, it: Iteration, buf: &mut [u8], buffers: &mut Buffers, _place: Place<'_>) {
        let m = block_bytes(Collective::Allgather, buf, it.procs);
        buf.fill(0);
        let own = &mut buf[block(it.rank, m)];
        payload::fill(own, block_seed(it.rank, it, m));
        let send: &mut [u8] = bytemuck::cast_slice_mut(&mut buffers.out);
        send[..m].copy_from_slice(own);
    }

    fn check(&self, it: Iteration, result: &[u8]) -> Option<String> {
        check_blocks(Collective::Allgather, it, result)
    }

    fn library(&self, lib: LibraryCall<'_>) -> Result<(), String> {
        let LibraryCall {
            comm, buf, buffers, ..
        } = lib;
        let block = buf.len() / comm.size() as usize;
        let send: &[u8] = bytemuck::cast_slice(&buffers.out);
        comm.all_gather_into(&send[..block], buf);
        Ok(())
    }
}
