//! The `pfind` binary: parse the command line, run the walk, choose the exit status.
//! Everything else lives in the library (see `lib.rs` for the map).

use clap::Parser;
use pfind::cli::Cli;
use pfind::config::OutputMode;
use pfind::output::{size_summary, Output};
use pfind::report::Reporter;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Usage errors print clap's message and exit with status 2.
    let config = Cli::parse().into_config();
    let reporter = Reporter::new();
    let output = match Output::stdout() {
        Ok(output) => output,
        Err(err) => {
            reporter.error("stdout", &err);
            return reporter.exit_status().into();
        }
    };
    let summary = pfind::run(&config, &output, &reporter);
    match config.output {
        OutputMode::Count => {
            output.deliver(format!("{}\n", summary.matches).as_bytes(), &reporter);
        }
        OutputMode::SizeSum => {
            let line = size_summary(summary.matches, summary.bytes);
            output.deliver(line.as_bytes(), &reporter);
        }
        OutputMode::Paths { .. } | OutputMode::Long { .. } => {}
    }
    reporter.exit_status().into()
}
