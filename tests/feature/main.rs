//! pfind's integration tests, one binary (`cargo test --test feature`), one module per
//! group of options as `--help` shows them, then one per part of the engine, so that
//! the tests of `src/cli/X.rs`'s options are in `X.rs` here. docs/testing.md has the
//! table of where each flag's tests live and where a new test goes. Every test runs
//! the real binary (or the library) on trees built in a temporary directory, through
//! the shared harness in `tests/testenv`.
//!
//! Two files stay binaries of their own because scripts/test.sh builds them again
//! with a feature: `tests/oracle.rs` (`--features portable`) and `tests/mpi.rs`
//! (`--features mpi`).

#[path = "../testenv/mod.rs"]
mod testenv;

/// The engine under every option: listing, order, giant directories, the cluster
/// walk, hard inputs, stress.
mod engine;
/// `-t`, `-S`, `--changed-within`/`--changed-before`, `--newer`, `--owner`, the depth
/// bounds and `--prune` (src/cli/entries.rs).
mod entries;
/// `--exec`, `--exec-batch`, `--exec-dir`, `--batch-size` (src/cli/exec.rs, src/exec).
mod exec;
/// `--files-from`: a list of paths tested instead of a walk (src/cli/walk.rs).
mod files_from;
/// What find and fd users type, refused or warned about (src/cli/hints.rs,
/// src/cli/warnings.rs).
mod hints;
/// `--ignore` and its switches, `.ignore`, `.fdignore`, `--ignore-file`, `-H`, `-u`
/// (src/cli/ignore_files.rs).
mod ignore_files;
/// git's index when it is not what git wrote: torn, SHA-256, without a checksum
/// (src/ignore/index.rs).
mod ignore_index;
/// `--index`, `--index-trust`, `--index-list`, `--index-drop`: the mutation
/// harness against a walk, and every bad index (src/cli/index.rs, src/index).
mod index;
/// IO500's find phases (`find`, `find-easy`, `find-hard`) as IO500 builds their
/// command lines, through `scripts/io500-find.sh`.
mod io500_phases;
/// `scripts/io500-find.sh`, IO500's find phase through pfind.
mod io500_script;
/// `-e`, `-n`, `-E`, `--ignore-contain`, `-p`, `--regex`, `--path-regex`,
/// `--full-path`, `--and`, `-i`/`--case-sensitive` (src/cli/names.rs).
mod names;
/// `-j`, `--help`/`-h`, `--version`, `--generate`, usage errors, `PFIND_OPTIONS`
/// (src/cli/other.rs, src/cli/mod.rs).
mod other;
/// How matches are printed: `-l`, `-s`, `-c`, `-0`, `--format`, `--json`, `--sort`,
/// `-q`, `--color`, `--hyperlink`, `-a`, `-C`, `--strip-cwd-prefix`,
/// `--path-separator`, `--max-results` (src/cli/output.rs).
mod output;
/// The status line on SIGUSR1 and `--progress` (src/cli/other.rs).
mod progress;
/// The README: its first screen, its options table, its examples run.
mod readme;
/// `--time`: the time filters on access, change and birth time (src/cli/entries.rs).
mod times;
/// The roots, `-L`/`--no-follow` and `-x` (src/cli/walk.rs).
mod walk;
