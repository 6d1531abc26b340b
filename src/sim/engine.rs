//! The simulator itself: each rank runs its program until it waits for a
//! message not yet sent; messages, inboxes and the ranks' state.

use super::error::SimError;
use super::partials::Pieces;
use super::programs::Reduction;
use super::{Cost, Outcome, Programs, SendGroup, Time};
use crate::collective::Combines;
use crate::data::Placement;
use crate::schedule::{Op, Span};
use smallvec::SmallVec;
use std::cell::RefCell;
use std::collections::VecDeque;

/// How a message is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sent {
    /// Non-blocking, from the buffer.
    Isend,
    /// Blocking, from the buffer.
    Send,
    /// Blocking, a received partial result as it came.
    Partial,
}

/// A message in flight, waiting to be matched with a receive.
#[derive(Clone, Copy, Debug)]
struct Message<T> {
    bytes: Span,
    arrival_us: T,
    /// A reduction's message: what it carries (index into the simulator's
    /// contents); `NO_CONTENT` for a broadcast.
    content: u32,
}

const NO_CONTENT: u32 = u32::MAX;

/// A posted receive; `done_us` is set once matched.
#[derive(Clone, Copy, Debug)]
struct RecvSlot<T> {
    peer: u32,
    bytes: Span,
    posted_us: T,
    done_us: Option<T>,
    /// A partial result to combine rather than bytes to store.
    partial: bool,
    content: u32,
}

/// Messages from one peer, in order, and receives posted for it, in order.
#[derive(Debug)]
struct Inbox<T> {
    peer: u32,
    unmatched_msgs: Fifo<Message<T>>,
    /// Indices into the rank's slots, oldest first.
    unmatched_slots: Fifo<usize>,
}

/// A first-in first-out queue that holds its first two items inline.
/// Every rank of every priced broadcast has a few such queues, almost
/// always short and soon empty; `VecDeque` allocated each of them (much of
/// a fit's time went to the allocator). A head index over smallvec's
/// `SmallVec` is all a queue that is emptied often needs; we found no
/// well-kept crate with an inline-storage deque.
#[derive(Debug)]
struct Fifo<T> {
    items: SmallVec<[T; 2]>,
    /// Items before it were taken.
    head: usize,
}

impl<T: Copy> Fifo<T> {
    fn new() -> Self {
        Fifo {
            items: SmallVec::new(),
            head: 0,
        }
    }

    fn push_back(&mut self, item: T) {
        self.items.push(item);
    }

    fn front(&self) -> Option<&T> {
        self.items.get(self.head)
    }

    fn pop_front(&mut self) -> Option<T> {
        let item = *self.items.get(self.head)?;
        self.head += 1;
        if self.head == self.items.len() {
            // Empty again: reuse the room from the start.
            self.items.clear();
            self.head = 0;
        }
        Some(item)
    }

    fn is_empty(&self) -> bool {
        self.head == self.items.len()
    }
}

#[derive(Debug)]
struct RankState<T> {
    started: bool,
    ops: Vec<Op>,
    pc: usize,
    clock: T,
    port_free: T,
    sends_done: T,
    /// Most ranks of most broadcasts post one or two receives: inline, so
    /// that pricing millions of runs does not allocate one list per rank.
    slots: SmallVec<[RecvSlot<T>; 2]>,
    /// Posted receives not yet waited for, oldest first (indices into slots).
    pending: Fifo<usize>,
    /// Few per rank: a broadcast receives from one or two peers.
    inboxes: SmallVec<[Inbox<T>; 1]>,
    held: Intervals,
    open_group: Option<SendGroup>,
    /// The posted request of a blocking receive still waiting.
    blocked_on: Option<usize>,
    /// A reduction's buffer.
    acc: Pieces,
    /// Partial results received and not combined yet: (peer, bytes,
    /// content).
    partials: Vec<(u32, Span, u32)>,
    /// In a barrier, the ranks this rank has heard from, a bit each.
    heard: Vec<u64>,
    /// Whether the rank is in the run queue.
    queued: bool,
}

