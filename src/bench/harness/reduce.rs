//! MPI_Reduce and MPI_Allreduce in the harness: each rank's contribution,
//! their sum at the root or on every rank (in `Buffers::out` from the
//! library, in place from a schedule).

use super::{payload, wrong_sum, Buffers, Harness, Iteration, LibraryCall, Place};
use mpi::collective::{Root as _, SystemOperation};
use mpi::traits::*;

/// Both reductions to one buffer: `everywhere` for MPI_Allreduce.
pub(super) struct ReductionHarness {
    pub everywhere: bool,
}

impl Harness for ReductionHarness {
    fn result_apart(&self) -> bool {
        true
    }

    fn fill(&self, it: Iteration, buf: &mut [u8], buffers: &mut Buffers, _place: Place<'_>) {
        payload::fill_contribution(buf, it.seed, it.rank, 0);
        // The library's result (a schedule's is in place).
        if self.everywhere || it.rank == it.root {
            buffers.out[..buf.len() / 4].fill(0.0);
        }
    }

    fn check(&self, it: Iteration, result: &[u8]) -> Option<String> {
        if !self.everywhere && it.rank != it.root {
            return None;
        }
        payload::first_sum_mismatch(result, it.seed, it.procs, 0).map(|w| wrong_sum(it, w))
    }

    fn library(&self, lib: LibraryCall<'_>) -> Result<(), String> {
        let LibraryCall {
            comm,
            root,
            buf,
            buffers,
        } = lib;
        let send: &[f32] = bytemuck::try_cast_slice(buf).map_err(|e| e.to_string())?;
        let out = &mut buffers.out[..send.len()];
        let sum = SystemOperation::sum();
        let process = comm.process_at_rank(root as i32);
        match (self.everywhere, comm.rank() as u32 == root) {
            (true, _) => comm.all_reduce_into(send, out, sum),
            (false, true) => process.reduce_into_root(send, out, sum),
            (false, false) => process.reduce_into(send, sum),
        }
        Ok(())
    }

    fn library_result<'a>(&self, buf: &'a [u8], buffers: &'a Buffers, _procs: usize) -> &'a [u8] {
        &bytemuck::cast_slice(&buffers.out)[..buf.len()]
    }
}
