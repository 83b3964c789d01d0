//! pfind: find files fast with a parallel, work-stealing directory walk.
//!
//! Data flows top to bottom, and each module imports only modules below it:
//! [`cli`] resolves the command line into a [`config::Config`], the only thing the
//! rest reads ([`generate`] prints completions and the man page from the same
//! definitions); [`scheduler`] runs a walk over the [`roots`], with [`threads`]
//! deciding its workers, [`queue`] their pool, [`memory`] and [`descriptors`]
//! bounding them; each [`walker`] lists directories and tests their entries
//! against the [`filter`] and the [`ignore`] rules, or reads them from the
//! [`index`] of an earlier walk; matches go to the [`output`] or
//! to a command ([`exec`]); [`cluster`] shares one walk between processes; [`os`]
//! is what is asked of the operating system; [`progress`] counts how far a walk
//! has got; [`report`], [`stack`], [`alloc`], [`decimal`] and [`probe`] sit at the
//! bottom.
//!
//! Each source file and what it owns: the source map at the end of
//! `docs/design.md`.

pub mod alloc;
pub mod cli;
pub mod cluster;
pub mod config;
pub mod decimal;
pub mod descriptors;
pub mod exec;
pub mod filter;
pub mod generate;
pub mod ignore;
pub mod index;
pub mod memory;
pub mod os;
pub mod output;
pub mod placement;
pub mod probe;
pub mod progress;
pub mod queue;
pub mod report;
pub mod roots;
pub mod scheduler;
#[cfg(test)]
mod scratch;
pub mod stack;
pub mod threads;
pub mod walker;

pub use config::Config;
pub use scheduler::run;
pub use walker::Summary;
