//! Exact k-nearest-neighbour search in a k-d tree, for the `knn` learner.
//!
//! Hand-written because selection queries one KNN model per candidate (33
//! in the shipped model) and no crate fits: smartcore's cover tree took
//! ~7 µs per query on the shipped model (experiments/benchmarks.md); of the
//! k-d tree crates, `kiddo` splits dimensions round-robin (wasted on the
//! constant columns benchmark features have) and `kdtree` allocates per
//! query; both took 3–10 µs per query in a one-off trial on a 2,300-point
//! grid of 11 columns (a scratch program, not kept). This tree splits the
//! widest dimension at its median, prunes cells by the distance to their
//! bounding boxes (tight where the query lies outside the data, as a job
//! size never measured does), and keeps a query's state on the stack.
//! `knn`'s tests check it returns smartcore's neighbours.

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

/// Points in leaf order with their targets, and the tree over them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Unchecked")]
pub struct KdTree {
    width: usize,
    /// Row-major, `width` values per point padded with zeros to
    /// [`stride`] (whole SIMD lanes).
    points: Vec<f64>,
    targets: Vec<f64>,
    nodes: Vec<Node>,
    /// Each node's bounding box: per node, the smallest then the largest
    /// value of each column over its points, padded like the points.
    /// Derived from the rest, so recomputed on load rather than stored.
    #[serde(skip)]
    boxes: Vec<f64>,
}

/// Node 0 is the root. Children always come after their parent.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
enum Node {
    /// Points `start..end`.
    Leaf { start: u32, end: u32 },
    /// The points split at the median of their widest column.
    Split { left: u32, right: u32 },
}

const LEAF: usize = 8;

impl KdTree {
    /// A tree over `points` (row-major, `width` columns) and their targets.
    /// Columns of a point.
    pub fn width(&self) -> usize {
        self.width
    }

    pub fn new(width: usize, points: &[f64], targets: &[f64]) -> KdTree {
        let mut order: Vec<usize> = (0..targets.len()).collect();
        let mut nodes = Vec::new();
        build(width, points, &mut order, 0, &mut nodes);
        let mut padded = Vec::with_capacity(order.len() * stride(width));
        for &i in &order {
            padded.extend_from_slice(&points[i * width..(i + 1) * width]);
            padded.resize(padded.len() + stride(width) - width, 0.0);
        }
        KdTree {
            boxes: boxes(width, &padded, &nodes),
            width,
            points: padded,
            targets: order.iter().map(|&i| targets[i]).collect(),
            nodes,
        }
    }

    pub fn len(&self) -> usize {
        self.targets.len()
    }

    /// Mean target of the `k` points nearest `query` (Euclidean); ties at
    /// the k-th distance are broken by leaf order. NaN when the tree is
    /// empty or `query` has another width.
    pub fn mean_of_nearest(&self, query: &[f64], k: usize) -> f64 {
        let k = k.min(self.len());
        if k == 0 || query.len() != self.width || self.width > MOST {
            return f64::NAN;
        }
        if self.width == 0 {
            // No column varied in training: every point is as near.
            return self.targets[..k].iter().sum::<f64>() / k as f64;
        }
        let sum: f64 = self
            .nearest(query, k)
            .iter()
            .map(|&(_, i)| self.targets[i as usize])
            .sum();
        sum / k as f64
    }

    /// The `k` points nearest `query` (of the tree's width, at most
    /// [`MOST`] wide), nearest first, with their squared distances; of
    /// points equally far, the first in leaf order.
    fn nearest(&self, query: &[f64], k: usize) -> SmallVec<[(f64, u32); 16]> {
        let mut search = Search {
            query: [0.0; MOST],
            k,
            best: SmallVec::new(),
        };
        search.query[..query.len()].copy_from_slice(query);
        self.search(0, &mut search);
        search.best
    }

    /// Visits `node`'s subtree, the nearer child first, skipping a child
    /// whose bounding box lies beyond the k-th best. Boxes rather than split
    /// planes bound the search: a query beyond the data along one column (a
    /// job larger than any measured) is that far from every cell, which the
    /// planes on its path do not record, and a cell is then pruned by its
    /// distance along the other columns.
    fn search(&self, node: usize, s: &mut Search) {
        match self.nodes[node] {
            Node::Leaf { start, end } => {
                let (start, end) = (start as usize, end as usize);
                let stride = stride(self.width);
                let points = self.points[start * stride..end * stride].chunks_exact(stride);
                for (i, p) in (start..end).zip(points) {
                    let near = (squared_distance(p, &s.query), i as u32);
                    if s.best.len() < s.k || near < s.best[s.k - 1] {
                        let at = s.best.partition_point(|&e| e < near);
                        s.best.insert(at, near);
                        s.best.truncate(s.k);
                    }
                }
            }
            Node::Split { left, right } => {
                let (left, right) = (left as usize, right as usize);
                let l = self.box_distance(left, &s.query);
                let r = self.box_distance(right, &s.query);
                let (near, far) = if l <= r {
                    ((left, l), (right, r))
                } else {
                    ((right, r), (left, l))
                };
                for (child, distance) in [near, far] {
                    // `<=`: an equally far point may come first in leaf order.
                    if s.best.len() < s.k || distance <= s.best[s.k - 1].0 {
                        self.search(child, s);
                    }
                }
            }
        }
    }