impl<T: Time> RankState<T> {
    fn new(spare: &mut Spare) -> Self {
        RankState {
            started: false,
            ops: spare.ops.pop().unwrap_or_default(),
            pc: 0,
            clock: T::zero(),
            port_free: T::zero(),
            sends_done: T::zero(),
            slots: SmallVec::new(),
            pending: Fifo::new(),
            inboxes: SmallVec::new(),
            held: Intervals(spare.spans.pop().unwrap_or_default()),
            open_group: None,
            blocked_on: None,
            acc: Pieces::default(),
            partials: Vec::new(),
            heard: Vec::new(),
            queued: false,
        }
    }

    fn inbox(&mut self, peer: u32) -> &mut Inbox<T> {
        let i = match self.inboxes.iter().position(|i| i.peer == peer) {
            Some(i) => i,
            None => {
                self.inboxes.push(Inbox {
                    peer,
                    unmatched_msgs: Fifo::new(),
                    unmatched_slots: Fifo::new(),
                });
                self.inboxes.len() - 1
            }
        };
        &mut self.inboxes[i]
    }
}

/// Buffers of the ranks of finished simulations, for the next ones on this
/// thread: pricing simulates millions of broadcasts of up to a thousand
/// ranks each, and a fresh operation list and byte-range list per rank and
/// run spent much of a fit in the allocator.
#[derive(Default)]
struct Spare {
    ops: Vec<Vec<Op>>,
    spans: Vec<Vec<Span>>,
}

impl Spare {
    /// Buffers kept at most (of each kind; a priced run has at most about
    /// 800 ranks), and the largest kept: a rare huge simulation should not
    /// pin its memory (at most ~50 MB per thread).
    const MOST: usize = 1 << 11;
    const LARGEST: usize = 1 << 10;

    fn keep<T>(pool: &mut Vec<Vec<T>>, mut buffer: Vec<T>) {
        if pool.len() < Self::MOST && buffer.capacity() <= Self::LARGEST {
            buffer.clear();
            pool.push(buffer);
        }
    }
}

thread_local! {
    static SPARE: RefCell<Spare> = RefCell::new(Spare::default());
}

pub(super) struct Simulator<'a, C: Cost> {
    schedule: &'a dyn Programs,
    placement: &'a Placement,
    cost: &'a C,
    record: bool,
    ranks: Vec<RankState<C::Time>>,
    runnable: VecDeque<u32>,
    groups: Vec<SendGroup>,
    reduction: Option<Reduction>,
    /// Whether a reduction's contents are followed and checked.
    proving: bool,
    /// What the messages of a reduction carry.
    contents: Vec<Pieces>,
    /// Whether it is a barrier whose ranks' hearing is followed.
    synchronizing: bool,
    /// What the messages of a barrier carry: the ranks the sender had
    /// heard from.
    hearsay: Vec<Vec<u64>>,
}

impl<'a, C: Cost> Simulator<'a, C> {
    pub(super) fn new(
        schedule: &'a dyn Programs,
        placement: &'a Placement,
        cost: &'a C,
        record: bool,
        proving: bool,
    ) -> Self {
        let mut ranks: Vec<RankState<C::Time>> = SPARE.with_borrow_mut(|spare| {
            (0..schedule.procs())
                .map(|_| RankState::new(spare))
                .collect()
        });
        let all = Span {
            start: 0,
            end: schedule.msg_bytes(),
        };
        let reduction = schedule.reduction();
        let synchronizing = schedule.synchronizes() && proving;
        if synchronizing {
            let words = (schedule.procs() as usize).div_ceil(64);
            for (rank, s) in ranks.iter_mut().enumerate() {
                s.heard = vec![0; words];
                s.heard[rank / 64] |= 1 << (rank % 64);
            }
        }
        let runnable = if reduction.is_some() || schedule.synchronizes() {
            // Everyone starts with its contribution (in a barrier, its
            // entry), and leaves send first.
            for (rank, s) in ranks.iter_mut().enumerate() {
                s.acc = Pieces::own(rank as u32, all);
                s.queued = true;
            }
            (0..schedule.procs()).collect()
        } else {
            // Those holding data at the start start; the others when a
            // message reaches them.
            let mut runnable = VecDeque::new();
            for (rank, s) in ranks.iter_mut().enumerate() {
                schedule.holds_at_start(rank as u32, &mut |held| {
                    s.held.insert(held);
                });
                if s.held.total() > 0 {
                    s.queued = true;
                    runnable.push_back(rank as u32);
                }
            }
            runnable
        };
        Simulator {
            schedule,
            placement,
            cost,
            record,
            ranks,
            runnable,
            groups: Vec::new(),
            reduction,
            proving,
            contents: Vec::new(),
            synchronizing,
            hearsay: Vec::new(),
        }
    }

