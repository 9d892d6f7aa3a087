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
    clap_complete::generate(shell, &mut cmd, BIN, &mut out);
    if shell == Shell::Bash {
        out = bash_states_spelt_one_way(&out);
    }
    Ok(Outcome { out, refused: Vec::new(), code: 0 })
}

/// The name the scripts complete.
const BIN: &str = "crio-pin";

/// clap_complete's bash script (4.6, clap-rs/clap#6421) names the state
/// of a subcommand two ways for a name with a hyphen: its loop over the
/// words reaches `crio__pin__subcmd__lint`, while the arms that complete a
/// subcommand's options are labelled `crio__subcmd__pin__subcmd__lint`,
/// so nothing past the subcommand completed. Each arm is relabelled as the
/// loop spells it; once clap_complete spells both alike this replaces
/// nothing, and the test that completes `crio-pin lint --` holds either way.
fn bash_states_spelt_one_way(script: &[u8]) -> Vec<u8> {
    let script = String::from_utf8_lossy(script);
    let loop_spelling = format!("{}__subcmd__", BIN.replace('-', "__"));
    let arm_spelling = format!("{}__subcmd__", BIN.replace('-', "__subcmd__"));
    script.replace(&arm_spelling, &loop_spelling).into_bytes()
}
