//! The platform the analytical models price on: per channel the cost of a
//! point-to-point message ([`Link`]), as a function of its size. A
//! message's cost is not one straight line from 1 B to megabytes: MPI
//! libraries switch protocols (eager copies through a shared buffer,
//! rendezvous, single-copy transfers) at sizes of their own, each with its
//! own latency and bandwidth. So every link parameter is piecewise linear in
//! log2(size), with knots every [`OCTAVES`] doublings; between knots a
//! message's parameters are interpolated, beyond the outermost knot the
//! data reached they stay constant. The size dependence is of the
//! point-to-point cost only: how the cost grows with the number of ranks
//! comes from the schedules.

use crate::data::Placement;
use crate::sim::{Cost, Link, Time};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;

/// Parameters per link, in the order of `link_to` (see [`Link`]).
pub const PER_LINK: usize = 5;
/// Per knot: shared memory, then network.
pub const PER_KNOT: usize = 2 * PER_LINK;
/// Doublings of message size between knots.
pub const OCTAVES: u32 = 4;
/// Knots at 1 B, 16 B, ..., 256 MiB.
pub const KNOTS: usize = 8;
/// Where the combining costs start in the parameters: after every knot's
/// links, per knot the cost of one combination and of each byte
/// (reductions).
pub const COMBINE_AT: usize = KNOTS * PER_KNOT;
/// Parameters of a platform.
pub const WIDTH: usize = COMBINE_AT + 2 * KNOTS;

/// The links at each knot, and what combining partial results costs there
/// (reductions): per combination — receiving the partial result to
/// combine, which a root taking one from every rank pays p − 1 times — and
/// per byte, a local operation whose speed depends on where the bytes sit
/// in the memory hierarchy, so per knot as well.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Platform {
    /// Message size of each knot, bytes.
    pub knot_bytes: Vec<u64>,
    pub shm: Vec<Link>,
    pub net: Vec<Link>,
    /// µs per combination at each knot; absent (a broadcast model): none.
    #[serde(default)]
    pub combine_us: Vec<f64>,
    /// µs per byte combined at each knot; absent: none.
    #[serde(default)]
    pub combine_us_per_byte: Vec<f64>,
}

fn link_to(l: &Link) -> [f64; PER_LINK] {
    [
        l.send_us,
        l.send_us_per_byte,
        l.wire_us,
        l.wire_us_per_byte,
        l.far_us_per_byte,
    ]
}

fn link_from(v: &[f64]) -> Link {
    Link {
        send_us: v[0],
        send_us_per_byte: v[1],
        wire_us: v[2],
        wire_us_per_byte: v[3],
        far_us_per_byte: v[4],
    }
}

/// Which two knots a message of `bytes` lies between, and the weight of
/// each: piecewise-linear interpolation in log2(size).
pub fn knot_weights(bytes: u64) -> [(usize, f64); 2] {
    let bytes = bytes.max(1);
    // Exact and cheaper for the usual power-of-two sizes (this runs for
    // every simulated message).
    let log2 = if bytes.is_power_of_two() {
        f64::from(bytes.trailing_zeros())
    } else {
        (bytes as f64).log2()
    };
    let x = log2 / f64::from(OCTAVES);
    let last = (KNOTS - 1) as f64;
    if x >= last {
        return [(KNOTS - 1, 1.0), (KNOTS - 1, 0.0)];
    }
    let k = x.floor() as usize;
    let w = x - k as f64;
    [(k, 1.0 - w), (k + 1, w)]
}

impl Platform {
    /// The same link at every knot.
    pub fn uniform(shm: Link, net: Link) -> Platform {
        Platform {
            knot_bytes: (0..KNOTS as u32).map(|k| 1u64 << (k * OCTAVES)).collect(),
            shm: vec![shm; KNOTS],
            net: vec![net; KNOTS],
            combine_us: vec![0.0; KNOTS],
            combine_us_per_byte: vec![0.0; KNOTS],
        }
    }

    /// All parameters: per knot, shared memory's then network's; then the
    /// combining cost at each knot.
    pub fn to_vec(&self) -> Vec<f64> {
        (0..KNOTS)
            .flat_map(|k| {
                link_to(&self.shm[k])
                    .into_iter()
                    .chain(link_to(&self.net[k]))
            })
            .chain((0..KNOTS).flat_map(|k| self.combine(k)))
            .collect()
    }

    /// The combining costs at knot `k`, per combination and per byte (none
    /// where not fitted).
    fn combine(&self, k: usize) -> [f64; 2] {
        let at = |v: &[f64]| v.get(k).copied().unwrap_or(0.0);
        [at(&self.combine_us), at(&self.combine_us_per_byte)]
    }