    pub(super) fn run(mut self) -> Result<Outcome<C::Time>, SimError> {
        while let Some(rank) = self.runnable.pop_front() {
            self.ranks[rank as usize].queued = false;
            self.step(rank)?;
        }
        self.finish()
    }

    /// Runs `rank` until it finishes or waits for an unsent message.
    fn step(&mut self, rank: u32) -> Result<(), SimError> {
        let r = rank as usize;
        if !self.ranks[r].started {
            let s = &mut self.ranks[r];
            s.started = true;
            self.schedule.ops_into(rank, &mut s.ops);
            // One slot per receive, allocated once (a long pipeline posts
            // one per segment).
            let receives = s
                .ops
                .iter()
                .filter(|op| {
                    matches!(
                        op,
                        Op::Recv { .. } | Op::Irecv { .. } | Op::IrecvPartial { .. }
                    )
                })
                .count();
            s.slots.reserve_exact(receives);
        }
        while let Some(&op) = self.ranks[r].ops.get(self.ranks[r].pc) {
            match op {
                Op::Isend { peer, bytes } => self.send(rank, peer, bytes, Sent::Isend)?,
                Op::Send { peer, bytes } => self.send(rank, peer, bytes, Sent::Send)?,
                Op::SendPartial { peer, bytes } => self.send(rank, peer, bytes, Sent::Partial)?,
                Op::WaitSends => {
                    let s = &mut self.ranks[r];
                    s.clock = s.clock.later(s.sends_done);
                    self.close_group(rank);
                }
                Op::Irecv { peer, bytes } => {
                    let slot = self.post_recv(rank, peer, bytes, false)?;
                    self.ranks[r].pending.push_back(slot);
                }
                Op::IrecvPartial { peer, bytes } => {
                    let slot = self.post_recv(rank, peer, bytes, true)?;
                    self.ranks[r].pending.push_back(slot);
                }
                Op::Combine { peer, bytes } => self.combine(rank, peer, bytes)?,
                Op::Recv { peer, bytes } => {
                    // A blocking receive: post it once, then wait on that request.
                    let slot = match self.ranks[r].blocked_on.take() {
                        Some(slot) => slot,
                        None => self.post_recv(rank, peer, bytes, false)?,
                    };
                    if !self.complete_recv(rank, slot)? {
                        self.ranks[r].blocked_on = Some(slot);
                        return Ok(());
                    }
                }
                Op::WaitRecv => {
                    let Some(&slot) = self.ranks[r].pending.front() else {
                        return Err(SimError::BadWait {
                            rank,
                            what: "waits for a receive it never posted",
                        });
                    };
                    if !self.complete_recv(rank, slot)? {
                        return Ok(());
                    }
                    self.ranks[r].pending.pop_front();
                }
            }
            self.ranks[r].pc += 1;
        }
        self.close_group(rank);
        Ok(())
    }

