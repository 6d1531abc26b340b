//! MPI_Reduce_scatter (equal counts) and MPI_Reduce_scatter_block in the
//! harness: each rank's vector of p contributions (where the schedule
//! places its blocks), the sum of block i on rank i.

use super::{payload, wrong_sum, Buffers, Harness, Iteration, Place};
use mpi::collective::SystemOperation;
use mpi::raw::AsRaw;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

pub(super) struct ReduceScatterHarness;

pub(super) struct ReduceScatterBlockHarness;

/// Every block of the vector, where `place` puts it.
fn fill(call: Iteration, buf: &mut [u8], place: Place<'_>) {
    let m = buf.len() / call.procs as usize;
    for block in 0..call.procs {
        let at = place(block, m);
        payload::fill_contribution(&mut buf[at], call.seed, call.rank, block as usize * m / 4);
    }
}

/// `result` is the rank's block.
fn check(call: Iteration, result: &[u8]) -> Option<String> {
    let first = call.rank as usize * result.len() / 4;
    payload::first_sum_mismatch(result, call.seed, call.procs, first).map(|w| wrong_sum(call, w))
}

fn library_result<'a>(buf: &'a [u8], buffers: &'a Buffers, procs: usize) -> &'a [u8] {
    &bytemuck::cast_slice(&buffers.out)[..buf.len() / procs]
}

/// The floats to send and the rank's block to receive.
fn parts<'a>(
    comm: &SimpleCommunicator,
    buf: &'a [u8],
    buffers: &'a mut Buffers,
) -> Result<(&'a [f32], &'a mut [f32]), String> {
    let send: &[f32] = bytemuck::try_cast_slice(buf).map_err(|e| e.to_string())?;
    let out = &mut buffers.out[..send.len() / comm.size() as usize];
    Ok((send, out))
}

impl Harness for ReduceScatterHarness {
    fn result_apart(&self) -> bool {
        true
    }

    fn fill(&self, call: Iteration, buf: &mut [u8], _buffers: &mut Buffers, place: Place<'_>) {
        fill(call, buf, place)
    }

    fn check(&self, call: Iteration, result: &[u8]) -> Option<String> {
        check(call, result)
    }

    fn library(
        &self,
        comm: &SimpleCommunicator,
        _root: u32,
        buf: &mut [u8],
        buffers: &mut Buffers,
    ) -> Result<(), String> {
        let (send, out) = parts(comm, buf, buffers)?;
        equal_counts(comm, send, out)
    }

    fn library_result<'a>(&self, buf: &'a [u8], buffers: &'a Buffers, procs: usize) -> &'a [u8] {
        library_result(buf, buffers, procs)
    }
}

impl Harness for ReduceScatterBlockHarness {
    fn result_apart(&self) -> bool {
        true
    }

    fn fill(&self, call: Iteration, buf: &mut [u8], _buffers: &mut Buffers, place: Place<'_>) {
        fill(call, buf, place)
    }

    fn check(&self, call: Iteration, result: &[u8]) -> Option<String> {
        check(call, result)
    }

    fn library(
        &self,
        comm: &SimpleCommunicator,
        _root: u32,
        buf: &mut [u8],
        buffers: &mut Buffers,
    ) -> Result<(), String> {
        let (send, out) = parts(comm, buf, buffers)?;
        comm.reduce_scatter_block_into(send, out, SystemOperation::sum());
        Ok(())
    }

    fn library_result<'a>(&self, buf: &'a [u8], buffers: &'a Buffers, procs: usize) -> &'a [u8] {
        library_result(buf, buffers, procs)
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
    // counts say; both outlive the blocking call.
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
