//! Tests of the simulator: every schedule proved, timed and its mistakes
//! caught.

use super::engine::Intervals;
use super::*;
use crate::collective::Combines;
use crate::data::{Algorithm, NodeOrder};
use crate::schedule::{bcast::SCHEDULED, Spec};
use crate::schedule::{Op, Schedule, Span};
use partials::Clash;

fn schedule(algorithm: Algorithm, procs: u32, root: u32, msg: u64, segsize: u64) -> Schedule {
    Schedule::new(Spec {
        collective: crate::data::Collective::Bcast,
        algorithm,
        procs,
        root,
        msg_bytes: msg,
        segsize,
        fanout: None,
    })
    .unwrap()
}

const FLAT: CostModel = CostModel {
    shm: Link::serialized(2.0, 0.01),
    net: Link::serialized(10.0, 0.1),
    combine_us_per_byte: 0.0,
};

/// FLAT's links with every message overlapping the others.
const OVERLAPPED: CostModel = CostModel {
    shm: Link::overlapped(2.0, 0.01),
    net: Link::overlapped(10.0, 0.1),
    combine_us_per_byte: 0.0,
};

#[test]
fn every_algorithm_delivers_on_a_grid() {
    for &algorithm in &SCHEDULED {
        for procs in 1..=17 {
            for root in [0, procs / 3, procs - 1] {
                for (msg, seg) in [
                    (0, 0),
                    (1, 0),
                    (1000, 0),
                    (1000, 64),
                    (1001, 100),
                    (5000, 3),
                ] {
                    let s = schedule(algorithm, procs, root, msg, seg);
                    for nodes in [1, 2, 3].into_iter().filter(|&n| n <= procs) {
                        for order in [NodeOrder::Block, NodeOrder::Cyclic] {
                            let placement =
                                Placement::new(procs, nodes, procs.div_ceil(nodes), order).unwrap();
                            simulate(&s, &placement, &FLAT).unwrap_or_else(|e| {
                                panic!("{algorithm} p={procs} root={root} m={msg} seg={seg}: {e}")
                            });
                        }
                    }
                }
            }
        }
    }
}

fn stages(s: &Schedule) -> usize {
    stage_structure(s, &Placement::single_node(s.spec.procs))
        .unwrap()
        .len()
}

#[test]
fn stage_counts_match_the_papers_formulas_for_complete_trees() {
    let ns = 5u64;
    for p in [2u32, 4, 8, 16, 64] {
        let log2 = p.ilog2() as usize;
        // Pipeline: P + n_s − 2.
        let s = schedule(Algorithm::Pipeline, p, 0, 100 * ns, 100);
        assert_eq!(stages(&s), p as usize + ns as usize - 2, "pipeline p={p}");
        // Binomial: ⌊log2 P⌋ + n_s − 1.
        let s = schedule(Algorithm::Binomial, p, 0, 100 * ns, 100);
        assert_eq!(stages(&s), log2 + ns as usize - 1, "binomial p={p}");
    }
    // Binary, complete trees P = 2^h − 1: ⌊log2 P⌋ + n_s − 1.
    for p in [3u32, 7, 15, 31] {
        let s = schedule(Algorithm::Binary, p, 0, 100 * ns, 100);
        assert_eq!(
            stages(&s),
            p.ilog2() as usize + ns as usize - 1,
            "binary p={p}"
        );
    }
    // K-chain with K | P − 1: ⌊(P − 1)/K⌋ + n_s − 1.
    for (p, k) in [(9u32, 4u32), (13, 3), (17, 2)] {
        let s = Schedule::new(Spec {
            fanout: Some(k),
            ..schedule(Algorithm::Chain, p, 0, 100 * ns, 100).spec
        })
        .unwrap();
        assert_eq!(
            stages(&s),
            ((p - 1) / k) as usize + ns as usize - 1,
            "chain p={p} K={k}"
        );
    }
}

#[test]
fn linear_is_one_stage_with_one_wide_fan_out() {
    let s = schedule(Algorithm::Linear, 6, 0, 64, 0);
    let st = stage_structure(&s, &Placement::single_node(6)).unwrap();
    assert_eq!(st.len(), 1);
    assert_eq!(
        st.stages[0].nbfts,
        [Nbft {
            sender: 0,
            receivers: vec![1, 2, 3, 4, 5],
            cross_node: 0,
            bytes: 64
        }]
    );
}

#[test]
fn stages_count_cross_node_transfers() {
    // Binomial p=8 on 2 nodes of 4 (block): 0→{1,2,4}, only 0→4 crosses.
    let s = schedule(Algorithm::Binomial, 8, 0, 10, 0);
    let placement = Placement::new(8, 2, 4, NodeOrder::Block).unwrap();
    let st = stage_structure(&s, &placement).unwrap();
    assert_eq!(st.len(), 3);
    assert_eq!(
        st.stages[0].nbfts,
        [Nbft {
            sender: 0,
            receivers: vec![1, 2, 4],
            cross_node: 1,
            bytes: 10
        }]
    );
    // Stage 2: 1→{3,5} (5 crosses), 2→{6} (crosses), 4 is a leaf... 4 has no children.
    let second: Vec<(u32, &[u32], u32)> = st.stages[1]
        .nbfts
        .iter()
        .map(|n| (n.sender, &n.receivers[..], n.cross_node))
        .collect();
    assert_eq!(second, [(1, &[3, 5][..], 1), (2, &[6][..], 1)]);
    // Cyclic placement: every edge between an even and an odd rank crosses.
    let cyclic = Placement::new(8, 2, 4, NodeOrder::Cyclic).unwrap();
    let st = stage_structure(&s, &cyclic).unwrap();
    assert_eq!(st.stages[0].nbfts[0].cross_node, 1);
}

#[test]
fn split_binary_sends_halves_down_then_exchanges_them() {
    // p = 7, unsegmented: each non-root gets its half through the tree (6
    // transfers) and the other half from its pair (6 more); every transfer
    // is a blocking send of one 500-byte half. Pairs exchange as soon as
    // both are done, so exchanges spread over several stages.
    let s = schedule(Algorithm::SplitBinary, 7, 0, 1000, 0);
    let st = stage_structure(&s, &Placement::single_node(7)).unwrap();
    let all: Vec<&Nbft> = st.stages.iter().flat_map(|s| &s.nbfts).collect();
    assert_eq!(all.len(), 12);
    assert!(all.iter().all(|n| n.bytes == 500 && n.receivers.len() == 1));
    // Root: blocking sends to its two children are two stages.
    assert_eq!(st.stages[0].nbfts[0].sender, 0);
    assert_eq!(
        st.stages[1].nbfts.iter().filter(|n| n.sender == 0).count(),
        1
    );
}

