//! Broadcast trees as Open MPI 4.1 builds them (`coll_base_topo.c`), written
//! from the reference description. Every builder works on virtual ranks
//! v = (rank − root) mod p, so the root is always v = 0, and the result is
//! returned in real ranks.

/// Parent and ordered children of every rank (real ranks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    pub root: u32,
    pub parent: Vec<Option<u32>>,
    /// Every rank's children, rank after rank, in the order the algorithm
    /// sends to them; rank r's are `kids[first[r]..first[r + 1]]`. (One list
    /// for all ranks: a tree is built for every broadcast priced, and a list
    /// per rank was one allocation per rank.)
    kids: Vec<u32>,
    first: Vec<u32>,
}

/// Open MPI's MAXTREEFANOUT: chain counts above it are clamped.
pub const MAX_FANOUT: u32 = 32;

impl Tree {
    /// Builds a tree from a function that appends the children of a
    /// virtual rank.
    fn from_virtual(procs: u32, root: u32, children_of: impl Fn(u32, &mut Vec<u32>)) -> Tree {
        let real = |v: u32| (v + root) % procs;
        let mut parent = vec![None; procs as usize];
        let mut kids = Vec::with_capacity(procs as usize);
        let mut first = Vec::with_capacity(procs as usize + 1);
        for r in 0..procs {
            let v = (r + procs - root) % procs;
            first.push(kids.len() as u32);
            let start = kids.len();
            children_of(v, &mut kids);
            for k in &mut kids[start..] {
                *k = real(*k);
                parent[*k as usize] = Some(r);
            }
        }
        first.push(kids.len() as u32);
        Tree {
            root,
            parent,
            kids,
            first,
        }
    }

    /// The children of `rank`, in the order the algorithm sends to them.
    pub fn children(&self, rank: u32) -> &[u32] {
        let r = rank as usize;
        &self.kids[self.first[r] as usize..self.first[r + 1] as usize]
    }

    /// `chains` chains hanging off the root (Open MPI's `topo_build_chain`):
    /// fewer than 1 becomes 1, more than 32 becomes 32, more than p − 1
    /// becomes p − 1. The p − 1 non-roots form consecutive runs; the first
    /// (p − 1) mod chains runs are one longer than the rest.
    pub fn chain(procs: u32, root: u32, chains: u32) -> Tree {
        let others = procs.saturating_sub(1);
        let k = chains.clamp(1, MAX_FANOUT).min(others.max(1));
        let short = others / k;
        let long_runs = others % k;
        // Run heads in virtual ranks; run i has length short + (i < long_runs).
        let mut heads = Vec::with_capacity(k as usize);
        let mut next = 1;
        for i in 0..k {
            if next < procs {
                heads.push(next);
            }
            next += short + u32::from(i < long_runs);
        }
        let tails: Vec<u32> = heads
            .iter()
            .skip(1)
            .map(|h| h - 1)
            .chain(std::iter::once(procs - 1))
            .collect();
        Tree::from_virtual(procs, root, |v, out| {
            if v == 0 {
                out.extend_from_slice(&heads);
            } else if v + 1 < procs && !tails.contains(&v) {
                out.push(v + 1);
            }
        })
    }

    /// Level-order k-ary tree (`topo_build_tree`): the node at level L
    /// (delta = k^L) has children v + delta·i for i = 1..=k.
    pub fn kary(procs: u32, root: u32, fanout: u32) -> Tree {
        let k = u64::from(fanout.max(2));
        Tree::from_virtual(procs, root, |v, out| {
            // Level of v: smallest L with v < (k^(L+1) − 1)/(k − 1).
            let (mut delta, mut upto) = (1u64, 1u64);
            while u64::from(v) >= upto {
                delta *= k;
                upto += delta;
            }
            out.extend(
                (1..=k)
                    .map(|i| u64::from(v) + delta * i)
                    .take_while(|&c| c < u64::from(procs))
                    .map(|c| c as u32),
            );
        })
    }

    /// Binomial tree (`topo_build_bmtree`, not the in-order variant): the
    /// children of v are v + 2^j for every 2^j above v's highest set bit.
    /// The first child has the largest subtree.
    pub fn binomial(procs: u32, root: u32) -> Tree {
        Tree::from_virtual(procs, root, |v, out| {
            // Smallest power of two above v (1 for the root).
            let mut mask = 1u64 << (u32::BITS - v.leading_zeros());
            while u64::from(v) + mask < u64::from(procs) {
                out.push(v + mask as u32);
                mask <<= 1;
            }
        })
    }

