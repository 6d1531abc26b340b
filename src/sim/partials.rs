//! What a reduction's buffers hold: for each byte range, whose
//! contributions have been combined into it. The simulator passes these
//! along with the messages of a reduce or allreduce schedule to prove that
//! the root (every rank, for allreduce) ends with every rank's contribution
//! combined exactly once (and, where the algorithm promises it, in rank
//! order).

use crate::schedule::Span;

/// A set of ranks as sorted, disjoint, non-adjacent half-open runs (a
/// partial result of a tree reduction is a few runs at most).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ranks(Vec<(u32, u32)>);

impl Ranks {
    pub fn single(rank: u32) -> Ranks {
        Ranks(vec![(rank, rank + 1)])
    }

    /// How many ranks.
    pub fn len(&self) -> u32 {
        self.0.iter().map(|(a, b)| b - a).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether these are exactly ranks 0..p.
    pub fn is_all(&self, p: u32) -> bool {
        self.0 == [(0, p)]
    }

    /// The union, or a rank in both.
    fn union(&self, other: &Ranks) -> Result<Ranks, u32> {
        let mut runs: Vec<(u32, u32)> = self.0.iter().chain(&other.0).copied().collect();
        runs.sort_unstable();
        let mut out: Vec<(u32, u32)> = Vec::with_capacity(runs.len());
        for (a, b) in runs {
            match out.last_mut() {
                Some(last) if a < last.1 => return Err(a),
                Some(last) if a == last.1 => last.1 = b,
                _ => out.push((a, b)),
            }
        }
        Ok(Ranks(out))
    }

    /// `self` is one run ending where `after` (one run) starts: combining
    /// `self` in front of `after` keeps rank order.
    fn precedes(&self, after: &Ranks) -> bool {
        matches!((self.0.as_slice(), after.0.as_slice()), ([(_, end)], [(start, _)]) if end == start)
    }
}

/// Byte ranges of one buffer with what each holds, sorted and disjoint;
/// bytes not covered hold nothing (never written, or passed on).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pieces(Vec<(Span, Ranks)>);

/// Why bytes could not be combined or stored.
#[derive(Clone, Debug, PartialEq)]
pub enum Clash {
    /// Some of the bytes hold nothing.
    Uncovered,
    /// Bytes already hold something (a plain receive must not overwrite).
    Occupied,
    /// This rank's contribution would be combined twice.
    Twice(u32),
    /// Combined out of rank order.
    OutOfOrder,
}

impl Pieces {
    /// `rank`'s own contribution over `bytes`.
    pub fn own(rank: u32, bytes: Span) -> Pieces {
        if bytes.is_empty() {
            return Pieces::default();
        }
        Pieces(vec![(bytes, Ranks::single(rank))])
    }

