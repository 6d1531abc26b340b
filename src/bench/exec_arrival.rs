//! Runs the `arrival` broadcast (see [`crate::schedule::arrival_aware`]) over MPI:
//! receivers announce themselves to the root on a control tag and wait for a
//! header on another; the root serves whoever has announced, round after
//! round, each round a pipelined chain run by [`super::exec`].

use super::exec;
use crate::schedule::arrival_aware::{Group, Waiting};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Tag;

/// Receiver → root: "I have arrived" (the payload is the sender's rank).
const ARRIVED_TAG: Tag = 1;
/// The round's chain, sent ahead of the data down that chain.
const HEADER_TAG: Tag = 2;

/// One rank's part of an `arrival` broadcast of `buf` from `root`. Every
/// message of one call is received within it (each receiver announces once
/// and is served once), so calls separated by a barrier cannot mix.
pub fn run(
    comm: &SimpleCommunicator,
    root: u32,
    buf: &mut [u8],
    segsize: u64,
) -> Result<(), String> {
    let (rank, procs) = (comm.rank() as u32, comm.size() as u32);
    if procs == 1 || buf.is_empty() {
        return Ok(());
    }
    let m = buf.len() as u64;
    if rank == root {
        let mut waiting = Waiting::new(procs, root);
        while !waiting.done() {
            // Wait for one announcement, then take all that are there.
            let (r, _) = comm.any_process().receive_with_tag::<u32>(ARRIVED_TAG);
            waiting.arrived(r)?;
            while let Some((msg, _)) = comm
                .any_process()
                .immediate_matched_probe_with_tag(ARRIVED_TAG)
            {
                let (r, _) = msg.matched_receive::<u32>();
                waiting.arrived(r)?;
            }
            let group = waiting
                .take()
                .ok_or("an announcement was received but no group formed")?;
            let first = group.receivers()[0];
            comm.process_at_rank(first as i32)
                .send_with_tag(group.header(), HEADER_TAG);
            exec::run(
                comm,
                &local(group.ops(root, m, segsize)),
                buf,
                &mut Vec::new(),
            )?;
        }
    } else {
        comm.process_at_rank(root as i32)
            .send_with_tag(&rank, ARRIVED_TAG);
        let (header, _) = comm.any_process().receive_vec_with_tag::<u32>(HEADER_TAG);
        let group = Group::from_header(header, rank, procs)?;
        if let Some(next) = group.next(rank) {
            comm.process_at_rank(next as i32)
                .send_with_tag(group.header(), HEADER_TAG);
        }
        exec::run(
            comm,
            &local(group.ops(rank, m, segsize)),
            buf,
            &mut Vec::new(),
        )?;
    }
    Ok(())
}

/// A group's operations, whose bytes are spans of the message itself.
fn local(ops: Vec<crate::schedule::Op>) -> Vec<crate::schedule::LocalOp> {
    ops.into_iter().map(Into::into).collect()
}
