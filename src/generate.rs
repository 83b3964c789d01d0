//! `--generate bash|zsh|fish|man`: shell completions and the manual page, made from
//! the same clap definitions as `--help` (`cli::Cli`), so none of them can drift away
//! from the options pfind really has.

use crate::cli::{Cli, Generate};
use clap::CommandFactory;

/// The completion script or manual page asked for.
pub fn render(what: Generate) -> Vec<u8> {
    let mut command = Cli::command();
    let mut out = Vec::new();
    let shell = match what {
        Generate::Bash => clap_complete::Shell::Bash,
        Generate::Zsh => clap_complete::Shell::Zsh,
        Generate::Fish => clap_complete::Shell::Fish,
        Generate::Man => {
            // Writing into a Vec cannot fail.
            let _ = clap_mangen::Man::new(command).render(&mut out);
            return out;
        }
    };
    clap_complete::generate(shell, &mut command, "pfind", &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_output_names_the_options() {
        for what in [Generate::Bash, Generate::Zsh, Generate::Fish, Generate::Man] {
            // roff writes a hyphen in an option name as `\-`.
            let text = String::from_utf8(render(what)).unwrap().replace("\\-", "-");
            for option in ["extension", "max-results", "json", "hyperlink", "generate"] {
                assert!(text.contains(option), "{what:?} lacks --{option}");
            }
        }
    }
}