    fn send(&mut self, from: u32, to: u32, bytes: Span, how: Sent) -> Result<(), SimError> {
        let s = &mut self.ranks[from as usize];
        let mut content = NO_CONTENT;
        if let Some(reduction) = self.reduction.filter(|_| self.proving) {
            let pieces = if how == Sent::Partial {
                // A received partial result, passed on as it came.
                let Some(&(_, _, held)) = s.partials.iter().rev().find(|p| p.1 == bytes) else {
                    return Err(SimError::BadWait {
                        rank: from,
                        what: "sends on a partial result it has not received",
                    });
                };
                self.contents[held as usize].clone()
            } else {
                // The partial result moves on with the message (a copy of
                // it where the sender keeps it), each of its places.
                let mut parts = Vec::with_capacity(2);
                self.schedule.pieces(bytes, &mut |piece| parts.push(piece));
                let mut pieces = Pieces::default();
                for part in parts {
                    let part = if reduction.keeps() {
                        s.acc.copy(part)
                    } else {
                        s.acc.take(part)
                    }
                    .map_err(|_| SimError::SendsUnheld { rank: from, bytes })?;
                    pieces = pieces.join(part);
                }
                pieces
            };
            content = self.contents.len() as u32;
            self.contents.push(pieces);
        } else if self.synchronizing {
            content = self.hearsay.len() as u32;
            self.hearsay.push(s.heard.clone());
        } else if self.reduction.is_none() {
            let mut held = true;
            self.schedule
                .pieces(bytes, &mut |piece| held &= s.held.contains(piece));
            if !held {
                return Err(SimError::SendsUnheld { rank: from, bytes });
            }
        }
        let (busy, wire) = self.cost.transfer(self.placement, from, to, bytes.len());
        let sent = s.clock.later(s.port_free).plus(busy);
        let end = sent.plus(wire);
        s.port_free = sent;
        s.sends_done = s.sends_done.later(end);
        if self.record {
            match &mut s.open_group {
                Some(g) if g.posted_us == s.clock.value() => g.receivers.push(to),
                _ => {
                    let old = s.open_group.replace(SendGroup {
                        sender: from,
                        posted_us: s.clock.value(),
                        receivers: vec![to],
                        bytes: bytes.len(),
                    });
                    self.groups.extend(old);
                }
            }
        }
        if how != Sent::Isend {
            s.clock = s.clock.later(end);
            self.close_group(from);
        }
        self.deliver(
            from,
            to,
            Message {
                bytes,
                arrival_us: end,
                content,
            },
        )
    }

    /// Folds the oldest waited-for partial result from `peer` into the
    /// buffer; the rank is busy combining.
    fn combine(&mut self, rank: u32, peer: u32, bytes: Span) -> Result<(), SimError> {
        if !self.proving {
            let s = &mut self.ranks[rank as usize];
            s.clock = s.clock.plus(self.cost.combine(bytes.len()));
            return Ok(());
        }
        let ordered = self.reduction.is_some_and(|r| r.ordered);
        let s = &mut self.ranks[rank as usize];
        let found = s
            .partials
            .iter()
            .position(|&(p, b, _)| p == peer && b == bytes);
        let Some(i) = found else {
            return Err(SimError::BadWait {
                rank,
                what: "combines a partial result it has not received",
            });
        };
        let (_, _, content) = s.partials.remove(i);
        let incoming = std::mem::take(&mut self.contents[content as usize]);
        s.acc
            .combine(incoming, ordered)
            .map_err(|clash| SimError::Combine { rank, bytes, clash })?;
        s.clock = s.clock.plus(self.cost.combine(bytes.len()));
        Ok(())
    }

    fn close_group(&mut self, rank: u32) {
        if let Some(g) = self.ranks[rank as usize].open_group.take() {
            self.groups.push(g);
        }
    }

    /// Hands a message to its receiver: matches the oldest receive posted for
    /// this sender, or queues it. Wakes the receiver if that may unblock it.
    fn deliver(&mut self, from: u32, to: u32, msg: Message<C::Time>) -> Result<(), SimError> {
        let receiver = &mut self.ranks[to as usize];
        let inbox = receiver.inbox(from);
        match inbox.unmatched_slots.pop_front() {
            Some(slot) => {
                let slot = &mut receiver.slots[slot];
                if slot.bytes != msg.bytes {
                    return Err(SimError::Mismatch {
                        from,
                        to,
                        sent: msg.bytes,
                        expected: slot.bytes,
                    });
                }
                slot.done_us = Some(slot.posted_us.later(msg.arrival_us));
                slot.content = msg.content;
            }
            None => inbox.unmatched_msgs.push_back(msg),
        }
        if !receiver.queued {
            receiver.queued = true;
            self.runnable.push_back(to);
        }
        Ok(())
    }

