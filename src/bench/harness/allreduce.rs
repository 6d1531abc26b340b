//! MPI_Allreduce in the harness: each rank's contribution, their sum on
//! every rank.

use super::{payload, wrong_sum, Buffers, Harness, Iteration, LibraryCall, Place};
use mpi::collective::SystemOperation;
use mpi::traits::*;

pub(super) struct AllreduceHarness;

impl Harness for AllreduceHarness {
    fn result_apart(&self) -> bool {
        true
    }

    fn fill(&self, it: Iteration, buf: &mut [u8], _buffers: &mut Buffers, _place: Place<'_>) {
        payload::fill_contribution(buf, it.seed, it.rank, 0)
    }

    fn check(&self, it: Iteration, result: &[u8]) -> Option<String> {
        payload::first_sum_mismatch(result, it.seed, it.procs, 0).map(|w| wrong_sum(it, w))
    }

    fn library(&self, lib: LibraryCall<'_>) -> Result<(), String> {
        let LibraryCall {
            comm, buf, buffers, ..
        } = lib;
        let send: &[f32] = bytemuck::try_cast_slice(buf).map_err(|e| e.to_string())?;
        let out = &mut buffers.out[..send.len()];
        comm.all_reduce_into(send, out, SystemOperation::sum());
        Ok(())
    }

    fn library_result<'a>(&self, buf: &'a [u8], buffers: &'a Buffers, _procs: usize) -> &'a [u8] {
        &bytemuck::cast_slice(&buffers.out)[..buf.len()]
    }
}
