//! MPI_Bcast in the harness: the root's payload, the same on every rank.

use super::{payload, wrong_byte, Buffers, Harness, Iteration, LibraryCall, Place};
use mpi::traits::*;

pub(super) struct BcastHarness;

impl Harness for BcastHarness {
    fn fill(&self, it: Iteration, buf: &mut [u8], _buffers: &mut Buffers, _place: Place<'_>) {
        match it.rank == it.root {
            true => payload::fill(buf, it.seed),
            false => buf.fill(0),
        }
    }

    fn check(&self, it: Iteration, result: &[u8]) -> Option<String> {
        if it.rank == it.root {
            return None;
        }
        payload::first_mismatch(result, it.seed)
            .map(|w| format!("payload mismatch from root {}: {}", it.root, wrong_byte(w)))
    }

    fn library(&self, lib: LibraryCall<'_>) -> Result<(), String> {
        let LibraryCall {
            comm, root, buf, ..
        } = lib;
        comm.process_at_rank(root as i32).broadcast_into(buf);
        Ok(())
    }
}
