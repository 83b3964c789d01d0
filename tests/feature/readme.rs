//! The README as a newcomer meets it: its first screen (what pfind is, how to
//! install it, the examples), an options reference that names every option, and
//! each example of the first screen run on a git repository and compared with what
//! `find` (or `git`) gives for the same question.

use crate::testenv;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

const README: &str = include_str!("../../README.md");

const OPTIONS_IN_FULL: &str = include_str!("../../docs/options.md");

/// The first screen: everything before the second-level heading after the
/// examples.
fn first_screen() -> &'static str {
    let after_examples = README.find("## Examples").expect("an Examples section");
    let end = README[after_examples + 3..]
        .find("\n## ")
        .map_or(README.len(), |at| after_examples + 3 + at);
    &README[..end]
}

#[test]
fn the_first_screen_says_what_how_to_install_and_shows_examples() {
    let screen = first_screen();
    let lines = screen.lines().count();
    assert!(lines <= 50, "the first screen is {lines} lines");
    for said in [
        "find ROOT -type f",
        "git ls-files -co --exclude-standard",
        "cargo install --locked --path .",
        "pfind --ignore",
        "--exec",
        "docs/options.md",
        "docs/benchmarks.md",
    ] {
        assert!(screen.contains(said), "the first screen lacks {said:?}");
    }
    // One measured number, with where it comes from.
    assert!(
        screen.contains(" ms"),
        "no measured time on the first screen"
    );
}

#[test]
fn every_option_has_a_line_in_the_readme_and_a_full_entry_in_docs() {
    use clap::CommandFactory;
    let options = &README[README.find("\n## Options").expect("an Options section")..];
    let options = &options[..options[3..].find("\n## ").unwrap() + 3];
    for line in options.lines().filter(|line| line.starts_with("| `")) {
        assert!(line.chars().count() <= 120, "a long line: {line}");
    }
    let command = pfind::cli::Cli::command();
    for arg in command.get_arguments() {
        let name = match (arg.get_long(), arg.get_short()) {
            (Some(long), _) => format!("--{long}"),
            (None, Some(short)) => format!("-{short}"),
            _ => continue,
        };
        let quoted =
            |text: &str| text.contains(&format!("`{name}")) || text.contains(&format!(" {name}"));
        assert!(quoted(options), "README's Options lack {name}");
        assert!(quoted(OPTIONS_IN_FULL), "docs/options.md lacks {name}");
    }
}

/// The examples of the first screen, each with how the test checks it.
const EXAMPLES: &[&str] = &[
    "pfind -e rs",
    "pfind -n 'test_*'",
    "pfind --ignore -e json",
    "pfind -E target -E node_modules -e py",
    "pfind --changed-within 1d",
    "pfind -l --sort size --reverse --max-results 10",
    "pfind -d 2 -c",
    "pfind -e txt --exec wc -c",
    "pfind src --sort path",
    "pfind --json -l -e rs",
];

/// The commands of the first screen's Examples block, without their comments.
fn readme_examples() -> Vec<String> {
    let screen = first_screen();
    let block = &screen[screen.find("## Examples").unwrap()..];
    let block = &block[block.find("```\n").unwrap() + 4..];
    let block = &block[..block.find("```").unwrap()];
    block
        .lines()
        .map(|line| line.split(" # ").next().unwrap().trim_end().to_string())
        .filter(|line| !line.is_empty())
        .collect()
}

#[test]
fn the_examples_are_the_ones_checked_here() {
    assert_eq!(readme_examples(), EXAMPLES);
}

/// A small project: sources, tests, data, a build directory and `node_modules`
/// that .gitignore excludes, files changed days ago, every file of its own size.
fn project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let files = [
        "src/main.rs",
        "src/lib.rs",
        "src/test_util.rs",
        "src/nested/deep/mod.rs",
        "tests/test_cli.py",
        "app.py",
        "notes.txt",
        "docs/guide.txt",
        "data.json",
        "config/settings.json",
        ".hidden.rs",
        ".gitignore",
        "target/debug/build.rs",
        "target/out.json",
        "target/test_gen.py",
        "node_modules/pkg/index.js",
        "node_modules/pkg/package.json",
        "node_modules/pkg/setup.py",
        "old/archive.txt",
        "old/legacy.rs",
    ];
    for (i, file) in files.iter().enumerate() {
        let path = tmp.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let contents = if *file == ".gitignore" {
            "target/\nnode_modules/\n".to_string()
        } else {
            "x".repeat(10 + i * 7)
        };
        std::fs::write(&path, contents).unwrap();
    }
    let three_days_ago = SystemTime::now() - Duration::from_secs(3 * 24 * 3600);
    for file in ["old/archive.txt", "old/legacy.rs"] {
        let handle = std::fs::File::options()
            .write(true)
            .open(tmp.path().join(file))
            .unwrap();
        handle.set_modified(three_days_ago).unwrap();
    }
    tmp
}

