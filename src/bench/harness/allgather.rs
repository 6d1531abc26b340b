//! MPI_Allgather in the harness: each rank's block in place and, to send,
//! apart (`Buffers::out`); every block in place on every rank.

use super::{
    block, block_bytes, block_seed, check_blocks, payload, Buffers, Harness, Iteration, Place,
};
use crate::data::Collective;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

pub(super) struct AllgatherHarness;

impl Harness for AllgatherHarness {
    fn result_apart(&self) -> bool {
        true
    }

    fn fill(&self, call: Iteration, buf: &mut [u8], buffers: &mut Buffers, _place: Place<'_>) {
        let m = block_bytes(Collective::Allgather, buf, call.procs);
        let own = &mut buf[block(call.rank, m)];
        payload::fill(own, block_seed(call.rank, call, m));
        let send: &mut [u8] = bytemuck::cast_slice_mut(&mut buffers.out);
        send[..m].copy_from_slice(own);
    }

    fn check(&self, call: Iteration, result: &[u8]) -> Option<String> {
        check_blocks(
            call,
            result,
            block_bytes(Collective::Allgather, result, call.procs),
        )
    }

    fn library(
        &self,
        comm: &SimpleCommunicator,
        _root: u32,
        buf: &mut [u8],
        buffers: &mut Buffers,
    ) -> Result<(), String> {
        let block = buf.len() / comm.size() as usize;
        let send: &[u8] = bytemuck::cast_slice(&buffers.out);
        comm.all_gather_into(&send[..block], buf);
        Ok(())
    }
}
