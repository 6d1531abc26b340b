//! MPI_Reduce in the harness: each rank's contribution, their sum at the
//! root (in `Buffers::out` from the library, in place from a schedule).

use super::{payload, wrong_sum, Buffers, Harness, Iteration, LibraryCall, Place};
use mpi::collective::{Root as _, SystemOperation};
use mpi::traits::*;

pub(super) struct ReduceHarness;

impl Harness for ReduceHarness {
    fn result_apart(&self) -> bool {
        true
    }

    fn fill(&self, it: Iteration, buf: &mut [u8], _buffers: &mut Buffers, _place: Place<'_>) {
        payload::fill_contribution(buf, it.seed, it.rank, 0)
    }

    fn check(&self, it: Iteration, result: &[u8]) -> Option<String> {
        if it.rank != it.root {
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
        let process = comm.process_at_rank(root as i32);
        if comm.rank() as u32 == root {
            let out = &mut buffers.out[..send.len()];
            process.reduce_into_root(send, out, SystemOperation::sum());
        } else {
            process.reduce_into(send, SystemOperation::sum());
        }
        Ok(())
    }

    fn library_result<'a>(&self, buf: &'a [u8], buffers: &'a Buffers, _procs: usize) -> &'a [u8] {
        &bytemuck::cast_slice(&buffers.out)[..buf.len()]
    }
}