    /// Posts a receive, matching an already queued message if there is one.
    fn post_recv(
        &mut self,
        rank: u32,
        peer: u32,
        bytes: Span,
        partial: bool,
    ) -> Result<usize, SimError> {
        let s = &mut self.ranks[rank as usize];
        let index = s.slots.len();
        let clock = s.clock;
        let inbox = s.inbox(peer);
        let mut content = NO_CONTENT;
        let done_us = match inbox.unmatched_msgs.pop_front() {
            Some(msg) if msg.bytes != bytes => {
                return Err(SimError::Mismatch {
                    from: peer,
                    to: rank,
                    sent: msg.bytes,
                    expected: bytes,
                })
            }
            Some(msg) => {
                content = msg.content;
                Some(clock.later(msg.arrival_us))
            }
            None => {
                inbox.unmatched_slots.push_back(index);
                None
            }
        };
        s.slots.push(RecvSlot {
            peer,
            bytes,
            posted_us: clock,
            done_us,
            partial,
            content,
        });
        Ok(index)
    }

    /// Completes a receive if its message came: advances the clock and takes
    /// the bytes. Returns false if the rank must wait.
    fn complete_recv(&mut self, rank: u32, slot: usize) -> Result<bool, SimError> {
        let s = &mut self.ranks[rank as usize];
        // Fields by reference: a symbolic time is hundreds of bytes.
        let RecvSlot {
            bytes,
            done_us,
            partial,
            content,
            peer,
            ..
        } = &s.slots[slot];
        let (bytes, partial, content, peer) = (*bytes, *partial, *content, *peer);
        let Some(done) = done_us else {
            return Ok(false);
        };
        s.clock = s.clock.later(*done);
        self.close_group(rank);
        let s = &mut self.ranks[rank as usize];
        if self.synchronizing {
            let told = &self.hearsay[content as usize];
            s.heard.iter_mut().zip(told).for_each(|(h, t)| *h |= t);
        } else if self.reduction.is_none() {
            let mut fresh = true;
            self.schedule
                .pieces(bytes, &mut |piece| fresh &= s.held.insert(piece));
            if !fresh {
                return Err(SimError::Duplicate { rank, bytes });
            }
        } else if self.proving && partial {
            s.partials.push((peer, bytes, content));
        } else if self.proving {
            let incoming = std::mem::take(&mut self.contents[content as usize]);
            if self.reduction.is_some_and(|r| r.keeps()) {
                s.acc.overwrite(incoming);
            } else {
                s.acc
                    .store(incoming)
                    .map_err(|clash| SimError::Combine { rank, bytes, clash })?;
            }
        }
        Ok(true)
    }

    fn finish(mut self) -> Result<Outcome<C::Time>, SimError> {
        let mut waiting = Vec::new();
        for rank in 0..self.schedule.procs() {
            let s = &mut self.ranks[rank as usize];
            if !s.started {
                // Never reached by any message: fine only if it has nothing to do.
                self.schedule.ops_into(rank, &mut s.ops);
            }
            if let Some(op) = s.ops.get(s.pc) {
                let peer = match *op {
                    Op::Recv { peer, .. } | Op::Irecv { peer, .. } => peer,
                    _ => s.pending.front().map_or(rank, |&i| s.slots[i].peer),
                };
                waiting.push((rank, peer));
            }
        }
        if !waiting.is_empty() {
            return Err(SimError::Deadlock(waiting));
        }
        for (rank, s) in self.ranks.iter().enumerate() {
            if !s.pending.is_empty() {
                return Err(SimError::BadWait {
                    rank: rank as u32,
                    what: "posted a receive it never waited for",
                });
            }
            for inbox in &s.inboxes {
                if let Some(msg) = inbox.unmatched_msgs.front() {
                    return Err(SimError::UnmatchedSend {
                        from: inbox.peer,
                        to: rank as u32,
                        bytes: msg.bytes,
                    });
                }
            }
            if self.synchronizing {
                let p = self.schedule.procs();
                let heard: u32 = s.heard.iter().map(|w| w.count_ones()).sum();
                if heard < p {
                    return Err(SimError::LeftEarly {
                        rank: rank as u32,
                        unheard: (0..p)
                            .find(|r| s.heard[*r as usize / 64] & (1 << (r % 64)) == 0)
                            .unwrap_or(0),
                    });
                }
            } else if self.reduction.is_some() {
                if self.proving {
                    self.check_reduced(rank as u32, s)?;
                }
            } else if let Some(needed) = Some(self.schedule.needs_at_end(rank as u32))
                .filter(|&needed| !s.held.contains(needed))
            {
                return Err(SimError::Missing {
                    rank: rank as u32,
                    held: s.held.overlap(needed),
                    expected: needed.len(),
                });
            }
        }
        Ok(Outcome {
            completion_us: self.ranks.iter().map(|s| s.clock).collect(),
            groups: std::mem::take(&mut self.groups),
        })
    }
}