#[test]
fn pipeline_time_is_stages_times_segment_time() {
    let link = FLAT.shm;
    for cost in [OVERLAPPED, FLAT] {
        let s = schedule(Algorithm::Pipeline, 6, 2, 1000, 100);
        let out = simulate(&s, &Placement::single_node(6), &cost).unwrap();
        let expected = (6.0 + 10.0 - 2.0) * link.time_us(100);
        assert!(
            (out.makespan_us() - expected).abs() < 1e-9,
            "{}",
            out.makespan_us()
        );
    }
}

#[test]
fn serialized_linear_costs_p_minus_one_transfers() {
    let s = schedule(Algorithm::Linear, 5, 0, 1000, 0);
    let out = simulate(&s, &Placement::single_node(5), &FLAT).unwrap();
    assert!((out.makespan_us() - 4.0 * FLAT.shm.time_us(1000)).abs() < 1e-9);
    let out = simulate(&s, &Placement::single_node(5), &OVERLAPPED).unwrap();
    assert!((out.makespan_us() - FLAT.shm.time_us(1000)).abs() < 1e-9);
}

#[test]
fn network_links_cost_more_than_shared_memory() {
    let s = schedule(Algorithm::Binomial, 8, 0, 1 << 16, 8192);
    let one = simulate(&s, &Placement::single_node(8), &FLAT).unwrap();
    let two = simulate(
        &s,
        &Placement::new(8, 2, 4, NodeOrder::Cyclic).unwrap(),
        &FLAT,
    )
    .unwrap();
    assert!(two.makespan_us() > one.makespan_us());
    assert_eq!(
        one.completion_us[0],
        one.completion_us
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
    );
}

/// A hand-written set of programs, to check the verifier itself.
struct Manual {
    procs: u32,
    msg: u64,
    ops: Vec<Vec<Op>>,
    reduction: Option<Reduction>,
}

impl Programs for Manual {
    fn procs(&self) -> u32 {
        self.procs
    }
    fn root(&self) -> u32 {
        0
    }
    fn msg_bytes(&self) -> u64 {
        self.msg
    }
    fn ops_into(&self, rank: u32, ops: &mut Vec<Op>) {
        ops.extend_from_slice(&self.ops[rank as usize]);
    }
    fn reduction(&self) -> Option<Reduction> {
        self.reduction
    }
}

fn run_manual(ops: Vec<Vec<Op>>) -> Result<Outcome, SimError> {
    let procs = ops.len() as u32;
    let m = Manual {
        procs,
        msg: 10,
        ops,
        reduction: None,
    };
    simulate(&m, &Placement::single_node(procs), &FLAT)
}

/// Like `run_manual`, for a reduction to rank 0.
fn reduce_manual(ops: Vec<Vec<Op>>, ordered: bool) -> Result<Outcome, SimError> {
    let procs = ops.len() as u32;
    let m = Manual {
        procs,
        msg: 10,
        ops,
        reduction: Some(Reduction {
            ordered,
            result: Combines::AtRoot,
        }),
    };
    simulate(&m, &Placement::single_node(procs), &REDUCE)
}

/// FLAT, combining at 0.02 µs per byte.
const REDUCE: CostModel = CostModel {
    combine_us_per_byte: 0.02,
    ..FLAT
};

fn reduce_schedule(algorithm: Algorithm, procs: u32, root: u32, msg: u64, seg: u64) -> Schedule {
    Schedule::new(Spec {
        collective: crate::data::Collective::Reduce,
        algorithm,
        procs,
        root,
        msg_bytes: msg,
        segsize: seg,
        fanout: None,
    })
    .unwrap()
}

#[test]
fn every_reduce_algorithm_combines_everything_once_on_a_grid() {
    for &algorithm in crate::schedule::scheduled(crate::data::Collective::Reduce) {
        for procs in 1..=17 {
            for root in 0..procs {
                for (msg, seg) in [
                    (0, 0),
                    (4, 0),
                    (1000, 0),
                    (1000, 64),
                    (1004, 100),
                    (4000, 12),
                ] {
                    let s = reduce_schedule(algorithm, procs, root, msg, seg);
                    for nodes in [1, 3].into_iter().filter(|&n| n <= procs) {
                        let placement =
                            Placement::new(procs, nodes, procs.div_ceil(nodes), NodeOrder::Cyclic)
                                .unwrap();
                        simulate(&s, &placement, &REDUCE).unwrap_or_else(|e| {
                            panic!("{algorithm} p={procs} root={root} m={msg} seg={seg}: {e}")
                        });
                    }
                }
            }
        }
    }
}

#[test]
fn combining_costs_time_on_the_rank_that_combines() {
    let s = reduce_schedule(Algorithm::Linear, 4, 0, 1000, 0);
    let placement = Placement::single_node(4);
    let with = simulate(&s, &placement, &REDUCE).unwrap().makespan_us();
    let without = simulate(&s, &placement, &FLAT).unwrap().makespan_us();
    // The root combines three messages of 1000 bytes in turn.
    assert!(
        (with - without - 3.0 * 1000.0 * 0.02).abs() < 1e-9,
        "{with} {without}"
    );
}

#[test]
fn reduce_verifier_catches_lost_doubled_and_reordered_contributions() {
    let send = |peer, bytes| Op::Send { peer, bytes };
    let partial = |peer, bytes| Op::IrecvPartial { peer, bytes };
    let combine = |peer, bytes| Op::Combine { peer, bytes };
    let wait = Op::WaitRecv;
    let gather = |from: u32| [partial(from, ALL), wait, combine(from, ALL)];
    // Correct: 0 ← 1 ← 2.
    assert!(reduce_manual(
        vec![
            gather(1).to_vec(),
            [gather(2).as_slice(), &[send(0, ALL)]].concat(),
            vec![send(1, ALL)],
        ],
        false
    )
    .is_ok());
    // Rank 2's contribution never reaches the root: rank 1 sends first.
    assert!(matches!(
        reduce_manual(
            vec![
                gather(1).to_vec(),
                vec![send(0, ALL), partial(2, ALL), wait],
                vec![send(1, ALL)],
            ],
            false
        ),
        Err(SimError::Unfinished {
            rank: 0,
            contributions: 2,
            ..
        })
    ));
    // Half the bytes only.
    assert!(matches!(
        reduce_manual(
            vec![
                vec![partial(1, HALF), wait, combine(1, HALF)],
                vec![send(0, HALF)]
            ],
            false
        ),
        Err(SimError::Unfinished { .. })
    ));
    // (A contribution cannot be combined twice: sends pass bytes on, so
    // each contribution exists once; `partials` tests the union itself.)
    // A plain receive overwriting the buffer.
    assert!(matches!(
        reduce_manual(
            vec![
                vec![Op::Recv {
                    peer: 1,
                    bytes: ALL
                }],
                vec![send(0, ALL)]
            ],
            false
        ),
        Err(SimError::Combine {
            rank: 0,
            clash: Clash::Occupied,
            ..
        })
    ));
    // Out of rank order: 0 takes 2 before 1.
    let order = |first: u32, second: u32| {
        let mut ops = vec![vec![], vec![send(0, ALL)], vec![send(0, ALL)]];
        ops[0] = [gather(first).as_slice(), &gather(second)].concat();
        ops
    };
    // Combining in front of the buffer: 0 holds {0}; taking 1 first puts
    // 1 before 0, which is not rank order; taking them in either order is
    // fine when order does not matter.
    assert!(reduce_manual(order(1, 2), false).is_ok());
    assert!(matches!(
        reduce_manual(order(1, 2), true),
        Err(SimError::Combine {
            clash: Clash::OutOfOrder,
            ..
        })
    ));
}