/// Runs a shell command line in `dir`; its stdout.
fn sh(dir: &Path, line: &str) -> String {
    let out = Command::new("sh")
        .args(["-c", line])
        .current_dir(dir)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{line}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// pfind with the words of an example (without the leading `pfind`), in `dir`.
fn pfind(dir: &Path, example: &str) -> String {
    let words = sh(
        dir,
        &format!("for w in {}; do printf '%s\\n' \"$w\"; done", &example[6..]),
    );
    let args: Vec<&str> = words.lines().collect();
    let out = testenv::pfind_command(dir, &args).output().unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{example}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Lines as a set, `./` dropped (pfind prints none with no root; find and
/// `--exec`'s paths do).
fn set(text: &str) -> BTreeSet<String> {
    text.lines().map(|line| line.replace("./", "")).collect()
}

#[test]
fn each_example_gives_what_find_or_git_gives() {
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("skipped: git is not installed, and it is an oracle here");
        return;
    }
    let tmp = project();
    let dir = tmp.path();
    sh(
        dir,
        "git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm x",
    );
    // The default walk is the complete one: .git included, as find lists it.
    let find = |expr: &str| set(&sh(dir, &format!("find . {expr}")));
    for &example in EXAMPLES {
        let got = pfind(dir, example);
        match example {
            "pfind -e rs" => assert_eq!(set(&got), find("-type f -iname '*.rs'"), "{example}"),
            "pfind -n 'test_*'" => assert_eq!(set(&got), find("-type f -name 'test_*'")),
            "pfind --ignore -e json" => {
                let git = sh(dir, "git ls-files -co --exclude-standard | grep -i '[.]json$'");
                assert_eq!(set(&got), set(&git), "{example}");
            }
            "pfind -E target -E node_modules -e py" => assert_eq!(
                set(&got),
                find("\\( -name target -o -name node_modules \\) -prune -o -type f -iname '*.py' -print"),
            ),
            "pfind --changed-within 1d" => {
                assert_eq!(set(&got), find("-type f -mtime -1"), "{example}")
            }
            "pfind -l --sort size --reverse --max-results 10" => {
                let want = sh(dir, "find . -type f -printf '%s %P\\n' | sort -rn | head -10");
                let got: Vec<String> = got
                    .lines()
                    .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
                    .collect();
                assert_eq!(got, want.lines().collect::<Vec<_>>(), "{example}");
            }
            "pfind -d 2 -c" => {
                let count = find("-maxdepth 2 -type f").len();
                assert_eq!(got.trim(), count.to_string(), "{example}");
            }
            "pfind -e txt --exec wc -c" => assert_eq!(
                set(&got),
                find("-type f -iname '*.txt' -exec wc -c {} ';'"),
                "{example}"
            ),
            "pfind src --sort path" => {
                let want = sh(dir, "find src -type f | sort");
                assert_eq!(got, want, "{example}");
            }
            "pfind --json -l -e rs" => {
                let paths: BTreeSet<String> = got
                    .lines()
                    .map(|line| {
                        assert!(line.starts_with('{') && line.contains("\"size\":"), "{line}");
                        let start = line.find("\"path\":\"").unwrap() + 8;
                        let end = start + line[start..].find('"').unwrap();
                        line[start..end].to_string()
                    })
                    .collect();
                assert_eq!(paths, find("-type f -iname '*.rs'"), "{example}");
            }
            other => panic!("no check for the example {other:?}"),
        }
    }
}

/// Issue 41, item 5: the README had grown to 607 lines with rows of 949 characters,
/// and its exit-status row for 1 said "`--help` and `--version` included", as if
/// `--help` failed. It stays under 400 lines, every table row under 400 characters,
/// the long parts in docs/ (linked); the status table says what `--help` exits with;
/// `--help` has an example of the ignore-file options.
#[test]
fn the_readme_stays_short_and_its_tables_readable() {
    let lines = README.lines().count();
    assert!(lines < 400, "the README is {lines} lines");
    for line in README.lines().filter(|line| line.starts_with('|')) {
        let n = line.chars().count();
        assert!(n <= 400, "a table row of {n} characters: {line}");
    }
    for moved in [
        "docs/install.md",
        "docs/ignore-files.md",
        "docs/output.md",
        "docs/limitations.md",
        "docs/coming-from-fd.md",
        "docs/messages.md",
    ] {
        assert!(README.contains(&format!("]({moved}")), "no link to {moved}");
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(moved);
        assert!(path.is_file(), "{moved} is missing");
    }
    let errors = &README[README.find("\n## Errors and exit status").unwrap()..];
    let row = |status: &str| {
        errors
            .lines()
            .find(|line| line.starts_with(&format!("| {status} |")))
            .unwrap_or_else(|| panic!("no row for status {status}"))
    };
    assert!(row("0").contains("`--help`, `--version` and `--generate`"));
    assert!(!row("1").contains("included"), "{}", row("1"));
    assert!(row("2").contains("nothing was walked"));
    // What status --help really exits with.
    let out = testenv::pfind_command(Path::new("."), &["--help"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8(out.stdout).unwrap();
    let examples = &help[help.find("Examples:").unwrap()..];
    assert!(
        examples.lines().any(|line| line.contains(" --ignore ")) && examples.contains(" -G "),
        "--help has no example of the ignore files"
    );
    // fd's --full-path is said in Coming from fd, with the meaning it has here.
    let fd = &README[README.find("\n## Coming from fd").unwrap()..];
    assert!(
        fd.contains("`--full-path RE` is fd's regex"),
        "Coming from fd"
    );
}

// The README's install block says it all (issue 51): both install lines, the
// manual page and the completions in one block (`man pfind` said "No manual
// entry" after the install: the step was in docs/install.md only), with how long
// a build takes; each `pfind --generate` line of it runs and writes into a
// directory the block makes. And the first screen says `--ignore` precisely: it
// said "exactly" git's list, which links and submodules are not.

/// The lines of the first code block of the Install section.
fn install_block() -> Vec<&'static str> {
    let install = &README[README.find("\n## Install\n").expect("an Install section")..];
    let start = install.find("\n```\n").unwrap() + 5;
    let end = start + install[start..].find("```").unwrap();
    install[start..end].lines().collect()
}

#[test]
fn the_install_block_has_both_lines_the_manual_and_completions() {
    let block = install_block();
    let command = |line: &&str| line.split(" #").next().unwrap().trim_end().to_string();
    let commands: Vec<String> = block.iter().map(command).collect();
    for wanted in [
        "RUSTFLAGS=\"-C target-feature=+crt-static\" cargo install --locked --path . --target x86_64-unknown-linux-gnu",
        "cargo install --locked --path .",
    ] {
        assert!(commands.iter().any(|c| c == wanted), "no line {wanted:?} in {block:?}");
    }
    let made: Vec<&str> = (commands.iter())
        .find_map(|c| c.strip_prefix("mkdir -p "))
        .expect("a mkdir -p line")
        .split_whitespace()
        .collect();
    let generated: Vec<(&str, &str)> = (commands.iter())
        .filter_map(|c| c.strip_prefix("pfind --generate "))
        .map(|rest| {
            rest.split_once(" > ")
                .expect("pfind --generate WHAT > FILE")
        })
        .collect();
    let what: Vec<&str> = generated.iter().map(|(what, _)| *what).collect();
    assert_eq!(what, ["man", "bash"]);
    for (what, file) in generated {
        let dir = &file[..file.rfind('/').unwrap()];
        assert!(
            made.contains(&dir),
            "{file}: {dir} is not made by the mkdir line"
        );
        let out = testenv::pfind_command(std::path::Path::new("."), &["--generate", what])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "--generate {what}");
        assert!(!out.stdout.is_empty(), "--generate {what}");
    }
    // man-db finds ~/.cargo/share/man beside ~/.cargo/bin, where cargo installs.
    assert!(made.contains(&"~/.cargo/share/man/man1"), "{made:?}");
    let install =
        &README[README.find("\n## Install\n").unwrap()..README.find("\n## Examples").unwrap()];
    assert!(
        install.contains("about a\nminute on a 2-vCPU")
            || install.contains("about a minute on a 2-vCPU"),
        "{install}"
    );
}

#[test]
fn the_first_screen_says_where_ignore_differs_from_git() {
    let top = &README[..README.find("\n## Install").unwrap()];
    let sentence = &top[top
        .find("`--ignore` prints")
        .expect("the --ignore sentence")..];
    let sentence = &sentence[..sentence.find("; `-G`").unwrap()];
    assert!(!sentence.contains("exactly"), "{sentence}");
    for said in [
        "regular files `git ls-files -co --exclude-standard`",
        "submodule",
        "docs/ignore-files.md",
    ] {
        assert!(sentence.contains(said), "{said:?} not in {sentence}");
    }
}
