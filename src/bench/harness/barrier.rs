//! MPI_Barrier in the harness: nothing to fill; that no rank leaves early
//! is checked apart, with a rank entering late (`barrier_holds`).

use super::{Buffers, Harness, Iteration, LibraryCall, Place};
use mpi::traits::*;

pub(super) struct BarrierHarness;

impl Harness for BarrierHarness {
    fn fill(&self, _call: Iteration, _buf: &mut [u8], _buffers: &mut Buffers, _place: Place<'_>) {}

    fn check(&self, _call: Iteration, _result: &[u8]) -> Option<String> {
        None
    }

    fn library(&self, lib: LibraryCall<'_>) -> Result<(), String> {
        lib.comm.barrier();
        Ok(())
    }
}