fn allreduce_schedule(algorithm: Algorithm, procs: u32, msg: u64, seg: u64) -> Schedule {
    Schedule::new(Spec {
        collective: crate::data::Collective::Allreduce,
        algorithm,
        procs,
        root: 0,
        msg_bytes: msg,
        segsize: seg,
        fanout: None,
    })
    .unwrap()
}

#[test]
fn every_allreduce_algorithm_gives_every_rank_everything_once_on_a_grid() {
    for &algorithm in crate::schedule::scheduled(crate::data::Collective::Allreduce) {
        for procs in 1..=17 {
            // Sizes below and above p elements and p' elements (the ring's
            // and Rabenseifner's fallbacks), segments giving one phase and
            // many, with and without remainders.
            for (msg, seg) in [
                (0, 0),
                (4, 0),
                (40, 0),
                (1000, 0),
                (1000, 16),
                (1004, 100),
                (4000, 12),
                (4096, 4),
            ] {
                let s = allreduce_schedule(algorithm, procs, msg, seg);
                for nodes in [1, 3].into_iter().filter(|&n| n <= procs) {
                    let placement =
                        Placement::new(procs, nodes, procs.div_ceil(nodes), NodeOrder::Cyclic)
                            .unwrap();
                    simulate(&s, &placement, &REDUCE)
                        .unwrap_or_else(|e| panic!("{algorithm} p={procs} m={msg} seg={seg}: {e}"));
                }
            }
        }
    }
}

#[test]
fn allreduce_verifier_catches_a_rank_left_short_and_a_contribution_twice() {
    let placement = Placement::single_node(6);
    // Recursive doubling with rank 5's last exchange dropped on both sides:
    // 5 and its partner end without half the contributions.
    let s = allreduce_schedule(Algorithm::RecursiveDoubling, 6, 40, 0);
    let mut ops: Vec<Vec<Op>> = (0..6).map(|r| s.ops(r)).collect();
    let Op::IrecvPartial { peer: last, .. } = ops[5][ops[5].len() - 4] else {
        unreachable!("an exchange ends the doubling")
    };
    let drop_exchange = |ops: &mut Vec<Op>, with: u32| {
        let at = ops
            .iter()
            .position(|op| matches!(op, Op::IrecvPartial { peer, .. } if *peer == with))
            .unwrap();
        ops.drain(at..at + 4);
    };
    drop_exchange(&mut ops[5], last);
    drop_exchange(&mut ops[last as usize], 5);
    let m = Manual {
        procs: 6,
        msg: 40,
        ops: ops.clone(),
        reduction: Some(Reduction {
            ordered: false,
            result: Combines::AtEveryRank,
        }),
    };
    assert!(matches!(
        simulate(&m, &placement, &REDUCE),
        Err(SimError::Unfinished { .. })
    ));
    // Ring over 3 ranks whose rank 0 combines its left neighbour's piece a
    // second time instead of taking the finished block: caught as twice.
    let s = allreduce_schedule(Algorithm::Ring, 3, 12, 0);
    let mut ops: Vec<Vec<Op>> = (0..3).map(|r| s.ops(r)).collect();
    let first_plain = ops[0]
        .iter()
        .position(|op| matches!(op, Op::Irecv { .. }))
        .unwrap();
    let Op::Irecv { peer, bytes } = ops[0][first_plain] else {
        unreachable!()
    };
    ops[0][first_plain] = Op::IrecvPartial { peer, bytes };
    ops[0].insert(first_plain + 3, Op::Combine { peer, bytes });
    let m = Manual {
        procs: 3,
        msg: 12,
        ops,
        reduction: Some(Reduction {
            ordered: false,
            result: Combines::AtEveryRank,
        }),
    };
    assert!(matches!(
        simulate(&m, &Placement::single_node(3), &REDUCE),
        Err(SimError::Combine {
            clash: Clash::Twice(_),
            ..
        })
    ));
}

const ALL: Span = Span { start: 0, end: 10 };
const HALF: Span = Span { start: 0, end: 5 };

#[test]
fn verifier_accepts_a_correct_manual_program() {
    let out = run_manual(vec![
        vec![Op::Send {
            peer: 1,
            bytes: ALL,
        }],
        vec![Op::Recv {
            peer: 0,
            bytes: ALL,
        }],
    ]);
    assert!(out.is_ok());
}

#[test]
fn verifier_catches_every_kind_of_mistake() {
    let send = |peer, bytes| Op::Send { peer, bytes };
    let recv = |peer, bytes| Op::Recv { peer, bytes };
    // Rank 1 waits for a message rank 0 never sends.
    assert!(matches!(
        run_manual(vec![vec![], vec![recv(0, ALL)]]),
        Err(SimError::Deadlock(w)) if w == [(1, 0)]
    ));
    // Two ranks each wait for the other first.
    assert!(matches!(
        run_manual(vec![
            vec![],
            vec![recv(2, ALL), send(2, ALL)],
            vec![recv(1, ALL), send(1, ALL)]
        ]),
        Err(SimError::Deadlock(_))
    ));
    // A message nobody receives.
    assert!(matches!(
        run_manual(vec![vec![send(1, ALL), send(1, ALL)], vec![recv(0, ALL)]]),
        Err(SimError::UnmatchedSend { .. })
    ));
    // Sizes disagree.
    assert!(matches!(
        run_manual(vec![vec![send(1, ALL)], vec![recv(0, HALF)]]),
        Err(SimError::Mismatch { .. })
    ));
    // Forwarding before holding.
    assert!(matches!(
        run_manual(vec![
            vec![send(1, ALL)],
            vec![send(2, ALL), recv(0, ALL)],
            vec![recv(1, ALL)]
        ]),
        Err(SimError::SendsUnheld { rank: 1, .. })
    ));
    // The same bytes twice.
    assert!(matches!(
        run_manual(vec![
            vec![send(1, HALF), send(1, HALF)],
            vec![recv(0, HALF), recv(0, HALF)]
        ]),
        Err(SimError::Duplicate { rank: 1, .. })
    ));
    // Half the message only.
    assert!(matches!(
        run_manual(vec![vec![send(1, HALF)], vec![recv(0, HALF)]]),
        Err(SimError::Missing {
            rank: 1,
            held: 5,
            expected: 10
        })
    ));
    // A receive posted and never waited for.
    assert!(matches!(
        run_manual(vec![
            vec![send(1, ALL)],
            vec![Op::Irecv {
                peer: 0,
                bytes: ALL
            }]
        ]),
        Err(SimError::BadWait { rank: 1, .. })
    ));
}

