//! Where a match goes when the walker does not write it inline
//! ([`OutputMode::Formatted`](super::format::OutputMode::Formatted)): printed at once by
//! a [`Printer`] into the worker's output block, or, with `--sort`, kept in a
//! [`SortRun`] for the end of the walk.

use super::format::Format;
use super::printer::{Match, Printer};
use super::sort::SortRun;

/// One worker's share of formatted output.
pub enum FormattedOutput<'a> {
    /// Records written as matches are found.
    Print(Printer<'a>),
    /// `--sort`: matches kept until the walk is over.
    Keep(SortRun),
}

impl<'a> FormattedOutput<'a> {
    /// `keep_at_most`: with `--sort`, the `--max-results` bound, so a worker never
    /// holds more than it could print.
    pub fn new(format: &'a Format, keep_at_most: Option<u64>) -> FormattedOutput<'a> {
        match format.sort {
            Some(order) => FormattedOutput::Keep(SortRun::new(order, keep_at_most)),
            None => FormattedOutput::Print(Printer::new(format)),
        }
    }

    /// Writes the record for `found` into `block`, or keeps it.
    pub fn add(&mut self, block: &mut Vec<u8>, found: &Match<'_>) {
        match self {
            FormattedOutput::Print(printer) => printer.write(block, found),
            FormattedOutput::Keep(run) => run.push(found),
        }
    }

    /// The matches kept for sorting, if any.
    pub fn into_kept(self) -> Option<SortRun> {
        match self {
            FormattedOutput::Print(_) => None,
            FormattedOutput::Keep(run) => Some(run),
        }
    }
}
