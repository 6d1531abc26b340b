//! MPI_Gather in the harness: each rank's block in place and in its send
//! buffer apart (block p); every block in place at the root.

use super::{
    block, block_bytes, block_seed, check_blocks, payload, Buffers, Harness, Iteration, Place,
};
use crate::data::Collective;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

pub(super) struct GatherHarness;

impl Harness for GatherHarness {
    fn fill(&self, call: Iteration, buf: &mut [u8], _buffers: &mut Buffers, _place: Place<'_>) {
        let m = block_bytes(Collective::Gather, buf, call.procs);
        let (blocks, apart) = buf.split_at_mut(call.procs as usize * m);
        let own = &mut blocks[block(call.rank, m)];
        payload::fill(own, block_seed(call.rank, call, m));
        apart[..m].copy_from_slice(own);
    }

    fn check(&self, call: Iteration, result: &[u8]) -> Option<String> {
        if call.rank != call.root {
            return None;
        }
        check_blocks(
            call,
            result,
            block_bytes(Collective::Gather, result, call.procs),
        )
    }

    /// The p blocks, then the rank's own block apart (its send buffer).
    fn library(
        &self,
        comm: &SimpleCommunicator,
        root: u32,
        buf: &mut [u8],
        _buffers: &mut Buffers,
    ) -> Result<(), String> {
        let process = comm.process_at_rank(root as i32);
        let m = block_bytes(Collective::Gather, buf, comm.size() as u32);
        let (blocks, apart) = buf.split_at_mut(comm.size() as usize * m);
        if comm.rank() as u32 == root {
            process.gather_into_root(&*apart, blocks)
        } else {
            process.gather_into(&*apart)
        }
        Ok(())
    }
}
