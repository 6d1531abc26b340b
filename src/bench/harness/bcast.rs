//! MPI_Bcast in the harness: the root's payload, the same on every rank.

use super::{payload, wrong_byte, Buffers, Harness, Iteration, Place};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

pub(super) struct BcastHarness;

impl Harness for BcastHarness {
    fn fill(&self, call: Iteration, buf: &mut [u8], _buffers: &mut Buffers, _place: Place<'_>) {
        if call.rank == call.root {
            payload::fill(buf, call.seed)
        }
    }

    fn check(&self, call: Iteration, result: &[u8]) -> Option<String> {
        if call.rank == call.root {
            return None;
        }
        payload::first_mismatch(result, call.seed).map(|w| {
            format!(
                "payload mismatch from root {}: {}",
                call.root,
                wrong_byte(w)
            )
        })
    }

    fn library(
        &self,
        comm: &SimpleCommunicator,
        root: u32,
        buf: &mut [u8],
        _buffers: &mut Buffers,
    ) -> Result<(), String> {
        comm.process_at_rank(root as i32).broadcast_into(buf);
        Ok(())
    }
}
