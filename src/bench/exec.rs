//! Executes a schedule's operations over MPI point-to-point: every
//! collective's `impl=own` algorithms. The operations come from [`crate::schedule`], the
//! same code the simulator proves and the models price.

use crate::schedule::{LocalOp, Op, Span};
use mpi::datatype::{AsDatatype, Buffer, BufferMut, Collection, Equivalence, Pointer, PointerMut};
use mpi::point_to_point::{Destination, Source};
use mpi::request::{scope, Request};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::{Count, Tag};
use std::collections::VecDeque;
use std::os::raw::c_void;

/// The tag of broadcast data; receives name it, so that other traffic on the
/// communicator (the `arrival` algorithm's control messages) never matches.
pub const DATA_TAG: Tag = 0;

/// One rank's part of a collective: runs `ops` on `buf` (the whole
/// message; for a reduction, this rank's contribution, and the result on
/// the root). Partial results to combine, and messages whose bytes lie in
/// several places of `buf`, go through `scratch`, which grows to what the
/// schedule needs (kept by the caller from run to run).
pub fn run(
    comm: &SimpleCommunicator,
    ops: &[LocalOp],
    buf: &mut [u8],
    scratch: &mut Vec<u8>,
) -> Result<(), String> {
    let base = buf.as_mut_ptr();
    let len = buf.len();
    // Every place named lies in the buffer (a packed message's op names
    // the simulator's span, only its length matters here).
    if let Some(outside) = ops
        .iter()
        .flat_map(|l| {
            let (pieces, whole) = match &l.pieces {
                Some(pieces) => (pieces.as_slice(), None),
                None => (&[][..], l.op.bytes()),
            };
            pieces.iter().copied().chain(whole)
        })
        .find(|s| s.end > len as u64)
    {
        return Err(format!(
            "the schedule names {outside}, past this rank's {len} bytes"
        ));
    }
    // Each partial receive, and each packed message, gets scratch bytes of
    // its own, in order.
    let scratch_bytes: u64 = ops
        .iter()
        .map(|l| match l.op {
            Op::IrecvPartial { bytes, .. } => bytes.len(),
            // They use a partial receive's.
            Op::Combine { .. } | Op::SendPartial { .. } => 0,
            op if l.pieces.is_some() => op.bytes().map_or(0, |b| b.len()),
            _ => 0,
        })
        .sum();
    if scratch.len() < scratch_bytes as usize {
        scratch.resize(scratch_bytes as usize, 0);
    }
    let (scratch_base, scratch_len) = (scratch.as_mut_ptr(), scratch.len());
    let mut next_scratch = 0;
    let mut take_scratch = |bytes: Span| {
        let at = Span {
            start: next_scratch,
            end: next_scratch + bytes.len(),
        };
        next_scratch = at.end;
        at
    };
    // Partial receives not combined yet: (peer, bytes, scratch span).
    let mut partials: VecDeque<(u32, Span, Span)> = VecDeque::new();
    // A partial result sent on before it was received.
    let mut unreceived = None;
    // Per op, the places of a packed message and its scratch bytes.
    let mut staged: Vec<Staged<'_>> = vec![None; ops.len()];
    let mut regions: Vec<Region> = ops
        .iter()
        .zip(staged.iter_mut())
        .map(|(l, staged)| match (l.op, &l.pieces) {
            (
                Op::Irecv { bytes, .. }
                | Op::Isend { bytes, .. }
                | Op::Send { bytes, .. }
                | Op::Recv { bytes, .. },
                Some(pieces),
            ) => {
                let at = take_scratch(bytes);
                *staged = Some((pieces, at));
                Region::new(scratch_base, scratch_len, at)
            }
            (
                Op::Irecv { bytes, .. }
                | Op::Isend { bytes, .. }
                | Op::Send { bytes, .. }
                | Op::Recv { bytes, .. },
                None,
            ) => Region::new(base, len, bytes),
            (Op::IrecvPartial { peer, bytes }, _) => {
                let at = take_scratch(bytes);
                partials.push_back((peer, bytes, at));
                Region::new(scratch_base, scratch_len, at)
            }
            // The scratch bytes of the partial of `bytes` received last.
            (Op::SendPartial { bytes, .. }, _) => {
                match partials.iter().rev().find(|&&(_, b, _)| b == bytes) {
                    Some(&(_, _, at)) => Region::new(scratch_base, scratch_len, at),
                    None => {
                        unreceived = Some(bytes);
                        Region::new(base, len, Span { start: 0, end: 0 })
                    }
                }
            }
            (Op::WaitRecv | Op::WaitSends | Op::Combine { .. }, _) => {
                Region::new(base, len, Span { start: 0, end: 0 })
            }
        })
        .collect();
    if let Some(bytes) = unreceived {
        return Err(format!(
            "the schedule sends on a partial result of {bytes} it never receives"
        ));
    }
    // A packed message's bytes, copied between its places in the buffer
    // and its scratch bytes (before a send, after a receive).
    let stage = |pieces: &[Span], at: Span, into_scratch: bool| {
        let mut offset = at.start as usize;
        for piece in pieces {
            // SAFETY: every piece lies in the buffer (checked above) and
            // `at` in scratch (sized above); a send's bytes are held and
            // not being received into, a receive's are waited for (the
            // simulator proves the schedule's order), so no request touches
            // either meanwhile.
            unsafe {
                let (from, to) = (base.add(piece.start as usize), scratch_base.add(offset));
                let (from, to) = if into_scratch { (from, to) } else { (to, from) };
                std::ptr::copy_nonoverlapping(from, to, piece.len() as usize);
            }
            offset += piece.len() as usize;
        }
    };
    let mut error = None;
    scope(|scope| {
        let mut receives: VecDeque<(Request<'_, Region, _>, Staged<'_>)> = VecDeque::new();
        let mut sends: Vec<Request<'_, Region, _>> = Vec::new();
        for ((l, region), staged) in ops.iter().zip(regions.iter_mut()).zip(&staged) {
            match l.op {
                Op::Irecv { peer, .. } => receives.push_back((
                    comm.process_at_rank(peer as i32)
                        .immediate_receive_into_with_tag(scope, region, DATA_TAG),
                    *staged,
                )),
                Op::IrecvPartial { peer, .. } => receives.push_back((
                    comm.process_at_rank(peer as i32)
                        .immediate_receive_into_with_tag(scope, region, DATA_TAG),
                    None,
                )),
                Op::Isend { peer, .. } => {
                    if let Some((pieces, at)) = staged {
                        stage(pieces, *at, true);
                    }
                    let region: &Region = region;
                    sends.push(
                        comm.process_at_rank(peer as i32)
                            .immediate_send_with_tag(scope, region, DATA_TAG),
                    );
                }
                Op::WaitRecv => {
                    if let Some((r, staged)) = receives.pop_front() {
                        r.wait_without_status();
                        if let Some((pieces, at)) = staged {
                            stage(pieces, at, false);
                        }
                    }
                }
                Op::WaitSends => sends.drain(..).for_each(|r| r.wait_without_status()),
                Op::Send { peer, .. } => {
                    if let Some((pieces, at)) = staged {
                        stage(pieces, *at, true);
                    }
                    comm.process_at_rank(peer as i32)
                        .send_with_tag(&*region, DATA_TAG)
                }
                Op::SendPartial { peer, .. } => comm
                    .process_at_rank(peer as i32)
                    .send_with_tag(&*region, DATA_TAG),
                Op::Recv { peer, .. } => {
                    comm.process_at_rank(peer as i32)
                        .receive_into_with_tag(region, DATA_TAG);
                    if let Some((pieces, at)) = staged {
                        stage(pieces, *at, false);
                    }
                }
                Op::Combine { peer, bytes } => {
                    let found = partials
                        .iter()
                        .position(|&(p, b, _)| p == peer && b == bytes)
                        .and_then(|i| partials.remove(i));
                    let Some((_, _, at)) = found else {
                        error = Some(format!(
                            "the schedule combines {bytes} from rank {peer} without receiving them"
                        ));
                        break;
                    };
                    // Into each place of the bytes in turn (a message of
                    // the last blocks and the first ones has two).
                    let places = l.pieces.as_deref().unwrap_or(std::slice::from_ref(&bytes));
                    let mut offset = at.start as usize;
                    for place in places {
                        // SAFETY: the partial's receive was waited for (the
                        // schedule waits before it combines, which the
                        // simulator proves), so no request touches its
                        // scratch bytes; the places lie in the buffer
                        // (checked above), held by this rank, with no
                        // receive posted into them and no send of them
                        // pending (sends pass bytes on for good).
                        unsafe {
                            let from = std::slice::from_raw_parts(
                                scratch_base.add(offset),
                                place.len() as usize,
                            );
                            let into = std::slice::from_raw_parts_mut(
                                base.add(place.start as usize),
                                place.len() as usize,
                            );
                            sum_floats(into, from);
                        }
                        offset += place.len() as usize;
                    }
                }
            }
        }
        // Schedules end with every request waited for; this keeps the scope
        // sound even if one did not.
        receives
            .into_iter()
            .for_each(|(r, _)| r.wait_without_status());
        sends.into_iter().for_each(|r| r.wait_without_status());
    });
    error.map_or(Ok(()), Err)
}

