//! pfind: find files fast with a parallel, work-stealing directory walk.
//!
//! How a run fits together, in the order data flows:
//!
//! * [`cli`] parses the command line and resolves it into a [`config::Config`], the only
//!   thing the rest of the program reads.
//! * [`scheduler`] classifies the roots, seeds the [`queue::Pool`] and runs one
//!   [`walker::Walker`] per thread inside a `thread::scope`.
//! * [`queue`] is the Chase-Lev work-stealing pool: per-worker LIFO deques, stealing,
//!   parking idle workers, and detecting the end of the walk.
//! * [`walker`] lists one directory at a time through [`dirent`] (the OS layer:
//!   `getdents64` on Linux, `readdir` elsewhere), tests each entry, and each root given
//!   as a file, against the [`filter`], and queues subdirectories; [`descriptors`]
//!   opens each directory relative to an open ancestor without following a link out
//!   of the tree, and bounds the descriptors kept open for that.
//! * [`filter`] says what "matches" means: names, extensions, globs, paths, `-t`
//!   kinds and families, sizes, depth, times, owners; and which of them need a
//!   `stat`. [`userdb`] looks user and group names up (for `--owner` and `{owner}`).
//! * Matches go to the shared [`output::Output`] in large blocks; problems go to the
//!   [`report::Reporter`], which also decides the exit status.
//! * Plain paths and `-l` are written by the walker inline; every other format goes
//!   through [`record`] out of line: [`template`] (`--format`), [`json`], [`color`],
//!   [`hyperlink`], with [`meta`] for what a `stat` tells; [`sort`] keeps matches for
//!   `--sort` and merges them at the end. [`generate`] prints completions and the man
//!   page.

pub mod cli;
pub mod color;
pub mod config;
pub mod descriptors;
pub mod dirent;
pub mod filter;
pub mod generate;
pub mod hyperlink;
pub mod json;
pub mod meta;
pub mod output;
pub mod queue;
pub mod record;
pub mod report;
pub mod scheduler;
pub mod sort;
pub mod template;
pub mod threads;
pub mod userdb;
pub mod walker;

pub use config::Config;
pub use scheduler::run;
pub use walker::Summary;