    pub fn iter(&self) -> impl Iterator<Item = &(Span, Ranks)> {
        self.0.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Cuts pieces at `at` so that no piece straddles it.
    fn split_at(&mut self, at: u64) {
        if let Some(i) = self.0.iter().position(|(s, _)| s.start < at && at < s.end) {
            let (span, ranks) = self.0[i].clone();
            self.0[i].0.end = at;
            self.0.insert(
                i + 1,
                (
                    Span {
                        start: at,
                        end: span.end,
                    },
                    ranks,
                ),
            );
        }
    }

    /// Indices of the pieces inside `bytes`, after cutting at its ends.
    fn within(&mut self, bytes: Span) -> std::ops::Range<usize> {
        self.split_at(bytes.start);
        self.split_at(bytes.end);
        let from = self.0.partition_point(|(s, _)| s.end <= bytes.start);
        let to = self.0.partition_point(|(s, _)| s.start < bytes.end);
        from..to
    }

    /// Whether pieces `range` cover `bytes` without a gap.
    fn covers(&self, range: &std::ops::Range<usize>, bytes: Span) -> bool {
        let mut at = bytes.start;
        for (s, _) in &self.0[range.clone()] {
            if s.start != at {
                return false;
            }
            at = s.end;
        }
        at == bytes.end
    }

    /// Removes and returns what `bytes` hold (a send passes them on).
    pub fn take(&mut self, bytes: Span) -> Result<Pieces, Clash> {
        let range = self.within(bytes);
        if !self.covers(&range, bytes) {
            return Err(Clash::Uncovered);
        }
        Ok(Pieces(self.0.drain(range).collect()))
    }

    /// A copy of what `bytes` hold (a send of a rank that keeps them).
    pub fn copy(&mut self, bytes: Span) -> Result<Pieces, Clash> {
        let range = self.within(bytes);
        if !self.covers(&range, bytes) {
            return Err(Clash::Uncovered);
        }
        let copy = Pieces(self.0[range].to_vec());
        self.coalesce();
        Ok(copy)
    }

    /// `self` and `other` (disjoint bytes) together: a message whose
    /// bytes lie in two places of the buffer.
    pub fn join(mut self, other: Pieces) -> Pieces {
        self.0.extend(other.0);
        self.0.sort_by_key(|(s, _)| s.start);
        self.coalesce();
        self
    }

    /// Replaces what `incoming`'s bytes hold by it (a plain receive of a
    /// rank that keeps what it sends).
    pub fn overwrite(&mut self, incoming: Pieces) {
        for (span, ranks) in incoming.0 {
            let range = self.within(span);
            self.0.splice(range, [(span, ranks)]);
        }
        self.coalesce();
    }

    /// Stores `incoming` where nothing is held (a plain receive).
    pub fn store(&mut self, incoming: Pieces) -> Result<(), Clash> {
        for (span, ranks) in incoming.0 {
            let range = self.within(span);
            if !range.is_empty() {
                return Err(Clash::Occupied);
            }
            self.0.insert(range.start, (span, ranks));
        }
        self.coalesce();
        Ok(())
    }

    /// Joins neighbours holding the same ranks: a buffer combined segment
    /// by segment stays a few pieces, however many segments it had.
    fn coalesce(&mut self) {
        self.0.dedup_by(|next, prev| {
            let joins = prev.0.end == next.0.start && prev.1 == next.1;
            if joins {
                prev.0.end = next.0.end;
            }
            joins
        });
    }

    /// Forgets what is held outside `bytes`.
    pub fn keep_only(&mut self, bytes: Span) {
        let range = self.within(bytes);
        self.0.truncate(range.end);
        self.0.drain(..range.start);
    }

    /// Combines `incoming` into what is held there: every byte must hold
    /// something, no rank may be combined twice, and with `ordered` the
    /// incoming ranks must come right before the held ones.
    pub fn combine(&mut self, incoming: Pieces, ordered: bool) -> Result<(), Clash> {
        for (span, ranks) in incoming.0 {
            let range = self.within(span);
            if !self.covers(&range, span) {
                return Err(Clash::Uncovered);
            }
            for (_, held) in &mut self.0[range] {
                if ordered && !ranks.precedes(held) {
                    return Err(Clash::OutOfOrder);
                }
                *held = ranks.union(held).map_err(Clash::Twice)?;
            }
        }
        self.coalesce();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start: u64, end: u64) -> Span {
        Span { start, end }
    }

    #[test]
    fn combining_unions_ranks_and_refuses_a_rank_twice() {
        let mut acc = Pieces::own(2, span(0, 8));
        acc.combine(Pieces::own(1, span(0, 4)), true).unwrap();
        let mut left = acc.clone();
        assert_eq!(left.take(span(0, 4)).unwrap().0[0].1, Ranks(vec![(1, 3)]));
        assert_eq!(left.take(span(0, 4)), Err(Clash::Uncovered));
        assert_eq!(
            acc.combine(Pieces::own(1, span(2, 4)), false),
            Err(Clash::Twice(1))
        );
        // Rank 0 comes right before 1..3 but not before 2 alone.
        let mut ordered = acc.clone();
        assert_eq!(
            ordered.combine(Pieces::own(0, span(0, 8)), true),
            Err(Clash::OutOfOrder)
        );
        let mut ordered = acc.clone();
        assert!(ordered.combine(Pieces::own(0, span(0, 4)), true).is_ok());
    }

    #[test]
    fn copies_keep_the_bytes_and_overwrites_replace_them() {
        let mut acc = Pieces::own(0, span(0, 8));
        let copy = acc.copy(span(2, 6)).unwrap();
        assert_eq!(copy, Pieces(vec![(span(2, 6), Ranks::single(0))]));
        assert_eq!(acc, Pieces::own(0, span(0, 8)));
        assert_eq!(acc.copy(span(4, 10)), Err(Clash::Uncovered));
        acc.overwrite(Pieces::own(1, span(2, 4)));
        let held: Vec<(Span, u32)> = acc.iter().map(|(s, r)| (*s, r.len())).collect();
        assert_eq!(held.len(), 3);
        assert_eq!(acc.copy(span(2, 4)).unwrap(), Pieces::own(1, span(2, 4)));
    }

    #[test]
    fn storing_needs_empty_bytes() {
        let mut acc = Pieces::own(0, span(0, 4));
        assert_eq!(acc.store(Pieces::own(1, span(2, 6))), Err(Clash::Occupied));
        acc.store(Pieces::own(1, span(4, 6))).unwrap();
        assert_eq!(acc.take(span(0, 6)).unwrap().iter().count(), 2);
        assert!(acc.is_empty());
    }
}
