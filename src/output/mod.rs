//! Everything about what a match looks like once it is found, and where it goes. The
//! walker calls in here and nothing here calls back: this folder imports only the
//! OS layer and the reporter below it.
//!
//! * [`format`]: the run's [`OutputMode`], the [`format::Format`] of out-of-line
//!   records and the `--sort` order, in one place.
//! * [`line`]: the two records the walker writes inline (a path, an `-l` line);
//!   [`sizes`] writes the `-l` column and the `-s` summary.
//! * [`formatted`]: where every other match goes: a [`printer`] writes it at once
//!   (through [`template`], [`json`], [`color`], [`hyperlink`], with [`meta`] for
//!   what a `stat` tells), or [`sort`] keeps it for the end of the walk.
//! * [`limit`]: `--max-results`, exact across workers.
//! * [`sink`]: the shared [`Output`] that workers hand whole blocks to; [`pacing`]
//!   decides when a worker hands over a block before it is full.

pub mod color;
pub mod format;
pub mod formatted;
pub mod hyperlink;
pub mod json;
pub mod limit;
pub mod line;
pub mod meta;
pub mod pacing;
pub mod placeholder;
pub mod printer;
pub mod sink;
pub mod sizes;
pub mod sort;
pub mod template;

pub use format::OutputMode;
pub use sink::Output;