    /// k-nomial tree (`topo_build_kmtree`): v hangs below the multiple of
    /// radix·m it rounds down to, where m is the smallest radix power with
    /// v mod radix·m ≠ 0; children for each lower power m, largest first,
    /// are v + r·m for r = 1..radix.
    pub fn knomial(procs: u32, root: u32, radix: u32) -> Tree {
        let radix = u64::from(radix.max(2));
        let p = u64::from(procs);
        Tree::from_virtual(procs, root, |v, out| {
            let v = u64::from(v);
            let mut mask = 1;
            while mask < p && v % (radix * mask) == 0 {
                mask *= radix;
            }
            mask /= radix;
            while mask > 0 {
                out.extend(
                    (1..radix)
                        .map(|r| v + r * mask)
                        .filter(|&c| c < p)
                        .map(|c| c as u32),
                );
                mask /= radix;
            }
        })
    }

    /// The binomial tree reduce uses (`topo_build_in_order_bmtree`): v's
    /// parent is v with its lowest set bit cleared, its children v + 2^j for
    /// every 2^j below that bit, smallest first (the root: every 2^j < p).
    pub fn in_order_binomial(procs: u32, root: u32) -> Tree {
        Tree::from_virtual(procs, root, |v, out| {
            let below = if v == 0 {
                u64::MAX
            } else {
                1u64 << v.trailing_zeros()
            };
            let mut mask = 1u64;
            while mask < below && u64::from(v) + mask < u64::from(procs) {
                out.push(v + mask as u32);
                mask <<= 1;
            }
        })
    }

    /// In-order binary tree (`topo_build_in_order_bintree`), always rooted
    /// at rank p − 1: a subtree of ranks [lo, lo + n) has its top at
    /// lo + n − 1, its first child tops the upper ranks
    /// [lo + ⌊n/2⌋, lo + n − 1) and its second the lower ones
    /// [lo, lo + ⌊n/2⌋). Every rank's subtree is a run of consecutive ranks
    /// ending with it, so combining a child's partial result in front of
    /// one's own keeps rank order.
    pub fn in_order_binary(procs: u32) -> Tree {
        let mut children = vec![Vec::new(); procs as usize];
        // Subtrees still to split, as (lo, n); a stack, not recursion: a
        // deep enough tree of a large communicator would not need it, but
        // nothing is gained by recursing.
        let mut todo = vec![(0u32, procs)];
        while let Some((lo, n)) = todo.pop() {
            let top = (lo + n - 1) as usize;
            let right = n / 2;
            if n == 2 {
                children[top].push(lo);
            } else if n > 2 {
                let upper = (lo + right, n - right - 1);
                let lower = (lo, right);
                children[top].push(upper.0 + upper.1 - 1);
                children[top].push(lower.0 + lower.1 - 1);
                todo.extend([upper, lower]);
            }
        }
        let last = procs.saturating_sub(1);
        // from_virtual numbers from the root: rank p − 1 is virtual 0.
        Tree::from_virtual(procs, last, |v, out| {
            let rank = (v + last) % procs;
            out.extend(
                children[rank as usize]
                    .iter()
                    .map(|&c| (c + procs - last) % procs),
            );
        })
    }

    pub fn procs(&self) -> u32 {
        self.parent.len() as u32
    }

