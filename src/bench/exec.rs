//! Executes a schedule's operations over MPI point-to-point: the `impl=own`
//! broadcast and reduce. The operations come from [`crate::schedule`], the
//! same code the simulator proves and the models price.

use crate::schedule::{Op, Span};
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
/// the root). Partial results to combine land in `scratch`, which grows to
/// what the schedule needs (kept by the caller from run to run).
pub fn run(
    comm: &SimpleCommunicator,
    ops: &[Op],
    buf: &mut [u8],
    scratch: &mut Vec<u8>,
) -> Result<(), String> {
    let base = buf.as_mut_ptr();
    let len = buf.len();
    // Each partial receive gets scratch bytes of its own, in order.
    let partial_bytes: u64 = ops
        .iter()
        .map(|op| match op {
            Op::IrecvPartial { bytes, .. } => bytes.len(),
            _ => 0,
        })
        .sum();
    if scratch.len() < partial_bytes as usize {
        scratch.resize(partial_bytes as usize, 0);
    }
    let (scratch_base, scratch_len) = (scratch.as_mut_ptr(), scratch.len());
    let mut next_scratch = 0;
    // Partial receives not combined yet: (peer, bytes, scratch span).
    let mut partials: VecDeque<(u32, Span, Span)> = VecDeque::new();
    let mut regions: Vec<Region> = ops
        .iter()
        .map(|op| match *op {
            Op::Irecv { bytes, .. }
            | Op::Isend { bytes, .. }
            | Op::Send { bytes, .. }
            | Op::Recv { bytes, .. } => Region::new(base, len, bytes),
            Op::IrecvPartial { peer, bytes } => {
                let at = Span {
                    start: next_scratch,
                    end: next_scratch + bytes.len(),
                };
                next_scratch = at.end;
                partials.push_back((peer, bytes, at));
                Region::new(scratch_base, scratch_len, at)
            }
            Op::WaitRecv | Op::WaitSends | Op::Combine { .. } => {
                Region::new(base, len, Span { start: 0, end: 0 })
            }
        })
        .collect();
    let mut error = None;
    scope(|scope| {
        let mut receives: VecDeque<Request<'_, Region, _>> = VecDeque::new();
        let mut sends: Vec<Request<'_, Region, _>> = Vec::new();
        for (op, region) in ops.iter().zip(regions.iter_mut()) {
            match *op {
                Op::Irecv { peer, .. } | Op::IrecvPartial { peer, .. } => receives.push_back(
                    comm.process_at_rank(peer as i32)
                        .immediate_receive_into_with_tag(scope, region, DATA_TAG),
                ),
                Op::Isend { peer, .. } => {
                    let region: &Region = region;
                    sends.push(
                        comm.process_at_rank(peer as i32)
                            .immediate_send_with_tag(scope, region, DATA_TAG),
                    );
                }
                Op::WaitRecv => {
                    if let Some(r) = receives.pop_front() {
                        r.wait_without_status();
                    }
                }
                Op::WaitSends => sends.drain(..).for_each(|r| r.wait_without_status()),
                Op::Send { peer, .. } => comm
                    .process_at_rank(peer as i32)
                    .send_with_tag(&*region, DATA_TAG),
                Op::Recv { peer, .. } => {
                    comm.process_at_rank(peer as i32)
                        .receive_into_with_tag(region, DATA_TAG);
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
                    // SAFETY: the partial's receive was waited for (the
                    // schedule waits before it combines, which the simulator
                    // proves), so no request touches its scratch bytes;
                    // `bytes` of the buffer are held by this rank, with no
                    // receive posted into them and no send of them pending
                    // (sends pass bytes on for good).
                    unsafe {
                        let from = std::slice::from_raw_parts(
                            scratch_base.add(at.start as usize),
                            at.len() as usize,
                        );
                        let into = std::slice::from_raw_parts_mut(
                            base.add(bytes.start as usize),
                            bytes.len() as usize,
                        );
                        sum_floats(into, from);
                    }
                }
            }
        }
        // Schedules end with every request waited for; this keeps the scope
        // sound even if one did not.
        receives.into_iter().for_each(|r| r.wait_without_status());
        sends.into_iter().for_each(|r| r.wait_without_status());
    });
    error.map_or(Ok(()), Err)
}

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