#[test]
fn intervals_merge_and_detect_overlap() {
    let mut i = Intervals::default();
    let s = |a, b| Span { start: a, end: b };
    assert!(i.insert(s(10, 20)));
    assert!(i.insert(s(0, 5)));
    assert!(i.insert(s(5, 10)));
    assert_eq!(i.0, [s(0, 20)]);
    assert!(!i.insert(s(19, 21)));
    assert!(i.insert(s(30, 40)));
    assert!(i.contains(s(3, 17)));
    assert!(!i.contains(s(15, 35)));
    assert_eq!(i.total(), 30);
}

/// Pricing skips following a reduction's contents, never its times.
#[test]
fn timing_without_the_proof_gives_the_same_times() {
    for collective in [
        crate::data::Collective::Reduce,
        crate::data::Collective::Allreduce,
    ] {
        for &algorithm in crate::schedule::scheduled(collective) {
            for (procs, msg, seg) in [(5, 1000, 64), (12, 4096, 0), (16, 40000, 1000)] {
                let s = Schedule::new(Spec {
                    collective,
                    algorithm,
                    procs,
                    root: 1,
                    msg_bytes: msg,
                    segsize: seg,
                    fanout: None,
                })
                .unwrap();
                let placement =
                    Placement::new(procs, 2, procs.div_ceil(2), NodeOrder::Block).unwrap();
                let proved = simulate(&s, &placement, &REDUCE).unwrap();
                let timed = simulate_timing(&s, &placement, &REDUCE).unwrap();
                assert_eq!(
                    proved.completion_us, timed.completion_us,
                    "{collective} {algorithm} p={procs}"
                );
            }
        }
    }
}

/// A schedule of a collective that moves blocks (allgather, alltoall).
fn block_schedule(
    collective: crate::data::Collective,
    algorithm: Algorithm,
    procs: u32,
    block: u64,
) -> Result<Schedule, String> {
    Schedule::new(Spec {
        collective,
        algorithm,
        procs,
        root: 0,
        msg_bytes: block,
        segsize: 0,
        fanout: None,
    })
}

fn allgather_schedule(algorithm: Algorithm, procs: u32, block: u64) -> Result<Schedule, String> {
    block_schedule(crate::data::Collective::Allgather, algorithm, procs, block)
}

fn alltoall_schedule(algorithm: Algorithm, procs: u32, block: u64) -> Result<Schedule, String> {
    block_schedule(crate::data::Collective::Alltoall, algorithm, procs, block)
}

/// Every scheduled algorithm of `collective` on a grid of ranks (1–17),
/// blocks, node counts and orders: every rank ends with what it must, once;
/// two_proc exists on 2 ranks only (and on 1, with nothing to do).
fn every_block_algorithm_delivers_on_a_grid(collective: crate::data::Collective) {
    for &algorithm in crate::schedule::scheduled(collective) {
        for procs in 1..=17 {
            for block in [0, 1, 3, 64, 1000] {
                let Ok(s) = block_schedule(collective, algorithm, procs, block) else {
                    assert!(
                        algorithm == Algorithm::TwoProc && procs > 2,
                        "{algorithm} p={procs}"
                    );
                    continue;
                };
                delivers_everywhere(&s);
            }
        }
    }
}

/// `s` proved on one node and on three, ranks placed by block and
/// cyclically, and every message of it has a place in its ranks' memory.
fn delivers_everywhere(s: &Schedule) {
    let procs = s.spec.procs;
    for nodes in [1, 3].into_iter().filter(|&n| n <= procs) {
        for order in [NodeOrder::Block, NodeOrder::Cyclic] {
            let placement = Placement::new(procs, nodes, procs.div_ceil(nodes), order).unwrap();
            simulate(s, &placement, &FLAT)
                .unwrap_or_else(|e| panic!("{:?} on {nodes} nodes: {e}", s.spec));
        }
    }
    for rank in 0..procs {
        s.local_ops(rank).unwrap();
    }
}

#[test]
fn every_allgather_algorithm_gives_every_rank_every_block_once_on_a_grid() {
    every_block_algorithm_delivers_on_a_grid(crate::data::Collective::Allgather);
}

#[test]
fn allgather_fallbacks_are_open_mpis() {
    let runs = |a, p| allgather_schedule(a, p, 8).unwrap().runs_as();
    assert_eq!(
        runs(Algorithm::RecursiveDoubling, 8),
        Algorithm::RecursiveDoubling
    );
    assert_eq!(runs(Algorithm::RecursiveDoubling, 6), Algorithm::Bruck);
    assert_eq!(runs(Algorithm::Neighbor, 6), Algorithm::Neighbor);
    assert_eq!(runs(Algorithm::Neighbor, 7), Algorithm::Ring);
    assert!(allgather_schedule(Algorithm::TwoProc, 3, 8).is_err());
    assert!(
        allgather_schedule(Algorithm::Linear, 4, 8).is_err(),
        "no gather schedules yet"
    );
    // Steps: Bruck and recursive doubling ⌈log₂ p⌉, the ring p − 1,
    // neighbor exchange p / 2 (one exchange each).
    let steps = |a, p| {
        allgather_schedule(a, p, 8)
            .unwrap()
            .ops(0)
            .iter()
            .filter(|op| matches!(op, Op::Send { .. }))
            .count()
    };
    assert_eq!(steps(Algorithm::Bruck, 6), 3);
    assert_eq!(steps(Algorithm::RecursiveDoubling, 8), 3);
    assert_eq!(steps(Algorithm::Ring, 6), 5);
    assert_eq!(steps(Algorithm::Neighbor, 6), 3);
}

/// A hand-edited allgather: `msg` bytes in all, rank r starting with block r.
struct ManualAllgather {
    procs: u32,
    block: u64,
    ops: Vec<Vec<Op>>,
}

impl Programs for ManualAllgather {
    fn procs(&self) -> u32 {
        self.procs
    }
    fn root(&self) -> u32 {
        0
    }
    fn msg_bytes(&self) -> u64 {
        u64::from(self.procs) * self.block
    }
    fn holds_at_start(&self, rank: u32, hold: &mut dyn FnMut(Span)) {
        hold(Span {
            start: u64::from(rank) * self.block,
            end: u64::from(rank + 1) * self.block,
        })
    }
    fn ops_into(&self, rank: u32, ops: &mut Vec<Op>) {
        ops.extend_from_slice(&self.ops[rank as usize]);
    }
}