    /// Squared distance from `query` to `node`'s bounding box.
    fn box_distance(&self, node: usize, query: &[f64; MOST]) -> f64 {
        let stride = stride(self.width);
        let (lo, hi) = self.boxes[2 * node * stride..2 * (node + 1) * stride].split_at(stride);
        let mut acc = [0.0; LANES];
        for ((lo, hi), q) in lo
            .chunks_exact(LANES)
            .zip(hi.chunks_exact(LANES))
            .zip(query.chunks_exact(LANES))
        {
            for l in 0..LANES {
                let d = (lo[l] - q[l]).max(q[l] - hi[l]).max(0.0);
                acc[l] += d * d;
            }
        }
        (acc[0] + acc[1]) + (acc[2] + acc[3])
    }
}

/// Widest tree the search takes (features are 11 columns at most).
pub const MOST: usize = 16;
const LANES: usize = 4;

fn stride(width: usize) -> usize {
    width.div_ceil(LANES) * LANES
}

/// Squared Euclidean distance of two points padded to whole lanes, summed
/// in independent lanes (a single running sum waits on every addition).
fn squared_distance(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0; LANES];
    for (x, y) in a.chunks_exact(LANES).zip(b.chunks_exact(LANES)) {
        for l in 0..LANES {
            let d = x[l] - y[l];
            acc[l] += d * d;
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// The bounding boxes of `nodes` over `points` (padded rows in leaf
/// order), as [`KdTree::boxes`] keeps them. Children come after their
/// parent, so a backward pass finds them done.
fn boxes(width: usize, points: &[f64], nodes: &[Node]) -> Vec<f64> {
    let stride = stride(width);
    if stride == 0 {
        return Vec::new(); // no columns: nothing is searched
    }
    let mut boxes = vec![0.0; 2 * stride * nodes.len()];
    for (i, node) in nodes.iter().enumerate().rev() {
        let (mut lo, mut hi) = (vec![f64::INFINITY; stride], vec![f64::NEG_INFINITY; stride]);
        let mut widen = |l: &[f64], h: &[f64]| {
            for d in 0..stride {
                lo[d] = lo[d].min(l[d]);
                hi[d] = hi[d].max(h[d]);
            }
        };
        match *node {
            Node::Leaf { start, end } => {
                for p in points[start as usize * stride..end as usize * stride].chunks_exact(stride)
                {
                    widen(p, p);
                }
            }
            Node::Split { left, right } => {
                for child in [left as usize, right as usize] {
                    let b = &boxes[2 * child * stride..2 * (child + 1) * stride];
                    widen(&b[..stride], &b[stride..]);
                }
            }
        }
        boxes[2 * i * stride..(2 * i + 1) * stride].copy_from_slice(&lo);
        boxes[(2 * i + 1) * stride..2 * (i + 1) * stride].copy_from_slice(&hi);
    }
    boxes
}

/// One query's state.
struct Search {
    /// Padded to whole lanes.
    query: [f64; MOST],
    k: usize,
    /// (squared distance, point), nearest first; k + 1 of them (one
    /// inserted before the farthest is dropped) stay on the stack.
    best: SmallVec<[(f64, u32); 16]>,
}

/// Appends the subtree over `order` (point indices; `offset` is where they
/// start in leaf order) to `nodes`, reordering `order` into leaf order.
fn build(width: usize, points: &[f64], order: &mut [usize], offset: usize, nodes: &mut Vec<Node>) {
    let at = |i: usize, d: usize| points[i * width + d];
    let this = nodes.len();
    let leaf = Node::Leaf {
        start: offset as u32,
        end: (offset + order.len()) as u32,
    };
    nodes.push(leaf);
    if order.len() <= LEAF {
        return;
    }
    let spread = |d: usize| {
        let (lo, hi) = order
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &i| {
                (lo.min(at(i, d)), hi.max(at(i, d)))
            });
        hi - lo
    };
    let Some((dim, widest)) = (0..width)
        .map(|d| (d, spread(d)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
    else {
        return;
    };
    if widest.is_nan() || widest <= 0.0 {
        return; // all points equal: one leaf
    }
    let mid = order.len() / 2;
    order.select_nth_unstable_by(mid, |&a, &b| at(a, dim).total_cmp(&at(b, dim)));
    let (lower, upper) = order.split_at_mut(mid);
    let left = nodes.len();
    build(width, points, lower, offset, nodes);
    let right = nodes.len();
    build(width, points, upper, offset + mid, nodes);
    nodes[this] = Node::Split {
        left: left as u32,
        right: right as u32,
    };
}

/// A tree as read from a model file, before its indices are checked.
#[derive(Deserialize)]
struct Unchecked {
    width: usize,
    points: Vec<f64>,
    targets: Vec<f64>,
    nodes: Vec<Node>,
}

impl TryFrom<Unchecked> for KdTree {
    type Error = String;

    /// Refuses a tree whose indices would send a search out of bounds or
    /// round in circles.
    fn try_from(t: Unchecked) -> Result<KdTree, String> {
        let n = t.targets.len();
        if t.width > MOST || t.points.len() != n * stride(t.width) || t.nodes.is_empty() {
            return Err("k-d tree: points, targets and width disagree".into());
        }
        for (i, node) in t.nodes.iter().enumerate() {
            let ok = match *node {
                Node::Leaf { start, end } => start <= end && end as usize <= n,
                Node::Split { left, right } => {
                    let child = |c: u32| (c as usize) > i && (c as usize) < t.nodes.len();
                    child(left) && child(right)
                }
            };
            if !ok {
                return Err(format!("k-d tree: node {i} is out of bounds"));
            }
        }
        Ok(KdTree {
            boxes: boxes(t.width, &t.points, &t.nodes),
            width: t.width,
            points: t.points,
            targets: t.targets,
            nodes: t.nodes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The k nearest by brute force, with their distances.
    fn brute(points: &[f64], width: usize, q: &[f64], k: usize) -> Vec<f64> {
        let pad = |p: &[f64]| {
            let mut v = p.to_vec();
            v.resize(stride(width), 0.0);
            v
        };
        let mut d: Vec<f64> = points
            .chunks_exact(width)
            .map(|p| squared_distance(&pad(p), &pad(q)))
            .collect();
        d.sort_by(f64::total_cmp);
        d.truncate(k);
        d
    }

    /// Grid data full of repeated coordinates and duplicate points, with
    /// constant columns: the tree finds neighbours at exactly the brute-force
    /// distances, and the mean of their targets when distances are distinct.
    #[test]
    fn finds_the_nearest_points() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let width = 6;
        let mut points = Vec::new();
        for job in 0..40 {
            for size in 0..23 {
                for _copy in 0..2 {
                    let procs = f64::from([2, 3, 4, 8, 16, 24, 32, 64][job % 8]);
                    points.extend([f64::from(size as u8), procs, procs.log2(), 0.0, 0.0]);
                    points.push((job / 8) as f64);
                }
            }
        }
        // Targets tell points apart: each is its squared norm.
        let targets: Vec<f64> = points
            .chunks_exact(width)
            .map(|p| p.iter().map(|v| v * v).sum())
            .collect();
        let tree = KdTree::new(width, &points, &targets);
        for _ in 0..500 {
            let q: Vec<f64> = (0..width)
                .map(|d| match d {
                    3 => 0.0,
                    // A third far outside the data, as an unmeasured job.
                    _ if rng.random_bool(0.3) => rng.random_range(-300.0..600.0),
                    _ => rng.random_range(-1.0..70.0),
                })
                .collect();
            for k in [1, 5, 12] {
                let found: Vec<f64> = tree.nearest(&q, k).iter().map(|b| b.0).collect();
                assert_eq!(found, brute(&points, width, &q, k), "k = {k}, query {q:?}");
            }
        }
        let origin = [0.0; 6];
        let mean = tree.mean_of_nearest(&origin, 1);
        assert_eq!(mean, 5.0, "the point (0, 2, 1, 0, 0, 0)");
        assert!(tree.mean_of_nearest(&[0.0; 5], 1).is_nan(), "wrong width");
    }

    #[test]
    fn without_columns_every_point_is_as_near() {
        let tree = KdTree::new(0, &[], &[1.0, 2.0, 3.0, 6.0]);
        assert_eq!(tree.mean_of_nearest(&[], 2), 1.5);
        assert_eq!(tree.mean_of_nearest(&[], 9), 3.0);
        let json = serde_json::to_string(&tree).unwrap();
        assert_eq!(serde_json::from_str::<KdTree>(&json).unwrap(), tree);
    }

    #[test]
    fn a_corrupt_tree_is_refused_on_load() {
        let tree = KdTree::new(1, &[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]);
        let json = serde_json::to_string(&tree).unwrap();
        let back: KdTree = serde_json::from_str(&json).unwrap();
        assert_eq!(back, tree);
        let bad = json.replace("\"end\":3", "\"end\":4");
        let err = serde_json::from_str::<KdTree>(&bad).unwrap_err();
        assert!(err.to_string().contains("out of bounds"), "{err}");
    }
}
