//! The README's install block says it all (issue 51): both install lines, the
//! manual page and the completions in one block (`man pfind` said "No manual
//! entry" after the install: the step was in docs/install.md only), with how long
//! a build takes; each `pfind --generate` line of it runs and writes into a
//! directory the block makes. And the first screen says `--ignore` precisely: it
//! said "exactly" git's list, which links and submodules are not.

mod testenv;

use std::path::Path;

const README: &str = include_str!("../README.md");

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
        let out = testenv::pfind_command(Path::new("."), &["--generate", what])
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