#[test]
fn allgather_verifier_catches_a_missing_step_a_block_twice_and_a_block_not_held() {
    let placement = Placement::single_node(6);
    let edited = |algorithm, edit: &dyn Fn(&mut Vec<Vec<Op>>)| {
        let s = allgather_schedule(algorithm, 6, 10).unwrap();
        let mut ops: Vec<Vec<Op>> = (0..6).map(|r| s.ops(r)).collect();
        edit(&mut ops);
        let m = ManualAllgather {
            procs: 6,
            block: 10,
            ops,
        };
        simulate(&m, &placement, &FLAT)
    };
    // Unchanged, the hand-run programs are proved like the schedule.
    assert!(edited(Algorithm::Bruck, &|_| {}).is_ok());
    // The ring's last step dropped everywhere: every rank misses a block.
    let last_step = |ops: &mut Vec<Vec<Op>>| {
        for rank in ops.iter_mut() {
            rank.truncate(rank.len() - 3);
        }
    };
    assert!(matches!(
        edited(Algorithm::Ring, &last_step),
        Err(SimError::Missing { .. })
    ));
    // Bruck's last step receiving a whole doubling (4 blocks, one already
    // held) rather than the 2 missing: caught on the sender or receiver.
    let too_much = |ops: &mut Vec<Vec<Op>>| {
        for rank in ops.iter_mut() {
            let n = rank.len();
            for op in &mut rank[n - 3..n - 1] {
                if let Op::Irecv { bytes, .. } | Op::Send { bytes, .. } = op {
                    bytes.end = bytes.start + 40;
                }
            }
        }
    };
    assert!(matches!(
        edited(Algorithm::Bruck, &too_much),
        Err(SimError::SendsUnheld { .. } | SimError::Duplicate { .. })
    ));
    // Neighbor exchange's rank 0 sending its right neighbour's pair before
    // it received it.
    let early = |ops: &mut Vec<Vec<Op>>| {
        if let Op::Send { bytes, .. } = &mut ops[0][1] {
            *bytes = Span { start: 20, end: 40 };
        }
    };
    assert!(matches!(
        edited(Algorithm::Neighbor, &early),
        Err(SimError::SendsUnheld { .. } | SimError::Mismatch { .. })
    ));
}

#[test]
fn wrapped_spans_are_the_end_and_the_start_of_the_buffer() {
    let s = Span { start: 50, end: 70 };
    assert_eq!(
        s.pieces(60),
        [Span { start: 50, end: 60 }, Span { start: 0, end: 10 }]
    );
    assert_eq!(s.pieces(70), [s, Span { start: 0, end: 0 }]);
    // Bruck on 5 ranks: rank 4's second step sends blocks 4 and 0 (to
    // rank 2), and rank 2 receives them from rank 4 so.
    let s = allgather_schedule(Algorithm::Bruck, 5, 10).unwrap();
    let wrapped = Span { start: 40, end: 60 };
    assert!(s.ops(4).contains(&Op::Send {
        peer: 2,
        bytes: wrapped
    }));
    assert!(s.ops(2).contains(&Op::Irecv {
        peer: 4,
        bytes: wrapped
    }));
}

#[test]
fn every_alltoall_algorithm_gives_every_rank_its_blocks_once_on_a_grid() {
    every_block_algorithm_delivers_on_a_grid(crate::data::Collective::Alltoall);
}

/// A 4-rank alltoall of 10-byte blocks by `algorithm`, its programs
/// edited by `edit`, simulated.
fn edited_alltoall(
    algorithm: Algorithm,
    edit: &dyn Fn(&mut Vec<Vec<Op>>),
) -> Result<crate::sim::Outcome<f64>, SimError> {
    edited_schedule(&alltoall_schedule(algorithm, 4, 10).unwrap(), edit)
}

/// A schedule of a collective that moves data, its programs edited by
/// `edit`, simulated on one node.
fn edited_schedule(
    s: &Schedule,
    edit: &dyn Fn(&mut Vec<Vec<Op>>),
) -> Result<crate::sim::Outcome<f64>, SimError> {
    let p = s.spec.procs;
    let mut ops: Vec<Vec<Op>> = (0..p).map(|r| s.ops(r)).collect();
    edit(&mut ops);
    struct Edited<'a>(&'a Schedule, Vec<Vec<Op>>);
    impl Programs for Edited<'_> {
        fn procs(&self) -> u32 {
            self.0.spec.procs
        }
        fn root(&self) -> u32 {
            self.0.spec.root
        }
        fn msg_bytes(&self) -> u64 {
            self.0.buffer_bytes()
        }
        fn holds_at_start(&self, rank: u32, hold: &mut dyn FnMut(Span)) {
            self.0.holds_at_start(rank, hold)
        }
        fn needs_at_end(&self, rank: u32) -> Span {
            self.0.needs_at_end(rank)
        }
        fn pieces(&self, bytes: Span, each: &mut dyn FnMut(Span)) {
            self.0.pieces(bytes, each)
        }
        fn ops_into(&self, rank: u32, ops: &mut Vec<Op>) {
            ops.extend_from_slice(&self.1[rank as usize]);
        }
        fn reduction(&self) -> Option<Reduction> {
            self.0.reduction()
        }
        fn synchronizes(&self) -> bool {
            self.0.synchronizes()
        }
    }
    simulate(&Edited(s, ops), &Placement::single_node(p), &REDUCE)
}

#[test]
fn alltoall_verifier_catches_modified_bruck_steps_lost_or_reordered() {
    let edited = |edit: &dyn Fn(&mut Vec<Vec<Op>>)| edited_alltoall(Algorithm::ModifiedBruck, edit);
    assert!(edited(&|_| {}).is_ok());
    // The last step (d = 2) dropped: what travels two ranks never arrives.
    assert!(matches!(
        edited(&|ops| ops.iter_mut().for_each(|r| r.truncate(3))),
        Err(SimError::Missing { .. })
    ));
    // Steps swapped: at d = 2 a rank passes on blocks it receives at d = 1.
    assert!(matches!(
        edited(&|ops| ops.iter_mut().for_each(|r| r.rotate_left(3))),
        Err(SimError::SendsUnheld { .. })
    ));
}

