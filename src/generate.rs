//! `--generate bash|zsh|fish|man`: shell completions and the manual page, made from
//! the same clap definitions as `--help` (`cli::Cli`), so none of them can drift away
//! from the options pfind really has.

use crate::cli::{definition, Generate};

/// The completion script or manual page asked for.
pub fn render(what: Generate) -> Vec<u8> {
    let mut command = definition();
    let mut out = Vec::new();
    let shell = match what {
        Generate::Bash => clap_complete::Shell::Bash,
        Generate::Zsh => clap_complete::Shell::Zsh,
        Generate::Fish => clap_complete::Shell::Fish,
        Generate::Man => {
            render_man(command, &mut out);
            return out;
        }
    };
    clap_complete::generate(shell, &mut command, "pfind", &mut out);
    out
}

/// The manual page: clap_mangen's sections, except for three. The synopsis is the
/// usage line people read (clap_mangen lists every option bare, and prints a flag
/// with no long name as `[-1   ]`). The text after the options (the type families
/// and examples, laid out in columns) is printed as it is rather than refilled into
/// paragraphs, under a heading of its own. And an EXIT STATUS section, which
/// clap_mangen has no source for, says what each status means.
fn render_man(command: clap::Command, out: &mut Vec<u8>) {
    let extra = command
        .get_after_long_help()
        .map(|text| text.to_string())
        .unwrap_or_default();
    let man = clap_mangen::Man::new(command);
    // Writing into a Vec cannot fail.
    let _ = man.render_title(out);
    let _ = man.render_name_section(out);
    out.extend_from_slice(SYNOPSIS.as_bytes());
    let _ = man.render_description_section(out);
    let _ = man.render_options_section(out);
    // The environment variables, the end of `--help`'s text, get the ENVIRONMENT
    // section a manual page has for them.
    let (extra, environment) = match extra.split_once(crate::cli::ENVIRONMENT_HELP) {
        Some((before, _)) => (before.trim_end(), Some(crate::cli::ENVIRONMENT_HELP)),
        None => (extra.as_str(), None),
    };
    for (heading, text) in [
        ("TYPE FAMILIES AND EXAMPLES", Some(extra)),
        ("ENVIRONMENT", environment),
    ] {
        let Some(text) = text.filter(|text| !text.is_empty()) else {
            continue;
        };
        out.extend_from_slice(format!(".SH \"{heading}\"\n.nf\n").as_bytes());
        // The heading line of the environment's text is the section's heading.
        for line in text.lines().filter(|line| *line != "Environment:") {
            out.extend_from_slice(roff_literal(line).as_bytes());
            out.push(b'\n');
        }
        out.extend_from_slice(b".fi\n");
    }
    out.extend_from_slice(EXIT_STATUS.as_bytes());
    let _ = man.render_version_section(out);
}

const SYNOPSIS: &str = ".SH SYNOPSIS\n\\fBpfind\\fR [\\fIOPTIONS\\fR] [\\fIROOT\\fR]...\n";

/// What `report::ExitStatus` means, for the manual page.
const EXIT_STATUS: &str = "\
.SH \"EXIT STATUS\"
.TP
0
Everything was walked. Also when the reader closed the pipe early, or when
\\-\\-max\\-results was reached. With \\-q: at least one entry matched, even if
errors were reported.
.TP
1
At least one error was reported (an unreadable directory, a missing root, a loop
under \\-L, a failed write), or a command of \\-\\-exec or \\-X failed; everything
else was still walked and printed. With
\\-q: nothing matched.
.TP
2
The command line was wrong; the message names the option and the value.
";

/// `line` as roff prints it verbatim: backslashes and hyphens escaped, and a
/// leading `.` or `'` kept from being read as a request.
fn roff_literal(line: &str) -> String {
    let escaped = line.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roff_literals() {
        let cases: &[(&str, &str)] = &[
            ("pfind -c", "pfind \\-c"),
            (".hidden", "\\&.hidden"),
            ("'quoted'", "\\&'quoted'"),
            ("a\\b", "a\\eb"),
            ("", ""),
        ];
        for &(line, want) in cases {
            assert_eq!(roff_literal(line), want, "{line}");
        }
    }

    #[test]
    fn man_page_has_a_usage_synopsis_and_exit_statuses() {
        let man = String::from_utf8(render(Generate::Man)).unwrap();
        assert!(man.contains(".SH SYNOPSIS\n\\fBpfind\\fR [\\fIOPTIONS\\fR] [\\fIROOT\\fR]...\n"));
        assert!(
            !man.contains("[-1 "),
            "clap_mangen's bare option list is gone"
        );
        let statuses = &man[man
            .find(".SH \"EXIT STATUS\"")
            .expect("an EXIT STATUS section")..];
        for status in ["\n0\n", "\n1\n", "\n2\n"] {
            assert!(statuses.contains(status), "status {status:?} is described");
        }
    }

    #[test]
    fn every_output_names_the_options() {
        for what in [Generate::Bash, Generate::Zsh, Generate::Fish, Generate::Man] {
            // roff writes a hyphen in an option name as `\-`.
            let text = String::from_utf8(render(what)).unwrap().replace("\\-", "-");
            for option in [
                "extension",
                "max-results",
                "json",
                "hyperlink",
                "generate",
                "exact-depth",
                "prune",
                "base-directory",
                "strip-cwd-prefix",
            ] {
                assert!(text.contains(option), "{what:?} lacks --{option}");
            }
        }
    }
}
