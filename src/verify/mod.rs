//! `bcast-select verify`: whether the rules files an MPI job names are in
//! effect, and what they change, measured in the job itself.

pub mod files;