impl<C: Cost> Simulator<'_, C> {
    /// A reduction's end: the root (every rank, for allreduce) holds every
    /// contribution in every byte, every other rank passed all it held on
    /// (a reduce-scatter: each rank holds every contribution in every byte
    /// of its block, whatever it holds elsewhere), nothing was left
    /// uncombined.
    fn check_reduced(&self, rank: u32, s: &RankState<C::Time>) -> Result<(), SimError> {
        let p = self.schedule.procs();
        let result = self.reduction.map(|r| r.result);
        let (holds_result, block) = match result {
            Some(Combines::BlockAtEachRank) => (true, self.schedule.needs_at_end(rank)),
            Some(Combines::AtEveryRank) => (true, self.whole()),
            _ => (rank == self.schedule.root(), self.whole()),
        };
        if !s.partials.is_empty() {
            return Err(SimError::BadWait {
                rank,
                what: "received a partial result it never combined",
            });
        }
        let mut acc = s.acc.clone();
        if result == Some(Combines::BlockAtEachRank) {
            acc.keep_only(block);
        }
        let (mut at, m) = (block.start, block.end);
        for (span, ranks) in acc.iter() {
            let complete = holds_result && span.start == at && ranks.is_all(p);
            if !complete {
                return Err(SimError::Unfinished {
                    rank,
                    bytes: *span,
                    contributions: ranks.len(),
                });
            }
            at = span.end;
        }
        if holds_result && at != m {
            return Err(SimError::Unfinished {
                rank,
                bytes: Span { start: at, end: m },
                contributions: 0,
            });
        }
        Ok(())
    }
}

impl<C: Cost> Simulator<'_, C> {
    fn whole(&self) -> Span {
        Span {
            start: 0,
            end: self.schedule.msg_bytes(),
        }
    }
}

impl<C: Cost> Drop for Simulator<'_, C> {
    fn drop(&mut self) {
        SPARE.with_borrow_mut(|spare| {
            for s in &mut self.ranks {
                Spare::keep(&mut spare.ops, std::mem::take(&mut s.ops));
                Spare::keep(&mut spare.spans, std::mem::take(&mut s.held.0));
            }
        });
    }
}

/// Disjoint byte ranges, sorted, adjacent ones merged.
#[derive(Clone, Debug, Default)]
pub(super) struct Intervals(pub(super) Vec<Span>);

impl Intervals {
    /// Adds `s`; false if it overlaps what is already there.
    pub(super) fn insert(&mut self, s: Span) -> bool {
        if s.is_empty() {
            return true;
        }
        let v = &mut self.0;
        // Index of the first range ending after s starts.
        let i = v.partition_point(|r| r.end <= s.start);
        if i < v.len() && v[i].start < s.end {
            return false;
        }
        let joins_left = i > 0 && v[i - 1].end == s.start;
        let joins_right = i < v.len() && v[i].start == s.end;
        match (joins_left, joins_right) {
            (true, true) => {
                v[i - 1].end = v[i].end;
                v.remove(i);
            }
            (true, false) => v[i - 1].end = s.end,
            (false, true) => v[i].start = s.start,
            (false, false) => v.insert(i, s),
        }
        true
    }

    pub(super) fn contains(&self, s: Span) -> bool {
        if s.is_empty() {
            return true;
        }
        let i = self.0.partition_point(|r| r.end <= s.start);
        i < self.0.len() && self.0[i].start <= s.start && s.end <= self.0[i].end
    }

    pub(super) fn total(&self) -> u64 {
        self.0.iter().map(Span::len).sum()
    }

    /// How many bytes of `s` are held.
    pub(super) fn overlap(&self, s: Span) -> u64 {
        self.0
            .iter()
            .map(|r| r.end.min(s.end).saturating_sub(r.start.max(s.start)))
            .sum()
    }
}
