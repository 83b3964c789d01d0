//! The engine under every option, by part: the walker driven as a library, the order
//! of the walk, giant directories listed in pieces, the cluster walk with ranks as
//! threads, the inputs that break naive walkers, and the (ignored) pool stress test.

mod cluster;
mod cluster_agreement;
/// Random repositories against git, random trees and options against find and fd
/// (issue 46): the large runs are `--ignored` (docs/testing.md).
mod differential_ignore;
mod differential_walk;
mod giant;
mod giant_order;
pub(crate) mod hard_inputs;
mod listing;
mod order;
mod stat_fields;
mod stats;
mod stress;