/// A packed message's places in the buffer and its scratch bytes.
type Staged<'a> = Option<(&'a [Span], Span)>;

/// `into` += `from`, element by element, as native-endian `f32`s (what
/// `MPI_SUM` on `MPI_FLOAT` computes). Bytes, not `&[f32]`: the buffers
/// are byte buffers with no alignment promise.
fn sum_floats(into: &mut [u8], from: &[u8]) {
    for (a, b) in into.chunks_exact_mut(4).zip(from.chunks_exact(4)) {
        let sum = f32::from_ne_bytes([a[0], a[1], a[2], a[3]])
            + f32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
        a.copy_from_slice(&sum.to_ne_bytes());
    }
}

/// A byte range of the broadcast buffer handed to MPI. A schedule keeps
/// several operations on one buffer in flight (two receives, sends of an
/// earlier segment), on disjoint or read-only ranges; safe slices cannot
/// express that, so each operation gets a raw range of its own.
struct Region {
    ptr: *mut u8,
    len: usize,
}

impl Region {
    fn new(base: *mut u8, buf_len: usize, span: Span) -> Region {
        let (start, end) = (span.start as usize, span.end as usize);
        assert!(
            start <= end && end <= buf_len,
            "schedule span {span} outside a {buf_len}-byte buffer"
        );
        Region {
            // SAFETY: start ≤ buf_len, so the offset stays inside the
            // allocation (or one past its end for an empty range).
            ptr: unsafe { base.add(start) },
            len: end - start,
        }
    }
}

// SAFETY: a Region points into the caller's buffer, which outlives every
// request (`run` waits for all of them before returning); it describes `len`
// bytes of MPI_UINT8_T. Overlap: the schedule's receives of one rank target
// disjoint spans and a span is only sent after it was received (the
// simulator's delivery checks prove both for every algorithm).
unsafe impl Pointer for Region {
    fn pointer(&self) -> *const c_void {
        self.ptr as *const c_void
    }
}
unsafe impl PointerMut for Region {
    fn pointer_mut(&mut self) -> *mut c_void {
        self.ptr as *mut c_void
    }
}
unsafe impl Collection for Region {
    fn count(&self) -> Count {
        // `bench` refuses messages over MAX_MESSAGE bytes, so this fits.
        self.len as Count
    }
}
unsafe impl AsDatatype for Region {
    type Out = <u8 as Equivalence>::Out;
    fn as_datatype(&self) -> Self::Out {
        u8::equivalent_datatype()
    }
}
unsafe impl Buffer for Region {}
unsafe impl BufferMut for Region {}