    /// What combining `bytes` costs, interpolated between knots.
    pub fn combine_cost_us(&self, bytes: u64) -> f64 {
        knot_weights(bytes)
            .iter()
            .map(|&(k, w)| {
                let [op, per_byte] = self.combine(k);
                w * (op + per_byte * bytes as f64)
            })
            .sum()
    }

    pub fn from_slice(v: &[f64]) -> Platform {
        let mut p = Platform::uniform(Link::default(), Link::default());
        for k in 0..KNOTS {
            let at = k * PER_KNOT;
            p.shm[k] = link_from(&v[at..at + PER_LINK]);
            p.net[k] = link_from(&v[at + PER_LINK..at + PER_KNOT]);
        }
        p.combine_us = (0..KNOTS).map(|k| v[COMBINE_AT + 2 * k]).collect();
        p.combine_us_per_byte = (0..KNOTS).map(|k| v[COMBINE_AT + 2 * k + 1]).collect();
        p
    }

    /// A well-formed platform: one link per knot on each channel.
    pub fn is_complete(&self) -> bool {
        self.knot_bytes.len() == KNOTS
            && self.shm.len() == KNOTS
            && self.net.len() == KNOTS
            && matches!(self.combine_us.len(), 0 | KNOTS)
            && matches!(self.combine_us_per_byte.len(), 0 | KNOTS)
    }

    /// The link a message of `bytes` uses on a channel.
    pub fn link(&self, cross_node: bool, bytes: u64) -> Link {
        let links = if cross_node { &self.net } else { &self.shm };
        let [(a, wa), (b, wb)] = knot_weights(bytes);
        let (la, lb) = (link_to(&links[a]), link_to(&links[b]));
        link_from(&std::array::from_fn::<f64, PER_LINK, _>(|i| {
            wa * la[i] + wb * lb[i]
        }))
    }
}

impl Cost for Platform {
    type Time = f64;
    fn transfer(&self, placement: &Placement, from: u32, to: u32, bytes: u64) -> (f64, f64) {
        let link = self.link(placement.crosses_nodes(from, to), bytes);
        link.parts_us(bytes, placement.doublings_apart(from, to))
    }
    fn combine(&self, bytes: u64) -> f64 {
        self.combine_cost_us(bytes)
    }
}

/// A time with the count of each platform parameter it sums
/// ([`Platform::to_vec`] order): a message adds its counts to the knots
/// around its size, weighted as [`knot_weights`] interpolates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Priced {
    pub value: f64,
    pub terms: [f64; WIDTH],
}

impl Default for Priced {
    fn default() -> Priced {
        Priced {
            value: 0.0,
            terms: [0.0; WIDTH],
        }
    }
}

/// Priced times add and scale term by term (a price combines runs, see
/// [`super::price::Recipe`]).
impl Time for Priced {
    fn zero() -> Priced {
        Priced::default()
    }
    fn value(&self) -> f64 {
        self.value
    }
    fn plus(mut self, other: Priced) -> Priced {
        self.value += other.value;
        for (t, o) in self.terms.iter_mut().zip(&other.terms) {
            *t += o;
        }
        self
    }
    fn scale(mut self, k: f64) -> Priced {
        self.value *= k;
        self.terms.iter_mut().for_each(|t| *t *= k);
        self
    }
}

/// A platform run symbolically: times are [`Traced`] in `trace`.
pub struct Symbolic<'a> {
    pub platform: &'a Platform,
    pub trace: &'a Trace,
}

/// How the times of a symbolic run were summed, so that the parameters a
/// time sums are counted once, at the end, for the time asked for
/// ([`Trace::priced`]). Carrying the counts in every time instead (80
/// numbers) made copying them most of a symbolic run's cost.
#[derive(Debug)]
pub struct Trace(RefCell<Vec<Node>>);

thread_local! {
    /// The buffer of the last trace dropped on this thread: a large run's
    /// trace holds millions of steps, and growing a new one for every run
    /// spent much of a fit in the allocator.
    static SPARE: RefCell<Vec<Node>> = const { RefCell::new(Vec::new()) };
}

impl Default for Trace {
    fn default() -> Trace {
        Trace(RefCell::new(SPARE.take()))
    }
}

impl Drop for Trace {
    fn drop(&mut self) {
        let mut nodes = self.0.take();
        nodes.clear();
        SPARE.set(nodes);
    }
}

/// A step of the sums: a message's part (its sender's busy time, or its
/// time in flight), or a combination of earlier steps.
#[derive(Clone, Copy, Debug)]
enum Node {
    Part {
        bytes: u64,
        /// Bytes × doublings apart (what `far_us_per_byte` multiplies).
        far: f64,
        /// Offset of the channel in a knot's parameters.
        channel: u8,
        busy: bool,
    },
    /// Combining `bytes` of partial results.
    Combine {
        bytes: u64,
    },
    Sum(u32, u32),
    Scale(f64, u32),
}