#[test]
fn alltoall_verifier_catches_a_block_lost_or_sent_to_the_wrong_rank() {
    let edited = |edit: &dyn Fn(&mut Vec<Vec<Op>>)| edited_alltoall(Algorithm::Pairwise, edit);
    assert!(edited(&|_| {}).is_ok());
    // Pairwise's last step dropped: every rank misses the block from rank + 1.
    assert!(matches!(
        edited(&|ops| ops.iter_mut().for_each(|r| r.truncate(r.len() - 3))),
        Err(SimError::Missing { .. })
    ));
    // Rank 0 sends rank 1 the block meant for rank 2 (both sides edited):
    // rank 1 ends without its own block from rank 0.
    let misrouted = |ops: &mut Vec<Vec<Op>>| {
        // The block 0 sends 1 is [40, 50), the one 0 sends 2 is [80, 90).
        let (right, wrong) = (Span { start: 40, end: 50 }, Span { start: 80, end: 90 });
        for rank in ops.iter_mut().take(2) {
            for op in rank.iter_mut() {
                if let Op::Send { peer: 1, bytes } | Op::Irecv { peer: 0, bytes } = op {
                    if *bytes == right {
                        *bytes = wrong;
                    }
                }
            }
        }
    };
    assert!(matches!(
        edited(&misrouted),
        Err(SimError::Missing { rank: 1, .. })
    ));
}

#[test]
fn alltoall_blocks_live_where_the_harness_keeps_them() {
    use crate::schedule::alltoall::local;
    let spec = Spec {
        collective: crate::data::Collective::Alltoall,
        algorithm: Algorithm::Linear,
        procs: 3,
        root: 0,
        msg_bytes: 10,
        segsize: 0,
        fanout: None,
    };
    // The block 1 sends 2 is the simulator's (2·3 + 1)-th: rank 1 keeps it
    // at send slot 2, rank 2 at receive slot 1 (after 3 send slots), rank
    // 0 passing it on at the slot of its distance 1 (after 6 slots).
    let b = Span { start: 70, end: 80 };
    assert_eq!(local(&spec, 1, b), Some(Span { start: 20, end: 30 }));
    assert_eq!(local(&spec, 2, b), Some(Span { start: 40, end: 50 }));
    assert_eq!(local(&spec, 0, b), Some(Span { start: 70, end: 80 }));
    // Bytes of two blocks, or past the p² blocks, have no one place.
    assert_eq!(local(&spec, 1, Span { start: 75, end: 85 }), None);
    assert_eq!(
        local(
            &spec,
            1,
            Span {
                start: 90,
                end: 100
            }
        ),
        None
    );
}

#[test]
fn modified_bruck_packs_the_blocks_open_mpi_packs() {
    // p = 5: at step 2 rank 3 sends slots 2, 3 (and not 1, 4) to rank 0.
    // Slot 2 holds its own block to 0, slot 3 the block rank 2 sent it at
    // step 1 on its way to 0 (distance 3): as the rotated buffer has them.
    let s = alltoall_schedule(Algorithm::ModifiedBruck, 5, 10).unwrap();
    let ops = s.ops(3);
    let Op::Send { peer: 0, bytes } = ops[4] else {
        panic!("{ops:?}")
    };
    let mut blocks = Vec::new();
    s.pieces(bytes, &mut |b| blocks.push(b));
    // The block s sends t is the simulator's (t·5 + s)-th.
    assert_eq!(
        blocks,
        [Span { start: 30, end: 40 }, Span { start: 20, end: 30 }]
    );
    // In rank 3's memory: send slot 0, then pass-through slot 3 (after 10
    // slots): two places, packed through scratch.
    let local = s.local_ops(3).unwrap();
    assert_eq!(
        local[4].pieces,
        Some(vec![
            Span { start: 0, end: 10 },
            Span {
                start: 130,
                end: 140
            }
        ])
    );
    // ⌈log₂ 5⌉ = 3 steps of one exchange each.
    assert_eq!(ops.len(), 9);
}

/// A gather or scatter of `block` bytes per rank from or to `root`, its
/// first segment (linear_sync) `segsize`.
fn rooted_schedule(
    collective: crate::data::Collective,
    algorithm: Algorithm,
    (procs, root): (u32, u32),
    block: u64,
    segsize: u64,
) -> Schedule {
    Schedule::new(Spec {
        collective,
        algorithm,
        procs,
        root,
        msg_bytes: block,
        segsize,
        fanout: None,
    })
    .unwrap()
}

#[test]
fn every_gather_and_scatter_algorithm_moves_every_block_once_on_a_grid() {
    use crate::data::Collective::{Gather, Scatter};
    for collective in [Gather, Scatter] {
        for &algorithm in crate::schedule::scheduled(collective) {
            for procs in 1..=17 {
                for root in [0, procs / 2, procs - 1] {
                    for (block, seg) in [(0, 0), (1, 0), (3, 1), (64, 0), (1000, 300)] {
                        let s = rooted_schedule(collective, algorithm, (procs, root), block, seg);
                        delivers_everywhere(&s);
                    }
                }
            }
        }
    }
}

#[test]
fn gather_verifier_catches_a_block_lost_or_a_subtree_sent_twice() {
    use crate::data::Collective::Gather;
    let binomial = rooted_schedule(Gather, Algorithm::Binomial, (6, 2), 10, 0);
    let edited = |edit: &dyn Fn(&mut Vec<Vec<Op>>)| edited_schedule(&binomial, edit);
    assert!(edited(&|_| {}).is_ok());
    // Rank 3 (virtual 1, a leaf under the root) sends nothing, and the
    // root does not wait for it: the root ends without its block.
    assert!(matches!(
        edited(&|ops| {
            ops[3].clear();
            ops[2].retain(|op| !matches!(op, Op::Recv { peer: 3, .. }));
        }),
        Err(SimError::Missing { rank: 2, .. })
    ));
    // Rank 4 (virtual 2) sends up before it received its child's block:
    // it sends a block it does not hold.
    assert!(matches!(
        edited(&|ops| ops[4].reverse()),
        Err(SimError::SendsUnheld { rank: 4, .. })
    ));
    // The root's first child's subtree received and sent again by hand:
    // its block arrives twice.
    assert!(matches!(
        edited(&|ops| {
            let twice = ops[3][0];
            ops[3].push(twice);
            let again = ops[2][0];
            ops[2].push(again);
        }),
        Err(SimError::Duplicate { .. })
    ));
}

