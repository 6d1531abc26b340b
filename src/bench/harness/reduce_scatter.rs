//! MPI_Reduce_scatter (equal counts) and MPI_Reduce_scatter_block in the
//! harness: each rank's vector of p contributions (where the schedule
//! places its blocks), the sum of block i on rank i.

use super::{payload, wrong_sum, Buffers, Harness, Iteration, LibraryCall, Place};
use mpi::collective::SystemOperation;
use mpi::raw::AsRaw;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// Both reduce-scatters: `block` for MPI_Reduce_scatter_block.
pub(super) struct ReduceScatterHarness {
    pub block: bool,
}

impl Harness for ReduceScatterHarness {
    fn result_apart(&self) -> bool {
        true
    }

    /// Every block of the vector, where `place` puts it; the library's
    /// result cleared (a schedule's is in place).
    fn fill(&self, it: Iteration, buf: &mut [u8], buffers: &mut Buffers, place: Place<'_>) {
        let m = buf.len() / it.procs as usize;
        for block in 0..it.procs {
            let at = place(block, m);
            payload::fill_contribution(&mut buf[at], it.seed, it.rank, block as usize * m / 4);
        }
        buffers.out[..m / 4].fill(0.0);
    }

    /// `result` is the rank's block.
    fn check(&self, it: Iteration, result: &[u8]) -> Option<String> {
        let first = it.rank as usize * result.len() / 4;
        payload::first_sum_mismatch(result, it.seed, it.procs, first).map(|w| wrong_sum(it, w))
    }

    fn library(&self, lib: LibraryCall<'_>) -> Result<(), String> {
        let send: &[f32] = bytemuck::try_cast_slice(lib.buf).map_err(|e| e.to_string())?;
        let out = &mut lib.buffers.out[..send.len() / lib.comm.size() as usize];
        match self.block {
            true => {
                let sum = SystemOperation::sum();
                lib.comm.reduce_scatter_block_into(send, out, sum);
                Ok(())
            }
            false => equal_counts(lib.comm, send, out),
        }
    }

    fn library_result<'a>(&self, buf: &'a [u8], buffers: &'a Buffers, procs: usize) -> &'a [u8] {
        &bytemuck::cast_slice(&buffers.out)[..buf.len() / procs]
    }
}

/// MPI_Reduce_scatter with every count equal, by hand: the mpi crate
/// binds only MPI_Reduce_scatter_block.
fn equal_counts(comm: &SimpleCommunicator, send: &[f32], out: &mut [f32]) -> Result<(), String> {
    let count = mpi::Count::try_from(out.len()).map_err(|e| e.to_string())?;
    let counts = vec![count; comm.size() as usize];
    if send.len() != out.len() * counts.len() {
        return Err(format!(
            "{} floats to send for {} blocks of {}",
            send.len(),
            counts.len(),
            out.len()
        ));
    }
    // SAFETY: `send` holds p blocks of `count` floats and `out` one, as the
    // counts say; both outlive the blocking it.
    let rc = unsafe {
        mpi::ffi::MPI_Reduce_scatter(
            send.as_ptr().cast(),
            out.as_mut_ptr().cast(),
            counts.as_ptr(),
            f32::equivalent_datatype().as_raw(),
            SystemOperation::sum().as_raw(),
            comm.as_raw(),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!("MPI_Reduce_scatter returned {rc}"))
    }
}
