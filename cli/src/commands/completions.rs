//! `crio-pin completions bash|zsh|fish`: the shell's completion script,
//! made from the same definitions as --help and the manual pages (`make`
//! writes each into build/completions, `make install` and the packages
//! install them where each shell looks).

use clap_complete::Shell;

use crate::args::{self, CompletionShell};
use crate::error::InputError;
use crate::output::Outcome;

pub fn run(shell: CompletionShell) -> Result<Outcome, InputError> {
    let shell = match shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
    };
    let mut out = Vec::new();
    // The visible commands only: clap_complete offers hidden ones too
    // (generate-man, which is no part of the interface), and clap's help.
    let full = args::command();
    let mut cmd = clap::Command::new("crio-pin")
        .version(env!("CARGO_PKG_VERSION"))
        .disable_help_subcommand(true)
        .args(full.get_arguments().cloned())
        .subcommands(full.get_subcommands().filter(|c| !c.is_hide_set()).cloned());
    clap_complete::generate(shell, &mut cmd, "crio-pin", &mut out);
    Ok(Outcome { out, refused: Vec::new(), code: 0 })
}
