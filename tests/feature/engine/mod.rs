//! The engine under every option, by part: the walker driven as a library, the order
//! of the walk, giant directories listed in pieces, the cluster walk with ranks as
//! threads, the inputs that break naive walkers, and the (ignored) pool stress test.

mod cluster;
mod giant;
mod giant_order;
pub(crate) mod hard_inputs;
mod listing;
mod order;
mod stats;
mod stress;
