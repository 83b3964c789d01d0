//! docs/messages.md against the binary (issue 51): it said pfind lacked fd's
//! `--hidden`, `-H`, `-I` and `-u` long after they became options. Every refusal
//! it quotes for a find or fd option is the one pfind prints, and every fd option
//! it lists as missing is refused.

mod testenv;

use std::path::Path;

const MESSAGES: &str = include_str!("../docs/messages.md");

fn refusal_of(option: &str) -> (String, Option<i32>) {
    let out = testenv::pfind_command(Path::new("."), &[option])
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn every_quoted_refusal_of_an_option_is_what_pfind_prints() {
    let mut seen = 0;
    for line in MESSAGES.lines() {
        let Some(rest) = line.strip_prefix("pfind: '-") else {
            continue;
        };
        let option = format!("-{}", &rest[..rest.find('\'').unwrap()]);
        if !line.contains("is find's") && !line.contains("is fd's") {
            continue;
        }
        seen += 1;
        assert_eq!(
            refusal_of(&option),
            (format!("{line}\n"), Some(2)),
            "{option}"
        );
    }
    assert!(seen >= 5, "only {seen} refusals quoted");
}

#[test]
fn the_fd_options_said_to_be_missing_are_refused() {
    let start = MESSAGES
        .find("options that pfind does not have (")
        .expect("the list of fd's options pfind does not have");
    let list = &MESSAGES[start..];
    let list = &list[..list.find(';').unwrap()];
    let options: Vec<&str> = list.split('`').skip(1).step_by(2).collect();
    assert!(options.len() >= 4, "{options:?}");
    for option in options {
        let (stderr, code) = refusal_of(option);
        assert_eq!(code, Some(2), "{option}: {stderr}");
        assert!(
            stderr.starts_with(&format!("pfind: '{option}' is fd's option")),
            "{option}: {stderr}"
        );
    }
}