    /// Edges from the root to the deepest rank (level by level: a chain
    /// of thousands of ranks would overflow a recursion).
    pub fn depth(&self) -> u32 {
        let mut level = vec![self.root];
        let mut depth = 0;
        loop {
            let next: Vec<u32> = level
                .iter()
                .flat_map(|&r| self.children(r).iter().copied())
                .collect();
            if next.is_empty() {
                return depth;
            }
            depth += 1;
            level = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kids(t: &Tree, r: u32) -> Vec<u32> {
        t.children(r).to_vec()
    }

    #[test]
    fn reference_chain_example() {
        let t = Tree::chain(10, 0, 4);
        assert_eq!(kids(&t, 0), [1, 4, 6, 8]);
        assert_eq!(kids(&t, 1), [2]);
        assert_eq!(kids(&t, 2), [3]);
        assert_eq!(kids(&t, 3), Vec::<u32>::new());
        assert_eq!(kids(&t, 4), [5]);
        assert_eq!(kids(&t, 5), Vec::<u32>::new());
        assert_eq!(kids(&t, 8), [9]);
        // 9 non-roots in 4 chains of lengths 3, 2, 2, 2; clamps.
        assert_eq!(kids(&Tree::chain(3, 0, 8), 0), [1, 2]);
        assert_eq!(kids(&Tree::chain(4, 0, 0), 0), [1]);
        assert_eq!(kids(&Tree::chain(40, 0, 64), 0).len(), 32);
    }

    #[test]
    fn reference_binary_example() {
        let t = Tree::kary(10, 0, 2);
        let expect: [&[u32]; 10] = [
            &[1, 2],
            &[3, 5],
            &[4, 6],
            &[7],
            &[8],
            &[9],
            &[],
            &[],
            &[],
            &[],
        ];
        for (r, e) in expect.iter().enumerate() {
            assert_eq!(kids(&t, r as u32), *e, "rank {r}");
        }
    }

    #[test]
    fn reference_binomial_example() {
        let t = Tree::binomial(8, 0);
        assert_eq!(kids(&t, 0), [1, 2, 4]);
        assert_eq!(kids(&t, 1), [3, 5]);
        assert_eq!(kids(&t, 2), [6]);
        assert_eq!(kids(&t, 3), [7]);
        assert_eq!(t.parent[6], Some(2));
    }

    #[test]
    fn reference_knomial_examples() {
        let t = Tree::knomial(10, 0, 4);
        assert_eq!(kids(&t, 0), [4, 8, 1, 2, 3]);
        assert_eq!(kids(&t, 4), [5, 6, 7]);
        assert_eq!(kids(&t, 8), [9]);
        let t = Tree::knomial(10, 0, 2);
        assert_eq!(kids(&t, 0), [8, 4, 2, 1]);
        assert_eq!(kids(&t, 4), [6, 5]);
        assert_eq!(kids(&t, 6), [7]);
        let t = Tree::knomial(10, 0, 3);
        assert_eq!(kids(&t, 0), [9, 3, 6, 1, 2]);
        assert_eq!(kids(&t, 3), [4, 5]);
        assert_eq!(kids(&t, 6), [7, 8]);
    }

    #[test]
    fn reference_in_order_trees() {
        // Reduce's binomial tree: 0 ← {1, 2, 4}, 2 ← {3}, 4 ← {5, 6}, 6 ← {7}.
        let t = Tree::in_order_binomial(8, 0);
        assert_eq!(kids(&t, 0), [1, 2, 4]);
        assert_eq!(kids(&t, 1), Vec::<u32>::new());
        assert_eq!(kids(&t, 4), [5, 6]);
        assert_eq!(kids(&t, 6), [7]);
        assert_eq!(kids(&Tree::in_order_binomial(8, 3), 7), [0, 1]);
        // In-order binary of 7: 6 ← {5, 2}, 5 ← {4, 3}, 2 ← {1, 0}.
        let t = Tree::in_order_binary(7);
        assert_eq!(t.root, 6);
        assert_eq!(kids(&t, 6), [5, 2]);
        assert_eq!(kids(&t, 5), [4, 3]);
        assert_eq!(kids(&t, 2), [1, 0]);
        assert_eq!(kids(&Tree::in_order_binary(2), 1), [0]);
        // 4 ranks: 3 ← {2, 1}, 1 ← {0}.
        let t = Tree::in_order_binary(4);
        assert_eq!(kids(&t, 3), [2, 1]);
        assert_eq!(kids(&t, 1), [0]);
    }

    #[test]
    fn any_root_shifts_virtual_ranks() {
        let t = Tree::binomial(8, 5);
        assert_eq!(t.parent[5], None);
        assert_eq!(kids(&t, 5), [6, 7, 1]);
        assert_eq!(kids(&t, 6), [0, 2]);
    }

    #[test]
    fn every_tree_spans_all_ranks_once() {
        for p in 1..70 {
            for root in [0, p / 2, p - 1] {
                for t in [
                    Tree::chain(p, root, 3),
                    Tree::kary(p, root, 2),
                    Tree::binomial(p, root),
                    Tree::knomial(p, root, 3),
                    Tree::in_order_binomial(p, root),
                    Tree::in_order_binary(p),
                ] {
                    let root = t.root;
                    let mut seen = vec![0; p as usize];
                    for r in 0..p {
                        for &k in t.children(r) {
                            seen[k as usize] += 1;
                        }
                    }
                    seen[root as usize] += 1;
                    assert!(seen.iter().all(|&n| n == 1), "p={p} root={root} {t:?}");
                }
            }
        }
    }
}
