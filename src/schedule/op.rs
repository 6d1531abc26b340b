//! The vocabulary of schedules: the spans of a buffer, the point-to-point
//! operations a rank performs on them, and the working memory an
//! algorithm allocates besides.

use std::fmt;

/// Bytes [start, end) of the buffer. In an allgather (and gather,
/// scatter, reduce_scatter_block) a span may end beyond the buffer: its
/// bytes then continue from byte 0 (a message of the last blocks and the
/// first ones, see [`allgather`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: u64,
    pub end: u64,
}

impl Span {
    /// The span's bytes in a buffer of `total` bytes: itself, or where it
    /// wraps its part up to the end and the part from byte 0.
    pub fn pieces(self, total: u64) -> [Span; 2] {
        if self.end <= total {
            [self, Span { start: 0, end: 0 }]
        } else {
            [
                Span {
                    start: self.start,
                    end: total,
                },
                Span {
                    start: 0,
                    end: self.end - total,
                },
            ]
        }
    }

    pub fn len(&self) -> u64 {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {})", self.start, self.end)
    }
}

/// A buffer an Open MPI algorithm allocates every call, besides the
/// memory its messages name: the harness allocates, writes and frees as
/// much around each call of ours, for the allocator's work and the page
/// faults fresh memory costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Working {
    pub bytes: u64,
    /// Filled with a copy of the send buffer first (otherwise written by
    /// the algorithm: received or combined into).
    pub copy: bool,
}

impl Working {
    /// `bytes` that start as a copy of the send buffer.
    pub fn copy(bytes: u64) -> Working {
        Working { bytes, copy: true }
    }

    /// `bytes` the algorithm writes.
    pub fn written(bytes: u64) -> Working {
        Working { bytes, copy: false }
    }
}

/// One point-to-point step of one rank. All messages share one tag, so MPI's
/// non-overtaking rule matches the k-th send from a to b with the k-th
/// receive b posts from a.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Post a non-blocking receive of `bytes` from `peer`.
    Irecv { peer: u32, bytes: Span },
    /// Post a non-blocking standard-mode send of `bytes` to `peer`.
    Isend { peer: u32, bytes: Span },
    /// Wait for the oldest posted receive not yet waited for.
    WaitRecv,
    /// Wait for every posted send not yet waited for.
    WaitSends,
    /// Blocking standard-mode send.
    Send { peer: u32, bytes: Span },
    /// Blocking receive.
    Recv { peer: u32, bytes: Span },
    /// Post a non-blocking receive of a partial result from `peer` into
    /// scratch memory, to be combined (reductions only).
    IrecvPartial { peer: u32, bytes: Span },
    /// Combine the oldest waited-for partial result from `peer` of `bytes`
    /// into the buffer (reductions only).
    Combine { peer: u32, bytes: Span },
    /// Blocking standard-mode send to `peer` of the partial result of
    /// `bytes` received last, waited for and not combined yet, as it
    /// arrived (reductions only: a rank hands a partner's partial result
    /// on to a rank that has no partner).
    SendPartial { peer: u32, bytes: Span },
}

impl Op {
    /// The peer and bytes of an operation that moves or combines some;
    /// `None` for a wait.
    fn peer_and_bytes(&mut self) -> Option<(&mut u32, &mut Span)> {
        match self {
            Op::Irecv { peer, bytes }
            | Op::Isend { peer, bytes }
            | Op::Send { peer, bytes }
            | Op::Recv { peer, bytes }
            | Op::IrecvPartial { peer, bytes }
            | Op::Combine { peer, bytes }
            | Op::SendPartial { peer, bytes } => Some((peer, bytes)),
            Op::WaitRecv | Op::WaitSends => None,
        }
    }

    /// The same operation with its bytes moved by `place`; `None` where
    /// `place` has no place for them.
    pub fn with_bytes(mut self, place: impl Fn(Span) -> Option<Span>) -> Option<Op> {
        if let Some((_, bytes)) = self.peer_and_bytes() {
            *bytes = place(*bytes)?;
        }
        Some(self)
    }

    /// The bytes the operation moves or combines; `None` for a wait.
    pub fn bytes(&self) -> Option<Span> {
        let mut op = *self;
        op.peer_and_bytes().map(|(_, bytes)| *bytes)
    }

    /// The same operation with its peer renamed (for schedules built over
    /// positions rather than ranks).
    pub fn with_peer(mut self, rename: impl Fn(u32) -> u32) -> Op {
        if let Some((peer, _)) = self.peer_and_bytes() {
            *peer = rename(*peer);
        }
        self
    }
}

/// Open MPI's sendrecv of data: the receive of `recv` from `from` posted,
/// a blocking send of `send` to `to`, the wait.
pub(super) fn sendrecv(ops: &mut Vec<Op>, to: u32, send: Span, from: u32, recv: Span) {
    ops.extend([
        Op::Irecv {
            peer: from,
            bytes: recv,
        },
        Op::Send {
            peer: to,
            bytes: send,
        },
        Op::WaitRecv,
    ]);
}

/// One operation as the harness runs it on one rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalOp {
    /// The operation, its bytes in the rank's own memory where they are
    /// one span.
    pub op: Op,
    /// For a message whose bytes lie in several places of the rank's
    /// memory: those places, in the message's order (it is packed into,
    /// or unpacked from, scratch memory as long as `op`'s bytes).
    pub pieces: Option<Vec<Span>>,
}

impl From<Op> for LocalOp {
    /// An operation whose bytes are one span of the rank's memory.
    fn from(op: Op) -> LocalOp {
        LocalOp { op, pieces: None }
    }
}