#[test]
fn scatter_verifier_catches_a_forwarded_block_not_held_or_misrouted() {
    use crate::data::Collective::Scatter;
    let binomial = rooted_schedule(Scatter, Algorithm::Binomial, (7, 5), 10, 0);
    let edited = |edit: &dyn Fn(&mut Vec<Vec<Op>>)| edited_schedule(&binomial, edit);
    assert!(edited(&|_| {}).is_ok());
    // Rank 0 (virtual 2) passes its child's block on before receiving it.
    assert!(matches!(
        edited(&|ops| ops[0].reverse()),
        Err(SimError::SendsUnheld { rank: 0, .. })
    ));
    // The linear root sends rank 1 the block meant for rank 2 (both sides
    // edited): rank 1 ends without its own.
    let linear = rooted_schedule(Scatter, Algorithm::Linear, (4, 0), 10, 0);
    let misrouted = |ops: &mut Vec<Vec<Op>>| {
        let (right, wrong) = (Span { start: 10, end: 20 }, Span { start: 20, end: 30 });
        for rank in ops.iter_mut().take(2) {
            for op in rank.iter_mut() {
                if let Op::Send { peer: 1, bytes } | Op::Recv { peer: 0, bytes } = op {
                    if *bytes == right {
                        *bytes = wrong;
                    }
                }
            }
        }
    };
    assert!(matches!(
        edited_schedule(&linear, &misrouted),
        Err(SimError::Missing { rank: 1, .. })
    ));
}

#[test]
fn rooted_subtrees_wrap_past_the_last_block() {
    use crate::data::Collective::{Gather, Scatter};
    // 6 ranks, root 4: virtual 2 is rank 0, its subtree virtual 2 and 3
    // (ranks 0 and 1): blocks [0, 20). The root's first child sent to
    // (largest subtree, virtual 4: ranks 2 and 3) gets [20, 40); virtual 2's
    // parent is the root. Rank 5 (virtual 1) is a leaf.
    let s = rooted_schedule(Scatter, Algorithm::Binomial, (6, 4), 10, 0);
    assert_eq!(
        s.ops(4),
        [
            Op::Send {
                peer: 2,
                bytes: Span { start: 20, end: 40 }
            },
            Op::Send {
                peer: 0,
                bytes: Span { start: 0, end: 20 }
            },
            Op::Send {
                peer: 5,
                bytes: Span { start: 50, end: 60 }
            },
        ]
    );
    // Root 5 of 6: the root's subtree starts at its own block and wraps.
    let g = rooted_schedule(Gather, Algorithm::Binomial, (6, 5), 10, 0);
    assert_eq!(
        g.ops(1),
        [
            Op::Recv {
                peer: 2,
                bytes: Span { start: 20, end: 30 }
            },
            Op::Send {
                peer: 5,
                bytes: Span { start: 10, end: 30 }
            },
        ]
    );
    assert_eq!(
        g.ops(5)[2],
        Op::Recv {
            peer: 3,
            bytes: Span { start: 30, end: 50 }
        }
    );
}

#[test]
fn linear_sync_asks_each_rank_then_takes_its_first_segment_and_the_rest() {
    use crate::data::Collective::Gather;
    let s = rooted_schedule(Gather, Algorithm::LinearSync, (3, 1), 10, 4);
    let at = |start, end| Span { start, end };
    assert_eq!(
        s.ops(1),
        [
            Op::Send {
                peer: 0,
                bytes: at(0, 0)
            },
            Op::Recv {
                peer: 0,
                bytes: at(0, 4)
            },
            Op::Irecv {
                peer: 0,
                bytes: at(4, 10)
            },
            Op::Send {
                peer: 2,
                bytes: at(20, 20)
            },
            Op::Recv {
                peer: 2,
                bytes: at(20, 24)
            },
            Op::Irecv {
                peer: 2,
                bytes: at(24, 30)
            },
            Op::WaitRecv,
            Op::WaitRecv,
        ]
    );
    assert_eq!(
        s.ops(2),
        [
            Op::Recv {
                peer: 1,
                bytes: at(20, 20)
            },
            Op::Send {
                peer: 1,
                bytes: at(20, 24)
            },
            Op::Send {
                peer: 1,
                bytes: at(24, 30)
            },
        ]
    );
}

#[test]
fn gather_and_scatter_copy_the_own_block_where_open_mpi_does() {
    use crate::data::Collective::{Gather, Scatter};
    let at = |slot: u64| Span {
        start: slot * 10,
        end: slot * 10 + 10,
    };
    // 6 ranks, root 2: block p = 6 is each rank's own block apart.
    let linear = rooted_schedule(Gather, Algorithm::Linear, (6, 2), 10, 0);
    assert_eq!(linear.local_copy(2), Some((at(6), at(2))));
    assert_eq!(linear.local_copy(3), None);
    // Binomial: every even rank counted from the root gathers behind its
    // own block (ranks 4 and 0 here, virtual 2 and 4), odd ones send it.
    let binomial = rooted_schedule(Gather, Algorithm::Binomial, (6, 2), 10, 0);
    assert_eq!(binomial.local_copy(4), Some((at(6), at(4))));
    assert_eq!(binomial.local_copy(0), Some((at(6), at(0))));
    assert_eq!(binomial.local_copy(3), None);
    let scatter = rooted_schedule(Scatter, Algorithm::Binomial, (6, 2), 10, 0);
    assert_eq!(scatter.local_copy(2), Some((at(2), at(6))));
    assert_eq!(scatter.local_copy(4), None);
}

/// A reduce-scatter of `block` bytes per rank.
fn reduce_scatter_schedule(
    collective: crate::data::Collective,
    algorithm: Algorithm,
    procs: u32,
    block: u64,
) -> Schedule {
    Schedule::new(Spec {
        collective,
        algorithm,
        procs,
        root: 0,
        msg_bytes: block,
        segsize: 0,
        fanout: None,
    })
    .unwrap_or_else(|e| panic!("{collective} {algorithm} p={procs} m={block}: {e}"))
}

#[test]
fn every_reduce_scatter_algorithm_gives_each_rank_its_block_once_on_a_grid() {
    use crate::data::Collective::{ReduceScatter, ReduceScatterBlock};
    for collective in [ReduceScatter, ReduceScatterBlock] {
        for &algorithm in crate::schedule::scheduled(collective) {
            for procs in 1..=17 {
                // One float, a few, and blocks whose whole vector crosses
                // the fixed decisions' bounds (the reduce and scatter of
                // non-overlapping and basic_linear change algorithm).
                for block in [0, 4, 12, 1000, 40_000] {
                    let s = reduce_scatter_schedule(collective, algorithm, procs, block);
                    for nodes in [1, 3].into_iter().filter(|&n| n <= procs) {
                        let placement =
                            Placement::new(procs, nodes, procs.div_ceil(nodes), NodeOrder::Cyclic)
                                .unwrap();
                        simulate(&s, &placement, &REDUCE).unwrap_or_else(|e| {
                            panic!("{collective} {algorithm} p={procs} m={block}: {e}")
                        });
                    }
                    for rank in 0..procs {
                        s.local_ops(rank).unwrap();
                    }
                }
            }
        }
    }
}

