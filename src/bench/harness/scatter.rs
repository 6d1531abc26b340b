//! MPI_Scatter in the harness: the root's p blocks; each rank's block in
//! its place (the root's in its receive buffer apart, block p).

use super::{
    block, block_bytes, block_seed, payload, wrong_byte, Buffers, Harness, Iteration, LibraryCall,
    Place,
};
use crate::data::Collective;
use mpi::raw::AsRaw;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

pub(super) struct ScatterHarness;

impl Harness for ScatterHarness {
    /// The root's p blocks, its receive buffer cleared; every other
    /// rank's memory cleared.
    fn fill(&self, it: Iteration, buf: &mut [u8], _buffers: &mut Buffers, _place: Place<'_>) {
        let m = block_bytes(Collective::Scatter, buf, it.procs);
        if it.rank != it.root {
            buf.fill(0);
            return;
        }
        for to in 0..it.procs {
            payload::fill(&mut buf[block(to, m)], block_seed(to, it, m));
        }
        buf[block(it.procs, m)].fill(0);
    }

    /// The root's own block in its receive buffer (block p), each other
    /// rank's where the schedule leaves it (its place, where the library
    /// it receives it too).
    fn check(&self, it: Iteration, result: &[u8]) -> Option<String> {
        let m = block_bytes(Collective::Scatter, result, it.procs);
        let at = if it.rank == it.root {
            it.procs
        } else {
            it.rank
        };
        payload::first_mismatch(&result[block(at, m)], block_seed(it.rank, it, m))
            .map(|w| format!("its block from root {}: {}", it.root, wrong_byte(w)))
    }

    /// The p blocks, then the rank's own block apart (its receive buffer).
    fn library(&self, lib: LibraryCall<'_>) -> Result<(), String> {
        let LibraryCall {
            comm, root, buf, ..
        } = lib;
        let m = block_bytes(Collective::Scatter, buf, comm.size() as u32);
        let (blocks, apart) = buf.split_at_mut(comm.size() as usize * m);
        if comm.rank() as u32 == root {
            comm.process_at_rank(root as i32)
                .scatter_into_root(&*blocks, apart)
        } else {
            receive(comm, root, &mut blocks[block(comm.rank() as u32, m)]);
        }
        Ok(())
    }
}

/// A non-root rank's part of `MPI_Scatter`, with the root's send count and
/// type although the standard ignores them there: Open MPI's rules file
/// keys scatter on the send count on every rank, and rsmpi's
/// `scatter_into` passes 0, so where the file decides 0 bytes otherwise
/// than the real size the root and the others run different algorithms
/// and the blocks land wrong. Applications that pass their counts on
/// every rank (as most do) see what this measures.
fn receive(comm: &SimpleCommunicator, root: u32, recv: &mut [u8]) {
    let byte = u8::equivalent_datatype().as_raw();
    let count = recv.len() as i32;
    // SAFETY: the send buffer is not read on a non-root rank; `recv` is a
    // live, exclusively borrowed buffer of `count` bytes.
    unsafe {
        mpi::ffi::MPI_Scatter(
            std::ptr::null(),
            count,
            byte,
            recv.as_mut_ptr().cast(),
            count,
            byte,
            root as i32,
            comm.as_raw(),
        );
    }
}
