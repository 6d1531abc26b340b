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

/// Parameters per link, in the order of [`link_to`] (see [`Link`]).
pub const PER_LINK: usize = 5;
/// Per knot: shared memory, then network.
pub const PER_KNOT: usize = 2 * PER_LINK;
/// Doublings of message size between knots.
pub const OCTAVES: u32 = 4;
/// Knots at 1 B, 16 B, ..., 256 MiB.
pub const KNOTS: usize = 8;
/// Parameters of a platform.
pub const WIDTH: usize = KNOTS * PER_KNOT;

/// The links at each knot.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Platform {
    /// Message size of each knot, bytes.
    pub knot_bytes: Vec<u64>,
    pub shm: Vec<Link>,
    pub net: Vec<Link>,
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
    let x = (bytes.max(1) as f64).log2() / f64::from(OCTAVES);
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
        }
    }

    /// All parameters: per knot, shared memory's then network's.
    pub fn to_vec(&self) -> Vec<f64> {
        (0..KNOTS)
            .flat_map(|k| {
                link_to(&self.shm[k])
                    .into_iter()
                    .chain(link_to(&self.net[k]))
            })
            .collect()
    }

    pub fn from_slice(v: &[f64]) -> Platform {
        let mut p = Platform::uniform(Link::default(), Link::default());
        for k in 0..KNOTS {
            let at = k * PER_KNOT;
            p.shm[k] = link_from(&v[at..at + PER_LINK]);
            p.net[k] = link_from(&v[at + PER_LINK..at + PER_KNOT]);
        }
        p
    }

    /// A well-formed platform: one link per knot on each channel.
    pub fn is_complete(&self) -> bool {
        self.knot_bytes.len() == KNOTS && self.shm.len() == KNOTS && self.net.len() == KNOTS
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

impl Time for Priced {
    fn zero() -> Priced {
        Priced::default()
    }
    fn value(&self) -> f64 {
        self.value
    }
    fn plus(mut self, other: Priced) -> Priced {
        self.value += other.value;
        for (t, o) in self.terms.iter_mut().zip(other.terms) {
            *t += o;
        }
        self
    }
    fn scale(mut self, k: f64) -> Priced {
        self.value *= k;
        for t in &mut self.terms {
            *t *= k;
        }
        self
    }
}

/// A platform run symbolically.
pub struct Symbolic<'a>(pub &'a Platform);

impl Cost for Symbolic<'_> {
    type Time = Priced;
    fn transfer(&self, placement: &Placement, from: u32, to: u32, bytes: u64) -> (Priced, Priced) {
        let (busy, wire) = self.0.transfer(placement, from, to, bytes);
        let at = if placement.crosses_nodes(from, to) {
            PER_LINK
        } else {
            0
        };
        let b = bytes as f64;
        let far = b * placement.doublings_apart(from, to);
        let mut sender = Priced {
            value: busy,
            ..Priced::default()
        };
        let mut overlap = Priced {
            value: wire,
            ..Priced::default()
        };
        for (k, w) in knot_weights(bytes) {
            let s = &mut sender.terms[k * PER_KNOT + at..];
            s[0] += w;
            s[1] += w * b;
            let o = &mut overlap.terms[k * PER_KNOT + at..];
            o[2] += w;
            o[3] += w * b;
            o[4] += w * far;
        }
        (sender, overlap)
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