#[test]
fn reduce_scatter_verifier_catches_a_block_short_twice_or_undelivered() {
    use crate::data::Collective::{ReduceScatter, ReduceScatterBlock};
    let edited = |s: &Schedule, edit: &dyn Fn(&mut Vec<Vec<Op>>)| edited_schedule(s, edit);
    // Rank 2 of a ring takes the last block it receives, its own, as it
    // comes instead of combining it: its own contribution is lost.
    let ring = reduce_scatter_schedule(ReduceScatter, Algorithm::Ring, 4, 8);
    assert!(edited(&ring, &|_| {}).is_ok());
    assert!(matches!(
        edited(&ring, &|ops| {
            let last = ops[2]
                .iter()
                .rposition(|op| matches!(op, Op::IrecvPartial { .. }))
                .unwrap();
            let Op::IrecvPartial { peer, bytes } = ops[2][last] else {
                unreachable!()
            };
            ops[2][last] = Op::Irecv { peer, bytes };
            ops[2].pop();
        }),
        Err(SimError::Unfinished {
            rank: 2,
            contributions: 3,
            ..
        })
    ));
    // Recursive halving on 6 ranks: the odd rank of the first pair never
    // hands the folded rank 0 its block.
    let halving = reduce_scatter_schedule(ReduceScatterBlock, Algorithm::RecursiveHalving, 6, 8);
    assert!(edited(&halving, &|_| {}).is_ok());
    assert!(matches!(
        edited(&halving, &|ops| {
            ops[0].pop();
            ops[1].pop();
        }),
        Err(SimError::Unfinished { rank: 0, .. })
    ));
    // The butterfly's fold sends and combines the even rank's vector twice.
    let butterfly = reduce_scatter_schedule(ReduceScatter, Algorithm::Butterfly, 5, 8);
    assert!(edited(&butterfly, &|_| {}).is_ok());
    assert!(matches!(
        edited(&butterfly, &|ops| {
            let send = ops[0][0];
            ops[0].insert(0, send);
            let fold: Vec<Op> = ops[1][..3].to_vec();
            ops[1].splice(0..0, fold);
        }),
        Err(SimError::Combine {
            clash: Clash::Twice(0),
            ..
        })
    ));
    // Recursive doubling on 6 ranks: rank 0 hands rank 2 its own partial
    // result instead of rank 4's (a plain send of those bytes): ranks 0-3
    // twice; or hands it nothing: rank 2 misses ranks 4 and 5.
    let doubling = reduce_scatter_schedule(ReduceScatterBlock, Algorithm::RecursiveDoubling, 6, 8);
    assert!(edited(&doubling, &|_| {}).is_ok());
    let handed = |ops: &[Op]| {
        ops.iter()
            .position(|op| matches!(op, Op::SendPartial { peer: 2, .. }))
            .unwrap()
    };
    assert!(matches!(
        edited(&doubling, &|ops| {
            let at = handed(&ops[0]);
            let Op::SendPartial { peer, bytes } = ops[0][at] else {
                unreachable!()
            };
            ops[0][at] = Op::Send { peer, bytes };
        }),
        Err(SimError::Combine {
            rank: 2,
            clash: Clash::Twice(2),
            ..
        })
    ));
    assert!(matches!(
        edited(&doubling, &|ops| {
            let at = handed(&ops[0]);
            ops[0].remove(at);
            let kept = ops[2].len() - 3;
            ops[2].truncate(kept);
        }),
        Err(SimError::Unfinished {
            rank: 2,
            contributions: 4,
            ..
        })
    ));
    // The mirrored butterfly on 4 ranks without its second exchange:
    // every rank ends with two of the four contributions.
    let mirrored = reduce_scatter_schedule(ReduceScatterBlock, Algorithm::Butterfly, 4, 8);
    assert!(edited(&mirrored, &|_| {}).is_ok());
    assert!(matches!(
        edited(&mirrored, &|ops| ops.iter_mut().for_each(|r| r.truncate(4))),
        Err(SimError::Unfinished {
            contributions: 2,
            ..
        })
    ));
}

fn barrier_schedule(algorithm: Algorithm, procs: u32) -> Result<Schedule, String> {
    Schedule::new(Spec {
        collective: crate::data::Collective::Barrier,
        algorithm,
        procs,
        root: 0,
        msg_bytes: 0,
        segsize: 0,
        fanout: None,
    })
}

#[test]
fn every_barrier_keeps_every_rank_until_every_rank_entered_on_a_grid() {
    for &algorithm in crate::schedule::scheduled(crate::data::Collective::Barrier) {
        for procs in 1..=40 {
            let Ok(s) = barrier_schedule(algorithm, procs) else {
                assert!(algorithm == Algorithm::TwoProc && procs > 2);
                continue;
            };
            for nodes in [1, 3].into_iter().filter(|&n| n <= procs) {
                let placement =
                    Placement::new(procs, nodes, procs.div_ceil(nodes), NodeOrder::Cyclic).unwrap();
                simulate(&s, &placement, &FLAT)
                    .unwrap_or_else(|e| panic!("{algorithm} p={procs}: {e}"));
            }
            for rank in 0..procs {
                s.local_ops(rank).unwrap();
            }
        }
    }
}

#[test]
fn barrier_verifier_catches_a_rank_leaving_before_another_entered() {
    let edited = |s: &Schedule, edit: &dyn Fn(&mut Vec<Vec<Op>>)| edited_schedule(s, edit);
    // Linear's root lets rank 1 out before hearing from rank 3: rank 1
    // never heard of 3.
    let linear = barrier_schedule(Algorithm::Linear, 4).unwrap();
    assert!(edited(&linear, &|_| {}).is_ok());
    assert!(matches!(
        edited(&linear, &|ops| {
            let out = ops[0]
                .iter()
                .position(|op| matches!(op, Op::Send { peer: 1, .. }))
                .unwrap();
            let first = ops[0].remove(out);
            ops[0].insert(1, first);
        }),
        Err(SimError::LeftEarly { rank: 1, .. })
    ));
    // Bruck on 5 ranks without its last round (distance 4): rank 0 has
    // heard from 4, 3, 2 but not 1.
    let bruck = barrier_schedule(Algorithm::Bruck, 5).unwrap();
    assert!(edited(&bruck, &|_| {}).is_ok());
    assert!(matches!(
        edited(&bruck, &|ops| ops.iter_mut().for_each(|r| r.truncate(6))),
        Err(SimError::LeftEarly { .. })
    ));
    // The double ring's second round dropped: rank 1 leaves having heard
    // only from rank 0.
    let ring = barrier_schedule(Algorithm::DoubleRing, 4).unwrap();
    assert!(edited(&ring, &|_| {}).is_ok());
    assert!(matches!(
        edited(&ring, &|ops| ops.iter_mut().for_each(|r| r.truncate(2))),
        Err(SimError::LeftEarly {
            rank: 1,
            unheard: 2
        })
    ));
}