/// A time of a symbolic run: its value, and the step of its [`Trace`] that
/// made it (none for zero).
#[derive(Clone, Copy, Debug)]
pub struct Traced<'a> {
    value: f64,
    step: Option<(u32, &'a Trace)>,
}

impl Trace {
    fn push<'a>(&'a self, value: f64, node: Node) -> Traced<'a> {
        let mut nodes = self.0.borrow_mut();
        nodes.push(node);
        Traced {
            value,
            step: Some((nodes.len() as u32 - 1, self)),
        }
    }

    /// `time` with the count of each parameter it sums; empties the trace
    /// (the times it holds are not to be used again).
    pub fn priced(&self, time: Traced) -> Priced {
        let mut priced = Priced {
            value: time.value,
            ..Priced::default()
        };
        let mut nodes = self.0.borrow_mut();
        let Some((last, _)) = time.step else {
            nodes.clear();
            return priced;
        };
        // Reverse accumulation: each step passes its weight to the steps it
        // was made of (they come earlier); parts add their counts.
        let mut weight = vec![0.0; last as usize + 1];
        weight[last as usize] = 1.0;
        for i in (0..=last as usize).rev() {
            let w = weight[i];
            if w == 0.0 {
                continue;
            }
            match nodes[i] {
                Node::Sum(a, b) => {
                    weight[a as usize] += w;
                    weight[b as usize] += w;
                }
                Node::Scale(k, a) => weight[a as usize] += k * w,
                Node::Combine { bytes } => {
                    for (k, kw) in knot_weights(bytes) {
                        priced.terms[COMBINE_AT + 2 * k] += w * kw;
                        priced.terms[COMBINE_AT + 2 * k + 1] += w * kw * bytes as f64;
                    }
                }
                Node::Part {
                    bytes,
                    far,
                    channel,
                    busy,
                } => {
                    let b = bytes as f64;
                    for (k, kw) in knot_weights(bytes) {
                        let t = &mut priced.terms[k * PER_KNOT + channel as usize..];
                        if busy {
                            t[0] += w * kw;
                            t[1] += w * kw * b;
                        } else {
                            t[2] += w * kw;
                            t[3] += w * kw * b;
                            t[4] += w * kw * far;
                        }
                    }
                }
            }
        }
        nodes.clear();
        priced
    }
}

impl<'a> Time for Traced<'a> {
    fn zero() -> Traced<'a> {
        Traced {
            value: 0.0,
            step: None,
        }
    }
    fn value(&self) -> f64 {
        self.value
    }
    fn plus(self, other: Traced<'a>) -> Traced<'a> {
        match (self.step, other.step) {
            (None, _) => other,
            (_, None) => self,
            (Some((a, trace)), Some((b, _))) => {
                trace.push(self.value + other.value, Node::Sum(a, b))
            }
        }
    }
    fn scale(self, k: f64) -> Traced<'a> {
        match self.step {
            None => self,
            Some((a, trace)) => trace.push(k * self.value, Node::Scale(k, a)),
        }
    }
}

impl<'a> Cost for Symbolic<'a> {
    type Time = Traced<'a>;
    fn transfer(
        &self,
        placement: &Placement,
        from: u32,
        to: u32,
        bytes: u64,
    ) -> (Traced<'a>, Traced<'a>) {
        let (busy, wire) = self.platform.transfer(placement, from, to, bytes);
        let channel = if placement.crosses_nodes(from, to) {
            PER_LINK as u8
        } else {
            0
        };
        let far = bytes as f64 * placement.doublings_apart(from, to);
        let part = |busy| Node::Part {
            bytes,
            far,
            channel,
            busy,
        };
        (
            self.trace.push(busy, part(true)),
            self.trace.push(wire, part(false)),
        )
    }
    fn combine(&self, bytes: u64) -> Traced<'a> {
        self.trace.push(
            self.platform.combine_cost_us(bytes),
            Node::Combine { bytes },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knots_interpolate_in_log_size() {
        assert_eq!(knot_weights(1), [(0, 1.0), (1, 0.0)]);
        assert_eq!(knot_weights(16), [(1, 1.0), (2, 0.0)]);
        assert_eq!(knot_weights(4), [(0, 0.5), (1, 0.5)]);
        assert_eq!(knot_weights(1 << 40), [(KNOTS - 1, 1.0), (KNOTS - 1, 0.0)]);
        let mut p = Platform::uniform(Link::overlapped(1.0, 0.0), Link::overlapped(2.0, 0.0));
        p.shm[1].wire_us = 3.0;
        assert_eq!(p.link(false, 4).wire_us, 2.0);
        assert_eq!(p.link(true, 4).wire_us, 2.0);
        assert_eq!(Platform::from_slice(&p.to_vec()), p);
    }
}
