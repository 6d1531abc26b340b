//! MPI_Gather in the harness: each rank's block in place and in its send
//! buffer apart (block p); every block in place at the root.

use super::{
    block, block_bytes, block_seed, check_blocks, payload, Buffers, Harness, Iteration,
    LibraryCall, Place,
};
use crate::data::Collective;
use mpi::traits::*;

pub(super) struct GatherHarness;

impl Harness for GatherHarness {
    /// The other ranks' blocks cleared; the root's own block too (the
    /// call copies it from its send buffer).
    fn fill(&self, it: Iteration, buf: &mut [u8], _buffers: &mut Buffers, _place: Place<'_>) {
        let m = block_bytes(Collective::Gather, buf, it.procs);
        let (blocks, apart) = buf.split_at_mut(it.procs as usize * m);
        payload::fill(&mut apart[..m], block_seed(it.rank, it, m));
        blocks.fill(0);
        if it.rank != it.root {
            blocks[block(it.rank, m)].copy_from_slice(&apart[..m]);
        }
    }

    fn check(&self, it: Iteration, result: &[u8]) -> Option<String> {
        if it.rank != it.root {
            return None;
        }
        check_blocks(Collective::Gather, it, result)
    }

    /// The p blocks, then the rank's own block apart (its send buffer).
    fn library(&self, lib: LibraryCall<'_>) -> Result<(), String> {
        let LibraryCall {
            comm, root, buf, ..
        } = lib;
        let process = comm.process_at_rank(root as i32);
        let m = block_bytes(Collective::Gather, buf, comm.size() as u32);
        let (blocks, apart) = buf.split_at_mut(comm.size() as usize * m);
        if comm.rank() as u32 == root {
            process.gather_into_root(&*apart, blocks)
        } else {
            process.gather_into(&*apart)
        }
        Ok(())
    }
}
