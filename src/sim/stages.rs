//! The stage structure of a collective's schedule, as the model-based
//! selection paper describes it (§4): stages run one after another; within
//! a stage several non-blocking flat trees (NBFTs: one rank sending one
//! segment to some children) run concurrently.
//!
//! It is derived by simulating the schedule with every transfer taking one
//! step and concurrent sends: a send group posted at step s belongs to stage
//! s + 1. So the structure follows the schedule's real dependencies (a rank
//! forwards segment k once it has it *and* its sends of k − 1 completed),
//! not a textbook formula. For complete trees the stage counts equal the
//! paper's formulas (tests check pipeline, binomial, binary and K-chain).
//! Where the code differs, the code wins: split-binary uses *blocking* sends,
//! so a rank's sends to its two children are two stages here, while the paper
//! approximates them by one non-blocking fan-out; and its exchange phase is
//! not one synchronous stage, as each pair swaps halves as soon as both have
//! theirs.

use super::{simulate_recording, CostModel, Programs, SimError};
use crate::data::Placement;

/// One flat-tree fan-out: `sender` sends `bytes` to each of `receivers`,
/// of which `cross_node` are on other nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nbft {
    pub sender: u32,
    pub receivers: Vec<u32>,
    pub cross_node: u32,
    pub bytes: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stage {
    pub nbfts: Vec<Nbft>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StageStructure {
    pub stages: Vec<Stage>,
}

impl StageStructure {
    pub fn len(&self) -> usize {
        self.stages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.stages.is_empty()
    }
}

/// Stages of `programs` on `placement` (which decides what crosses nodes).
pub fn stage_structure(
    programs: &dyn Programs,
    placement: &Placement,
) -> Result<StageStructure, SimError> {
    let outcome = simulate_recording(programs, placement, &CostModel::UNIT_STEPS)?;
    let mut stages: Vec<Stage> = Vec::new();
    for g in outcome.groups {
        // Unit steps make every posting time a whole number.
        let index = g.posted_us.round() as usize;
        if stages.len() <= index {
            stages.resize_with(index + 1, Stage::default);
        }
        let cross = g
            .receivers
            .iter()
            .filter(|&&r| placement.crosses_nodes(g.sender, r))
            .count();
        stages[index].nbfts.push(Nbft {
            sender: g.sender,
            cross_node: cross as u32,
            receivers: g.receivers,
            bytes: g.bytes,
        });
    }
    for stage in &mut stages {
        stage.nbfts.sort_by_key(|n| n.sender);
    }
    Ok(StageStructure { stages })
}
